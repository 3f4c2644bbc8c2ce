# shellcheck shell=bash
# Shared by scripts/arm64-check.sh and scripts/trixie-test.sh (sourced, bash): a Debian root
# at $ROOT entered with chroot, and the checkout copied into it.

# Mount /proc and /dev/shm in $ROOT (unmounted again when the script exits) and define
# in_root: a command run inside the root with a clean environment.
enter_root() {
    # shellcheck disable=SC2317 # called by the trap
    cleanup() {
        umount "$ROOT/dev/shm" 2>/dev/null || true
        umount "$ROOT/proc" 2>/dev/null || true
    }
    trap cleanup EXIT
    mountpoint -q "$ROOT/proc" || mount -t proc proc "$ROOT/proc"
    mkdir -p "$ROOT/dev/shm"
    mountpoint -q "$ROOT/dev/shm" || mount -t tmpfs shm "$ROOT/dev/shm"
}

in_root() {
    chroot "$ROOT" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LANG=C.UTF-8 "$@"
}

# The checkout at $REPO (tracked and untracked, not ignored, files) copied to $ROOT/src.
copy_checkout() {
    rm -rf "$ROOT/src"
    mkdir -p "$ROOT/src"
    (cd "$REPO" && git ls-files -co --exclude-standard -z | xargs -0 -I{} sh -c '[ -f "{}" ] && echo "{}"') \
        | tar -C "$REPO" -cf - -T - | tar -C "$ROOT/src" -xf -
}
