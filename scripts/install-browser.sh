#!/bin/sh
# Installs Debian's Chromium headless shell (and a Japanese font, so the Japanese pages render in
# screenshots) for the real-browser tests (tests/support/browser.py). Idempotent: does nothing
# when both are there. Playwright drives this browser; it never downloads one of its own. Without
# root (or apt-get) it only says what to do: the browser tests then skip with a clear message.
#
# The headless shell, not the full browser: it is the same Blink without the desktop browser
# around it, and the browser tests took 24 CPU-seconds with it where the full browser's new
# headless mode took 40 (tests/test_web_browser.py on the 2-core development machine). Where a
# release has no chromium-headless-shell package, the full chromium is installed instead (the
# tests use whichever is there: tests/support/browser.py).
set -eu
SHELL_BIN=/usr/bin/chromium-headless-shell
FONT_DIR=/usr/share/fonts/opentype/ipafont-gothic
need=""
[ -x "$SHELL_BIN" ] || need="chromium-headless-shell"
[ -d "$FONT_DIR" ] || need="$need fonts-ipafont-gothic"
if [ -z "$need" ]; then
    exit 0
fi
if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "install-browser: missing $need; run 'sudo apt-get install -y $need' to run the browser tests" >&2
    exit 0
fi
echo "install-browser: installing $need (for the browser tests)" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
if ! apt-cache show chromium-headless-shell >/dev/null 2>&1; then
    need=$(echo "$need" | sed 's/chromium-headless-shell/chromium/')
    SHELL_BIN=/usr/bin/chromium
fi
# The package list is meant to split into words.
# shellcheck disable=SC2086
apt-get install -y -qq $need >/dev/null
echo "install-browser: $("$SHELL_BIN" --version 2>/dev/null || echo chromium installed)" >&2
