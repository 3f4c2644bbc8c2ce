"""Regressions from the torture benchmark, grid game, reduced to a few hand-made readings with
looks and arms: the same face played on a card (decks hold two of most faces) missed under
glare, and a card read unsurely whose question did not offer it. Each missed play left the
referee a turn behind: the next seat's card was asked about as out of turn and answered "it
goes back", or committed for the wrong seat."""

from __future__ import annotations

import dataclasses

import numpy as np

from companion.reading import Reach
from tests.support.readings import GRID, grid_referee, reading, settle

RNG = np.random.default_rng(12)
#: how every cell looked when it last matched the state
LOOKS = {f"cell-{r}-{c}": RNG.integers(0, 255, (20, 14)).astype(np.float32)
         for r in range(5) for c in range(5)}


def _blend(look: np.ndarray, share: float) -> np.ndarray:
    """``look`` with ``share`` of another card's look in it (0: the same card, 1: another)."""
    other = np.random.default_rng(int(share * 1000)).integers(0, 255, look.shape)
    return ((1.0 - share) * look + share * other).astype(np.float32)


def _looking(rd, shares: dict[str, float], reaches=()):
    """``rd`` with every cell's look: as before, or blended with another card's by ``shares``."""
    cells = tuple(dataclasses.replace(cell, look=_blend(LOOKS[name], shares[name]) if name in shares
                                      else LOOKS[name])
                  for cell, name in ((c, f"cell-{i // 5}-{i % 5}") for i, c in enumerate(rd.cells)))
    return dataclasses.replace(rd, cells=cells, reaches=tuple(reaches))


def _referee():
    table, referee, asked = grid_referee(_looking(reading(GRID, seq=1), {}))
    table.bus.join()
    return table, referee, asked


def test_the_same_face_played_among_a_few_regions_read_again_is_asked():
    # torture glare grid seed 8 (real faces): south's blue-8 on the blue-8 at (2, 4) was read
    # again with five other regions (the highlight had stirred them, an arm passed over one):
    # six regions were taken for the whole table read again after a nudge, whose misfit raised
    # the bar to four times the median look difference, and the play was never asked about
    from companion.reading import look_difference

    table, referee, asked = _referee()
    shares = {"cell-2-4": 0.35, "cell-3-1": 0.15, "cell-3-3": 0.15, "cell-4-0": 0.15,
              "cell-4-4": 0.15}
    differ = {n: look_difference(_blend(LOOKS[n], s), LOOKS[n]) for n, s in shares.items()}
    assert differ["cell-2-4"] < 4 * sorted(differ.values())[2] and min(differ.values()) > 4
    rd = reading(GRID, seq=2, changed=(*shares, "draw"))
    referee.on_reading(_looking(rd, shares, [Reach("north", ("cell-0-4", "cell-1-4", "cell-2-4"))]))
    table.bus.join()
    assert [(q["kind"], q["region"]) for q in asked] == [("same-face", "cell-2-4")]


def test_a_nudged_cameras_whole_table_read_again_asks_about_no_look_alone():
    # (the whole table read again through a new view: every look a little off; none asked)
    table, referee, asked = _referee()
    shares = {f"cell-{r}-{c}": 0.12 for r in range(5) for c in range(5)}
    rd = reading(GRID, seq=2, changed=(*shares, "discard", "pawn"))
    referee.on_reading(_looking(rd, shares, [Reach("north", ("cell-2-4",))]))
    table.bus.join()
    assert asked == []


def test_after_a_misread_answered_the_same_face_the_arm_went_on_to_play_is_asked():
    # torture glare grid seed 8 (art faces): north's arm passed over (1, 4) on its way to play
    # the same face on (2, 4); the glare made (1, 4) read as another card, asked first and
    # answered "misread". The answer dropped the arm (its evidence for (2, 4) with it), the
    # new card's look had meanwhile been taken as (2, 4)'s own, and nothing settled the
    # reading again: the play was never asked about
    table, referee, asked = _referee()
    weak = {"blue-7": 0.45, "blue-4": 0.2, "blue-1": 0.1}
    rd = reading(GRID, seq=2, changed=("cell-1-4", "cell-2-4"), probs={"cell-1-4": weak})
    referee.on_reading(_looking(rd, {"cell-1-4": 0.2, "cell-2-4": 0.5},
                                [Reach("north", ("cell-0-4", "cell-1-4", "cell-2-4"))]))
    table.bus.join()
    assert [(q["kind"], q["region"]) for q in asked] == [("unsure", "cell-1-4")]
    misread = next(c["id"] for c in asked[-1]["choices"] if c.get("nothing") == "misread")
    referee.answer(misread, by="north")
    settle(table, referee)
    assert [(q["kind"], q["region"]) for q in asked[1:]] == [("same-face", "cell-2-4")]
    assert table.actions_taken() == []


