"""Each seat's LED is the one on the side of the mat where the set-up seats it, in every game,
for two, three and four players: the LEDs (gpiozero mock pins), the lights panel of the pages
(``GET /api/state``'s signals), the camera's arms and the set-up agree on one seating."""

from __future__ import annotations

import random

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from companion.deal import deal_grid, opening_card
from companion.host import Host
from hardware.pinmap import PinMap
from hardware.signals import Signals
from hardware.timeline import ManualClock

PLAYERS = ["ann", "ben", "cai", "dee"]
#: where the seats sit when the set-up does not say: play order round the table from the south
#: side, clockwise seen from above (two players face to face)
DEFAULT = {2: {"ann": "south", "ben": "north"},
           3: {"ann": "south", "ben": "west", "cai": "north"},
           4: {"ann": "south", "ben": "west", "cai": "north", "dee": "east"}}
GRID_SEATS = {2: ["north", "south"], 3: ["north", "east", "south"],
              4: ["north", "east", "south", "west"]}


def setup_of(game: str, n: int, seating: dict | None = None) -> dict:
    rng = random.Random(n)
    if game == "grid":
        seats = GRID_SEATS[n]
        line = {"setup": {"game": "grid", "seats": seats, "first": seats[0], "grid": deal_grid(rng),
                          "options": {"turn_seconds": 0}}}
    elif game == "timer":
        line = {"setup": {"game": "timer", "seats": PLAYERS[:n], "first": "ann"}}
    else:
        line = {"setup": {"game": game, "seats": PLAYERS[:n], "dealer": PLAYERS[n - 1],
                          "start": opening_card(rng, game), "options": {"turn_seconds": 0}}}
    if seating is not None:
        line["seating"] = seating
    return line


def lit_sides(host: Host, seat: str, signals: Signals, factory, pinmap: PinMap) -> tuple[set, set]:
    """The seat LEDs lit (by their pins) and the sides the lights panel shows lit, when it is
    ``seat``'s turn."""
    host.bus.publish("turn", seat=seat)
    assert host.bus.join() and signals.flush()
    pins = {side for side, pin in pinmap.seat_pins().items() if factory.pin(pin).state}
    panel = {side for side, led in host.snapshot()["signals"]["seats"].items() if led["on"]}
    named = {side for side, led in host.snapshot()["signals"]["seats"].items() if seat in led["seats"]}
    assert named == panel, f"the lights panel names {seat} at {named} but lights {panel}"
    return pins, panel


def check(game: str, n: int, seating: dict | None, expected: dict[str, str]) -> None:
    host = Host(mode="timer" if game == "timer" else "referee")
    factory, pinmap = MockFactory(pin_class=MockPWMPin), PinMap()
    signals = Signals.for_host(host, pinmap, factory, clock=ManualClock())  # before the match
    try:
        table = host.start_match(setup_of(game, n, seating))
        assert table.seating.to_json() == expected  # the set-up's seating, as the camera uses it
        for seat, side in expected.items():
            pins, panel = lit_sides(host, seat, signals, factory, pinmap)
            assert pins == {side} and panel == {side}, (
                f"{game}, {n} players: {seat} sits {side}; its turn lit {pins} ({panel} on the page)")
        # a companion started with the match already on (a restart) lights the same LEDs
        factory2 = MockFactory(pin_class=MockPWMPin)
        resumed = Signals.for_host(host, pinmap, factory2, clock=ManualClock())
        try:
            for seat, side in expected.items():
                pins, _ = lit_sides(host, seat, resumed, factory2, pinmap)
                assert pins == {side}, f"after a restart, {seat} ({side}) lit {pins}"
        finally:
            resumed.close()
    finally:
        signals.close()
        host.close()


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("game", ["flip", "classic", "timer"])
def test_each_players_led_is_on_the_side_the_setup_seats_them(game, n):
    check(game, n, None, DEFAULT[n])


@pytest.mark.parametrize("n", [2, 3, 4])
def test_each_grid_seats_led_is_its_own_side(n):
    check("grid", n, None, {s: s for s in GRID_SEATS[n]})


@pytest.mark.parametrize("game", ["flip", "classic"])
def test_a_seating_the_organiser_chose_moves_the_leds_with_the_players(game):
    chosen = {"ann": "east", "ben": "north", "cai": "west"}
    check(game, 3, chosen, chosen)
