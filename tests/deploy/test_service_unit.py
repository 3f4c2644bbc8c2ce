"""deploy/ for a real Pi: the unit's watchdog, memory limit and hardening, the
installer's release check first and its smoke test last."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.support.deploy import INSTALL, PYTHON, UNIT, make_root, run, unit_entries

TRIXIE = 'PRETTY_NAME="Debian GNU/Linux 13 (trixie)"\nVERSION_CODENAME=trixie\n'
BOOKWORM = 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nVERSION_CODENAME=bookworm\n'


def test_the_unit_has_a_watchdog_fed_by_sd_notify():
    unit = unit_entries(UNIT.read_text())
    assert unit[("Service", "Type")] == ["notify"]
    assert unit[("Service", "NotifyAccess")] == ["main"]
    assert int(unit[("Service", "WatchdogSec")][0]) >= 10
    assert unit[("Service", "Restart")] == ["on-failure"]  # a watchdog kill is a failure


def test_the_unit_limits_memory_and_is_hardened_but_keeps_its_devices():
    unit = unit_entries(UNIT.read_text())
    assert unit[("Service", "MemoryMax")] == ["1G"]
    assert unit[("Service", "ProtectSystem")] == ["strict"]
    for key in ("ProtectKernelTunables", "ProtectKernelModules", "ProtectControlGroups",
                "RestrictNamespaces", "RestrictSUIDSGID", "LockPersonality", "NoNewPrivileges"):
        assert unit[("Service", key)] == ["yes"], key
    families = unit[("Service", "RestrictAddressFamilies")][0].split()
    assert {"AF_UNIX", "AF_INET", "AF_INET6"} <= set(families)
    # a device allow-list would lock out the camera and the GPIO chips
    for key in ("PrivateDevices", "DeviceAllow", "DevicePolicy", "ProtectClock"):
        assert ("Service", key) not in unit, key


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_the_hardening_scores_better_than_exposed(tmp_path):
    result = subprocess.run(["systemd-analyze", "security", "--offline=yes", str(UNIT)],
                            capture_output=True, text=True, timeout=60)
    if result.returncode not in (0, 1) or "Overall exposure level" not in result.stdout:
        pytest.skip(f"this systemd-analyze cannot score a unit file: {result.stderr[:200]}")
    level = result.stdout.split("Overall exposure level for")[1].split(":")[1].split()[0]
    assert float(level) < 6.0, result.stdout[-400:]


def install_into(tmp_path, release: str | None, *extra: str):
    root = make_root(tmp_path / "root")
    if release is not None:
        (root / "etc/os-release").write_text(release)
    return run(INSTALL, "--root", str(root), "--no-apt", "--no-pip", "--python", PYTHON, *extra,
               check=False)


def test_the_installer_refuses_another_release_first(tmp_path):
    result = install_into(tmp_path, BOOKWORM)
    assert result.returncode == 1
    assert "bookworm" in result.stderr and "needs Raspberry Pi OS trixie" in result.stderr
    assert "==> apt packages" not in result.stdout  # checked before anything is done
    assert not (tmp_path / "root/opt").exists()


def test_another_release_is_only_a_warning_with_any_release_or_in_a_dry_run(tmp_path):
    assert install_into(tmp_path / "a", BOOKWORM, "--any-release").returncode == 0
    dry = install_into(tmp_path / "b", BOOKWORM, "--dry-run")
    assert dry.returncode == 0 and "warning: this is Debian GNU/Linux 12 (bookworm)" in dry.stderr


def test_trixie_passes_and_the_smoke_test_is_the_last_step(tmp_path):
    result = install_into(tmp_path, TRIXIE)
    assert result.returncode == 0, result.stderr
    assert "Debian GNU/Linux 13 (trixie)" in result.stdout
    steps = [line for line in result.stdout.splitlines() if line.startswith("==> ")]
    assert steps[0].startswith("==> the OS release")
    assert steps[-1] == "==> smoke test: the venv imports picamera2 and lgpio"


def test_a_live_dry_run_shows_the_smoke_test():
    out = run(INSTALL, "--dry-run").stdout
    assert "would run: /opt/uno-companion/venv/bin/python -c 'import picamera2, lgpio'" in out
