# shellcheck shell=bash disable=SC2034 # the variables are used by the scripts that source this
# Shared by deploy/install.sh and deploy/uninstall.sh: where everything goes, and the helpers
# that print each step and (unless --dry-run) do it, inside $ROOT.
# The caller sets ROOT (/ or a staging root), DRY_RUN (0/1) and SRC (the checkout).

APP_USER=uno-companion
APP_GROUPS=(video gpio)
APP_DIR=/opt/uno-companion
VENV=$APP_DIR/venv
MANIFEST=$APP_DIR/install-manifest
CONF_DIR=/etc/uno-companion
CONF=$CONF_DIR/companion.toml
STATE_DIR=/var/lib/uno-companion
SERVICE=uno-companion.service
UNIT=/etc/systemd/system/$SERVICE
WANTS_LINK=/etc/systemd/system/multi-user.target.wants/$SERVICE
AVAHI_SERVICE=/etc/avahi/services/uno-companion.service
DOCTOR=/usr/local/sbin/uno-companion-doctor
# The Raspberry Pi OS release the companion is built for (VERSION_CODENAME in /etc/os-release).
RELEASE=trixie
# What the camera needs (picamera2 pulls libcamera and its Python bindings), gpiozero's
# backend on the Pi 5 (lgpio), the venv, and mDNS.
APT_PACKAGES=(python3 python3-venv python3-pip python3-picamera2 python3-libcamera
              python3-lgpio rpicam-apps-lite avahi-daemon)

ROOT=${ROOT:-/}
ROOT=${ROOT%/}
[ -n "$ROOT" ] || ROOT=/
# systemd runs here (not a chroot or a container being built): units can be started now.
if [ -d /run/systemd/system ]; then SYSTEMD_RUNNING=1; else SYSTEMD_RUNNING=0; fi
if [ "$ROOT" = / ]; then
    LIVE=1
    PREFIX_OPT=()
else
    LIVE=0
    case "$ROOT" in /*) ;; *) ROOT="$PWD/$ROOT" ;; esac
    PREFIX_OPT=(--prefix "$ROOT")
fi

# R PATH: PATH inside the root.
R() {
    if [ "$ROOT" = / ]; then printf '%s' "$1"; else printf '%s%s' "$ROOT" "$1"; fi
}

say() { printf '%s\n' "$*"; }
step() { printf '==> %s\n' "$*"; }
note() { printf '    %s\n' "$*"; }
warn() { printf '    warning: %s\n' "$*" >&2; }
die() { printf '%s: %s\n' "$(basename "$0")" "$*" >&2; exit 1; }

# run CMD...: print it, and run it unless this is a dry run.
run() {
    local quoted
    quoted=$(printf '%q ' "$@")
    if [ "$DRY_RUN" = 1 ]; then
        printf '    would run: %s\n' "${quoted% }"
    else
        printf '    $ %s\n' "${quoted% }"
        "$@"
    fi
}

# write_file DEST MODE < content: DEST (a path in the root) gets the content; unchanged when equal.
write_file() {
    local dest mode tmp
    dest=$(R "$1")
    mode=$2
    if [ "$DRY_RUN" = 1 ]; then
        printf '    would write %s (mode %s):\n' "$1" "$mode"
        sed 's/^/      | /'
        return 0
    fi
    tmp=$(mktemp "$(dirname "$dest")/.uno-install.XXXXXX")
    cat >"$tmp"
    chmod "$mode" "$tmp"
    if [ -f "$dest" ] && cmp -s "$tmp" "$dest"; then
        rm -f "$tmp"
        chmod "$mode" "$dest"
        note "unchanged: $1"
    else
        mv -f "$tmp" "$dest"
        note "wrote $1"
    fi
}

# install_file SRC DEST MODE: copy a file of the checkout to DEST in the root.
install_file() {
    local src=$1 dest mode=$3
    dest=$(R "$2")
    if [ -f "$dest" ] && cmp -s "$src" "$dest"; then
        [ "$DRY_RUN" = 1 ] || chmod "$mode" "$dest"
        note "unchanged: $2"
    else
        run install -D -m "$mode" "$src" "$dest"
    fi
}

# remove PATH...: delete paths in the root that exist.
remove() {
    local path
    for path in "$@"; do
        if [ -e "$(R "$path")" ] || [ -L "$(R "$path")" ]; then
            run rm -rf "$(R "$path")"
        else
            note "already gone: $path"
        fi
    done
}

# Users and groups, read from the root's own files (a staging root has no NSS of its own).
has_user() { [ -f "$(R /etc/passwd)" ] && grep -q "^$1:" "$(R /etc/passwd)"; }
has_group() { [ -f "$(R /etc/group)" ] && grep -q "^$1:" "$(R /etc/group)"; }
in_group() {
    [ -f "$(R /etc/group)" ] &&
        awk -F: -v u="$1" -v g="$2" '$1 == g { n = split($4, m, ","); for (i = 1; i <= n; i++) if (m[i] == u) found = 1 }
                                      END { exit !found }' "$(R /etc/group)"
}
uid_of() { awk -F: -v u="$1" '$1 == u { print $3; found = 1 } END { if (!found) print u }' "$(R /etc/passwd)" 2>/dev/null || echo "$1"; }
gid_of() { awk -F: -v u="$1" '$1 == u { print $4; found = 1 } END { if (!found) print u }' "$(R /etc/passwd)" 2>/dev/null || echo "$1"; }

# The venv exists, runs, and sees the system's packages (picamera2).
# With PIP=1 it must have pip too (a --no-pip venv is made without it: much faster).
venv_ok() {
    [ -x "$(R "$VENV")/bin/python" ] &&
        grep -q '^include-system-site-packages = true' "$(R "$VENV")/pyvenv.cfg" 2>/dev/null &&
        "$(R "$VENV")/bin/python" -c '' 2>/dev/null &&
        { [ "${PIP:-1}" = 0 ] || "$(R "$VENV")/bin/python" -m pip --version >/dev/null 2>&1; }
}

# The [web] port of the installed configuration (the example's when none is installed yet).
config_port() {
    local file
    file=$(R "$CONF")
    [ -f "$file" ] || file=$SRC/deploy/companion.toml
    awk '/^[[:space:]]*\[/ { web = ($0 ~ /^[[:space:]]*\[web\]/) }
         web && /^[[:space:]]*port[[:space:]]*=/ { sub(/^[^=]*=[[:space:]]*/, ""); print $0 + 0; found = 1; exit }
         END { if (!found) print 8000 }' "$file"
}

