#!/bin/bash
# The companion on the Pi's own architecture: an arm64 Debian Trixie root run under qemu's user
# emulation, installed as deploy/install.sh installs a Pi, a chosen part of the test suite run
# there, and what it reads and referees compared with this (x86_64) machine's .venv. Not part
# of `make test` (it downloads Debian and PyPI's aarch64 wheels the first time); `make arm64-check`:
#
#     sudo bash scripts/arm64-check.sh              # everything (about 30 minutes the first time)
#     sudo bash scripts/arm64-check.sh --no-tests   # only the comparison and the cost model
#
# Steps (each prints its time):
#   1. host tools: qemu-user-static, binfmt-support, debootstrap (apt-get, where missing)
#   2. binfmt_misc mounted, qemu-aarch64 enabled
#   3. debootstrap --arch=arm64 --variant=minbase trixie into build/arm64-trixie (ignored by
#      git; kept and reused, delete it to start over; ARM64_ROOT names another folder), with the
#      host's CA bundle and pip settings (a proxy's CA, a constraint file) copied in
#   4. what deploy/install.sh asks apt for where Debian has it (python3-libcamera; python3-lgpio,
#      python3-picamera2 and rpicam-apps-lite are Raspberry Pi's own), then deploy/install.sh
#      --no-apt itself in the chroot: the venv /opt/uno-companion/venv that sees the system's
#      packages, with the project and its pinned aarch64 wheels; pytest and friends added there
#   5. pytest on a chosen part of the suite (ARM64_TESTS) under emulation
#   6. scripts/arch_probe.py on both sides (here also with 128-bit vectors only) (`companion recognize --json` on samples/, a scripted
#      live game's events, each stage timed), compared by scripts/arch_compare.py (labels and
#      events identical, confidences within 0.005), and the Pi cost model written to
#      benchmarks/results/pi_cost_model.json
#
# Needs root (debootstrap, chroot, binfmt_misc) and the network (Debian, PyPI).
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/chroot-lib.sh
. "$REPO/scripts/chroot-lib.sh"
ROOT=${ARM64_ROOT:-$REPO/build/arm64-trixie}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
VENV=/opt/uno-companion/venv
HOST_PY=${HOST_PY:-$REPO/.venv/bin/python}
OUT=$REPO/build/arm64-check
# The part of the suite run under emulation (20 to 160 times slower than here): the engines and a
# replay, the table and the referee on recorded readings, the reader's detector, the web API, the
# doctor's Pi-only check. Not the browser tests (no Chromium in the root). The reader on samples/
# and on a rendered table is step 6 (compared with this machine's).
DEFAULT_TESTS="tests/engine/test_classic.py tests/engine/test_flip.py tests/engine/test_grid.py
tests/replay/test_replay_grid_examples.py tests/referee/test_table.py tests/referee/test_camera_referee.py
tests/vision/test_detect_fast_paths.py tests/web/test_routes.py tests/app/test_doctor_pi_only_checks.py
tests/project/test_arch_compare.py"
TESTS=${ARM64_TESTS:-$DEFAULT_TESTS}
RUN_TESTS=1
while [ $# -gt 0 ]; do
    case "$1" in
        --no-tests) RUN_TESTS=0 ;;
        -h|--help) sed -n '2,27p' "$0"; exit 0 ;;
        *) echo "arm64-check: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
[ "$(id -u)" = 0 ] || { echo "arm64-check: needs root (binfmt_misc, debootstrap, chroot): sudo $0" >&2; exit 1; }
[ -x "$HOST_PY" ] || { echo "arm64-check: no $HOST_PY: run make install first" >&2; exit 1; }

STARTED=$(date +%s)
STEP_STARTED=$STARTED
TIMES=()
say() { printf '==> %s\n' "$*"; }
step() {
    local now
    now=$(date +%s)
    [ -z "${STEP_NAME:-}" ] || TIMES+=("$(printf '%5ds  %s' $((now - STEP_STARTED)) "$STEP_NAME")")
    STEP_NAME=$1
    STEP_STARTED=$now
    [ -z "$1" ] || say "$1"
}
summary() {
    step ""
    printf '\n==> arm64-check: step times\n'
    printf '    %s\n' "${TIMES[@]}"
    printf '    %5ds  total\n' $(($(date +%s) - STARTED))
}

