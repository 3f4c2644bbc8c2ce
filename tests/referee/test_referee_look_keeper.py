"""The referee and the keeper of the regions' looks (companion.reading.LookKeeper): the referee
compares no pixels; it tells the keeper which look it remembers each region by, and decides on
the distances each reading it takes carries."""

from __future__ import annotations

import dataclasses


from companion.reading import LookChange, RegionReading, TableReading
from tests.support.looks import red_seven_asked_over_red_five
from tests.support.readings import classic_pile_table, pile_reading


class Keeper:
    """A keeper that measures no pixels: each look id is ``apart`` from every other (the same
    look: 0), and it notes what the referee remembers."""

    def __init__(self, apart: float):
        self.apart = apart
        self.remembered: dict[str, int] = {}
        self.told: list[tuple[str, int]] = []

    def remember(self, region: str, look_id: int) -> None:
        self.remembered[region] = look_id
        self.told.append((region, look_id))

    def stamped(self, reading: TableReading) -> TableReading:
        got = reading.discard
        since = self.remembered.get("discard")
        if got is None or got.look_id is None or since is None:
            return reading
        d = 0.0 if got.look_id == since else self.apart
        return dataclasses.replace(reading, discard=dataclasses.replace(got, look_change=LookChange(since, d, d)))


def _looked(seq: int, label: str, look_id: int) -> TableReading:
    return dataclasses.replace(pile_reading(seq, label), discard=RegionReading(
        label, 0.99, ((label, 0.99),), look_id=look_id))


def _same_face_with(apart: float):
    bus, table, referee, asked = classic_pile_table()
    keeper = Keeper(apart)
    referee.looks = keeper
    referee.on_reading(_looked(1, "red-5", 11))
    referee.on_reading(_looked(2, "red-5", 12))
    bus.join()
    return keeper, asked


def test_the_referee_tells_the_keeper_the_look_a_region_showing_the_states_card_had():
    keeper, _ = _same_face_with(apart=1.0)
    assert keeper.told[0] == ("discard", 11)
    # the same card, looking as it did (1 apart): remembered by its new look, nothing asked
    assert keeper.remembered == {"discard": 12}


def test_the_same_face_is_asked_where_the_carried_distance_says_the_look_moved():
    _, asked = _same_face_with(apart=12.0)
    assert [(q["kind"], q["card"]) for q in asked] == [("same-face", "red-5")]
    _, asked = _same_face_with(apart=1.0)
    assert asked == []


def test_a_reading_is_measured_from_the_look_an_answer_handled_just_before_it_remembered():
    # an unsure read answered while the next reading was on its way: the answer is handled as
    # the referee takes that reading, and that reading is measured from the answered card's look
    s = red_seven_asked_over_red_five()
    s.referee.answer(s.played["id"], by=s.seat)   # (queued: handled when the referee next runs)
    # the next seat's red-7 put on it, read surely, looking new
    s.referee.on_reading(s.looks.pile(pile_reading(3, "red-7"), s.look()))
    s.referee.run_pending()
    s.bus.join()
    assert s.table.state_json()["top"] == "red-7"
    assert s.asked[-1]["kind"] == "same-face", s.asked[-1]
