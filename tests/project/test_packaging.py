"""Packaging for the Pi: a build backend that can read ``license = "MIT"``, and a
``make install`` that puts only what runs on a Pi (the test tools, Playwright among them, come
with ``make test``)."""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
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
    # this machine (no Pi): everything, the test tools too, at the lock's versions
    here = make("install", "ON_PI=")
    assert "PYTHON=python3 sh scripts/install-venv.sh .venv requirements/test.lock" in here
    assert "--system-site-packages" not in here


def _pins(lines) -> dict[str, str]:
    """``name==version`` requirements by normalised name (PEP 503)."""
    out = {}
    for line in lines:
        name, sep, version = line.partition("==")
        assert sep and version.strip(), f"not an exact pin: {line!r}"
        out[re.sub(r"[-_.]+", "-", name.strip()).lower()] = version.strip()
    return out


LOCK = ROOT / "requirements" / "test.lock"


def test_the_lock_pins_every_line_once_and_agrees_with_pyproject():
    lines = [ln for ln in LOCK.read_text().splitlines() if ln.strip() and not ln.startswith("#")]
    locked = _pins(lines)
    assert len(locked) == len(lines), "a distribution is locked twice"
    wanted = _pins([*PYPROJECT["project"]["dependencies"],
                    *PYPROJECT["project"]["optional-dependencies"]["test"]])
    assert {name: locked.get(name) for name in wanted} == wanted, "run 'make lock'"


def _fake_pip(venv: Path, check_says: str = "", fail_on: str = "") -> Path:
    """A venv whose pip logs each call (an ``-r`` file by its lines), fails an install of a file
    holding ``fail_on``, and fails ``pip check`` with ``check_says`` when given."""
    (venv / "bin").mkdir(parents=True)
    log = venv / "calls"
    pip = venv / "bin" / "pip"
    pip.write_text(f"""#!/bin/sh
if [ "$1" = check ]; then [ -z '{check_says}' ] && exit 0; echo '{check_says}'; exit 1; fi
if [ "$4" = -r ]; then echo "lines: $(tr '\\n' ' ' < "$5")" >> {log}
    [ -n '{fail_on}' ] && grep -q '{fail_on}' "$5" && exit 1
else echo "$*" >> {log}; fi
exit 0
""")
    pip.chmod(0o755)
    return log


def _install(venv: Path, lock_text: str, tmp_path: Path) -> subprocess.CompletedProcess:
    lock = tmp_path / "test.lock"
    lock.write_text(lock_text)
    return subprocess.run(["sh", str(ROOT / "scripts" / "install-venv.sh"), str(venv), str(lock)],
                          cwd=ROOT, capture_output=True, text=True, timeout=30)


@pytest.mark.skipif(shutil.which("sh") is None, reason="no POSIX shell")
def test_the_installer_shares_the_lock_between_pips_and_builds_the_editable_once(tmp_path):
    log = _fake_pip(tmp_path / "venv")
    done = _install(tmp_path / "venv", "# comment\n\nnumpy==2.4.6\nflask==3.1.3\nsegno==1.6.6\n"
                    "click==8.5.1\n", tmp_path)
    assert done.returncode == 0, done.stderr
    # three pips, round robin over the pinned lines (the comment and the blank line left out)
    assert sorted(log.read_text().splitlines()) == [
        "install --quiet --no-deps -e .", "lines: flask==3.1.3 ", "lines: numpy==2.4.6 click==8.5.1 ",
        "lines: segno==1.6.6 "]


@pytest.mark.skipif(shutil.which("sh") is None, reason="no POSIX shell")
def test_the_installer_refuses_a_lock_that_does_not_match_pyproject(tmp_path):
    said = "uno-companion 0.1.0 has requirement numpy==2.4.6, but you have numpy 2.0.0."
    _fake_pip(tmp_path / "venv", check_says=said)
    done = _install(tmp_path / "venv", "numpy==2.0.0\nflask==3.1.3\n", tmp_path)
    assert done.returncode == 1
    assert said in done.stderr and "run 'make lock'" in done.stderr


