#!/bin/bash
# Undoes deploy/install.sh:
#
#     sudo deploy/uninstall.sh           # the service, the venv, the avahi record, the doctor
#     sudo deploy/uninstall.sh --purge   # ... and the configuration, the event log and the user
#     deploy/uninstall.sh --dry-run      # print every step, change nothing
#
# Without --purge the configuration (/etc/uno-companion), the event log (/var/lib/uno-companion)
# and the user stay, so that installing again resumes where the table was. The apt packages
# stay too: other programs may use the camera and avahi (the last line says how to remove them).
# A hostname set with install.sh --hostname is kept.
set -euo pipefail

usage() {
    cat <<'USAGE'
usage: uninstall.sh [--dry-run] [--root DIR] [--purge]

  --dry-run   print every step and change nothing
  --root DIR  uninstall from a staging root DIR instead of /
  --purge     also remove the configuration, the event log and the user uno-companion
USAGE
}

ROOT=/
DRY_RUN=0
PURGE=0
while [ $# -gt 0 ]; do
    case "$1" in
        --dry-run) DRY_RUN=1 ;;
        --root) ROOT=${2:?--root needs a directory}; shift ;;
        --root=*) ROOT=${1#--root=} ;;
        --purge) PURGE=1 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "uninstall.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    esac
    shift
done

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=deploy/lib.sh
. "$SRC/deploy/lib.sh"
check_root_privileges

say "Removing the Uno table companion from ${ROOT}$([ "$DRY_RUN" = 1 ] && echo ' (dry run: nothing is changed)')"

step "stop and disable $SERVICE"
if [ "$LIVE" = 1 ] && [ "$SYSTEMD_RUNNING" = 1 ]; then
    if systemctl cat "$SERVICE" >/dev/null 2>&1; then
        run systemctl disable --now "$SERVICE"
    else
        note "$SERVICE is not installed"
    fi
else
    remove "$WANTS_LINK"
fi

step "close the web port"
ufw_port=""
if [ -f "$(R "$MANIFEST")" ]; then
    ufw_port=$(sed -n 's/^ufw_port=//p' "$(R "$MANIFEST")")
fi
if [ -n "$ufw_port" ] && [ "$LIVE" = 1 ] && command -v ufw >/dev/null 2>&1; then
    run ufw delete allow "$ufw_port/tcp"
else
    note "install.sh opened no port in ufw"
fi

step "remove the unit, the avahi record, the doctor and $APP_DIR"
remove "$UNIT" "$AVAHI_SERVICE" "$DOCTOR" "$APP_DIR"
if [ "$LIVE" = 1 ] && [ "$SYSTEMD_RUNNING" = 1 ]; then
    run systemctl daemon-reload
    run systemctl reset-failed "$SERVICE" || true
fi

if [ "$PURGE" = 1 ]; then
    step "purge: the configuration, the event log and the user $APP_USER"
    remove "$CONF_DIR" "$STATE_DIR"
    if has_user "$APP_USER"; then
        run userdel "${PREFIX_OPT[@]}" "$APP_USER"
    else
        note "user $APP_USER is already gone"
    fi
    # Its own group too (userdel leaves it where login.defs says USERGROUPS_ENAB no);
    # video and gpio stay: other users are in them.
    if has_group "$APP_USER"; then
        run groupdel "${PREFIX_OPT[@]}" "$APP_USER"
    fi
else
    step "kept: $CONF_DIR (configuration), $STATE_DIR (event log), user $APP_USER (--purge removes them)"
fi

say "Done. The apt packages stay; to remove them too: sudo apt-get remove ${APT_PACKAGES[*]}"
