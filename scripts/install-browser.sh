#!/bin/sh
# Installs Debian's Chromium (and a Japanese font, so the Japanese pages render in screenshots)
# for the real-browser tests (tests/test_web_browser.py). Idempotent: does nothing when both are
# there. Playwright drives this browser; it never downloads one of its own. Without root (or
# apt-get) it only says what to do: the browser tests then skip with a clear message.
set -eu
CHROMIUM=/usr/bin/chromium
FONT_DIR=/usr/share/fonts/opentype/ipafont-gothic
need=""
[ -x "$CHROMIUM" ] || need="chromium"
[ -d "$FONT_DIR" ] || need="$need fonts-ipafont-gothic"
if [ -z "$need" ]; then
    exit 0
fi
if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "install-browser: missing$need; run 'sudo apt-get install -y$need' to run the browser tests" >&2
    exit 0
fi
echo "install-browser: installing$need (for the browser tests)" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# The package list is meant to split into words.
# shellcheck disable=SC2086
apt-get install -y -qq $need >/dev/null
echo "install-browser: $("$CHROMIUM" --version 2>/dev/null || echo chromium installed)" >&2