# --- 1. host tools -----------------------------------------------------------------------------
step "host tools: qemu-user-static, binfmt-support, debootstrap, sysbench"
missing=()
command -v qemu-aarch64-static >/dev/null 2>&1 || missing+=(qemu-user-static)
command -v update-binfmts >/dev/null 2>&1 || missing+=(binfmt-support)
{ command -v debootstrap || [ -x /usr/sbin/debootstrap ]; } >/dev/null 2>&1 || missing+=(debootstrap)
command -v sysbench >/dev/null 2>&1 || missing+=(sysbench)
if [ ${#missing[@]} -gt 0 ]; then
    echo "    apt-get install ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
else
    echo "    installed"
fi
DEBOOTSTRAP=$(command -v debootstrap || echo /usr/sbin/debootstrap)

# --- 2. binfmt_misc ----------------------------------------------------------------------------
step "binfmt_misc: qemu-aarch64"
mountpoint -q /proc/sys/fs/binfmt_misc || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
update-binfmts --enable qemu-aarch64 2>/dev/null || true
grep -q enabled /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null ||
    { echo "arm64-check: qemu-aarch64 is not registered in binfmt_misc" >&2; exit 1; }
echo "    $(head -1 /proc/sys/fs/binfmt_misc/qemu-aarch64), $(grep interpreter /proc/sys/fs/binfmt_misc/qemu-aarch64)"

# --- 3. the root -------------------------------------------------------------------------------
step "arm64 Trixie root in $ROOT"
if [ ! -x "$ROOT/usr/bin/python3" ] || [ ! -e "$ROOT/.arm64-check-root" ]; then
    rm -rf "$ROOT"
    mkdir -p "$ROOT"
    "$DEBOOTSTRAP" --arch=arm64 --variant=minbase \
        --include=python3,python3-venv,python3-pip,systemd,ca-certificates \
        trixie "$ROOT" "$MIRROR" >"$ROOT.debootstrap.log" 2>&1 ||
        { tail -20 "$ROOT.debootstrap.log" >&2; exit 1; }
    touch "$ROOT/.arm64-check-root"
else
    echo "    reused (delete it to start over)"
fi
# the interpreter where binfmt_misc looks for it, in case it was registered without fix-binary
cp /usr/bin/qemu-aarch64-static "$ROOT/usr/bin/qemu-aarch64-static"
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
# pip and apt there trust what this machine trusts (a proxy's own CA, where there is one), and
# pip reads this machine's settings. /etc/xdg/pip here caps torch (the train extra only): the
# companion's venv installs no torch, so the cap changes nothing there; copied as it is.
cp /etc/ssl/certs/ca-certificates.crt "$ROOT/etc/ssl/certs/ca-certificates.crt"
[ ! -f /etc/pip.conf ] || cp /etc/pip.conf "$ROOT/etc/pip.conf"
if [ -d /etc/xdg/pip ]; then
    mkdir -p "$ROOT/etc/xdg"
    rm -rf "$ROOT/etc/xdg/pip"
    cp -r /etc/xdg/pip "$ROOT/etc/xdg/pip"
fi

enter_root
echo "    $(in_root uname -m), $(in_root python3 --version)"

# --- 4. install as on a Pi ---------------------------------------------------------------------
step "install as deploy/install.sh does on a Pi (--no-apt: picamera2 and rpicam-apps are Raspberry Pi's own)"
# Debian has libcamera's Python bindings; python3-lgpio, python3-picamera2 and rpicam-apps-lite
# come from Raspberry Pi's own archive only. (And sysbench: the cost model's yardstick.)
PI_DEBIAN=(python3-libcamera sysbench)
if ! in_root dpkg -s "${PI_DEBIAN[@]}" >/dev/null 2>&1; then
    in_root apt-get update -qq
    in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        "${PI_DEBIAN[@]}" >/dev/null
fi
for package in python3-lgpio python3-picamera2 rpicam-apps-lite; do
    in_root apt-cache show "$package" >/dev/null 2>&1 || echo "    not in Debian: $package"
done
copy_checkout
in_root bash /src/deploy/install.sh --no-apt --no-start 2>&1 | sed 's/^/    /'
# the test tools at the versions `make test` uses (requirements/test.lock)
tools=$(grep -E '^(pytest|pytest-xdist|hypothesis|execnet|iniconfig|pluggy|packaging|sortedcontainers|attrs)==' \
    "$REPO/requirements/test.lock" | tr '\n' ' ')
# shellcheck disable=SC2086 # the list is meant to split into requirements
in_root $VENV/bin/python -m pip install --quiet --disable-pip-version-check --no-input $tools
in_root $VENV/bin/python - <<'PY' | sed 's/^/    /'
import platform, sys
from importlib.metadata import version
print(f"Python {sys.version.split()[0]} on {platform.machine()}; "
      + ", ".join(f"{n} {version(n)}" for n in ("numpy", "opencv-python-headless", "onnxruntime", "flask", "gpiozero")))
for name in ("libcamera", "lgpio", "picamera2"):
    try:
        __import__(name)
        print(f"{name}: imports")
    except Exception as exc:
        print(f"{name}: not here ({type(exc).__name__}: {exc})")
PY
# the doctor's Pi-only check, told it runs on a Pi 5: it names what a Debian root lacks
in_root sh -c "cd /tmp && printf 'Raspberry Pi 5 Model B Rev 1.0' >/tmp/pi-model && $VENV/bin/python -c \"
from pathlib import Path
from app.doctor import check_system, format_line
print(format_line(check_system(model_file=Path('/tmp/pi-model'))))
\"" | sed 's/^/    doctor as on a Pi: /'

# --- 5. the suite under emulation --------------------------------------------------------------
status=0
mkdir -p "$OUT"
if [ "$RUN_TESTS" = 1 ]; then
    # shellcheck disable=SC2086 # the list is meant to split into files
    step "pytest under emulation: $(echo $TESTS | wc -w) files (log: build/arm64-check/pytest.log)"
    # shellcheck disable=SC2086
    in_root sh -c "cd /src && exec $VENV/bin/python -m pytest -p no:cacheprovider -o addopts= -rfEs \
        --basetemp=/tmp/pytest-arm64 \"\$@\"" pytest $TESTS >"$OUT/pytest.log" 2>&1 || status=1
    tail -n 12 "$OUT/pytest.log" | sed 's/^/    /'
fi

# --- 6. the comparison and the cost model ------------------------------------------------------
step "probe on x86_64 (the host's .venv), and again with 128-bit vectors only"
"$HOST_PY" "$REPO/scripts/arch_probe.py" --out "$OUT/x86_64.json"
OPENCV_CPU_DISABLE="AVX512-SKX,AVX512-COMMON,AVX512F,AVX2,FMA3,AVX,FP16" \
    "$HOST_PY" "$REPO/scripts/arch_probe.py" --out "$OUT/x86_64-128bit.json"
step "probe on aarch64 (emulated, the Pi's venv)"
in_root sh -c "cd /src && $VENV/bin/python scripts/arch_probe.py --out /tmp/aarch64.json"
cp "$ROOT/tmp/aarch64.json" "$OUT/aarch64.json"
step "compare, and the Pi cost model"
"$HOST_PY" "$REPO/scripts/arch_compare.py" "$OUT/x86_64.json" "$OUT/aarch64.json" \
    --narrow "$OUT/x86_64-128bit.json" \
    --cost-model "$REPO/benchmarks/results/pi_cost_model.json" || status=1

summary
if [ "$status" = 0 ]; then say "arm64-check: passed"; else say "arm64-check: FAILED"; fi
exit "$status"
