"""The doctor's honest diagnoses on a Pi: a busy camera is not "reseat the ribbon",
a hung one is named, no access to /dev/gpiochip*, no lgpio, the wrong OS release; the markers'
size in pixels and the picture's sharpness, each with its fix."""

from __future__ import annotations

import cv2
import pytest
from gpiozero.exc import BadPinFactory

from app.doctor import check_camera, check_markers, check_system, run_checks
from companion.config import load_config
from hardware.errors import PinUnavailable, gpio_fault
from tests.support.fake_picamera2 import CameraWorld, install
from vision.sources import PiCameraSource

PI5 = "Raspberry Pi 5 Model B Rev 1.0\0"
TRIXIE = 'PRETTY_NAME="Debian GNU/Linux 13 (trixie)"\nVERSION_CODENAME=trixie\n'
BOOKWORM = 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nVERSION_CODENAME=bookworm\n'


@pytest.fixture(scope="module")
def table_image():
    from simulator.source import SyntheticSource

    return SyntheticSource(960, 540).read().image


# --- 2. the camera: busy, missing, hung ----------------------------------------------------------

def test_a_busy_camera_is_diagnosed_busy_not_a_loose_ribbon(monkeypatch):
    install(monkeypatch, CameraWorld(held_elsewhere=True))
    result = check_camera(lambda: PiCameraSource(), spec="picamera", is_active=lambda: False)
    assert not result.ok and "busy" in result.detail
    assert "in use by another program" in result.fix and "ribbon" not in result.fix


def test_the_doctor_opens_the_pi_camera_as_run_does_and_names_the_cause(monkeypatch, tmp_path):
    install(monkeypatch, CameraWorld(models=[]))
    path = tmp_path / "c.toml"
    path.write_text('[camera]\nsource = "picamera"\n')
    [result] = run_checks(load_config(path), only=["camera"], is_active=lambda: False)
    assert not result.ok and "no camera found" in result.detail
    assert "ribbon" in result.fix and "rpicam-hello --list-cameras" in result.fix


def test_a_hung_camera_says_ribbon_and_power_supply(monkeypatch):
    install(monkeypatch, CameraWorld(stall_after=1))
    result = check_camera(lambda: PiCameraSource(), spec="picamera", is_active=lambda: False)
    assert not result.ok and "hangs" in result.detail
    assert "power supply" in result.fix


# --- the markers: pixels and sharpness ------------------------------------------------------------

def test_markers_in_focus_and_big_enough_pass_with_their_size_and_sharpness(table_image):
    big = cv2.resize(table_image, (1920, 1080), interpolation=cv2.INTER_LINEAR)
    result = check_markers(big)
    assert result.ok, result
    assert "46 px a side" in result.detail and "sharpness" in result.detail


def test_a_blurred_picture_fails_with_how_to_focus(table_image):
    big = cv2.resize(table_image, (1920, 1080), interpolation=cv2.INTER_LINEAR)
    result = check_markers(cv2.GaussianBlur(big, (0, 0), 2))
    assert not result.ok and "blurred" in result.detail
    assert "height_cm" in result.fix and 'focus = "once"' in result.fix


def test_markers_too_few_pixels_fail_with_lower_the_camera(table_image):
    small = cv2.resize(table_image, (640, 360), interpolation=cv2.INTER_AREA)
    result = check_markers(small)
    assert not result.ok and "15 px a side" in result.detail and "too small" in result.detail
    assert "lower" in result.fix and "hardware-guide" in result.fix


# --- the system -------------------------------------------------------------------------------------

def system(tmp_path, release=TRIXIE, model=PI5, chips=("gpiochip0", "gpiochip4"),
           missing=(), access=True, camera=True):
    (tmp_path / "os-release").write_text(release)
    (tmp_path / "model").write_text(model)
    dev = tmp_path / "dev"
    dev.mkdir(exist_ok=True)
    for chip in chips:
        (dev / chip).touch()
    return check_system(camera=camera, os_release=tmp_path / "os-release",
                        model_file=tmp_path / "model", dev=dev,
                        import_error=lambda m: f"ModuleNotFoundError: No module named '{m}'"
                        if m in missing else None,
                        access=lambda p: access, chip_error=lambda chip: None)


def test_a_pi_on_trixie_with_lgpio_picamera2_and_gpio_access_passes(tmp_path):
    result = system(tmp_path)
    assert result.ok and "Raspberry Pi 5" in result.detail and "trixie" in result.detail


def test_the_wrong_os_release_is_named_with_the_fix(tmp_path):
    result = system(tmp_path, release=BOOKWORM)
    assert not result.ok and "bookworm" in result.detail and "not trixie" in result.detail
    assert "Trixie" in result.fix and "numpy" in result.fix


def test_missing_lgpio_and_picamera2_are_named_as_such(tmp_path):
    result = system(tmp_path, missing=("lgpio", "picamera2"))
    assert not result.ok
    assert "lgpio cannot be imported" in result.detail and "picamera2 cannot be imported" in result.detail
    assert "python3-lgpio" in result.fix and "python3-picamera2" in result.fix
    assert "--system-site-packages" in result.fix
    # in timer mode the camera's library is not needed
    assert "picamera2" not in system(tmp_path, missing=("picamera2",), camera=False).detail


def test_no_access_to_the_gpio_chips_says_join_the_gpio_group(tmp_path):
    result = system(tmp_path, access=False)
    assert not result.ok and "may not open" in result.detail and "gpiochip0" in result.detail
    assert "usermod -aG gpio" in result.fix


def test_off_a_pi_there_is_nothing_to_check(tmp_path):
    assert system(tmp_path, model="", chips=()).ok


# --- 5. the pins: lgpio missing, no access -----------------------------------------------------------

def test_gpiozeros_no_pin_factory_is_told_apart(tmp_path):
    error = BadPinFactory("Unable to load any default pin factory!")
    model = tmp_path / "model"
    model.write_text(PI5)
    dev = tmp_path / "dev"
    dev.mkdir()
    (dev / "gpiochip0").touch()
    kind, why = gpio_fault(error, dev=dev, model_file=model, has_lgpio=lambda: False,
                           access=lambda p: True)
    assert kind == "no-lgpio" and "lgpio" in why
    kind, why = gpio_fault(error, dev=dev, model_file=model, has_lgpio=lambda: True,
                           access=lambda p: False)
    assert kind == "no-access" and "gpio group" in why and "/gpiochip0" in why
    kind, _ = gpio_fault(error, dev=tmp_path / "none", model_file=tmp_path / "none",
                         has_lgpio=lambda: False)
    assert kind == "no-gpio"
    assert gpio_fault(PermissionError(13, "Permission denied"), dev=dev, model_file=model)[0] == "no-access"


def test_a_pin_unavailable_for_want_of_access_gives_the_group_fix():
    failure = PinUnavailable("seat LED north", 5, PermissionError(13, "can not open gpiochip"))
    assert failure.kind == "no-access" and "usermod -aG gpio" in failure.fix
    assert "GPIO5, seat LED north" in str(failure)
