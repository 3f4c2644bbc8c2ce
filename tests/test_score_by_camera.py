"""A scripted round scored by camera on the synthetic table: the bots play a classic round to
its end, each loser's hand is laid open in its seat's zone, the camera worker's hand scanner
reads the zones, each phone confirms what was read, and the scores come out exactly as the
rules count the true hands. Real card faces where the photo data is, the drawings otherwise."""

from __future__ import annotations

import pytest

from companion.cards import CLASSIC
from companion.eventlog import EventLog
from companion.host import Host
from companion.seating import Seating
from simulator.faces import ArtFaces, RealFaces
from simulator.laid_hands import laid_hands
from simulator.render import SyntheticTable
from simulator.scene import Scene
from vision.data import DataMissing

from app.hand_scan import HandScanner
from tests.support.hands import round_to_show

pytestmark = pytest.mark.slow


def _faces():
    try:
        return RealFaces()
    except DataMissing:
        return ArtFaces()


class Clock:
    t = 100.0

    def __call__(self):
        return self.t


def test_a_round_laid_open_is_scored_by_camera_exactly():
    host = Host(EventLog(":memory:"))
    hands = round_to_show(host, "classic", seed=1)
    table = host.table
    winner = table.state_json()["winners"][0]
    before = table.state_json()["scores"]
    extras = laid_hands(hands, Seating.around(table.seats), "classic", seed=1)
    camera = SyntheticTable(1280, 720, seed=1, faces=_faces())
    frame = camera.render(Scene(extras=extras))
    clock = Clock()
    scanner = HandScanner(host, clock=clock)
    assert scanner.on_frame(frame, camera.view, "moving") == {}     # an arm over the table: wait
    read = scanner.on_frame(frame, camera.view, "quiet")
    assert set(read) == set(hands)
    for seat, cards in hands.items():
        assert sorted(read[seat].labels) == sorted(cards), seat
    assert scanner.on_frame(frame, camera.view, "quiet") == {}      # not due again yet
    clock.t += 10
    assert scanner.on_frame(frame, camera.view, "quiet") == {}      # due, but nothing changed
    host.bus.join()
    assert table.state_json()["scores"] == before                   # nothing counts unconfirmed
    for seat in hands:                                              # each phone confirms
        assert table.act({"do": "show", "by": seat, "cards": host.hands.get(seat).labels}).ok
    points = sum(CLASSIC.points(CLASSIC.parse(c)) for cards in hands.values() for c in cards)
    after = table.state_json()["scores"]
    assert after[winner] == before[winner] + points
    assert all(after[s] == before[s] for s in table.seats if s != winner)


def test_a_hand_not_laid_out_reads_as_nothing_and_cannot_be_confirmed_as_is():
    host = Host(EventLog(":memory:"))
    hands = round_to_show(host, "classic", seed=3)
    seat = next(iter(hands))
    shown = {s: c for s, c in hands.items() if s != seat}
    camera = SyntheticTable(1280, 720, seed=3, faces=ArtFaces())
    frame = camera.render(Scene(extras=laid_hands(shown, Seating.around(host.table.seats),
                                                  "classic", seed=3)))
    read = HandScanner(host).scan(frame, camera.view, (seat,))
    assert read[seat].labels == [] and read[seat].expected == len(hands[seat])
    refused = host.table.act({"do": "show", "by": seat, "cards": []})
    assert not refused.ok and refused.error == "hand-count"


def test_a_phone_photo_of_a_hand_is_read_by_the_photo_reader():
    import cv2

    from app.hand_scan import photo_reader
    from vision.card_art import draw_card
    from vision.synth import compose_table

    labels = ["red-7", "blue-skip", "wild", "green-2"]
    cards = [(label, draw_card(label, 160, 248)) for label in labels]
    image, _placed = compose_table(cards, 1280, 720, kind="wood", spacing=1.4, light=False)
    ok, png = cv2.imencode(".png", image)
    read = photo_reader()(png.tobytes(), "classic")
    assert sorted(c["label"] for c in read) == sorted(labels)
    with pytest.raises(ValueError):
        photo_reader()(b"not a photo", "classic")
