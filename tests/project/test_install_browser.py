"""scripts/install-browser.sh (run by `make test`): the headless shell where it can be had, the
full Chromium kept where it cannot, and a clear failure only where no browser would be left."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "install-browser.sh"

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the script installs only as root")


def _run(tmp_path: Path, *, full: bool, apt_ok: bool, font: bool = True) -> subprocess.CompletedProcess:
    fake = tmp_path / "bin"
    fake.mkdir()
    log = tmp_path / "apt.log"
    for tool in ("apt-get", "apt-cache"):
        (fake / tool).write_text(f"#!/bin/sh\necho \"{tool} $*\" >> {log}\nexit {0 if apt_ok else 100}\n")
        (fake / tool).chmod(0o755)
    full_bin = tmp_path / "chromium"
    if full:
        full_bin.write_text("#!/bin/sh\necho Chromium 1.0\n")
        full_bin.chmod(0o755)
    font_dir = tmp_path / "font"
    if font:
        font_dir.mkdir()
    env = {**os.environ, "PATH": f"{fake}:{os.environ['PATH']}",
           "CHROMIUM_SHELL_BIN": str(tmp_path / "no-shell"), "CHROMIUM_FULL_BIN": str(full_bin),
           "JAPANESE_FONT_DIR": str(font_dir)}
    run = subprocess.run(["sh", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=60)
    run.apt = log.read_text() if log.exists() else ""
    return run


def test_with_the_full_browser_there_a_failed_install_of_the_shell_fails_nothing(tmp_path):
    run = _run(tmp_path, full=True, apt_ok=False)
    assert run.returncode == 0, run.stderr
    assert "the browser tests use" in run.stderr and "apt-get update" in run.apt


def test_without_any_browser_a_failed_install_fails_make_test(tmp_path):
    run = _run(tmp_path, full=False, apt_ok=False)
    assert run.returncode != 0
    assert "installing chromium-headless-shell" in run.stderr


def test_where_apt_works_the_shell_is_installed(tmp_path):
    run = _run(tmp_path, full=True, apt_ok=True)
    assert run.returncode == 0, run.stderr
    assert "apt-get install -y -qq chromium-headless-shell" in run.apt


def test_nothing_is_done_when_the_shell_and_the_font_are_there(tmp_path):
    shell = tmp_path / "shell"
    shell.write_text("#!/bin/sh\n")
    shell.chmod(0o755)
    (tmp_path / "font").mkdir()
    env = {**os.environ, "CHROMIUM_SHELL_BIN": str(shell), "JAPANESE_FONT_DIR": str(tmp_path / "font"),
           "PATH": "/nonexistent:/usr/bin:/bin"}
    run = subprocess.run(["sh", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and run.stderr == ""
