"""Several regions changed at once (actions the camera could not see in between): the referee
never guesses their order; it asks which came first."""

from __future__ import annotations

from companion.bus import EventBus
from companion.referee.camera import CameraReferee
from companion.referee.table import Table
from companion.reading import PawnReading
from companion.reading import RegionReading, TableReading
from tests.support.looks import Looks
from tests.support.readings import classic_pile_table, pile_reading

GRID = [["red-1", "red-2", "red-3", "red-4", "red-5"],
        ["blue-1", "blue-2", "blue-3", "blue-4", "blue-5"],
        ["green-1", "green-2", "green-3", "green-4", "green-5"],
        ["yellow-1", "yellow-2", "yellow-3", "yellow-4", "yellow-5"],
        ["red-6", "red-7", "red-8", "red-9", "blue-6"]]


def reading(seq, grid, discard="empty", changed=()):
    cells = tuple(RegionReading(label, 0.99, ((label, 0.99),)) for row in grid for label in row)
    return TableReading(seq, 0.0, cells, RegionReading(discard, 0.99, ((discard, 0.99),)),
                        PawnReading((2, 2), (225.0, 302.5), True), changed=tuple(changed))


def test_two_changes_at_once_are_asked_in_order_not_guessed():
    bus = EventBus()
    table = Table({"setup": {"game": "grid", "seats": ["north", "south"], "first": "north",
                             "grid": GRID, "options": {"turn_seconds": 0}}}, bus)
    referee = CameraReferee(lambda: table, bus)
    asked = []
    bus.subscribe(lambda m: asked.append(m.data), {"confirm-needed"})
    referee.on_reading(reading(1, GRID))
    after = [row[:] for row in GRID]
    after[0][0] = "red-7"      # north's play ...
    after[1][1] = "blue-9"     # ... and south's, seen together
    referee.on_reading(reading(2, after, changed=("cell-0-0", "cell-1-1")))
    assert table.state_json()["grid"][0][0] == "red-1"  # nothing committed on a guess
    bus.join()
    assert asked and asked[-1]["kind"] == "several" and asked[-1]["seat"] == "north"
    first = next(c for c in asked[-1]["choices"] if c["action"] and c["action"].get("cell") == [0, 0])
    referee.answer(first["id"], by="north")
    referee.run_pending()  # the answer is played on the referee's thread ...
    bus.join()             # ... and its action heard back, before the re-check
    referee.tick()
    state = table.state_json()
    assert state["grid"][0][0] == "red-7"
    assert state["grid"][1][1] == "blue-9" or referee.question is not None


def test_the_same_face_on_the_pile_is_asked_only_when_the_pile_looks_different():
    import numpy as np

    bus, table, referee, asked = classic_pile_table()
    looks = Looks(referee)
    rng = np.random.default_rng(1)
    first = rng.integers(0, 255, (20, 14)).astype(np.float32)
    referee.on_reading(looks.pile(pile_reading(1, "red-5"), first))           # the baseline
    # an illegal card put down, then taken back: the pile looks as it did -> no question
    referee.on_reading(looks.pile(pile_reading(2, "green-7"), rng.integers(0, 255, (20, 14)).astype(np.float32)))
    referee.on_reading(looks.pile(pile_reading(3, "red-5"), first + 1.0))
    bus.join()
    assert not [q for q in asked if q["kind"] == "same-face"]
    # another red-5 lands a little apart: the same face, a different look -> asked
    moved = np.roll(first, 3, axis=1)
    turn = table.state_json()["turn"]
    referee.on_reading(looks.pile(pile_reading(4, "red-5"), moved))
    bus.join()
    question = asked[-1]
    assert question["kind"] == "same-face" and question["card"] == "red-5"
    assert question["seat"] == turn and question["choices"][-1] == {
        "id": len(question["choices"]) - 1, "action": None, "nothing": "only-moved"}
    yes = next(c for c in question["choices"] if c["action"] and c["action"]["card"] == "red-5")
    referee.answer(yes["id"], by=turn)
    referee.run_pending()
    assert table.state_json()["turn"] != turn  # the play was recorded


def test_a_play_tapped_on_a_phone_before_its_card_lands_is_no_same_face_question():
    """(the torture run, classic: a wild tapped on the phone, then put on the pile, was
    asked as "the same face played again" because the pile looked unlike the card before it)"""
    import numpy as np

    from companion.engine.actions import action_from_json

    bus, table, referee, asked = classic_pile_table()
    looks = Looks(referee)
    rng = np.random.default_rng(2)
    referee.on_reading(looks.pile(pile_reading(1, "red-5"), rng.integers(0, 255, (20, 14)).astype(np.float32)))
    turn = table.state_json()["turn"]
    assert table.act(action_from_json({"by": turn, "do": "play", "card": "red-7"}), source="phone").ok
    bus.join()
    referee.tick()
    # the tapped card comes down: it looks nothing like the red-5 it covers
    referee.on_reading(looks.pile(pile_reading(2, "red-7"), rng.integers(0, 255, (20, 14)).astype(np.float32)))
    bus.join()
    assert asked == [] and referee.question is None
    # and the same face played on it afterwards is still asked
    referee.on_reading(looks.pile(pile_reading(3, "red-7"), rng.integers(0, 255, (20, 14)).astype(np.float32)))
    bus.join()
    assert asked and asked[-1]["kind"] == "same-face" and asked[-1]["card"] == "red-7"
