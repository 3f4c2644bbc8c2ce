"""The pin map: defaults, configuration forms, clear errors, and docs that match the defaults."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from gpiozero import TonalBuzzer
from gpiozero.pins.mock import MockFactory, MockPWMPin
from gpiozero.tones import Tone

from companion.config import load_config
from hardware import PinMap, PinMapError
from hardware.pinmap import BCM_TO_BOARD, BOARD_TO_BCM, parse_pin
from hardware.tunes import BUZZER_MID_TONE, BUZZER_OCTAVES, TUNES, tune

DOCS = Path(__file__).resolve().parents[2] / "docs" / "hardware.md"


def test_defaults_are_distinct_and_stay_off_the_busy_pins():
    pins = PinMap().pins()
    assert len(pins) == 14 and len(set(pins.values())) == 14
    busy = {0, 1, 2, 3, 7, 8, 9, 10, 11, 14, 15}  # ID EEPROM, I2C, SPI, UART
    assert not busy & set(pins.values())


def test_the_header_table_is_a_bijection_of_the_28_gpios():
    assert sorted(BOARD_TO_BCM.values()) == list(range(28))
    assert all(BOARD_TO_BCM[BCM_TO_BOARD[g]] == g for g in range(28))


@pytest.mark.parametrize("value, bcm", [
    (17, 17), ("GPIO17", 17), ("gpio17", 17), ("BCM17", 17), ("17", 17), ("BOARD11", 17),
    ("J8:11", 17), (None, None), (False, None), ("none", None), ("", None),
])
def test_pin_forms(value, bcm):
    assert parse_pin("seat_north", value) == bcm


@pytest.mark.parametrize("value, message", [
    (28, "does not exist"), (-1, "does not exist"), (0, "HAT ID EEPROM"), (1, "HAT ID EEPROM"),
    ("BOARD6", "not a GPIO pin"), ("BOARD41", "not a GPIO pin"), ("pin seven", "cannot read"),
    (True, "must be a BCM number"), (4.5, "must be a BCM number"), ([4], "must be a BCM number"),
])
def test_bad_pins_say_which_key_and_why(value, message):
    with pytest.raises(PinMapError, match=message) as info:
        PinMap.from_config({"button_uno": value})
    assert "pins.button_uno" in str(info.value)


def test_duplicates_name_both_keys():
    with pytest.raises(PinMapError, match="GPIO18 is used twice: buzzer and button_confirm"):
        PinMap.from_config({"button_confirm": "BOARD12"})
    with pytest.raises(PinMapError, match="used twice: seat_north and seat_east"):
        PinMap(seat_east=5)


def test_buttons_off_frees_their_pins_for_other_uses():
    pm = PinMap.from_config({"buttons": False, "seat_west": 23})
    assert pm.button_pins() == {} and pm.seat_pins()["west"] == 23
    with pytest.raises(PinMapError, match="used twice"):
        PinMap.from_config({"seat_west": 23})


def test_unknown_keys_and_bad_options():
    with pytest.raises(PinMapError, match="no key 'seat_nort'.*known keys: seat_north"):
        PinMap.from_config({"seat_nort": 5})
    with pytest.raises(PinMapError, match="buzzer_kind must be one of tonal, plain, none"):
        PinMap.from_config({"buzzer_kind": "loud"})
    with pytest.raises(PinMapError, match="pwm must be true or false"):
        PinMap.from_config({"pwm": "yes"})
    with pytest.raises(PinMapError, match="bounce must be seconds"):
        PinMap.from_config({"bounce": 5})
    with pytest.raises(PinMapError, match="RGB LED needs all three"):
        PinMap.from_config({"status_blue": False})


def test_leaving_parts_out():
    pm = PinMap.from_config({"side_red": False, "side_green": False, "side_blue": False,
                             "seat_west": "none", "buzzer": None})
    assert pm.rgb("side") is None and "west" not in pm.seat_pins()
    assert "buzzer" not in pm.pins() and pm.rgb("status") == (17, 27, 22)


def test_from_the_configuration_file(tmp_path):
    path = tmp_path / "companion.toml"
    path.write_text('[pins]\nseat_north = "BOARD7"\nbuzzer_kind = "plain"\ncommon_anode = true\n')
    pm = PinMap.from_config(load_config(path).pins)
    assert (pm.seat_north, pm.buzzer_kind, pm.common_anode) == (4, "plain", True)
    assert PinMap.from_config(load_config(None).pins) == PinMap()
    assert PinMap.from_config(None) == PinMap()


def test_pin_map_is_frozen_and_json_ready():
    pm = PinMap()
    with pytest.raises(AttributeError):
        pm.buzzer = 4  # type: ignore[misc]
    assert pm.to_json()["buzzer"] == 18 and pm.to_json()["buzzer_kind"] == "tonal"


def test_the_wiring_table_in_the_docs_matches_the_defaults():
    rows = re.findall(r"^\| `(\w+)` \| (\d+) \| (\d+) \|", DOCS.read_text(), re.M)
    documented = {key: (int(bcm), int(board)) for key, bcm, board in rows}
    assert documented == {key: (pin, BCM_TO_BOARD[pin]) for key, pin in PinMap().pins().items()}


# --- tunes ------------------------------------------------------------------------------------

def test_every_note_is_in_the_tonal_buzzer_range():
    buzzer = TonalBuzzer(18, mid_tone=Tone(BUZZER_MID_TONE), octaves=BUZZER_OCTAVES,
                         pin_factory=MockFactory(pin_class=MockPWMPin))
    low, high = buzzer.min_tone.frequency, buzzer.max_tone.frequency
    buzzer.close()
    for track in TUNES.values():
        for note, seconds in track.steps:
            assert note is None or low <= Tone(note).frequency <= high, (track.name, note)
            assert 0 < seconds <= 1.0


def test_repeated_notes_are_parted_by_rests():
    for track in TUNES.values():
        notes = [n for n, _ in track.steps]
        assert all(a != b or a is None for a, b in zip(notes, notes[1:])), track.name
        assert notes[-1] is not None, track.name  # a tune ends on a note, not a silence


def test_unknown_tune_names_the_known_ones():
    with pytest.raises(KeyError, match="known: click"):
        tune("kazoo")