def test_a_misread_answered_where_no_other_region_changed_asks_nothing_more():
    table, referee, asked = _referee()
    weak = {"blue-7": 0.45, "blue-4": 0.2, "blue-1": 0.1}
    rd = reading(GRID, seq=2, changed=("cell-1-4", "cell-2-4"), probs={"cell-1-4": weak})
    # (2, 4) read again but looking as before: no card was put there
    referee.on_reading(_looking(rd, {"cell-1-4": 0.2},
                                [Reach("north", ("cell-0-4", "cell-1-4", "cell-2-4"))]))
    table.bus.join()
    misread = next(c["id"] for c in asked[-1]["choices"] if c.get("nothing") == "misread")
    referee.answer(misread, by="north")
    settle(table, referee)
    assert len(asked) == 1 and referee.question is None


def test_a_read_spread_over_several_cards_offers_each_card_within_the_margin():
    # torture dim and nudged grid seed 4 (art faces): south's green-6 on a green-skip read
    # green-4 at 0.39, green-3 0.11, green-reverse 0.09, green-6 0.08: the question offered the
    # first three only, was answered "misread", and the play was missed (the next turns with it)
    table, referee, asked = _referee()
    spread = {"red-7": 0.39, "red-3": 0.11, "red-9": 0.09, "red-6": 0.08, "red-8": 0.06,
              "red-4": 0.05, "red-2": 0.04, "blue-1": 0.01}
    rd = reading(GRID, seq=2, changed=("cell-0-0",), probs={"cell-0-0": spread})
    referee.on_reading(_looking(rd, {"cell-0-0": 0.5}, [Reach("north", ("cell-0-0",))]))
    table.bus.join()
    assert [(q["kind"], q["region"]) for q in asked] == [("unsure", "cell-0-0")]
    offered = [c["action"]["card"] for c in asked[0]["choices"] if c["action"]]
    # the cards read within the margin (0.39 / 8), in the order read, to five (red-4 at 0.05
    # is within it too, but a sixth); then the legal plays not among them (none here: the
    # three likeliest legal ones are the first three read)
    assert offered == ["red-7", "red-3", "red-9", "red-6", "red-8"]
    red_6 = next(c["id"] for c in asked[0]["choices"] if c["action"] and c["action"]["card"] == "red-6")
    referee.answer(red_6, by="north")
    settle(table, referee)
    assert table.actions_taken() == [{"by": "north", "do": "play", "card": "red-6", "cell": [0, 0]}]


def test_a_read_sure_of_its_three_likeliest_offers_no_more():
    table, referee, asked = _referee()
    narrow = {"red-7": 0.5, "red-3": 0.3, "red-9": 0.15, "red-6": 0.03, "red-8": 0.02}
    rd = reading(GRID, seq=2, changed=("cell-0-0",), probs={"cell-0-0": narrow})
    referee.on_reading(_looking(rd, {"cell-0-0": 0.5}, [Reach("north", ("cell-0-0",))]))
    table.bus.join()
    assert [c["action"]["card"] for c in asked[0]["choices"] if c["action"]] == ["red-7", "red-3", "red-9"]


def _laid_out_then_read_again(same_look: bool):
    """(0, 4) is dealt red-5 but reads red-9 clearly from the first look on; the first look is
    answered "as laid out"; then the whole grid is read again, (0, 4) still red-9, looking as
    it did or like another card. Returns (what was asked, what the table took)."""
    from tests.support.readings import ALL_CELLS, with_cell

    misread = with_cell(GRID, 0, 4, "red-9")
    table, referee, asked = grid_referee(_looking(reading(misread, seq=1, changed=ALL_CELLS), {}))
    table.bus.join()
    assert [q["kind"] for q in asked] == ["first-look"]
    laid_out = next(c["id"] for c in asked[0]["choices"] if c.get("nothing") == "laid-out")
    referee.answer(laid_out, by="north")
    settle(table, referee)
    again = _looking(reading(misread, seq=2, changed=ALL_CELLS),
                     {} if same_look else {"cell-0-4": 1.0})
    referee.on_reading(again)
    settle(table, referee)
    return asked[1:], table.actions_taken()


def test_a_laid_out_card_misread_is_no_play_when_the_grid_is_read_again():
    # torture motion blur grid seed 11 (real faces): the red-6 laid out at (0, 4) read red-9 at
    # 0.99, answered "as laid out"; the smear turned, the whole grid was read again, and the
    # same misread was committed as south's red-9: a play nobody made
    asked, taken = _laid_out_then_read_again(same_look=True)
    assert asked == [] and taken == []