@pytest.mark.skipif(shutil.which("sh") is None, reason="no POSIX shell")
def test_the_installer_fails_when_a_pip_fails(tmp_path):
    _fake_pip(tmp_path / "venv", fail_on="nosuch")
    done = _install(tmp_path / "venv", "nosuch==1.0\nflask==3.1.3\n", tmp_path)
    assert done.returncode == 1 and "a pip failed" in done.stderr


def _fake_python(tmp_path: Path, pip_has_python_option: bool = True) -> tuple[Path, Path]:
    """A ``PYTHON`` that makes venvs (their python runs ``ensurepip`` by making a venv pip that
    logs) and whose own pip logs each install into another interpreter; ``--python`` refused when
    ``pip_has_python_option`` is false (a pip older than 22.3)."""
    log = tmp_path / "calls"
    venv_pip = f"""#!/bin/sh
if [ "$1" = check ]; then exit 0; fi
echo "venv pip: $*" >> {log}
"""
    python = tmp_path / "python"
    python.write_text(f"""#!/bin/sh
if [ "$1 $2" = "-m venv" ]; then
    if [ "$3" = --without-pip ]; then dir=$4; else dir=$3; fi
    mkdir -p "$dir/bin"
    printf '#!/bin/sh\\necho "venv python: $*" >> {log}\\ncat > "$(dirname "$0")/pip" <<"PIP"\\n{venv_pip}PIP\\n\
chmod +x "$(dirname "$0")/pip"\\n' > "$dir/bin/python"
    chmod +x "$dir/bin/python"
    if [ "$3" != --without-pip ]; then "$dir/bin/python" -m ensurepip; fi
    exit 0
fi
if [ "$1 $2 $3" = "-m pip --python" ]; then
    {'' if pip_has_python_option else 'exit 2'}
    [ "$5" = --version ] && exit 0
    if [ "$8" = -r ]; then echo "outside pip: lines: $(tr '\\n' ' ' < "$9")" >> {log}
    else shift 4; echo "outside pip: $*" >> {log}; fi
    exit 0
fi
exit 3
""")
    python.chmod(0o755)
    return python, log


def _install_with(python: Path, venv: Path, lock_text: str, tmp_path: Path) -> subprocess.CompletedProcess:
    lock = tmp_path / "test.lock"
    lock.write_text(lock_text)
    return subprocess.run(["sh", str(ROOT / "scripts" / "install-venv.sh"), str(venv), str(lock)],
                          cwd=ROOT, capture_output=True, text=True, timeout=30,
                          env={"PATH": "/usr/bin:/bin", "PYTHON": str(python)})


@pytest.mark.skipif(shutil.which("sh") is None, reason="no POSIX shell")
def test_the_installer_makes_the_venv_without_pip_and_fills_it_with_pythons_own_pip(tmp_path):
    python, log = _fake_python(tmp_path)
    done = _install_with(python, tmp_path / "venv", "numpy==2.4.6\nflask==3.1.3\n", tmp_path)
    assert done.returncode == 0, done.stderr
    calls = sorted(log.read_text().splitlines())
    # the lock and the editable by PYTHON's pip, the venv's own pip installed beside them
    assert calls == ["outside pip: install --quiet --no-deps -e .", "outside pip: lines: flask==3.1.3 ",
                     "outside pip: lines: numpy==2.4.6 ", "venv python: -m ensurepip --default-pip"]
    assert (tmp_path / "venv" / "bin" / "pip").exists()


@pytest.mark.skipif(shutil.which("sh") is None, reason="no POSIX shell")
def test_the_installer_falls_back_to_the_venvs_own_pip_when_pythons_cannot_install_elsewhere(tmp_path):
    python, log = _fake_python(tmp_path, pip_has_python_option=False)
    done = _install_with(python, tmp_path / "venv", "numpy==2.4.6\nflask==3.1.3\n", tmp_path)
    assert done.returncode == 0, done.stderr
    calls = sorted(log.read_text().splitlines())
    assert "venv python: -m ensurepip" in calls
    assert sum(c.startswith("venv pip: install --quiet --no-deps -r ") for c in calls) == 2
    assert "venv pip: install --quiet --no-deps -e ." in calls
    assert not any(c.startswith("outside pip") for c in calls)
