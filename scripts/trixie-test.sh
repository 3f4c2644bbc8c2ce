#!/bin/bash
# Runs the test suite on the Pi's own Python: Debian Trixie (the base of Raspberry Pi OS Trixie),
# Python 3.13, numpy 2. Not part of `make test` (it downloads Debian, about 5 minutes the first
# time); run it after changing dependencies or anything that touches Python versions:
#
#     sudo bash scripts/trixie-test.sh                  # as deploy/install.sh installs the Pi
#     sudo bash scripts/trixie-test.sh --debian         # Debian's own numpy, OpenCV, Flask ...
#     sudo bash scripts/trixie-test.sh -- -x tests/vision/test_sources.py   # pytest's arguments after --
#
# What it does:
#   1. debootstrap a minimal Trixie into build/trixie (ignored by git; kept and reused, delete it
#      to start over; TRIXIE_ROOT names another folder)
#   2. apt-get the packages deploy/install.sh gets where Debian has them (Debian has libcamera's
#      and lgpio's Python bindings; picamera2 and rpicam-apps come only from Raspberry Pi's own
#      archive, so the picamera2 source is tested with its stand-in, tests/support/fake_picamera2.py)
#   3. copy the checkout (what git tracks, and new files it does not ignore) to /src there
#   4. a venv that sees the system's packages, as on the Pi, with the project and its test extras:
#      default    the pinned versions of pyproject.toml (what the Pi runs)
#      --debian   Debian's python3-numpy, -opencv, -flask, ... where Debian has them; pip only
#                 for the rest
#   5. the test suite, without the browser tests (Debian's Chromium is not installed there)
#
# Needs root (debootstrap, chroot, mounting /proc there) and the network (Debian, PyPI).
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/chroot-lib.sh
. "$REPO/scripts/chroot-lib.sh"
ROOT=${TRIXIE_ROOT:-$REPO/build/trixie}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
DEBIAN=0
while [ $# -gt 0 ]; do
    case "$1" in
        --debian) DEBIAN=1 ;;
        --) shift; break ;;
        -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
        *) echo "trixie-test: unknown option $1 (pytest's arguments go after --)" >&2; exit 2 ;;
    esac
    shift
done
[ "$(id -u)" = 0 ] || { echo "trixie-test: needs root (debootstrap, chroot): sudo $0" >&2; exit 1; }
DEBOOTSTRAP=$(command -v debootstrap || echo /usr/sbin/debootstrap)
[ -x "$DEBOOTSTRAP" ] || { echo "trixie-test: apt-get install debootstrap first" >&2; exit 1; }

# What deploy/install.sh asks apt for, as far as Debian has it (the rest is Raspberry Pi's), and
# what every Raspberry Pi OS has that a minimal Debian lacks (useradd, for the installer's tests).
PI_PACKAGES=(python3 python3-venv python3-pip python3-libcamera python3-lgpio passwd)
# --debian: the project's dependencies as Debian packages, where Debian has them.
DEBIAN_PACKAGES=(python3-numpy python3-opencv python3-flask python3-waitress python3-gpiozero
                 python3-segno python3-tqdm python3-pytest python3-hypothesis python3-xdist)

say() { printf '==> %s\n' "$*"; }

if [ ! -x "$ROOT/usr/bin/python3" ]; then
    say "debootstrap trixie into $ROOT"
    mkdir -p "$ROOT"
    "$DEBOOTSTRAP" --variant=minbase --include=python3,python3-venv,python3-pip,ca-certificates \
        trixie "$ROOT" "$MIRROR" >"$ROOT.debootstrap.log" 2>&1 ||
        { tail -20 "$ROOT.debootstrap.log" >&2; exit 1; }
fi
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
# pip there trusts what this machine trusts (a proxy's own CA, where there is one)
cp /etc/ssl/certs/ca-certificates.crt "$ROOT/etc/ssl/certs/ca-certificates.crt"

enter_root

wanted=("${PI_PACKAGES[@]}")
[ "$DEBIAN" = 0 ] || wanted+=("${DEBIAN_PACKAGES[@]}")
say "apt-get the Debian packages: ${wanted[*]}"
in_root apt-get update -qq
available=()
for package in "${wanted[@]}"; do
    if in_root apt-cache show "$package" >/dev/null 2>&1; then
        available+=("$package")
    else
        echo "    not in Debian: $package"
    fi
done
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${available[@]}" >/dev/null

say "copy the checkout to $ROOT/src"
copy_checkout

say "venv /venv (sees the system's packages) with the project"
in_root python3 -m venv --clear --system-site-packages /venv
pip=(/venv/bin/python -m pip install --quiet --disable-pip-version-check --no-input)
if [ "$DEBIAN" = 0 ]; then
    in_root "${pip[@]}" -e '/src[test]'
else
    # Debian's versions where it has them: the project without its pins, then what is missing.
    in_root "${pip[@]}" --no-deps -e /src
    missing=$(in_root /venv/bin/python - <<'PY'
import importlib.util
need = {"numpy": "numpy", "cv2": "opencv-python-headless", "flask": "flask",
        "waitress": "waitress", "segno": "segno", "gpiozero": "gpiozero", "tqdm": "tqdm",
        "pytest": "pytest", "hypothesis": "hypothesis", "xdist": "pytest-xdist",
        "importlinter": "import-linter"}
print(" ".join(p for m, p in need.items() if importlib.util.find_spec(m) is None))
PY
)
    if [ -n "$missing" ]; then
        echo "    from PyPI (not in Debian): $missing"
        # shellcheck disable=SC2086 # the list is meant to split into names
        in_root "${pip[@]}" $missing
    fi
fi
in_root /venv/bin/python - <<'PY'
import sys
from importlib.metadata import version
names = ("numpy", "opencv-python-headless", "flask", "waitress", "gpiozero")
found = []
for name in names:
    try:
        found.append(f"{name} {version(name)}")
    except Exception:
        try:
            module = __import__({"opencv-python-headless": "cv2"}.get(name, name))
            found.append(f"{name} {module.__version__} (Debian's)")
        except Exception as exc:
            found.append(f"{name}: {exc}")
print(f"    Python {sys.version.split()[0]}; " + ", ".join(found))
for name in ("lgpio", "libcamera", "picamera2"):
    try:
        __import__(name)
        print(f"    {name}: Debian's")
    except ImportError as exc:
        print(f"    {name}: not here ({exc})")
PY

say "pytest (no browser tests: Debian's Chromium is not installed there)"
status=0
in_root sh -c 'cd /src && exec /venv/bin/python -m pytest -p no:cacheprovider -n 2 -rfEs \
    --ignore=tests/web/test_pages_browser.py "$@"' pytest "$@" || status=$?
say "trixie-test: pytest exit status $status"
exit "$status"
