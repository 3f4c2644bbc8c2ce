#!/bin/sh
# Makes a venv and installs this checkout (editable) and the locked versions of everything
# `make test` needs into it, with several pips at once:
#
#   PYTHON=python3 scripts/install-venv.sh VENV LOCK [STREAMS]
#
# LOCK (requirements/test.lock, made by `make lock`) names every distribution the test extras
# pull in, each at one exact version, so no pip has to resolve anything: each installs its share
# of the lines with --no-deps, and one more builds the editable install. A single pip spends a
# fresh clone's set-up one step at a time: reading the index, unpacking wheels, compiling
# bytecode, building the editable wheel. STREAMS (default 3) pips share the lines, round robin:
# on the 2-core development machine (2026-12-01, a torture benchmark running at nice 10) one pip
# for everything took 24.4-24.6 s, two and the editable 15-20 s, three 10.3-13.3 s, four or six
# no less.
#
# Where PYTHON has a pip of its own that can install into another interpreter (pip 22.3 and
# later: --python), the venv is made without pip and PYTHON's pip fills it, while the venv's own
# pip is installed beside them (ensurepip): making a venv with its pip first took 5-6 s of the
# set-up, one step before any other. Else (no pip beside PYTHON, or a venv already there) the
# venv's own pip does it all.
#
# `pip check` then proves the lock whole: a pin in pyproject.toml that the lock does not match
# (a version bumped without `make lock`) fails here, with the command that mends it.
set -eu
venv=$1
lock=$2
streams=${3:-3}
python=${PYTHON:-python3}
# The interpreter itself, not a version manager's shim: pyenv's shim runs `pyenv rehash` after
# every `pip install` it passes on, and the pips below, run at once, race for its lock (a fresh
# clone's set-up failed so once, 2026-12-05: "pyenv: cannot rehash: ... isn't writable").
python=$("$python" -c 'import sys; print(sys.executable)' 2>/dev/null) || python=${PYTHON:-python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pids=""

outside=""
if [ ! -x "$venv/bin/pip" ] && "$python" -m venv --without-pip "$venv" \
        && "$python" -m pip --python "$venv/bin/python" --version >/dev/null 2>&1; then
    outside=1
    { "$venv/bin/python" -m ensurepip --default-pip >"$tmp/ensurepip" 2>&1 \
        || { cat "$tmp/ensurepip" >&2; exit 1; }; } &
    pids="$pids $!"
else
    [ -x "$venv/bin/pip" ] || "$python" -m venv "$venv"
fi

# PYTHON's pip installing into the venv, or the venv's own
pip() {
    if [ -n "$outside" ]; then
        "$python" -m pip --python "$venv/bin/python" "$@"
    else
        "$venv/bin/pip" "$@"
    fi
}

grep -v '^[[:space:]]*\(#\|$\)' "$lock" | awk -v n="$streams" -v dir="$tmp" \
    '{ print > (dir "/part" (NR % n)) }'

for part in "$tmp"/part*; do
    pip install --quiet --no-deps -r "$part" &
    pids="$pids $!"
done
pip install --quiet --no-deps -e . &
pids="$pids $!"

failed=0
for pid in $pids; do
    wait "$pid" || failed=1
done
if [ "$failed" != 0 ]; then
    echo "install-venv: a pip failed (above)" >&2
    exit 1
fi
if ! "$venv/bin/pip" check >"$tmp/check" 2>&1; then
    cat "$tmp/check" >&2
    echo "install-venv: $lock does not match pyproject.toml: run 'make lock' and commit it" >&2
    exit 1
fi
