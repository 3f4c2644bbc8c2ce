"""companion doctor: each check driven alone with fakes (mock pins, a fake camera, a temporary
database, a port held by the test), each failure's message, and the command's exit status."""

from __future__ import annotations

import dataclasses
import errno
import json
import socket
import sqlite3

import numpy as np
import pytest
from gpiozero import LED
from gpiozero.exc import BadPinFactory
from gpiozero.pins.mock import MockFactory, MockPWMPin

from app import doctor
from app.cli import main
from companion.config import load_config
from app.doctor import (CheckResult, check_addresses, check_camera, check_config,
                              check_database, check_markers, check_model, check_pins,
                              check_port, check_signals, format_line, run_checks)
from hardware.pinmap import PinMap
from hardware.timeline import ManualClock
from tests.support.pins import RecordingPWMPin
from vision.sources import CameraLost

NOT_ACTIVE = lambda: False  # noqa: E731 - the companion's service is not running
ACTIVE = lambda: True  # noqa: E731 - it is running


# --- fakes ----------------------------------------------------------------------------------------

class FakeFrame:
    def __init__(self, image):
        self.image = image


class FakeCamera:
    """A camera that gives ``images`` (then None), or raises ``fail`` on the read number ``fail_at``."""

    def __init__(self, images, name="picamera", fail=None, fail_at=0):
        self.images = list(images)
        self.name = name
        self.fail = fail
        self.fail_at = fail_at
        self.reads = 0
        self.closed = False

    def read(self):
        if self.fail is not None and self.reads == self.fail_at:
            raise self.fail
        self.reads += 1
        return FakeFrame(self.images.pop(0)) if self.images else None

    def close(self):
        self.closed = True


def grey(value, shape=(72, 128, 3)):
    return np.full(shape, value, np.uint8)


@pytest.fixture(scope="module")
def table_image():
    """A synthetic table frame, the mat's four corner markers in view."""
    from simulator.source import SyntheticSource

    return SyntheticSource(960, 540).read().image


def mock_factory():
    return MockFactory(pin_class=MockPWMPin)


# --- the result -----------------------------------------------------------------------------------

def test_check_result_is_a_frozen_value_and_prints_on_one_line():
    r = CheckResult("port", False, "port 8000 on 0.0.0.0 is in use", "Stop it.")
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.ok = True  # type: ignore[misc]
    assert r == CheckResult("port", False, "port 8000 on 0.0.0.0 is in use", "Stop it.")
    assert format_line(r) == "FAIL port: port 8000 on 0.0.0.0 is in use Fix: Stop it."
    assert format_line(CheckResult("port", True, "free")) == "ok   port: free"
    assert "\n" not in format_line(r)
    assert r.to_json() == {"name": "port", "ok": False, "detail": r.detail, "fix": "Stop it."}


# --- config ---------------------------------------------------------------------------------------

def test_config_defaults_pass(tmp_path):
    result, config = check_config(None)
    assert result.ok and config is not None
    assert "mode referee" in result.detail


def test_config_typo_fails_naming_the_key(tmp_path):
    path = tmp_path / "companion.toml"
    path.write_text('[web]\nprot = 8000\n')
    result, config = check_config(path)
    assert not result.ok and config is None
    assert "prot" in result.detail and "docs/configuration.md" in result.fix


def test_config_bad_pin_map_fails_naming_the_pins(tmp_path):
    path = tmp_path / "companion.toml"
    path.write_text('[pins]\nseat_east = 5\n')
    result, _ = check_config(path)
    assert not result.ok
    assert "GPIO5 is used twice" in result.detail and "[pins]" in result.fix


# --- camera ---------------------------------------------------------------------------------------

def test_camera_delivering_frames_passes_and_keeps_the_last():
    camera = FakeCamera([grey(90), grey(100), grey(110)])
    kept = []
    result = check_camera(lambda: camera, spec="picamera", frames=3, keep=kept)
    assert result.ok, result
    assert "picamera: 3 frames of 128x72" in result.detail
    assert camera.closed and len(kept) == 1 and kept[0].mean() == 110


@pytest.mark.parametrize("value, word, advice", [(0, "black", "lens cap"),
                                                 (255, "white", "overexposed")])
