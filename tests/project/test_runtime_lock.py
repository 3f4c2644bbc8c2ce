"""The Pi's hashed lock (requirements/runtime.lock, made by ``make lock``): every distribution the
table runs pinned with the sha256 of its files, in agreement with pyproject.toml, and the one
deploy/install.sh installs from with ``pip install --require-hashes``."""

from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUNTIME_LOCK = ROOT / "requirements" / "runtime.lock"


def _name(requirement: str) -> str:
    """A requirement's distribution name, normalised (PEP 503)."""
    name = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement.strip())
    assert name, f"not a requirement: {requirement!r}"
    return re.sub(r"[-_.]+", "-", name.group(0)).lower()


def locked_with_hashes(lock_text: str) -> dict[str, tuple[str, int]]:
    """``name -> (version, number of sha256 hashes)`` for each requirement of a pip-compile lock
    (a requirement, its ``--hash`` options on continuation lines, ``# via`` comments)."""
    joined = re.sub(r"\\\n", " ", lock_text)
    out: dict[str, tuple[str, int]] = {}
    for line in joined.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        spec, *options = line.split(" --hash=")
        name, sep, version = spec.strip().partition("==")
        if not sep:
            raise ValueError(f"not an exact pin: {spec!r}")
        if _name(name) in out:
            raise ValueError(f"{name} is locked twice")
        if not all(re.fullmatch(r"sha256:[0-9a-f]{64}", o.strip()) for o in options):
            raise ValueError(f"{name}: a hash that is not a sha256")
        out[_name(name)] = (version.strip(), len(options))
    return out


def disagreements(pyproject: dict, lock_text: str) -> list[str]:
    """What keeps the runtime lock from being the one ``make lock`` makes of ``pyproject``: a pin
    it lacks or holds at another version, a line without hashes, a test tool, no build backend."""
    problems = []
    locked = locked_with_hashes(lock_text)
    for requirement in pyproject["project"]["dependencies"]:
        name, version = _name(requirement), requirement.partition("==")[2].strip()
        if locked.get(name, (None,))[0] != version:
            problems.append(f"{name}=={version} is locked as {locked.get(name, ('nothing',))[0]}")
    problems += [f"{name} has no hash" for name, (_, hashes) in locked.items() if hashes == 0]
    tests_only = {_name(r) for r in pyproject["project"]["optional-dependencies"]["test"]}
    problems += [f"{name} is a test tool" for name in sorted(tests_only & set(locked))]
    for requirement in pyproject["build-system"]["requires"]:
        if _name(requirement) not in locked:
            problems.append(f"the build backend's {_name(requirement)} is not locked")
    return problems


PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_the_runtime_lock_agrees_with_pyproject_and_hashes_every_distribution():
    assert disagreements(PYPROJECT, RUNTIME_LOCK.read_text()) == [], "run 'make lock'"
    locked = locked_with_hashes(RUNTIME_LOCK.read_text())
    # numpy and OpenCV carry a wheel per platform: the Pi's aarch64 ones are among the hashes
    assert locked["numpy"][1] > 10 and locked["opencv-python-headless"][1] > 3


def _lock_line(name: str, version: str, hashes: int = 1) -> str:
    return f"{name}=={version}" + "".join(f" \\\n    --hash=sha256:{'a' * 63}{i}" for i in range(hashes)) + "\n"


SMALL = {"project": {"dependencies": ["numpy==2.4.6", "flask==3.1.3"],
                     "optional-dependencies": {"test": ["pytest==9.2.0"]}},
         "build-system": {"requires": ["setuptools>=77", "wheel"]}}


def test_a_lock_that_matches_has_no_disagreement():
    lock = (_lock_line("numpy", "2.4.6", 3) + "    # via uno-companion\n" + _lock_line("Flask", "3.1.3")
            + _lock_line("setuptools", "84.2.1") + _lock_line("wheel", "0.48.0"))
    assert disagreements(SMALL, lock) == []


@pytest.mark.parametrize("lock, problem", [
    (_lock_line("numpy", "2.4.5") + _lock_line("flask", "3.1.3"), "numpy==2.4.6 is locked as 2.4.5"),
    (_lock_line("numpy", "2.4.6"), "flask==3.1.3 is locked as nothing"),
    (_lock_line("numpy", "2.4.6", 0) + _lock_line("flask", "3.1.3"), "numpy has no hash"),
    (_lock_line("numpy", "2.4.6") + _lock_line("flask", "3.1.3") + _lock_line("pytest", "9.2.0"),
     "pytest is a test tool"),
    (_lock_line("numpy", "2.4.6") + _lock_line("flask", "3.1.3"), "the build backend's setuptools is not locked"),
])
def test_a_lock_that_disagrees_with_pyproject_is_found_out(lock, problem):
    assert problem in disagreements(SMALL, lock)


def test_a_lock_line_that_is_not_an_exact_pin_or_not_a_sha256_is_refused():
    with pytest.raises(ValueError, match="exact pin"):
        locked_with_hashes("numpy>=2\n")
    with pytest.raises(ValueError, match="sha256"):
        locked_with_hashes("numpy==2.4.6 \\\n    --hash=md5:abc\n")


def test_the_installer_installs_the_hashed_lock_and_then_the_project_without_its_dependencies():
    dry = subprocess.run(["bash", str(ROOT / "deploy" / "install.sh"), "--dry-run", "--any-release"],
                         capture_output=True, text=True, timeout=60, check=True).stdout
    pips = [line for line in dry.splitlines() if " -m pip install " in line]
    assert len(pips) == 2, dry
    assert "--require-hashes" in pips[0] and f"-r {ROOT}/requirements/runtime.lock" in pips[0]
    assert "--no-deps --no-build-isolation" in pips[1] and pips[1].endswith(str(ROOT))
