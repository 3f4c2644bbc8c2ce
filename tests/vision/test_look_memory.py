"""The reader's look memory (vision.looks.LookMemory): a region remembered by the referee as
holding its card, then read again -- the reading carries how far its look moved from that one,
so the referee tells the same card (lit again, smeared along another line) from another card
of the same face put down on it without handling a pixel."""

from __future__ import annotations

import threading

import cv2
import numpy as np

from companion.reading import PawnReading, RegionReading, TableReading
from companion.referee.camera import SAME_FACE_LOOK
from vision.card_art import draw_card
from vision.looks import LookMemory, smear


def region_look(card: str = "red-7", *, dx: float = 0.0, dy: float = 0.0, turn: float = 0.0,
                gain: float = 1.0, lift: float = 0.0, seed: int = 0) -> np.ndarray:
    """A region's look (its grey top-down patch, 1 px a mm): ``card`` on the cloth, moved by
    ``dx``, ``dy`` mm and turned ``turn`` degrees, in light ``gain`` times as bright plus
    ``lift``; ``seed`` the sensor's noise."""
    patch = np.full((110, 80), 70, np.float32)
    face = cv2.cvtColor(draw_card(card, 56, 86), cv2.COLOR_BGR2GRAY).astype(np.float32)
    h, w = face.shape
    m = cv2.getRotationMatrix2D((w / 2, h / 2), turn, 1.0)
    m[:, 2] += (40 - w / 2 + dx, 55 - h / 2 + dy)
    mask = cv2.warpAffine(np.ones_like(face), m, (80, 110))
    placed = cv2.warpAffine(face, m, (80, 110))
    patch = patch * (1 - mask) + placed * mask
    noise = np.random.default_rng(seed).normal(0, 2.0, patch.shape)
    return np.clip(patch * gain + lift + noise, 0, 255).astype(np.float32)


def pile(memory: LookMemory, look: np.ndarray | None, seq: int = 2) -> TableReading:
    """A reading of a table with a discard pile only, the pile read on ``look``, stamped."""
    got = RegionReading.of({"red-7": 0.99}, look_id=memory.add(look))
    return memory.stamped(TableReading(seq, 0.0, (), got, PawnReading(None, None, False),
                                       changed=("discard",)))


def remembered_pile(look: np.ndarray) -> tuple[LookMemory, int]:
    """A memory whose pile the referee remembers by ``look``; the look's id."""
    memory = LookMemory()
    first = pile(memory, look, seq=1)
    assert first.discard is not None and first.discard.look_change is None   # (nothing remembered yet)
    memory.remember("discard", first.discard.look_id)
    return memory, first.discard.look_id


def test_the_same_card_in_other_light_is_near_the_look_it_was_remembered_by():
    memory, since = remembered_pile(region_look())
    again = pile(memory, region_look(gain=1.15, lift=8.0, seed=1)).discard
    assert again.look_change is not None and again.look_change.since == since
    assert again.look_change.apart(SAME_FACE_LOOK) < SAME_FACE_LOOK / 2


def test_another_card_of_the_same_face_put_down_on_it_is_far():
    memory, _ = remembered_pile(region_look())
    other = pile(memory, region_look(dx=6.0, dy=-4.0, turn=5.0, seed=1)).discard
    assert other.look_change is not None and other.look_change.apart(SAME_FACE_LOOK) > SAME_FACE_LOOK


def test_the_same_card_nudged_a_millimetre_stays_nearer_than_a_card_put_down():
    memory, _ = remembered_pile(region_look())
    nudged = pile(memory, region_look(dx=1.0, seed=1)).discard.look_change
    put = pile(memory, region_look(dx=6.0, dy=-4.0, turn=5.0, seed=2)).discard.look_change
    assert nudged is not None and put is not None
    assert nudged.plain < put.plain / 2


def test_a_card_seen_through_a_smear_that_turned_is_the_same_card():
    card = region_look()
    memory, _ = remembered_pile(smear(card, 7, 0))
    turned = pile(memory, smear(card, 7, 90)).discard.look_change
    assert turned is not None
    assert turned.plain > SAME_FACE_LOOK   # as it is, the smear alone looks like a new card
    assert turned.smear_free < SAME_FACE_LOOK / 2 and turned.apart(SAME_FACE_LOOK) == turned.smear_free
    # another card put down, through yet another smear, stays apart
    other = pile(memory, smear(region_look(dx=6.0, dy=-4.0, turn=5.0), 7, 45)).discard.look_change
    assert other is not None and other.apart(SAME_FACE_LOOK) > SAME_FACE_LOOK


def test_the_distance_is_from_the_look_the_referee_remembers_not_the_last_one_read():
    memory, since = remembered_pile(region_look())
    put = pile(memory, region_look(dx=6.0, dy=-4.0, turn=5.0), seq=2).discard
    # read again, the referee still remembers the first card's look (no answer yet)
    still = memory.stamped(TableReading(3, 0.0, (), put, PawnReading(None, None, False))).discard
    assert still.look_change == put.look_change and still.look_change.since == since
    # the referee takes the new card: the same look is 0 from it, and the next read is measured
    # from it
    memory.remember("discard", put.look_id)
    taken = memory.stamped(TableReading(4, 0.0, (), put, PawnReading(None, None, False))).discard
    assert (taken.look_change.since, taken.look_change.plain) == (put.look_id, 0.0)
    lit = pile(memory, region_look(dx=6.0, dy=-4.0, turn=5.0, gain=1.1, seed=3), seq=5).discard
    assert lit.look_change.since == put.look_id and lit.look_change.plain < SAME_FACE_LOOK


def test_no_distance_without_a_look_or_a_look_remembered():
    memory = LookMemory()
    assert pile(memory, region_look()).discard.look_change is None   # nothing remembered
    memory, _ = remembered_pile(region_look())
    unread = pile(memory, None).discard
    assert unread.look_id is None and unread.look_change is None
    # a look of another size (a new view's patch) cannot be compared
    assert pile(memory, cv2.resize(region_look(), (60, 90))).discard.look_change is None


def test_a_remembered_look_is_kept_however_many_readings_come():
    memory, since = remembered_pile(region_look())
    for seq in range(2, 40):
        got = pile(memory, region_look(seed=seq), seq=seq).discard
    assert got.look_change.since == since and got.look_change.plain < SAME_FACE_LOOK
    # and a look no reading of the last two named is no longer there to remember
    old = got.look_id
    for seq in range(40, 43):
        pile(memory, region_look(seed=seq), seq=seq)
    memory.remember("discard", old)
    assert memory.remembered("discard") == since


def test_the_referee_remembering_while_the_reader_stamps_never_breaks_a_reading():
    memory, first = remembered_pile(region_look())
    looks = [region_look(seed=s, gain=1.0 + s / 100) for s in range(6)]
    ids: list[int] = [first]
    changes = []
    done = threading.Event()

    def reader():
        for n in range(60):
            got = pile(memory, looks[n % len(looks)], seq=n + 2).discard
            ids.append(got.look_id)
            changes.append(got.look_change)
        done.set()

    def referee():
        while not done.is_set():
            memory.remember("discard", ids[-1])

    threads = [threading.Thread(target=reader), threading.Thread(target=referee)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert done.is_set() and len(changes) == 60
    assert all(c is not None and c.since in ids and c.plain < SAME_FACE_LOOK for c in changes)
