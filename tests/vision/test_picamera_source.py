"""The Pi camera source against a stand-in that behaves as picamera2 does
(tests/support/fake_picamera2.py): sensor mode, focus, flicker, exposure lock and relock, read
timeouts, failed starts, and asking libcamera whether there is a camera."""

from __future__ import annotations

import pytest

from companion.bus import EventBus
from tests.support.fake_picamera2 import CameraWorld, install
from vision.sources import CameraLost, PiCameraSource, ResilientSource, pi_camera_present


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def open_camera(monkeypatch, world=None, **options):
    world = install(monkeypatch, world)
    options.setdefault("clock", Clock())
    return world, PiCameraSource(1280, 720, 15, **options)


# --- 1. the whole field of view -------------------------------------------------------------------

@pytest.mark.parametrize("model, mode", [("imx708", (2304, 1296)), ("imx219", (1640, 1232))])
def test_the_camera_sees_its_whole_sensor_not_a_centre_crop(monkeypatch, model, mode):
    world, source = open_camera(monkeypatch, CameraWorld(models=[model]))
    cam = world.opened[0]
    assert cam.sensor_mode["size"] == mode
    assert cam.field_of_view() == 1.0
    source.close()


def test_the_camera_asks_for_no_more_buffers_than_the_pipeline_needs(monkeypatch):
    # frames are copied out of picamera2's buffers at once: its default six (2.6 MB each at
    # 1280x720) would only hold memory the Pi needs
    world, source = open_camera(monkeypatch)
    assert 2 <= world.opened[0].camera_config["buffer_count"] <= 3
    source.close()


def test_left_to_picamera2_the_module_3_sees_a_crop(monkeypatch):
    # what happened before: no sensor mode chosen, libcamera's pick for 1280x720 is a crop
    world, source = open_camera(monkeypatch, sensor_mode="auto")
    assert world.opened[0].sensor_mode["size"] == (1536, 864)
    assert world.opened[0].field_of_view() < 0.5
    source.close()


def test_a_sensor_mode_can_be_chosen_by_size_and_a_wrong_one_says_which_exist(monkeypatch):
    world, source = open_camera(monkeypatch, sensor_mode="4608x2592")
    assert world.opened[0].sensor_mode["size"] == (4608, 2592)
    source.close()
    with pytest.raises(CameraLost, match="no sensor mode 999x999.*2304x1296"):
        open_camera(monkeypatch, sensor_mode="999x999")
    assert world.held is None or world.held.closed


# --- 6. focus, flicker, exposure ------------------------------------------------------------------

def test_the_module_3_focuses_on_the_mat_at_the_configured_height(monkeypatch):
    world, source = open_camera(monkeypatch, height_cm=88, mains_hz=50)
    controls = world.opened[0].camera_config["controls"]
    assert controls["AfMode"] == 0 and controls["LensPosition"] == pytest.approx(1 / 0.88, abs=1e-3)
    assert controls["AeFlickerMode"] == 1 and controls["AeFlickerPeriod"] == 10000
    assert world.opened[0].autofocus_cycles == 0
    source.close()


def test_focus_once_runs_one_autofocus_cycle_and_never_continuous(monkeypatch):
    world, source = open_camera(monkeypatch, height_cm=88, focus="once")
    cam = world.opened[0]
    assert cam.camera_config["controls"]["AfMode"] == 1 and cam.autofocus_cycles == 1
    for _ in range(3):
        source.read()
    assert cam.autofocus_cycles == 1
    assert all(c.get("AfMode") != 2 for c in [cam.camera_config["controls"], *cam.controls_set])
    source.close()


def test_a_camera_without_a_lens_control_gets_no_focus_controls(monkeypatch):
    world, source = open_camera(monkeypatch, CameraWorld(models=["imx219"]), height_cm=88,
                                focus="once", mains_hz=60)
    controls = world.opened[0].camera_config["controls"]
    assert "AfMode" not in controls and "LensPosition" not in controls
    assert controls["AeFlickerPeriod"] == 8333
    source.close()


def test_exposure_is_locked_after_settling_in_whole_flicker_periods(monkeypatch):
    clock = Clock()
    world, source = open_camera(monkeypatch, mains_hz=50, clock=clock, settle_s=2.0)
    cam = world.opened[0]
    source.read()
    assert cam.controls_set == []
    clock.now = 2.5
    source.read()
    locked = cam.controls_set[-1]
    assert locked["AeEnable"] is False and locked["AwbEnable"] is False
    assert locked["ExposureTime"] % 10000 == 0 and locked["ColourGains"] == (1.8, 1.5)
    source.close()