def test_camera_black_or_white_frames_fail(value, word, advice):
    kept = []
    result = check_camera(lambda: FakeCamera([grey(value)] * 3), spec="picamera", keep=kept)
    assert not result.ok
    assert word in result.detail and advice in result.fix
    assert kept == []  # no frame worth looking for markers in


def test_camera_without_picamera2_says_how_to_install_it():
    def open_source():
        raise CameraLost("picamera2 is not installed: no Pi camera here")
    result = check_camera(open_source, spec="picamera", is_active=NOT_ACTIVE)
    assert not result.ok
    assert "picamera2 is not installed" in result.detail
    assert "sudo apt install python3-picamera2" in result.fix
    assert "--system-site-packages" in result.fix


def test_camera_not_detected_says_check_the_ribbon():
    def open_source():
        raise CameraLost("the Pi camera did not start: list index out of range")
    result = check_camera(open_source, spec="picamera", is_active=NOT_ACTIVE)
    assert not result.ok and "did not open" in result.detail
    assert "ribbon" in result.fix and "rpicam-hello --list-cameras" in result.fix


def test_camera_busy_while_the_service_runs_says_stop_it():
    def open_source():
        raise CameraLost("the Pi camera did not start: Device or resource busy")
    result = check_camera(open_source, spec="picamera", is_active=ACTIVE)
    assert not result.ok
    assert "in use by another program" in result.fix
    assert "sudo systemctl stop uno-companion" in result.fix


def test_camera_that_stops_after_opening_fails():
    camera = FakeCamera([grey(100)] * 5, fail=CameraLost("camera 0 gave no frame"), fail_at=2)
    result = check_camera(lambda: camera, spec="opencv:0", is_active=NOT_ACTIVE)
    assert not result.ok
    assert result.detail == "picamera stopped after opening: camera 0 gave no frame"
    assert camera.closed


def test_camera_with_no_frame_fails():
    result = check_camera(lambda: FakeCamera([], name="folder"), spec="folder:/x",
                          is_active=NOT_ACTIVE)
    assert not result.ok and result.detail == "folder opened but gave no frame"


def test_auto_falling_back_to_the_synthetic_table_is_no_camera():
    result = check_camera(lambda: FakeCamera([grey(100)] * 5, name="synthetic"), spec="auto")
    assert not result.ok
    assert "no Pi camera found" in result.detail and "opencv:0" in result.fix
    # asked for by name, the synthetic table is a fine camera
    assert check_camera(lambda: FakeCamera([grey(100)] * 5, name="synthetic"),
                        spec="synthetic").ok


def test_camera_open_source_errors_other_than_camera_lost():
    def bad_spec():
        raise ValueError("unknown camera source 'webcam'")
    result = check_camera(bad_spec, spec="webcam", is_active=NOT_ACTIVE)
    assert not result.ok and "unknown camera source" in result.detail
    assert "[camera] source" in result.fix


# --- markers --------------------------------------------------------------------------------------

def test_markers_all_four_seen(table_image):
    result = check_markers(table_image)
    assert result.ok, result
    assert result.detail.startswith("4 of 4 corner markers")


def test_markers_three_seen_passes_and_names_the_hidden_one(table_image):
    from vision.geometry import detect_markers

    image = table_image.copy()
    corners = detect_markers(image)[2]  # south-east
    x0, y0 = corners.min(axis=0).astype(int) - 6
    x1, y1 = corners.max(axis=0).astype(int) + 6
    image[max(y0, 0):y1, max(x0, 0):x1] = 128
    result = check_markers(image)
    assert result.ok, result
    assert "3 of 4" in result.detail and "south-east hidden" in result.detail


def test_markers_none_seen_fails_with_how_to_lay_the_mat():
    result = check_markers(grey(120, (540, 960, 3)))
    assert not result.ok
    assert result.detail == ("saw 0 of the 4 corner markers; missing: north-west, north-east, "
                             "south-east, south-west")
    assert "companion mat" in result.fix and "85-90 cm" in result.fix


def test_markers_without_a_frame_cannot_be_checked():
    result = check_markers(None)
    assert not result.ok and result.detail == "cannot check: no frame from the camera"


# --- model ----------------------------------------------------------------------------------------

