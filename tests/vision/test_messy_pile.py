"""The discard pile as it really lies: a messy stack whose lower cards peek out on every side.
The table reader reads its top card at first sight (vision.pile), and a card thrown on it."""

from __future__ import annotations

import random

import pytest

from companion.decks import classic_deck
from simulator.laid_hands import messy_discard
from simulator.render import SyntheticTable
from simulator.scene import Scene
from vision.geometry import Layout
from vision.pile import is_stack, top_card_candidates
from vision.table_reader import TableReader, default_classifier

pytestmark = pytest.mark.slow

#: Piles the reader misread before vision.pile (it boxed the whole stack upright).
SEEDS = (0, 5, 13)


def _pile(k: int):
    rng = random.Random(k)
    labels = rng.sample([c.name for c in classic_deck()], rng.randint(4, 8))
    return labels, messy_discard(labels, "classic", seed=k, spread_mm=9.0, turn_deg=25.0)


def _read(reader, table, scene, t0=0.0):
    reading = None
    for i in range(8):
        reading = reader.process(table.render(scene), t=t0 + i / 10).reading or reading
    return reading


@pytest.fixture(scope="module")
def classifier():
    return default_classifier("classic")


@pytest.mark.parametrize("k", SEEDS)
def test_the_top_card_of_a_messy_pile_is_read_at_first_sight(k, classifier):
    labels, pile = _pile(k)
    table = SyntheticTable(1280, 720, seed=k)
    reading = _read(TableReader("classic", view=table.view, classifier=classifier), table,
                    Scene(extras=pile))
    assert reading.discard.label == labels[-1]


def test_a_card_thrown_on_a_messy_pile_is_read(classifier):
    labels, pile = _pile(3)
    table = SyntheticTable(1280, 720, seed=3)
    reader = TableReader("classic", view=table.view, classifier=classifier)
    assert _read(reader, table, Scene(extras=pile[:-1])).discard.label == labels[-2]
    assert _read(reader, table, Scene(extras=pile), 5.0).discard.label == labels[-1]


def test_a_stack_is_told_from_one_card():
    table = SyntheticTable(640, 360, seed=1, noise=0)
    layout = Layout()
    one = messy_discard(["red-7"], "classic", spread_mm=0, turn_deg=0)
    _, many = _pile(3)
    patches = [table.view.warp_region(table.render(Scene(extras=x)), layout.regions["discard"],
                                      1.4, margin=20) for x in (one, many)]
    assert not is_stack(patches[0], 1.4) and is_stack(patches[1], 1.4)
    assert top_card_candidates(patches[1], 1.4)


@pytest.mark.parametrize("seed, beat, under, top", [(10, 12, "blue-4", "blue-6"), (3, 18, "blue-5", "blue-9")])
def test_a_card_on_one_of_its_own_colour_is_read_whole(seed, beat, under, top, classifier):
    """A blue card thrown on a blue card (classic no-taps). Once where the
    two blue prints lie on each other nothing changed, so what changed was short of the card,
    and the reader read a card cut short: blue-3 at 0.34, a question. Once all of it
    changed, the lower card peeking out too, and the outline held both: blue-9 at 0.51. The
    pile's chamfer match finds the whole top card. The reading also keeps what the model gave
    the other labels (not the best four): the referee's bound on the labels left out is then
    tight."""
    from simulator.pile_script import PileScript

    script = PileScript(20, game="classic", seed=seed, phone_draws=False)
    assert [b.action["card"] for b in script.beats[beat - 1:beat + 1]] == [under, top]
    table = SyntheticTable(1280, 720, seed=seed)
    reader = TableReader("classic", view=table.view, classifier=classifier)
    assert _read(reader, table, script.beats[beat - 1].scene).discard.label == under
    got = _read(reader, table, script.beats[beat].scene, 5.0).discard
    assert got.label == top and got.confidence > 0.8
    assert sum(p for _, p in got.probs) > 0.98
