#!/bin/bash
# Installs the Uno table companion on a Raspberry Pi (Raspberry Pi OS Trixie, 64-bit) as a
# systemd service. Run it from a checkout of the project:
#
#     sudo deploy/install.sh                 # everything; the table starts at once
#     sudo deploy/install.sh --hostname uno  # ... and the Pi answers as http://uno.local:8000
#     deploy/install.sh --dry-run            # print every step, change nothing
#
# Idempotent: run it again after `git pull` to update; an edited configuration is never
# overwritten. deploy/uninstall.sh undoes it. docs/install.md is the manual.
#
# What it does, in order:
#   0. checks the OS release first: Raspberry Pi OS Trixie (Python 3.13; the pinned numpy 2
#      breaks an older release's picamera2, whose error then says "picamera2 is not installed")
#   1. apt packages: the camera (python3-picamera2, libcamera, rpicam-apps-lite), lgpio,
#      python3-venv, avahi-daemon
#   2. the user uno-companion, in the groups video (camera) and gpio (pins)
#   3. a virtual environment /opt/uno-companion/venv that sees the system's picamera2
#      (--system-site-packages), with the project and its dependencies from the hashed lock
#      (requirements/runtime.lock)
#   4. /etc/uno-companion/companion.toml from deploy/companion.toml, if there is none yet
#   5. the systemd unit uno-companion.service, and uno-companion-doctor
#   6. the web port announced on the network (avahi) and opened in ufw where ufw is active
#   7. enable the unit and (re)start it
#   8. a smoke test: the venv imports picamera2 and lgpio (what the camera and pins need)
#
# --root DIR installs into a staging root (the tests use it): every path is put under DIR,
# users are added with `useradd --prefix DIR`, and nothing is started. The venv is made with
# this machine's Python, so its scripts name DIR: for an SD-card image, run the script
# inside the image's chroot instead.
set -euo pipefail

usage() {
    cat <<'USAGE'
usage: install.sh [--dry-run] [--root DIR] [--no-apt] [--no-pip] [--no-start]
                  [--port N] [--hostname NAME] [--python PATH] [--wheels DIR]
                  [--any-release]

  --dry-run        print every step and change nothing
  --root DIR       install into a staging root DIR instead of / (starts nothing)
  --no-apt         skip the apt packages (already installed, or a test)
  --no-pip         make the venv but install nothing into it (tests)
  --no-start       enable the service but do not (re)start it now
  --port N         the web port written into a new configuration (default 8000)
  --hostname NAME  rename this machine, so that phones can open http://NAME.local:PORT
  --python PATH    the Python that makes the venv (default /usr/bin/python3)
  --wheels DIR     install from the wheels in DIR only (pip --no-index --find-links DIR)
  --any-release    install on another OS release than Trixie (at your own risk)
USAGE
}

ROOT=/
DRY_RUN=0
APT=1
PIP=1
START=1
PORT=""
NEW_HOSTNAME=""
PYTHON=/usr/bin/python3
WHEELS=""
ANY_RELEASE=0
while [ $# -gt 0 ]; do
    case "$1" in
        --dry-run) DRY_RUN=1 ;;
        --root) ROOT=${2:?--root needs a directory}; shift ;;
        --root=*) ROOT=${1#--root=} ;;
        --no-apt) APT=0 ;;
        --no-pip) PIP=0 ;;
        --no-start) START=0 ;;
        --port) PORT=${2:?--port needs a number}; shift ;;
        --port=*) PORT=${1#--port=} ;;
        --hostname) NEW_HOSTNAME=${2:?--hostname needs a name}; shift ;;
        --hostname=*) NEW_HOSTNAME=${1#--hostname=} ;;
        --python) PYTHON=${2:?--python needs a path}; shift ;;
        --python=*) PYTHON=${1#--python=} ;;
        --wheels) WHEELS=${2:?--wheels needs a directory}; shift ;;
        --wheels=*) WHEELS=${1#--wheels=} ;;
        --any-release) ANY_RELEASE=1 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "install.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    esac
    shift
done

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=deploy/lib.sh
. "$SRC/deploy/lib.sh"

if [ -n "$PORT" ] && ! [[ "$PORT" =~ ^[0-9]+$ && "$PORT" -ge 1 && "$PORT" -le 65535 ]]; then
    die "--port must be a number from 1 to 65535, got '$PORT'"
fi
if [ -n "$NEW_HOSTNAME" ] && ! [[ "$NEW_HOSTNAME" =~ ^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$ ]]; then
    die "--hostname must be lower-case letters, digits and '-' (e.g. uno), got '$NEW_HOSTNAME'"
