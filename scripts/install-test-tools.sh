#!/bin/sh
# Installs the Debian tools the deploy tests use (tests/deploy/):
#   ShellCheck   lints deploy/*.sh and scripts/*.sh
#   debootstrap  builds a clean Debian root for the opt-in slow install test (UNO_SLOW_TESTS=1)
#   mosquitto    the MQTT broker the league's tests start on a free loopback port
#                (tests/league/test_broker.py; only the binary is used, no service is started)
# systemd-analyze (for `systemd-analyze verify` of the unit) comes with the systemd package and
# is not installed here: where it is missing, the unit test parses the file instead.
# Idempotent: installs only what is missing. Without root (or apt-get) it only says what to do;
# the tests that need a missing tool then skip with a clear message.
set -eu
missing=""
command -v shellcheck >/dev/null 2>&1 || missing="$missing shellcheck"
command -v debootstrap >/dev/null 2>&1 || [ -x /usr/sbin/debootstrap ] || missing="$missing debootstrap"
command -v mosquitto >/dev/null 2>&1 || [ -x /usr/sbin/mosquitto ] || missing="$missing mosquitto"
if [ -z "$missing" ]; then
    exit 0
fi
if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "install-test-tools: missing:$missing; run 'sudo apt-get install -y$missing' to run the deploy and league tests" >&2
    exit 0
fi
echo "install-test-tools: installing Debian's$missing (for the deploy and league tests)" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086 # the list is meant to split into package names
apt-get install -y -qq --no-install-recommends $missing >/dev/null