def test_model_missing_says_where_it_goes():
    def load():
        raise FileNotFoundError("card model not found at vision/models/cards.onnx")
    result = check_model(load)
    assert not result.ok
    assert "not found" in result.detail and "vision/models/cards.onnx" in result.fix


def test_model_damaged_fails():
    def load():
        raise RuntimeError("Failed to parse ONNX model")
    result = check_model(load)
    assert not result.ok and "does not load: RuntimeError" in result.detail


def test_model_that_loads_and_reads_passes():
    class Reading:
        label = "none"

    class Reader:
        classes = ("red-1", "none")

        def classify(self, image):
            assert image.shape == (96, 64, 3)
            return Reading()
    result = check_model(Reader)
    assert result.ok and "(2 classes)" in result.detail and "reads as none" in result.detail


def test_model_that_loads_but_cannot_read_fails():
    class Reader:
        def classify(self, image):
            raise ValueError("bad input shape")
    result = check_model(Reader)
    assert not result.ok and "cannot read a card" in result.detail


def test_the_real_model_when_it_is_there():
    from vision.recognize import MODEL_PATH

    result = check_model()
    assert result.ok == MODEL_PATH.is_file(), result


# --- pins -----------------------------------------------------------------------------------------

def test_pins_all_free_on_mock_pins():
    factory = MockFactory(pin_class=RecordingPWMPin)
    result = check_pins(PinMap(), factory)
    assert result.ok, result
    assert result.detail.startswith("all 14 pins free: GPIO5 seat LED north")
    # everything was let go again ...
    LED(13, pin_factory=factory).close()
    # ... the LEDs were claimed as outputs, and no button pin was ever driven
    assert "output" in factory.pin(5).functions
    for button in (23, 24, 25):
        assert "output" not in factory.pin(button).functions
        assert factory.pin(button).pull == "up"


def test_pin_in_use_fails_naming_pin_and_role():
    factory = mock_factory()
    holder = LED(13, pin_factory=factory)
    try:
        result = check_pins(PinMap(), factory, is_active=NOT_ACTIVE)
    finally:
        holder.close()
    assert not result.ok
    assert result.detail.startswith("GPIO13 (seat LED south): another program holds it (GPIOPinInUse")
    assert "[pins]" in result.fix and "systemctl" not in result.fix


def test_pin_in_use_while_the_service_runs_says_stop_it():
    factory = mock_factory()
    holder = LED(24, pin_factory=factory)
    try:
        result = check_pins(PinMap(), factory, is_active=ACTIVE)
    finally:
        holder.close()
    assert not result.ok and "GPIO24 (draw button)" in result.detail
    assert "sudo systemctl stop uno-companion" in result.fix


def test_pins_on_a_machine_without_gpio():
    class NoGPIO(MockFactory):
        def pin(self, spec, **kwargs):
            raise BadPinFactory("Unable to load any default pin factory!")
    result = check_pins(PinMap(), NoGPIO())
    assert not result.ok
    assert result.detail.startswith("no GPIO here")
    assert "--mock-pins" in result.fix


def test_pins_left_out_of_the_map_are_not_claimed():
    result = check_pins(PinMap.from_config({"buttons": False, "seat_west": False}),
                        mock_factory())
    assert result.ok and "all 10 pins free" in result.detail
    assert "GPIO19" not in result.detail and "button" not in result.detail


# --- signals --------------------------------------------------------------------------------------

def test_self_test_lights_every_led_and_sounds_the_buzzer():
    factory = mock_factory()
    clock = ManualClock()
    result = check_signals(PinMap(), factory, clock=clock, wait=clock.advance)
    assert result.ok, result
    assert "4 seat LEDs, side LED, status LED, tonal buzzer" in result.detail
    assert "docs/hardware-guide.md" in result.detail

    def lit(pin):
        return any(s.state not in (0, False, None) for s in factory.pin(pin).states)
    pm = PinMap()
    for pin in [*pm.seat_pins().values(), *pm.rgb("side"), *pm.rgb("status"), pm.buzzer]:
        assert lit(pin), f"GPIO{pin} never lit"
    # each seat LED came on once, and everything is off again
    for pin in pm.seat_pins().values():
        assert [bool(s.state) for s in factory.pin(pin).states] == [False, True, False]
    for pin in [*pm.rgb("side"), *pm.rgb("status"), pm.buzzer]:
        assert not factory.pin(pin).states[-1].state


