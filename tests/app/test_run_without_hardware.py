"""``companion run`` without a camera or its pins: it serves the
page and the signals, says why on the bus, the page and the terminal, picks the camera up when
it appears, and feeds systemd's watchdog only while its threads make progress."""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from app.runner import CameraUnavailable, CameraWorker, Companion, camera_opener, demo_setup
from app.sdnotify import notify, watchdog_seconds
from companion.config import load_config
from companion.host import Host
from hardware.errors import PinUnavailable
from tests.support.fake_picamera2 import CameraWorld, install

ROOT = Path(__file__).resolve().parents[2]

#: lgpio's own exception class: not a gpiozero error (what `companion run` crashed on)
LgpioError = type("error", (Exception,), {"__module__": "lgpio"})


class BusyPinFactory(MockFactory):
    """Mock pins, but GPIO ``busy`` is held by another program, as lgpio says it."""

    def __init__(self, busy: int):
        super().__init__(pin_class=MockPWMPin)
        self.busy = busy

    def pin(self, name, pin_class=None, **kwargs):
        if name == self.busy:
            raise LgpioError("GPIO busy")
        return super().pin(name, pin_class, **kwargs)


def config_file(tmp_path, text=""):
    path = tmp_path / "c.toml"
    path.write_text(text)
    return load_config(path)


# --- 5. a pin another program holds ----------------------------------------------------------------

def test_a_pin_held_elsewhere_is_a_pin_unavailable_naming_pin_why_and_fix_not_lgpios_error(tmp_path):
    config = config_file(tmp_path, '[table]\nmode = "timer"\n')
    with pytest.raises(PinUnavailable) as failed:
        Companion(config, demo=False, pin_factory=BusyPinFactory(5), web=False,
                  log_path=tmp_path / "e.sqlite3")
    text = str(failed.value)
    assert "GPIO5 (seat LED north)" in text and "another program holds it (lgpio: GPIO busy)" in text
    assert "gpioinfo" in text and "[pins]" in text


def test_run_goes_on_with_mock_pins_after_a_gpio_fault_and_says_it_once(tmp_path, capsys):
    config = config_file(tmp_path, '[table]\nmode = "timer"\n')
    companion = Companion(config, demo=False, pin_factory=BusyPinFactory(5), web=False,
                          log_path=tmp_path / "e.sqlite3", mock_pins_on_fault=True)
    try:
        assert companion.gpio_fault.kind == "busy" and companion.gpio_fault.pin == 5
        assert "mock pins" in capsys.readouterr().err
        companion.host.bus.publish("turn", seat="north")
        companion.host.bus.join(5)
        assert companion.signals.flush(5)
        assert companion.signals.snapshot()["seats"]["north"]["on"]
    finally:
        companion.stop()


# --- 3. a camera missing or busy at start ---------------------------------------------------------

def test_an_unknown_camera_source_is_a_configuration_error(tmp_path):
    config = config_file(tmp_path, '[camera]\nsource = "webcam"\n')
    with pytest.raises(CameraUnavailable, match="unknown camera source 'webcam'"):
        camera_opener(config.camera)


def test_a_busy_camera_at_start_is_said_busy_and_picked_up_when_it_is_free(monkeypatch, tmp_path):
    world = install(monkeypatch, CameraWorld(held_elsewhere=True))
    config = config_file(tmp_path, '[camera]\nsource = "picamera"\nwidth = 320\nheight = 240\n')
    host = Host(mode="referee")
    events = []
    host.bus.subscribe(lambda m: events.append(m.data), {"camera"})
    open_pi = camera_opener(config.camera)
    tries = []

    def opener():
        tries.append(1)
        if len(tries) == 3:
            world.held_elsewhere = False  # the other program let go
        return open_pi()

    worker = CameraWorker(host, opener, retry_s=0.001, ok_after=1)
    try:
        assert worker.source.read() is not None
        host.bus.join(5)
        assert events[0]["status"] == "lost" and events[0]["cause"] == "busy"
        assert "another program holds it" in events[0]["reason"]
        assert events[-1]["status"] == "ok" and len(events) == 2  # said once, back once
    finally:
        worker.source.close()
        host.close()