def test_a_card_put_where_a_laid_out_card_was_misread_is_still_seen():
    # (the other way: looking like another card, the region is judged as any play)
    asked, taken = _laid_out_then_read_again(same_look=False)
    assert asked or taken


def _blue_card_on_the_blue_5(read: dict[str, float]):
    """North's card put on the blue-5 at (1, 4), read ``read``: (what was asked, what the table
    took)."""
    table, referee, asked = _referee()
    rd = reading(GRID, seq=2, changed=("cell-1-4",), probs={"cell-1-4": read})
    referee.on_reading(_looking(rd, {"cell-1-4": 0.6}, [Reach("north", ("cell-1-4",))]))
    settle(table, referee)
    return asked, table.actions_taken()


def test_a_legal_play_read_about_as_likely_as_an_illegal_card_is_asked_not_committed():
    # torture motion blur grid seed 14 (art faces): south's blue-8 put on a green-5 (refused,
    # not matching) read blue-5 at 0.34, blue-3 0.25, blue-9 0.11: the legal blue-5 was
    # committed (a play nobody made), and the refused attempt lost. Here: a blue-8 put on the
    # blue-5 (legal, by colour), read as the legal blue-2 at 0.34 beside the illegal red-2 at
    # 0.25 (neither colour nor number match)
    asked, taken = _blue_card_on_the_blue_5({"blue-2": 0.34, "red-2": 0.25, "red-9": 0.11,
                                             "blue-5": 0.01})
    assert taken == []
    assert [q["kind"] for q in asked] == ["unsure"]
    offered = [c["action"]["card"] for c in asked[0]["choices"] if c["action"]]
    assert offered[:2] == ["blue-2", "red-2"]


def test_a_legal_play_read_well_clear_of_every_illegal_card_is_committed():
    # (the other way: the illegal card read far less likely, the play is committed at once)
    asked, taken = _blue_card_on_the_blue_5({"blue-2": 0.34, "red-2": 0.05, "red-9": 0.03,
                                             "blue-5": 0.01})
    assert asked == []
    assert taken == [{"by": "north", "do": "play", "card": "blue-2", "cell": [1, 4]}]


def _pawn_steps_off_and_its_cell_reads(label: str, *, later: bool):
    """North steps the pawn from (2, 2) (on a green-3) to (2, 1); the cell it left reads
    ``label`` at 0.87 with south's arm over it, in the same reading as the step, or (``later``)
    in the reading after it. Returns (what was asked, what the table took)."""
    from tests.support.readings import with_cell

    table, referee, asked = _referee()
    after = with_cell(GRID, 2, 2, label)
    read = {label: 0.87, "green-2": 0.07, "green-1": 0.03}
    step = [Reach("north", ("cell-2-1",))]
    play = [Reach("south", ("cell-2-2",))]
    if later:
        rd = reading(GRID, seq=2, pawn=(2, 1), changed=("cell-2-1", "pawn"))
        referee.on_reading(_looking(rd, {}, step))
        settle(table, referee)
        rd = reading(after, seq=3, pawn=(2, 1), changed=("cell-2-2",), probs={"cell-2-2": read})
        referee.on_reading(_looking(rd, {"cell-2-2": 0.6}, play))
    else:
        rd = reading(after, seq=2, pawn=(2, 1), changed=("cell-2-1", "cell-2-2", "pawn"),
                     probs={"cell-2-2": read})
        referee.on_reading(_looking(rd, {"cell-2-2": 0.6}, step + play))
    settle(table, referee)
    return asked, table.actions_taken()


def test_the_card_the_pawn_uncovers_read_as_a_play_in_the_same_reading_is_asked():
    # torture motion blur grid seed 20 (art faces): south stepped the pawn off (2, 2); the
    # blue-9 under it, seen for the first time since the deal, read blue-3 at 0.87, and was
    # committed in the same reading as north's play of it (north's arm had passed over it):
    # a play nobody made, and north's real play after it taken for south's
    asked, taken = _pawn_steps_off_and_its_cell_reads("green-8", later=False)
    assert taken == [{"by": "north", "do": "move", "to": [2, 1]}]
    assert [(q["kind"], q["region"]) for q in asked] == [("unsure", "cell-2-2")]
    offered = [c["action"]["card"] for c in asked[0]["choices"] if c["action"]]
    assert offered[0] == "green-8"


def test_a_card_played_where_the_pawn_stood_a_reading_later_is_committed():
    # (the other way: the cell seen bare of the pawn first, a card put there after is a play)
    asked, taken = _pawn_steps_off_and_its_cell_reads("green-8", later=True)
    assert asked == []
    assert taken == [{"by": "north", "do": "move", "to": [2, 1]},
                     {"by": "south", "do": "play", "card": "green-8", "cell": [2, 2]}]