def test_self_test_with_a_pin_in_use_fails():
    factory = mock_factory()
    holder = LED(18, pin_factory=factory)
    clock = ManualClock()
    try:
        result = check_signals(PinMap(), factory, clock=clock, wait=clock.advance,
                               is_active=NOT_ACTIVE)
    finally:
        holder.close()
    assert not result.ok
    assert result.detail.startswith("GPIO18 (buzzer) is unavailable")


def test_self_test_without_pwm_plays_the_plain_buzzer():
    clock = ManualClock()
    result = check_signals(PinMap(), MockFactory(), clock=clock, wait=clock.advance)
    assert result.ok and "plain buzzer" in result.detail


# --- database -------------------------------------------------------------------------------------

def test_database_new_path_is_writable_and_left_clean(tmp_path):
    path = tmp_path / "state" / "events.sqlite3"
    result = check_database(path)
    assert result.ok, result
    assert "is writable (new: the companion makes it" in result.detail
    assert not path.exists()  # the companion makes its own


def test_database_existing_event_log_passes(tmp_path):
    from companion.eventlog import EventLog

    path = tmp_path / "events.sqlite3"
    EventLog(path).close()
    result = check_database(path)
    assert result.ok and "KiB, journal wal" in result.detail


def test_database_folder_that_cannot_be_made_fails(tmp_path):
    (tmp_path / "file").write_text("not a folder")
    result = check_database(tmp_path / "file" / "events.sqlite3")
    assert not result.ok
    assert result.detail.startswith("cannot create the folder")
    assert "[log] path" in result.fix


def test_database_locked_by_another_writer_fails(tmp_path):
    path = tmp_path / "events.sqlite3"
    holder = sqlite3.connect(str(path), isolation_level=None)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN IMMEDIATE")
    try:
        result = check_database(path, timeout=0.05)
    finally:
        holder.close()
    assert not result.ok and "locked" in result.detail
    assert "is a companion running" in result.fix


def test_database_that_is_not_a_database_fails(tmp_path):
    path = tmp_path / "events.sqlite3"
    path.write_bytes(b"this is not sqlite" * 100)
    result = check_database(path)
    assert not result.ok and "move it aside" in result.fix


# --- port -----------------------------------------------------------------------------------------

def test_free_port_passes():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert check_port("127.0.0.1", port).ok


def test_port_in_use_fails():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        result = check_port("127.0.0.1", port, is_active=NOT_ACTIVE)
        busy_service = check_port("127.0.0.1", port, is_active=ACTIVE)
    assert not result.ok
    assert result.detail == f"port {port} on 127.0.0.1 is in use"
    assert f"ss -ltnp 'sport = :{port}'" in result.fix and "[web] port" in result.fix
    assert "sudo systemctl stop uno-companion" in busy_service.fix


def test_port_address_not_of_this_machine_fails():
    result = check_port("192.0.2.123", 8000)
    assert not result.ok and "not an address of this machine" in result.detail


def test_port_that_needs_privileges_fails(monkeypatch):
    def refuse(self, address):
        raise PermissionError(errno.EACCES, "Permission denied")
    monkeypatch.setattr(socket.socket, "bind", refuse)
    result = check_port("0.0.0.0", 80)
    assert not result.ok and "privileges" in result.detail
    assert "CAP_NET_BIND_SERVICE" in result.fix


def test_port_host_that_is_no_address_fails():
    result = check_port("no-such-host.invalid", 8000)
    assert not result.ok and "is not an address" in result.detail


# --- addresses ------------------------------------------------------------------------------------

def test_addresses_lan_ip_and_hostname():
    result = check_addresses("0.0.0.0", 8000, lan_ip=lambda: "192.168.1.20",
                             hostname=lambda: "uno")
    assert result.ok
    assert result.detail == ("phones are sent to http://192.168.1.20:8000/ (the QR code); also "
                             "http://uno.local:8000/ where the phone resolves .local")


def test_addresses_without_network_fail():
    result = check_addresses("0.0.0.0", 8000, lan_ip=lambda: "127.0.0.1")
    assert not result.ok and "no LAN address" in result.detail and "Wi-Fi" in result.fix


