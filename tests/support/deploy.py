"""The deploy scripts' paths and what the deploy tests share: running a script, a staging root
that looks like a fresh Raspberry Pi OS, and the systemd unit read as entries."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
INSTALL = DEPLOY / "install.sh"
UNINSTALL = DEPLOY / "uninstall.sh"
UNIT = DEPLOY / "uno-companion.service"
SCRIPTS = [INSTALL, UNINSTALL, DEPLOY / "lib.sh", DEPLOY / "uno-companion-doctor",
           REPO / "scripts" / "install-test-tools.sh", REPO / "scripts" / "install-browser.sh",
           REPO / "scripts" / "trixie-test.sh", REPO / "scripts" / "arm64-check.sh",
           REPO / "scripts" / "chroot-lib.sh"]
TOOLS_HINT = "run scripts/install-test-tools.sh (or apt-get install {})"
PYTHON = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="useradd --prefix needs root")


def run(script: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    result = subprocess.run(["bash", str(script), *args], capture_output=True, text=True,
                            timeout=120)
    if check and result.returncode != 0:
        raise AssertionError(f"{script.name} {' '.join(args)} failed ({result.returncode}):\n"
                             f"{result.stdout}\n{result.stderr}")
    return result


def make_root(path: Path) -> Path:
    """The /etc of a fresh Raspberry Pi OS, as far as the installer reads it."""
    etc = path / "etc"
    etc.mkdir(parents=True)
    (etc / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\n"
                                "pi:x:1000:1000:,,,:/home/pi:/bin/bash\n")
    (etc / "group").write_text("root:x:0:\nvideo:x:44:pi\npi:x:1000:\n")
    (etc / "shadow").write_text("root:*:19000:0:99999:7:::\npi:*:19000:0:99999:7:::\n")
    (etc / "gshadow").write_text("root:*::\nvideo:*::pi\npi:!::\n")
    (etc / "hostname").write_text("raspberrypi\n")
    (etc / "hosts").write_text("127.0.0.1\tlocalhost\n127.0.1.1\traspberrypi\n")
    return path


def unit_entries(text: str) -> dict[tuple[str, str], list[str]]:
    """(section, key) -> values, in order (systemd allows a key more than once)."""
    out: dict[tuple[str, str], list[str]] = {}
    section = ""
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        key, _, value = line.partition("=")
        out.setdefault((section, key.strip()), []).append(value.strip())
    return out