def test_a_new_layout_relocks_exposure_and_white_balance(monkeypatch):
    clock = Clock()
    world, source = open_camera(monkeypatch, clock=clock, settle_s=2.0)
    cam = world.opened[0]
    clock.now = 3.0
    source.read()
    assert cam.controls_set[-1]["AeEnable"] is False
    world.metadata = {**world.metadata, "ExposureTime": 41000}
    source.relock()
    source.read()
    assert cam.controls_set[-1] == {"AeEnable": True, "AwbEnable": True}
    clock.now = 4.0
    source.read()  # still settling
    assert cam.controls_set[-1] == {"AeEnable": True, "AwbEnable": True}
    clock.now = 5.5
    source.read()
    assert cam.controls_set[-1]["AeEnable"] is False and cam.controls_set[-1]["ExposureTime"] == 41000
    source.close()


def test_a_mono_sensor_locks_without_white_balance_and_never_loops(monkeypatch):
    clock = Clock()
    world, source = open_camera(monkeypatch, CameraWorld(models=["ov9281"]), clock=clock)
    clock.now = 3.0
    for _ in range(5):
        source.read()
    cam = world.opened[0]
    assert cam.controls_set == [{"AeEnable": False, "ExposureTime": 23000, "AnalogueGain": 2.0}]
    source.relock()
    source.read()
    assert cam.controls_set[-1] == {"AeEnable": True}
    assert len(world.opened) == 1  # never reopened
    source.close()


# --- stills: the hands laid open are read at the sensor's full resolution --------------------------

@pytest.mark.parametrize("model, size", [("imx708", (4608, 2592)), ("imx219", (3280, 1844))])
def test_a_still_is_the_whole_sensor_wide_at_the_frames_aspect(monkeypatch, model, size):
    # a 4:3 sensor's 16:9 frames are a crop of it: the still is cropped alike, so that the view
    # found on the frames fits it scaled
    world, source = open_camera(monkeypatch, CameraWorld(models=[model]))
    frame = source.still()
    assert frame.image.shape == (size[1], size[0], 3)
    assert world.opened[0].stills[-1]["size"] == size
    assert source.read().image.shape == (720, 1280, 3)  # the frames go on at their size
    source.close()


def test_a_still_keeps_the_locked_exposure_and_the_frames_keep_it_after(monkeypatch):
    clock = Clock()
    world, source = open_camera(monkeypatch, mains_hz=50, clock=clock, settle_s=2.0)
    cam = world.opened[0]
    clock.now = 3.0
    source.read()
    locked = cam.controls_set[-1]
    assert locked["AeEnable"] is False
    source.still()
    taken = cam.stills[-1]["controls"]
    assert taken["ExposureTime"] == locked["ExposureTime"] and taken["AeEnable"] is False
    assert taken["AeFlickerPeriod"] == 10000           # the flicker setting goes with it
    # picamera2 switched back to the frames' configured controls: the lock is set again
    assert cam.active_controls["AeEnable"] is False
    assert cam.active_controls["ExposureTime"] == locked["ExposureTime"]
    source.close()


def test_before_the_lock_a_still_meters_itself_and_sets_nothing_after(monkeypatch):
    world, source = open_camera(monkeypatch, settle_s=2.0)
    cam = world.opened[0]
    source.still()
    assert "ExposureTime" not in cam.stills[-1]["controls"]
    assert cam.controls_set == []
    source.close()


def test_stills_can_be_turned_off_and_the_setting_is_checked(monkeypatch, tmp_path):
    from app.runner import camera_opener
    from companion.config import ConfigError, load_config

    world = install(monkeypatch)
    path = tmp_path / "c.toml"
    path.write_text('[camera]\nsource = "picamera"\nstill = "off"\n')
    source = camera_opener(load_config(path).camera)()
    assert source.still() is None and world.opened[0].stills == []   # the frame is read instead
    source.close()
    source = PiCameraSource(1280, 720, 15, clock=Clock())             # on by default
    assert source.still() is not None and len(world.opened[1].stills) == 1
    source.close()
    path.write_text('[camera]\nstill = "half"\n')
    with pytest.raises(ConfigError, match="still must be full or off"):
        load_config(path)


def test_a_still_that_never_comes_is_lost_as_hung(monkeypatch):
    world, source = open_camera(monkeypatch, CameraWorld(stall_after=0), still_timeout_s=0.1)
    with pytest.raises(CameraLost) as lost:
        source.still()
    assert lost.value.cause == "hung" and "still" in str(lost.value)
    source.close()


def test_a_failed_still_leaves_the_frames_going(monkeypatch):
    world = install(monkeypatch, CameraWorld())
    source = ResilientSource(lambda: PiCameraSource(1280, 720, 15, clock=Clock()), EventBus())
    assert source.read() is not None
    cam = world.opened[0]
    monkeypatch.setattr(cam, "switch_mode_and_capture_array",
                        lambda *a, **k: (_ for _ in ()).throw(RuntimeError("Failed to allocate buffers")))
    assert source.still() is None
    assert source.read() is not None and source.status == "ok"
    assert len(world.opened) == 1    # not closed and opened again
    source.close()


