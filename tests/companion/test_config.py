"""Configuration: defaults, the TOML file, overrides, and clear errors for every bad key."""

import subprocess
import sys
from pathlib import Path

import pytest

from companion.config import ConfigError, default_state_dir, load_config

ROOT = Path(__file__).resolve().parents[2]


def test_defaults_need_no_file():
    cfg = load_config(None)
    assert cfg.table.mode == "referee"
    assert cfg.web.port == 8000
    assert cfg.camera.source == "auto"
    assert cfg.rules == {"turn_seconds": 30}


def test_file_values_and_command_line_overrides(tmp_path):
    path = tmp_path / "companion.toml"
    path.write_text('[table]\nmode = "timer"\nseats = ["ann", "ben"]\ngame = "flip"\n'
                    '[rules]\nturn_seconds = 20\n[web]\nport = 8080\n[pins]\nbuzzer = 12\n')
    cfg = load_config(path, {"web.port": 9090, "camera.source": None})
    assert cfg.table.mode == "timer"
    assert cfg.table.seats == ("ann", "ben")
    assert cfg.rules["turn_seconds"] == 20
    assert cfg.web.port == 9090  # the command line wins
    assert cfg.pins == {"buzzer": 12}


@pytest.mark.parametrize("text, expected", [
    ("[tabel]\nmode='timer'\n", "unknown section"),
    ("[table]\nmood='timer'\n", "no key 'mood'"),
    ("[table]\nmode='dance'\n", "mode must be"),
    ("[web]\nport='eighty'\n", "port must be a whole number"),
    ("[web]\nport=70000\n", "port must be 0-65535"),
    ("[table]\nseats='north'\n", "seats must be a list"),
    ("this is not toml", "not valid TOML"),
])
def test_bad_configuration_names_the_key(tmp_path, text, expected):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=expected):
        load_config(path)


def test_a_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "nope.toml")


@pytest.mark.parametrize("content, expected", [
    (b'[table]\nmode = "\xff"\n', r"not UTF-8 text \(line 2, byte 0xff\)"),
    (b"a = " + b"[" * 5000 + b"]" * 5000 + b"\n", "nested too deeply"),
    (b"web = 5\n", r"\[web\] must be a table of keys"),
])
def test_a_file_that_cannot_be_read_is_one_clear_error(tmp_path, content, expected):
    path = tmp_path / "bad.toml"
    path.write_bytes(content)
    with pytest.raises(ConfigError, match=expected):
        load_config(path, {"web.port": 9000})


def test_a_folder_is_a_clear_error(tmp_path):
    with pytest.raises(ConfigError, match="is a folder"):
        load_config(tmp_path)


@pytest.mark.parametrize("content", [b'[table]\nmode = "\xff"\n', b"a = " + b"[" * 5000 + b"]" * 5000,
                                     b"web = 5\n", b"[camera]\nlost_after = 0\n"])
def test_the_command_says_a_bad_file_in_one_line_without_a_traceback(tmp_path, content):
    path = tmp_path / "bad.toml"
    path.write_bytes(content)
    done = subprocess.run([sys.executable, "-m", "app", "doctor", "--config", str(path)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert "Traceback" not in done.stderr + done.stdout
    done = subprocess.run([sys.executable, "-m", "app", "run", "--config", str(path), "--port", "9"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert done.stderr.startswith("companion run: ") and done.stderr.count("\n") == 1, done.stderr


def test_camera_hysteresis_keys(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text("[camera]\nlost_after = 5\nok_after = 10\n")
    cfg = load_config(path)
    assert (cfg.camera.lost_after, cfg.camera.ok_after) == (5, 10)
    assert (load_config(None).camera.lost_after, load_config(None).camera.ok_after) == (3, 5)
    path.write_text("[camera]\nok_after = 0\n")
    with pytest.raises(ConfigError, match="ok_after must be 1 or more"):
        load_config(path)
def test_the_default_log_lies_in_this_tests_own_state_folder(own_state_dir):
    # tests/conftest.py: no test (nor a companion process it starts) writes the real
    # ~/.local/state log, nor the one of a test running beside it (pytest -n)
    assert default_state_dir() == own_state_dir / "uno-companion"
    assert own_state_dir != Path.home() / ".local" / "state"