def test_addresses_server_on_loopback_only_fails():
    result = check_addresses("127.0.0.1", 8000, lan_ip=lambda: "192.168.1.20")
    assert not result.ok and "listens on 127.0.0.1 only" in result.detail
    assert 'host = "0.0.0.0"' in result.fix


def test_addresses_public_url():
    ok = check_addresses("0.0.0.0", 8000, "http://table.example:8000", lan_ip=lambda: "10.0.0.2")
    assert ok.ok and ok.detail == "phones are sent to http://table.example:8000/ ([web] public_url)"
    assert not check_addresses("0.0.0.0", 8000, "table:8000").ok
    assert not check_addresses("0.0.0.0", 8000, "http://localhost:8000").ok


# --- all of them, and the command -----------------------------------------------------------------

def test_timer_mode_needs_no_camera_and_runs_in_order(tmp_path):
    config = load_config(None, {"table.mode": "timer", "log.path": str(tmp_path / "e.sqlite3"),
                                "web.port": 0})
    seen = []
    results = run_checks(config, pin_factory=mock_factory(), selftest=False,
                         on_result=seen.append, is_active=NOT_ACTIVE)
    assert [r.name for r in results] == list(doctor.CHECKS[1:])
    assert seen == results
    by_name = {r.name: r for r in results}
    for name in ("camera", "markers", "model"):
        assert by_name[name].ok and by_name[name].detail.startswith("not needed: mode timer")
    assert by_name["signals"].detail == "not needed: self-test left out (--no-selftest)"
    assert by_name["pins"].ok and by_name["database"].ok and by_name["port"].ok


def test_referee_mode_reads_markers_from_the_camera_frame(table_image):
    config = load_config(None, {"camera.source": "picamera"})
    results = run_checks(config, open_source=lambda: FakeCamera([table_image] * 3),
                         only=["camera", "markers"], frames=3)
    assert [(r.name, r.ok) for r in results] == [("camera", True), ("markers", True)]
    failed_camera = run_checks(config, open_source=lambda: FakeCamera([grey(0)] * 3),
                               only=["camera", "markers"], frames=3)
    assert failed_camera[1] == CheckResult("markers", False,
                                           "cannot check: no frame from the camera",
                                           "Fix the camera first.")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_command_json_exit_0_when_all_pass(tmp_path, capsys):
    # (port 0: any free port; a port found free beforehand may be taken by another test's
    # server before the check binds it)
    argv = ["doctor", "--json", "--mock-pins", "--no-selftest", "--mode", "timer",
            "--log", str(tmp_path / "e.sqlite3"), "--port", "0", "--skip", "addresses"]
    status = main(argv)
    out = json.loads(capsys.readouterr().out)
    assert status == 0 and out["ok"] is True, [c for c in out["checks"] if not c["ok"]]
    assert [c["name"] for c in out["checks"]] == [c for c in doctor.CHECKS if c != "addresses"]
    assert set(out["checks"][0]) == {"name", "ok", "detail", "fix"}


def test_command_exit_1_and_a_line_per_check(tmp_path, capsys):
    with socket.socket() as s:
        s.bind(("0.0.0.0", 0))
        s.listen(1)
        port = s.getsockname()[1]
        status = main(["doctor", "--mock-pins", "--no-selftest", "--mode", "scoreboard",
                       "--log", str(tmp_path / "e.sqlite3"), "--port", str(port),
                       "--only", "config", "--only", "pins", "--only", "port"])
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert status == 1
    assert [line.split(":")[0] for line in lines] == ["ok   config", "ok   pins", "FAIL port"]
    assert f"port {port} on 0.0.0.0 is in use" in lines[2] and "Fix:" in lines[2]
    assert "1 of 3 checks failed: port" in captured.err


def test_command_bad_config_fails_at_once(tmp_path, capsys):
    path = tmp_path / "companion.toml"
    path.write_text("[camera]\nsource = 5\n")
    status = main(["doctor", "--config", str(path), "--mock-pins", "--only", "port"])
    out = capsys.readouterr().out
    assert status == 1
    assert out.startswith("FAIL config: [camera] source must be a string")


def test_command_is_listed_in_help(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "doctor" in capsys.readouterr().out