fi
check_root_privileges
[ -x "$PYTHON" ] || [ "$DRY_RUN" = 1 ] || [ "$APT" = 1 ] || die "no Python at $PYTHON (see --python)"

say "Installing the Uno table companion from $SRC into ${ROOT}$([ "$DRY_RUN" = 1 ] && echo ' (dry run: nothing is changed)')"

# --- 0. the release -------------------------------------------------------------------------
step "the OS release: Raspberry Pi OS $RELEASE (64-bit)"
codename=$(os_codename)
if [ "$codename" = "$RELEASE" ]; then
    note "$(os_pretty_name)"
elif [ -z "$codename" ] && [ "$LIVE" = 0 ]; then
    note "the root has no /etc/os-release yet: not checked"
else
    problem="this is $(os_pretty_name) (${codename:-unknown}); the companion needs Raspberry Pi OS $RELEASE: its Python 3.13 and numpy 2 (an older release's picamera2 breaks on the pinned numpy). Flash Raspberry Pi OS Lite (64-bit) Trixie with Raspberry Pi Imager, or pass --any-release to try anyway"
    if [ "$ANY_RELEASE" = 1 ] || [ "$DRY_RUN" = 1 ]; then
        warn "$problem"
    else
        die "$problem"
    fi
fi

# --- 1. apt packages ------------------------------------------------------------------------
step "apt packages: ${APT_PACKAGES[*]}"
if [ "$APT" = 0 ]; then
    note "skipped (--no-apt)"
elif [ "$LIVE" = 0 ]; then
    note "skipped: a staging root gets its packages from its image builder"
else
    run env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    # No recommends: picamera2 would otherwise pull in Qt and OpenGL for its preview windows.
    run env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        "${APT_PACKAGES[@]}"
fi

# --- 2. the user ----------------------------------------------------------------------------
step "user $APP_USER in the groups ${APP_GROUPS[*]}"
for group in "${APP_GROUPS[@]}"; do
    if has_group "$group"; then
        note "group $group exists"
    else
        run groupadd --system "${PREFIX_OPT[@]}" "$group"
    fi
done
if has_user "$APP_USER"; then
    note "user $APP_USER exists"
else
    run useradd --system --user-group --home-dir "$STATE_DIR" --no-create-home \
        --shell /usr/sbin/nologin --comment "Uno table companion" "${PREFIX_OPT[@]}" "$APP_USER"
fi
missing_groups=()
for group in "${APP_GROUPS[@]}"; do
    in_group "$APP_USER" "$group" || missing_groups+=("$group")