# --- 4. reads that hang ---------------------------------------------------------------------------

def test_a_camera_that_stops_giving_frames_is_lost_as_hung_not_a_frozen_table(monkeypatch):
    world, source = open_camera(monkeypatch, CameraWorld(stall_after=2))
    source.read(), source.read()
    with pytest.raises(CameraLost, match="no frame in 3 s") as lost:
        source.read()
    assert lost.value.cause == "hung"
    source.close()


def test_a_hung_camera_is_said_lost_hung_on_the_bus_and_reopened(monkeypatch):
    world = install(monkeypatch, CameraWorld(stall_after=1))
    bus, events = EventBus(), []
    bus.subscribe(lambda m: events.append(m.data) if m.type == "camera" else None)
    source = ResilientSource(lambda: PiCameraSource(1280, 720, 15, clock=Clock()), bus,
                             sleep=lambda s: None, lost_after=1, ok_after=1)
    assert source.read() is not None
    assert source.read() is not None  # the first hung, was closed, and a new one gives a frame
    bus.join(5)
    assert events[0]["status"] == "lost" and events[0]["cause"] == "hung"
    assert "hangs" in events[0]["reason"]
    assert events[1]["status"] == "ok"
    assert world.opened[0].closed and len(world.opened) == 2
    source.close()
    bus.close()


# --- 2, 3. failed starts, busy, missing ----------------------------------------------------------

def test_no_camera_is_missing_and_nothing_is_left_open(monkeypatch):
    world = install(monkeypatch, CameraWorld(models=[]))
    with pytest.raises(CameraLost, match="no camera found") as lost:
        PiCameraSource()
    assert lost.value.cause == "missing" and world.opened == []
    assert not pi_camera_present()


def test_a_busy_camera_says_busy_with_libcameras_own_words(monkeypatch):
    install(monkeypatch, CameraWorld(held_elsewhere=True))
    with pytest.raises(CameraLost, match="busy: another program holds it.*Device or resource busy") as lost:
        PiCameraSource()
    assert lost.value.cause == "busy"


def test_a_failed_start_closes_the_camera_so_the_next_try_can_have_it(monkeypatch):
    world = install(monkeypatch, CameraWorld(fail_start=RuntimeError("Failed to start camera: Broken pipe")))
    with pytest.raises(CameraLost, match="did not start.*Broken pipe"):
        PiCameraSource()
    assert world.opened[0].closed and world.held is None
    world.fail_start = None
    source = PiCameraSource(clock=Clock())  # not busy: the failed one let go
    assert source.read() is not None
    source.close()


def test_the_camera_is_present_only_when_libcamera_lists_one(monkeypatch):
    install(monkeypatch, CameraWorld(models=["imx708"]))
    assert pi_camera_present()
    install(monkeypatch, CameraWorld(models=[]))
    assert not pi_camera_present()


def test_without_picamera2_there_is_no_pi_camera(monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import fails
    assert not pi_camera_present()
    with pytest.raises(CameraLost) as lost:
        PiCameraSource()
    assert lost.value.cause == "missing"


# --- the configuration ------------------------------------------------------------------------------

@pytest.mark.parametrize("line, message", [
    ('sensor_mode = "wide"', "sensor_mode must be full, auto or WIDTHxHEIGHT"),
    ('focus = "continuous"', "focus must be manual or once"),
    ("mains_hz = 55", "mains_hz must be 50, 60 or 0"),
    ("height_cm = 5", "height_cm must be 20-300"),
])
def test_bad_camera_settings_are_refused_naming_the_key(tmp_path, line, message):
    from companion.config import ConfigError, load_config

    path = tmp_path / "c.toml"
    path.write_text(f"[camera]\n{line}\n")
    with pytest.raises(ConfigError, match=message):
        load_config(path)


def test_the_camera_settings_reach_the_pi_camera(monkeypatch, tmp_path):
    from app.runner import camera_opener
    from companion.config import load_config

    world = install(monkeypatch)
    path = tmp_path / "c.toml"
    path.write_text('[camera]\nsource = "picamera"\nsensor_mode = "4608x2592"\nheight_cm = 50\n'
                    'mains_hz = 60\n')
    source = camera_opener(load_config(path).camera)()
    cam = world.opened[0]
    assert cam.sensor_mode["size"] == (4608, 2592)
    assert cam.camera_config["controls"]["LensPosition"] == 2.0
    assert cam.camera_config["controls"]["AeFlickerPeriod"] == 8333
    source.close()