def test_a_new_match_relocks_the_cameras_exposure(monkeypatch):
    class Still:
        name = "still"
        relocks = 0

        def read(self):
            import numpy as np
            from vision.sources import Frame
            return Frame(np.zeros((120, 160, 3), np.uint8), 0.0, 0)

        def relock(self):
            Still.relocks += 1

        position = None

        def close(self):
            pass

    host = Host(mode="referee")
    host.start_match(demo_setup("grid", random.Random(3), {"turn_seconds": 0}))
    worker = CameraWorker(host, Still, classifier_for=lambda game: None)
    try:
        worker.process(worker.source.read().image)
        assert Still.relocks == 1  # the first layout
        worker.process(worker.source.read().image)
        assert Still.relocks == 1
        host.start_match(demo_setup("grid", random.Random(4), {"turn_seconds": 0}))
        host.bus.join(5)
        worker.process(worker.source.read().image)
        assert Still.relocks == 2
    finally:
        worker.source.close()
        host.close()


# --- the watchdog ------------------------------------------------------------------------------------

def test_notify_speaks_systemds_datagram_protocol(tmp_path):
    path = str(tmp_path / "notify")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        server.bind(path)
        assert notify("READY=1", {"NOTIFY_SOCKET": path})
        assert server.recv(100) == b"READY=1"
    assert not notify("READY=1", {})
    assert watchdog_seconds({"WATCHDOG_USEC": "4000000", "WATCHDOG_PID": str(os.getpid())}) == 4.0
    assert watchdog_seconds({"WATCHDOG_USEC": "4000000", "WATCHDOG_PID": "1"}) is None


def test_the_watchdog_is_fed_only_while_the_camera_thread_moves(tmp_path):
    config = config_file(tmp_path, '[camera]\nsource = "folder:/nonexistent"\n')
    companion = Companion(config, demo=False, pin_factory=MockFactory(pin_class=MockPWMPin),
                          web=False, log_path=tmp_path / "e.sqlite3")
    try:
        now = time.monotonic()
        companion.camera.alive_at = now - 1
        assert companion.healthy(now, stale_s=20)
        companion.camera.alive_at = now - 60  # stuck in a driver call for a minute
        assert not companion.healthy(now, stale_s=20)
    finally:
        companion.stop()


@pytest.mark.slow
def test_run_without_camera_or_gpio_serves_the_page_says_why_and_feeds_the_watchdog(tmp_path):
    notify_path = str(tmp_path / "notify")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind(notify_path)
    server.settimeout(20)
    env = {k: v for k, v in os.environ.items() if k != "GPIOZERO_PIN_FACTORY"}
    env.update(NOTIFY_SOCKET=notify_path, WATCHDOG_USEC="2000000")
    # this machine has no Pi camera and no GPIO: before, `run` exited 1 (and systemd looped)
    proc = subprocess.Popen([sys.executable, "-m", "app", "run", "--port", "0", "--host", "127.0.0.1",
                             "--camera", "picamera", "--log", str(tmp_path / "e.sqlite3")],
                            cwd=ROOT, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env)
    try:
        first = proc.stdout.readline()
        assert "table view on http://127.0.0.1:" in first, first
        url = first.split()[3].rstrip("/")
        said = [server.recv(100), server.recv(100)]
        assert said == [b"READY=1", b"WATCHDOG=1"]
        line = proc.stdout.readline()
        # served on loopback, and the organiser's PIN: said first
        while line.startswith(("Phones cannot reach this page", "Organiser PIN:")):
            line = proc.stdout.readline()
        assert "camera" in line and "status=lost" in line and "cause=missing" in line, line
        state = json.load(urllib.request.urlopen(url + "/api/state", timeout=10))
        assert state["signals"]["status"]["mode"] == "camera-lost"
        assert any(e["type"] == "camera" and e.get("cause") == "missing" for e in state["recent"])
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=20)
        server.close()
    assert proc.returncode == 0, err
    assert "GPIO" in err and "no GPIO that gpiozero can drive" in err and "mock pins" in err
