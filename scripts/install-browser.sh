#!/bin/sh
# Installs Debian's Chromium headless shell (and a Japanese font, so the Japanese pages render in
# screenshots) for the real-browser tests (tests/support/browser.py). Idempotent: does nothing
# when both are there. Playwright drives this browser; it never downloads one of its own. Without
# root (or apt-get) it only says what to do: the browser tests then skip with a clear message.
#
# The headless shell, not the full browser: it is the same Blink without the desktop browser
# around it, and the browser tests took 49 CPU-seconds with it where the full browser's own
# headless mode took 96 (the five browser modules on the 2-core development machine). Where the
# full chromium is already installed, the shell is only tried: if it cannot be installed (no
# such package in this release, no network), the tests drive chromium and nothing fails. Where
# neither is there and the release has no chromium-headless-shell, chromium is installed.
set -eu
# (the paths can be given: tests/project/test_install_browser.py runs the script against fakes)
SHELL_BIN=${CHROMIUM_SHELL_BIN:-/usr/bin/chromium-headless-shell}
FULL_BIN=${CHROMIUM_FULL_BIN:-/usr/bin/chromium}
FONT_DIR=${JAPANESE_FONT_DIR:-/usr/share/fonts/opentype/ipafont-gothic}
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
optional=""
if [ -x "$FULL_BIN" ]; then
    optional=yes  # the tests can drive the full browser: the shell is a saving, not a need
fi
# A failed step: where the full browser and the font are there, the tests use them (exit 0);
# else make test fails.
failed() {
    if [ -n "$optional" ] && [ -d "$FONT_DIR" ]; then
        echo "install-browser: $1; the browser tests use $FULL_BIN" >&2
        exit 0
    fi
    exit 1
}
apt-get update -qq || failed "apt-get update failed"
if ! apt-cache show chromium-headless-shell >/dev/null 2>&1; then
    if [ -n "$optional" ]; then
        need=$(echo "$need" | sed 's/chromium-headless-shell//')
    else
        need=$(echo "$need" | sed 's/chromium-headless-shell/chromium/')
    fi
    SHELL_BIN=$FULL_BIN
fi
# The package list is meant to split into words.
# shellcheck disable=SC2086
set -- $need
if [ $# -gt 0 ]; then
    apt-get install -y -qq "$@" >/dev/null || failed "could not install $need"
fi
echo "install-browser: $("$SHELL_BIN" --version 2>/dev/null || echo chromium installed)" >&2
