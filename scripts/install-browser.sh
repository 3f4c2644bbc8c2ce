#!/bin/sh
# Installs Debian's Chromium for the real-browser tests (tests/test_web_browser.py).
# Idempotent: does nothing when /usr/bin/chromium is there. Playwright drives this browser; it
# never downloads one of its own. Without root (or apt-get) it only says what to do: the browser
# tests then skip with a clear message.
set -eu
CHROMIUM=/usr/bin/chromium
if [ -x "$CHROMIUM" ]; then
    exit 0
fi
if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "install-browser: $CHROMIUM is missing; run 'sudo apt-get install -y chromium' to run the browser tests" >&2
    exit 0
fi
echo "install-browser: installing Debian's chromium (for the browser tests)" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq chromium >/dev/null
echo "install-browser: $($CHROMIUM --version 2>/dev/null || echo chromium installed)" >&2