# The root's OS release: its codename (empty when unknown) and its name.
os_codename() {
    local file
    file=$(R /etc/os-release)
    [ -f "$file" ] && sed -n 's/^VERSION_CODENAME=//p' "$file" | tr -d '"' | head -1
    return 0
}
os_pretty_name() {
    local file name=""
    file=$(R /etc/os-release)
    [ -f "$file" ] && name=$(sed -n 's/^PRETTY_NAME=//p' "$file" | tr -d '"' | head -1)
    printf '%s' "${name:-an unknown system}"
}

# This machine's name (as the root will have it).
host_name() {
    if [ -n "${NEW_HOSTNAME:-}" ]; then
        printf '%s' "$NEW_HOSTNAME"
    elif [ -s "$(R /etc/hostname)" ]; then
        tr -d '[:space:]' <"$(R /etc/hostname)"
    else
        hostname 2>/dev/null || printf 'raspberrypi'
    fi
}

set_hostname() {
    local name=$1 hosts
    hosts=$(R /etc/hosts)
    if [ "$LIVE" = 1 ] && [ "$SYSTEMD_RUNNING" = 1 ] && command -v hostnamectl >/dev/null 2>&1; then
        run hostnamectl set-hostname "$name"
    else
        printf '%s\n' "$name" | write_file /etc/hostname 0644
    fi
    { [ -f "$hosts" ] && grep -v '^127\.0\.1\.1[[:space:]]' "$hosts"; printf '127.0.1.1\t%s\n' "$name"; } |
        write_file /etc/hosts 0644
    if [ "$LIVE" = 1 ] && [ "$SYSTEMD_RUNNING" = 1 ]; then
        run systemctl try-restart avahi-daemon.service
    fi
}

# The DNS-SD record: phones' and laptops' service browsers list the table.
avahi_service_xml() {
    cat <<XML
<?xml version="1.0" standalone='no'?>
<!DOCTYPE service-group SYSTEM "avahi-service.dtd">
<!-- Installed by uno-companion's deploy/install.sh: the table's web page on this machine. -->
<service-group>
  <name replace-wildcards="yes">Uno table companion on %h</name>
  <service>
    <type>_http._tcp</type>
    <port>$1</port>
    <txt-record>path=/</txt-record>
  </service>
</service-group>
XML
}

# Enable the unit inside a staging root (no systemd runs there).
enable_in_root() {
    if command -v systemctl >/dev/null 2>&1; then
        run systemctl --root="$ROOT" --quiet enable "$SERVICE"
    else
        run install -d -m 0755 "$(R "$(dirname "$WANTS_LINK")")"
        run ln -sfn "$UNIT" "$(R "$WANTS_LINK")"
    fi
}

check_root_privileges() {
    if [ "$LIVE" = 1 ] && [ "$DRY_RUN" = 0 ] && [ "$(id -u)" != 0 ]; then
        die "run it as root (sudo $0), or try --dry-run first"
    fi
}
