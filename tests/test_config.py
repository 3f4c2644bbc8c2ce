"""Configuration: defaults, the TOML file, overrides, and clear errors for every bad key."""

from pathlib import Path

import pytest

from companion.config import ConfigError, default_state_dir, load_config


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


def test_the_default_log_lies_in_this_tests_own_state_folder(own_state_dir):
    # tests/conftest.py: no test (nor a companion process it starts) writes the real
    # ~/.local/state log, nor the one of a test running beside it (pytest -n)
    assert default_state_dir() == own_state_dir / "uno-companion"
    assert own_state_dir != Path.home() / ".local" / "state"
