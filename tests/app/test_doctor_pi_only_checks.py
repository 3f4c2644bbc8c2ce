"""The doctor's check of what only a Raspberry Pi has (Raspberry Pi OS's picamera2, libcamera's
Python bindings, lgpio on the real pins): present passes and names them, each one absent fails
with its fix, and off a Pi it says "not a Pi: skipped" -- through the `system` check's seams
(the board's model file, the imports, the gpiochip devices)."""

from __future__ import annotations

import json
import subprocess
import sys

from app.doctor import check_system

PI4 = "Raspberry Pi 4 Model B Rev 1.5\0"
TRIXIE = 'PRETTY_NAME="Debian GNU/Linux 13 (trixie)"\nVERSION_CODENAME=trixie\n'


def pi(tmp_path, *, model=PI4, missing=(), chip_error=None, camera=True):
    (tmp_path / "os-release").write_text(TRIXIE)
    (tmp_path / "model").write_text(model)
    dev = tmp_path / "dev"
    dev.mkdir(exist_ok=True)
    (dev / "gpiochip0").touch()
    opened = []

    def open_chip(chip):
        opened.append(chip.name)
        return chip_error

    result = check_system(camera=camera, os_release=tmp_path / "os-release",
                          model_file=tmp_path / "model", dev=dev,
                          import_error=lambda m: f"ModuleNotFoundError: No module named '{m}'"
                          if m in missing else None,
                          access=lambda p: True, chip_error=open_chip)
    return result, opened


def test_present_on_a_pi_passes_and_names_what_it_checked(tmp_path):
    result, opened = pi(tmp_path)
    assert result.ok, result
    assert "lgpio, picamera2 and libcamera import" in result.detail
    assert "lgpio opens" in result.detail and "gpiochip0" in result.detail
    assert opened == ["gpiochip0"]


def test_libcameras_python_bindings_absent_fail_with_their_package(tmp_path):
    result, _ = pi(tmp_path, missing=("libcamera",))
    assert not result.ok
    assert "libcamera cannot be imported" in result.detail
    assert "python3-libcamera" in result.fix and "--system-site-packages" in result.fix
    # in timer mode the camera's libraries are not needed
    result, _ = pi(tmp_path, missing=("libcamera", "picamera2"), camera=False)
    assert result.ok and "; lgpio import;" in result.detail


def test_lgpio_that_cannot_open_the_real_pins_fails(tmp_path):
    result, opened = pi(tmp_path, chip_error="error: 'can not open gpiochip'")
    assert not result.ok and opened == ["gpiochip0"]
    assert "lgpio cannot open" in result.detail and "can not open gpiochip" in result.detail
    assert "python3-lgpio" in result.fix


def test_without_lgpio_the_pins_are_not_opened(tmp_path):
    result, opened = pi(tmp_path, missing=("lgpio",))
    assert not result.ok and "lgpio cannot be imported" in result.detail
    assert opened == []


def test_off_a_pi_it_says_skipped_and_opens_nothing(tmp_path):
    result, opened = pi(tmp_path, model="", missing=("lgpio", "picamera2", "libcamera"))
    assert result.ok
    assert result.detail.startswith("not a Pi: skipped")
    assert "picamera2, libcamera's Python bindings and lgpio on real pins" in result.detail
    assert opened == []


def test_companion_doctor_says_skipped_off_a_pi(tmp_path):
    # this machine is not a Pi (the tests never run on one): the real check, through the CLI
    proc = subprocess.run([sys.executable, "-m", "app", "doctor", "--only", "system", "--json"],
                          capture_output=True, text=True, cwd=tmp_path,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(
                              __import__("pathlib").Path(__file__).resolve().parents[2])})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    [check] = json.loads(proc.stdout)["checks"]
    assert check["name"] == "system" and check["detail"].startswith("not a Pi: skipped")
