"""Packaging for the Pi (issue 15): a build backend that can read ``license = "MIT"``, and a
``make install`` that puts only what runs on a Pi (the test tools, Playwright among them, come
with ``make test``)."""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_the_build_backend_reads_an_spdx_license():
    # setuptools reads an SPDX `license` string (PEP 639) from 77 on; 69-76 refuse it
    assert PYPROJECT["project"]["license"] == "MIT"
    [setuptools] = [r for r in PYPROJECT["build-system"]["requires"] if r.startswith("setuptools")]
    minimum = re.fullmatch(r"setuptools>=(\d+)(\.\d+)*", setuptools)
    assert minimum and int(minimum.group(1)) >= 77, setuptools


def test_runtime_dependencies_leave_the_test_tools_out():
    runtime = " ".join(PYPROJECT["project"]["dependencies"])
    for tool in ("playwright", "pytest", "hypothesis", "import-linter"):
        assert tool not in runtime
    assert any(d.startswith("playwright") for d in PYPROJECT["project"]["optional-dependencies"]["test"])


def make(*args: str) -> str:
    return subprocess.run(["make", "-n", "-B", *args], cwd=ROOT, capture_output=True, text=True,
                          check=True, timeout=30).stdout


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_install_on_a_pi_installs_only_what_runs_and_make_test_adds_the_tools():
    on_pi = make("install", "ON_PI=1")
    assert "-m venv --system-site-packages" in on_pi
    assert "pip install --quiet -e '.'" in on_pi and "[test]" not in on_pi
    assert "pip install --quiet -e '.[test]'" in make("test", "ON_PI=1")
    # this machine (no Pi): everything at once, as before
    here = make("install", "ON_PI=")
    assert "pip install --quiet -e '.[test]'" in here and "--system-site-packages" not in here


def test_no_doc_claims_hardware_pwm_that_lgpio_never_uses():
    # gpiozero's lgpio backend (the Pi 5's) drives every pin with software PWM
    texts = {p: p.read_text() for p in [*ROOT.glob("docs/*.md"), ROOT / "README.md",
                                         *ROOT.glob("hardware/*.py")]}
    for path, text in texts.items():
        for claim in ("can do PWM", "PWM-capable", "hardware PWM pin", "a PWM pin"):
            assert claim not in text, f"{path.name}: {claim!r}"
