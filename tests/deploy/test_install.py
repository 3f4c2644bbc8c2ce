"""deploy/: install.sh and uninstall.sh into a staging root (apt and pip left out, the rest real:
users, groups, venv, files, the enabled unit), their dry runs, shellcheck, and the systemd unit.

The opt-in slow test (UNO_SLOW_TESTS=1, root, debootstrap) installs into a clean Debian Trixie
root built with debootstrap, inside its chroot, pip and all; apt stays out (python3-picamera2
comes from Raspberry Pi's own archive, which a Debian root does not have).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.support.deploy import (DEPLOY, INSTALL, PYTHON, REPO, SCRIPTS, TOOLS_HINT, UNINSTALL, UNIT, make_root,
                                  needs_root, run, unit_entries)


def tree(root: Path) -> dict[str, str]:
    """Every file and link under root (the venv's own files left out) -> its content's hash."""
    out = {}
    for p in sorted(root.rglob("*")):
        rel = str(p.relative_to(root))
        if "/venv/" in f"/{rel}/" and not rel.endswith("pyvenv.cfg"):
            continue
        if p.is_symlink():
            out[rel] = "-> " + os.readlink(p)
        elif p.is_file():
            out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()[:16] + f" {p.stat().st_mode:o}"
        else:
            out[rel] = f"dir {p.stat().st_mode:o}"
    return out


def install(root: Path, *extra: str) -> subprocess.CompletedProcess:
    return run(INSTALL, "--root", str(root), "--no-apt", "--no-pip", "--python", PYTHON, *extra)


@pytest.fixture
def staged(tmp_path):
    root = make_root(tmp_path / "root")
    result = install(root, "--hostname", "uno")
    return root, result


def lib_value(name: str) -> str:
    match = re.search(rf"^{name}=(.*)$", (DEPLOY / "lib.sh").read_text(), re.M)
    assert match, name
    value = match.group(1)
    return re.sub(r"\$(\w+)", lambda m: lib_value(m.group(1)), value)


# --- the unit -------------------------------------------------------------------------------------

def test_unit_has_what_the_table_needs():
    unit = unit_entries(UNIT.read_text())
    assert unit[("Service", "ExecStart")] == [
        f"{lib_value('VENV')}/bin/companion run --config {lib_value('CONF')}"]
    assert unit[("Service", "User")] == [lib_value("APP_USER")]
    assert set(unit[("Service", "SupplementaryGroups")][0].split()) == {"video", "gpio"}
    assert unit[("Service", "Restart")] == ["on-failure"]
    assert unit[("Service", "StateDirectory")] == [Path(lib_value("STATE_DIR")).name]
    # lgpio needs a writable working directory: the state directory, also as $LG_WD
    assert unit[("Service", "WorkingDirectory")] == ["%S/uno-companion"]
    assert "LG_WD=%S/uno-companion" in unit[("Service", "Environment")]
    assert unit[("Service", "RestartPreventExitStatus")] == ["2"]  # a bad config: no loop
    assert "CAP_NET_BIND_SERVICE" in unit[("Service", "AmbientCapabilities")][0]
    assert ("Service", "PrivateDevices") not in unit  # the camera and GPIO are devices
    assert unit[("Install", "WantedBy")] == ["multi-user.target"]
    assert "network-online.target" in unit[("Unit", "After")][0]


@pytest.mark.skipif(shutil.which("systemd-analyze") is None,
                    reason="systemd-analyze is not installed (apt-get install systemd)")
def test_unit_passes_systemd_analyze_verify(tmp_path):
    # verify wants ExecStart to exist: point it at a stand-in, the rest unchanged.
    fake = tmp_path / "companion"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    unit = tmp_path / "uno-companion.service"
    unit.write_text(UNIT.read_text().replace(f"{lib_value('VENV')}/bin/companion", str(fake)))
    result = subprocess.run(["systemd-analyze", "verify", "--man=no", str(unit)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "uno-companion" not in result.stderr, result.stderr
    # and the only complaint about the real file here is the venv it expects
    real = subprocess.run(["systemd-analyze", "verify", "--man=no", str(UNIT)],
                          capture_output=True, text=True, timeout=60)
    complaints = [line for line in real.stderr.splitlines() if "uno-companion" in line]
    assert all("/opt/uno-companion/venv/bin/companion" in line for line in complaints), complaints


# --- shellcheck -----------------------------------------------------------------------------------

@pytest.mark.skipif(shutil.which("shellcheck") is None,
                    reason="shellcheck is not installed: " + TOOLS_HINT.format("shellcheck"))
def test_scripts_pass_shellcheck():
    result = subprocess.run(["shellcheck", "-x", *map(str, SCRIPTS)], cwd=REPO,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


# --- install into a staging root ------------------------------------------------------------------

@needs_root
def test_staged_install_lays_out_everything(staged):
    root, result = staged
    assert "Done. The table: http://uno.local:8000/" in result.stdout
    # the unit, enabled
    assert (root / "etc/systemd/system/uno-companion.service").read_text() == UNIT.read_text()
    link = root / "etc/systemd/system/multi-user.target.wants/uno-companion.service"
    assert link.is_symlink() and os.readlink(link).endswith("/etc/systemd/system/uno-companion.service")
    # the configuration is the example
    assert (root / "etc/uno-companion/companion.toml").read_text() == \
        (DEPLOY / "companion.toml").read_text()
    # the user, in video and gpio, no login
    passwd = {line.split(":")[0]: line.split(":") for line in (root / "etc/passwd").read_text().splitlines()}
    user = passwd["uno-companion"]
    assert user[5] == "/var/lib/uno-companion" and user[6] == "/usr/sbin/nologin"
    groups = {line.split(":")[0]: line.split(":")[3].split(",") for line in
              (root / "etc/group").read_text().splitlines()}
    assert "uno-companion" in groups["video"] and "uno-companion" in groups["gpio"]
    assert groups["video"][0] == "pi"  # others' memberships kept
    # the state directory belongs to the user
    state = root / "var/lib/uno-companion"
    assert state.is_dir() and state.stat().st_uid == int(user[2])
    assert oct(state.stat().st_mode & 0o777) == "0o750"
    # the venv sees the system packages (picamera2) and runs
    cfg = (root / "opt/uno-companion/venv/pyvenv.cfg").read_text()
    assert "include-system-site-packages = true" in cfg
    out = subprocess.run([str(root / "opt/uno-companion/venv/bin/python"), "-c",
                          "import sys; print(sys.prefix)"], capture_output=True, text=True)
    assert out.stdout.strip().endswith("opt/uno-companion/venv")
    # the doctor wrapper, the avahi record, the name
    doctor = root / "usr/local/sbin/uno-companion-doctor"
    assert doctor.stat().st_mode & 0o111
    avahi = ET.parse(root / "etc/avahi/services/uno-companion.service").getroot()
    assert avahi.findtext("service/type") == "_http._tcp" and avahi.findtext("service/port") == "8000"
    assert (root / "etc/hostname").read_text() == "uno\n"
    assert "127.0.1.1\tuno" in (root / "etc/hosts").read_text()
    assert "raspberrypi" not in (root / "etc/hosts").read_text()


@needs_root
def test_install_twice_changes_nothing_the_second_time(staged):
    root, _ = staged
    before = tree(root)
    again = install(root, "--hostname", "uno")
    assert tree(root) == before
    assert "useradd" not in again.stdout and "venv --clear" not in again.stdout
    assert "unchanged: /etc/systemd/system/uno-companion.service" in again.stdout
    assert "/etc/uno-companion/companion.toml is the example, unchanged" in again.stdout


@needs_root
def test_an_edited_config_is_never_overwritten(staged):
    root, _ = staged
    conf = root / "etc/uno-companion/companion.toml"
    edited = conf.read_text().replace('mode = "referee"', 'mode = "timer"').replace(
        "port = 8000", "port = 8080")
    conf.write_text(edited)
    result = install(root, "--port", "9000")
    assert conf.read_text() == edited
    assert (root / "etc/uno-companion/companion.toml.example").read_text() == \
        (DEPLOY / "companion.toml").read_text()
    assert "kept your /etc/uno-companion/companion.toml" in result.stdout
    assert "--port 9000 not applied" in result.stderr
    # the avahi record follows the edited port
    avahi = ET.parse(root / "etc/avahi/services/uno-companion.service").getroot()
    assert avahi.findtext("service/port") == "8080"


@needs_root
def test_port_option_writes_a_new_config(tmp_path):
    root = make_root(tmp_path / "root")
    install(root, "--port", "80")
    conf = (root / "etc/uno-companion/companion.toml").read_text()
    assert re.search(r"^port = 80$", conf, re.M)
    from companion.config import load_config
    assert load_config(root / "etc/uno-companion/companion.toml").web.port == 80


def test_dry_run_into_a_root_changes_nothing(tmp_path):
    root = make_root(tmp_path / "root")
    before = tree(root)
    result = install(root, "--dry-run", "--hostname", "uno")
    assert tree(root) == before
    out = result.stdout
    assert "dry run: nothing is changed" in out
    for expected in ("would run: useradd --system --user-group", "would run: groupadd --system",
                     "would run: " + PYTHON + " -m venv", "would write /etc/avahi/services",
                     "would run: install -D -m 0644 " + str(UNIT), "would write /etc/hostname"):
        assert expected in out, expected


def test_dry_run_on_this_machine_prints_the_live_steps():
    # Live (no --root): the apt and systemd steps are printed, nothing runs.
    result = run(INSTALL, "--dry-run")
    out = result.stdout
    assert re.search(r"would run: env DEBIAN_FRONTEND=noninteractive apt-get install .*"
                     r"python3-picamera2", out)
    assert "--no-install-recommends" in out
    assert "python3-lgpio" in out and "avahi-daemon" in out
    assert "systemctl" in out and "uno-companion.service" in out
    assert "would run: " in out and "\n    $ " not in out  # nothing was run


@pytest.mark.parametrize("args, status, message", [
    (["--port", "0"], 1, "--port must be a number from 1 to 65535"),
    (["--hostname", "Uno_Table"], 1, "--hostname must be lower-case"),
    (["--frobnicate"], 2, "unknown option --frobnicate"),
])
def test_bad_options_are_refused(tmp_path, args, status, message):
    result = run(INSTALL, "--dry-run", "--root", str(tmp_path), *args, check=False)
    assert result.returncode == status and message in result.stderr


def test_help_lists_every_option():
    out = run(INSTALL, "--help").stdout
    for option in ("--dry-run", "--root", "--no-apt", "--no-pip", "--no-start", "--port",
                   "--hostname", "--python", "--wheels"):
        assert option in out


# --- uninstall ------------------------------------------------------------------------------------

@needs_root
def test_uninstall_keeps_config_log_and_user(staged):
    root, _ = staged
    (root / "var/lib/uno-companion/events.sqlite3").write_bytes(b"the log")
    dry = run(UNINSTALL, "--root", str(root), "--dry-run")
    assert "would run: rm -rf" in dry.stdout and (root / "opt/uno-companion").exists()
    result = run(UNINSTALL, "--root", str(root))
    for gone in ("etc/systemd/system/uno-companion.service",
                 "etc/systemd/system/multi-user.target.wants/uno-companion.service",
                 "etc/avahi/services/uno-companion.service", "usr/local/sbin/uno-companion-doctor",
                 "opt/uno-companion"):
        assert not (root / gone).exists() and not (root / gone).is_symlink(), gone
    assert (root / "etc/uno-companion/companion.toml").exists()
    assert (root / "var/lib/uno-companion/events.sqlite3").read_bytes() == b"the log"
    assert "uno-companion:" in (root / "etc/passwd").read_text()
    assert "--purge removes them" in result.stdout
    # installing again resumes with the same user, config and log
    install(root)
    assert (root / "var/lib/uno-companion/events.sqlite3").read_bytes() == b"the log"


@needs_root
def test_uninstall_purge_removes_everything_of_ours(staged):
    root, _ = staged
    run(UNINSTALL, "--root", str(root), "--purge")
    assert not (root / "etc/uno-companion").exists()
    assert not (root / "var/lib/uno-companion").exists()
    assert "uno-companion" not in (root / "etc/passwd").read_text()
    group = (root / "etc/group").read_text()
    assert "uno-companion" not in group
    assert re.search(r"^video:x:44:pi$", group, re.M) and re.search(r"^gpio:", group, re.M)
    # and a second purge has nothing left to do
    again = run(UNINSTALL, "--root", str(root), "--purge")
    assert "already gone" in again.stdout and "user uno-companion is already gone" in again.stdout


# --- a clean Debian root (opt-in: UNO_SLOW_TESTS=1) ----------------------------------------------

DEBOOTSTRAP = shutil.which("debootstrap") or ("/usr/sbin/debootstrap"
                                              if Path("/usr/sbin/debootstrap").exists() else None)


@pytest.mark.skipif(os.environ.get("UNO_SLOW_TESTS") != "1",
                    reason="slow (about 3 minutes, downloads Debian): set UNO_SLOW_TESTS=1")
@pytest.mark.skipif(os.geteuid() != 0, reason="debootstrap and chroot need root")
@pytest.mark.skipif(DEBOOTSTRAP is None, reason="debootstrap is not installed: "
                    + TOOLS_HINT.format("debootstrap"))
def test_install_in_a_clean_debian_trixie_root(tmp_path):
    root = tmp_path / "trixie"
    subprocess.run([DEBOOTSTRAP, "--variant=minbase",
                    "--include=python3,python3-venv,python3-pip,systemd,ca-certificates",
                    "trixie", str(root), "http://deb.debian.org/debian"],
                   check=True, capture_output=True, timeout=900)
    # The checkout, as git has it, inside the root.
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=REPO,
                           capture_output=True, text=True, check=True).stdout.split()
    for rel in files:
        src = REPO / rel
        if src.is_file():
            dst = root / "src" / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)
    shutil.copy("/etc/resolv.conf", root / "etc/resolv.conf")
    # pip there trusts what this machine trusts (a proxy's own CA, where there is one)
    shutil.copy("/etc/ssl/certs/ca-certificates.crt", root / "etc/ssl/certs/ca-certificates.crt")

    def chroot(*cmd, env=None):
        result = subprocess.run(["chroot", str(root), *cmd], capture_output=True, text=True,
                                timeout=900, env={**os.environ, **(env or {})})
        assert result.returncode == 0, f"{cmd} failed:\n{result.stdout}\n{result.stderr}"
        return result

    first = chroot("bash", "/src/deploy/install.sh", "--no-apt", "--hostname", "uno")
    assert "systemd is not running here" in first.stdout
    second = chroot("bash", "/src/deploy/install.sh", "--no-apt", "--hostname", "uno")
    assert "useradd" not in second.stdout
    help_text = chroot("/opt/uno-companion/venv/bin/companion", "--help").stdout
    assert "doctor" in help_text and "run" in help_text
    paths = chroot("/opt/uno-companion/venv/bin/python", "-c", "import sys; print(sys.path)").stdout
    assert "/usr/lib/python3/dist-packages" in paths  # sees the system's picamera2
    doctor = chroot("/opt/uno-companion/venv/bin/companion", "doctor", "--config",
                    "/etc/uno-companion/companion.toml", "--mock-pins", "--mode", "timer",
                    "--json", "--only", "config", "--only", "pins", "--only", "signals",
                    "--only", "database", env={"STATE_DIRECTORY": "/var/lib/uno-companion"})
    assert '"ok": true' in doctor.stdout
    # the wrapper runs it as the service's user: the state directory is that user's to write
    wrapped = chroot("/usr/local/sbin/uno-companion-doctor", "--mock-pins", "--mode", "timer",
                     "--only", "config", "--only", "database")
    assert "ok   database: /var/lib/uno-companion/events.sqlite3 is writable" in wrapped.stdout
    assert (root / "etc/systemd/system/multi-user.target.wants/uno-companion.service").is_symlink()
    ids = chroot("id", "uno-companion").stdout
    assert "(video)" in ids and "(gpio)" in ids
    verify = subprocess.run(["systemd-analyze", "verify", "--man=no", f"--root={root}",
                             "/etc/systemd/system/uno-companion.service"],
                            capture_output=True, text=True, timeout=120)
    assert verify.returncode == 0, verify.stderr
    chroot("bash", "/src/deploy/uninstall.sh", "--purge")
    assert not (root / "opt/uno-companion").exists()