done
if [ ${#missing_groups[@]} -gt 0 ]; then
    run usermod --append --groups "$(IFS=,; echo "${missing_groups[*]}")" "${PREFIX_OPT[@]}" "$APP_USER"
else
    note "$APP_USER is in ${APP_GROUPS[*]}"
fi

# --- 3. the virtual environment ---------------------------------------------------------------
step "virtual environment $VENV (sees the system's picamera2) with the project"
run install -d -m 0755 "$(R "$APP_DIR")"
if venv_ok; then
    note "$VENV exists and sees the system packages"
else
    venv_opts=(--clear --system-site-packages)
    [ "$PIP" = 1 ] || venv_opts+=(--without-pip)
    run "$PYTHON" -m venv "${venv_opts[@]}" "$(R "$VENV")"
fi
if [ "$PIP" = 0 ]; then
    note "pip install skipped (--no-pip)"
else
    pip_opts=(--disable-pip-version-check --no-input --quiet)
    if [ -n "$WHEELS" ]; then
        pip_opts+=(--no-index --find-links "$WHEELS")
    fi
    # Every distribution from the hashed lock (made by `make lock` from pyproject.toml's pins):
    # pip refuses a file whose hash is not in it, so a re-upload or a mirror cannot change what
    # runs on the table. The lock holds the build backend too, and the project itself is then
    # built with it (no build isolation: an isolated build would fetch an unhashed setuptools).
    # A directory is always rebuilt and reinstalled: a re-run after `git pull` updates it.
    run "$(R "$VENV")/bin/python" -m pip install "${pip_opts[@]}" --require-hashes \
        -r "$SRC/requirements/runtime.lock"
    run "$(R "$VENV")/bin/python" -m pip install "${pip_opts[@]}" --no-deps --no-build-isolation "$SRC"
fi
run install -d -m 0755 "$(R "$APP_DIR")/docs"
for doc in install.md hardware-guide.md hardware.md configuration.md; do
    if [ -f "$SRC/docs/$doc" ]; then
        install_file "$SRC/docs/$doc" "$APP_DIR/docs/$doc" 0644
    fi
done

# --- 4. the configuration ------------------------------------------------------------------
step "configuration $CONF (an existing one is kept)"
run install -d -m 0755 "$(R "$CONF_DIR")"
if [ -e "$(R "$CONF")" ]; then
    if cmp -s "$SRC/deploy/companion.toml" "$(R "$CONF")"; then
        note "$CONF is the example, unchanged"
    else
        note "kept your $CONF; the current example is in $CONF.example"
        install_file "$SRC/deploy/companion.toml" "$CONF.example" 0644
    fi
    if [ -n "$PORT" ] && [ "$(config_port)" != "$PORT" ]; then
        warn "--port $PORT not applied: your $CONF says port $(config_port); edit [web] port there"
    fi
else
    if [ -n "$PORT" ]; then
        sed -E "s/^port = [0-9]+/port = $PORT/" "$SRC/deploy/companion.toml" \
            | write_file "$CONF" 0644
    else
        install_file "$SRC/deploy/companion.toml" "$CONF" 0644
    fi
fi
WEB_PORT=$(config_port)

# --- 5. the service ---------------------------------------------------------------------------
step "systemd unit $UNIT, state directory $STATE_DIR, $DOCTOR"
install_file "$SRC/deploy/uno-companion.service" "$UNIT" 0644
install_file "$SRC/deploy/uno-companion-doctor" "$DOCTOR" 0755
# systemd makes the state directory at start; made here too so that the doctor can run first.
if [ -d "$(R "$STATE_DIR")" ]; then
    note "$STATE_DIR exists"
else
    run install -d -m 0750 -o "$(uid_of "$APP_USER")" -g "$(gid_of "$APP_USER")" "$(R "$STATE_DIR")"
fi

# --- 6. the network ---------------------------------------------------------------------------
step "announce the web page on port $WEB_PORT (avahi: $(host_name).local)"
if [ -n "$NEW_HOSTNAME" ]; then
    set_hostname "$NEW_HOSTNAME"
fi
run install -d -m 0755 "$(R "$(dirname "$AVAHI_SERVICE")")"
avahi_service_xml "$WEB_PORT" | write_file "$AVAHI_SERVICE" 0644
if [ "$LIVE" = 1 ] && command -v ufw >/dev/null 2>&1 && ufw status 2>/dev/null | grep -q "Status: active"; then
    run ufw allow "$WEB_PORT/tcp"
    ufw_port=$WEB_PORT
else
    note "no active ufw: nothing to open"
    ufw_port=""
fi
printf 'port=%s\nufw_port=%s\n' "$WEB_PORT" "$ufw_port" | write_file "$MANIFEST" 0644

# --- 7. enable and start -------------------------------------------------------------------------
step "enable $SERVICE"
if [ "$LIVE" = 1 ] && [ "$SYSTEMD_RUNNING" = 1 ]; then
    run systemctl daemon-reload
    if systemctl cat avahi-daemon.service >/dev/null 2>&1; then
        run systemctl enable --now avahi-daemon.service
    fi
    run systemctl enable "$SERVICE"
    if [ "$START" = 1 ]; then
        run systemctl restart "$SERVICE"
    else
        note "not started (--no-start): sudo systemctl start $SERVICE"
    fi
elif [ "$LIVE" = 1 ]; then
    note "systemd is not running here (a chroot?): enabled, it starts at the next boot"
    run systemctl --quiet enable "$SERVICE"
else
    enable_in_root
fi

# --- 8. smoke test ------------------------------------------------------------------------------
step "smoke test: the venv imports picamera2 and lgpio"
if [ "$PIP" = 0 ] || [ "$LIVE" = 0 ]; then
    note "skipped: $([ "$PIP" = 0 ] && echo 'nothing installed (--no-pip)' || echo 'a staging root runs nothing')"
elif [ "$DRY_RUN" = 1 ]; then
    note "would run: $VENV/bin/python -c 'import picamera2, lgpio'"
elif smoke=$("$VENV/bin/python" -c 'import picamera2, lgpio' 2>&1); then
    note "picamera2 and lgpio import"
elif [ "$APT" = 0 ]; then
    warn "the venv cannot import picamera2 and lgpio (--no-apt: install python3-picamera2 python3-lgpio): ${smoke##*$'\n'}"
else
    die "the venv cannot import picamera2 and lgpio: ${smoke##*$'\n'}. Check that apt installed python3-picamera2 and python3-lgpio, and run sudo uno-companion-doctor"
fi

say "Done. The table: http://$(host_name).local:$WEB_PORT/ (or this machine's IP address)."
say "Check camera, markers, pins, LEDs and buzzer: sudo $(basename "$DOCTOR")"
say "The log: journalctl -u $SERVICE -f"
