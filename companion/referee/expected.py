"""What the table should look like, from the engine's state, and where a reading differs from it.

The regions' expected labels (:func:`expected_of`), the regions that differ (:func:`differing`),
the action a region shows (:func:`region_of`, :func:`action_read`) and the grid's geometry
(cells, their neighbours, a pawn's step, the side of the mat an arm comes in by).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from ..engine.actions import Action, Discard, Move, Play, Reveal, action_from_json
from ..engine.look import TableLook, WaitingFor
from ..reading import Reach, TableReading, cell_name
from ..tuning import RefereeTuning, default

EMPTY = "empty"
#: What the referee treats as "no card here" when reading a region.
NOT_A_CARD = {EMPTY, "back", "none"}
#: Engine events after which the table is laid out anew (the grid's next game, a new round):
#: what the camera reads next is the new layout, not a play.
NEW_LAYOUT = ("new-game", "round")
#: The side across the mat from each side.
FACING = {"north": "south", "south": "north", "east": "west", "west": "east"}
#: The product's ``named_confidence`` (:class:`companion.tuning.RefereeTuning`): an illegal play
#: is called when the card read is agreed and either ``illegal_confidence`` sure of itself or at
#: least this sure, with every legal reading together no likelier than ``1 - illegal_confidence``
#: (:func:`.evidence.legal_mass`): what bounds a false call is how likely a legal move is, not how
#: sure the reader is of one illegal face among others.
NAMED_CONFIDENCE = default().referee.named_confidence


# --- what the table should show ------------------------------------------------------------------

@dataclass(frozen=True)
class Expected:
    """The table as the engine's state says it looks: region name -> label, and the pawn's cell."""

    labels: dict[str, str] = field(default_factory=dict)
    pawn: tuple[int, int] | None = None


def expected_of(look: TableLook) -> Expected:
    """The regions' expected labels from the engine's :class:`TableLook` (grid cells, the
    discard top; an empty or unread pile is :data:`EMPTY`)."""
    labels: dict[str, str] = {}
    for (r, c), name in look.cells():
        labels[cell_name(r, c)] = name
    labels["discard"] = look.discard or EMPTY
    pawn = look.pawn
    return Expected(labels, (pawn[0], pawn[1]) if pawn is not None else None)


def acting_seat(waiting: WaitingFor) -> str | None:
    """The seat whose actions the camera looks for (forced plays and a flip's reveal belong to
    who played; an opening reveal anyone may send is looked for from the seat on turn)."""
    return waiting.seat


def region_of(action: Action) -> str | None:
    """The region an action shows up in on the table (None: the camera cannot see it)."""
    if isinstance(action, Play):
        return cell_name(*action.cell) if action.cell is not None else "discard"
    if isinstance(action, Move):
        return "pawn"
    if isinstance(action, (Discard, Reveal)):
        return "discard"
    return None


def label_of(action: Action) -> str | None:
    card = getattr(action, "card", None)
    return card.name if card is not None else None


def tuned(tuning: RefereeTuning | None) -> RefereeTuning:
    """``tuning``, or the product's (:func:`companion.tuning.default`)."""
    return tuning if tuning is not None else default().referee


def differing(expected: Expected, reading: TableReading, regions: Iterable[str] | None = None,
              tuning: RefereeTuning | None = None) -> dict[str, str]:
    """Regions whose reading differs from the expectation: name -> label read (pawn: the cell).
    A region differs when its read gives the card the state has there less than
    ``expected_odds``; where the state has the pawn and its marker is unseen, only a card read
    clearly (agreed, ``named_confidence``) differs."""
    t = tuned(tuning)
    out: dict[str, str] = {}
    pawn_cell = reading.pawn.cell if reading.pawn is not None and reading.pawn.seen else None
    covered = cell_name(*pawn_cell) if pawn_cell else None
    # the pawn's marker not seen (smeared, a hand over it): where the state says the pawn
    # stands, the reader reads the pawn's body as a card; no card may be played there
    unseen = (cell_name(*expected.pawn)
              if pawn_cell is None and expected.pawn is not None else None)
    for name, want in expected.labels.items():
        if regions is not None and name not in regions:
            continue
        if name == covered:
            continue  # under the pawn: the reading only remembers it
        got = reading.region(name)
        if got is None:
            continue
        if name == unseen and not (got.agreed and got.confidence >= t.named_confidence):
            continue  # (a card put there, read clearly, is still an attempt to call or ask)
        if got.label != want and got.p(want) < t.expected_odds:
            out[name] = got.label
    if pawn_cell is not None and expected.pawn is not None and tuple(pawn_cell) != tuple(expected.pawn):
        if regions is None or "pawn" in regions:
            out["pawn"] = f"{pawn_cell[0]},{pawn_cell[1]}"
    return out


def pawn_hidden_cells(expected: Expected, reading: TableReading) -> set[str]:
    """While the pawn's marker is not seen, the cells where a read that shows no card (no card
    likeliest, or no face at even odds) and that no legal play explains says nothing yet: the
    one the state has the pawn on (its body reads as a card) and the cells one step from it
    (the pawn may have stepped there unseen, or the hand that hides its marker rests over
    them). :func:`decide` waits on such a read instead of asking, and
    :meth:`CameraReferee._settle` keeps the cell to be looked at again once the marker is seen;
    a play the read explains clearly is still committed, a card read at better odds or clearly
    still asked about or called. (A hand resting over the pawn makes such reads, and the marker
    seen again a reading later tells what happened.)"""
    seen = reading.pawn is not None and reading.pawn.seen and reading.pawn.cell is not None
    if seen or expected.pawn is None:
        return set()
    r, c = expected.pawn
    return {cell_name(r, c)} | next_to([cell_name(r, c)])


def cell_of(name: str) -> tuple[int, int] | None:
    if not name.startswith("cell-"):
        return None
    _, r, c = name.split("-")
    return int(r), int(c)


def next_to(regions: Iterable[str]) -> set[str]:
    """The grid cells one step from any of ``regions`` (cells)."""
    out = set()
    for here in filter(None, map(cell_of, regions)):
        out |= {cell_name(here[0] + dr, here[1] + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)
                if (dr or dc) and 0 <= here[0] + dr < 5 and 0 <= here[1] + dc < 5}
    return out


#: The step (rows, columns) from a cell towards each side of the mat: row 0 lies along the
#: north side, column 0 along the west.
TOWARDS: dict[str | None, tuple[int, int]] = {"north": (-1, 0), "south": (1, 0), "west": (0, -1), "east": (0, 1)}


def short_of(reach: Reach, region: str) -> bool:
    """The arm was seen over the cell next to ``region`` on its own side of the mat: its hand
    may have reached ``region`` one cell further in (the hand's point is measured short of the
    fingers, less the shadow it throws)."""
    here, step = cell_of(region), TOWARDS.get(reach.side)
    if here is None or step is None:
        return False
    return cell_name(here[0] + step[0], here[1] + step[1]) in reach.regions


def one_step(start: tuple[int, int] | None, to: tuple[int, int] | None) -> bool:
    """``to`` is one king's step from ``start`` (the only pawn moves a player can make)."""
    if start is None or to is None:
        return False
    return max(abs(to[0] - start[0]), abs(to[1] - start[1])) == 1


def step_cells(start: tuple[int, int] | None, to: tuple[int, int]) -> set[str]:
    """The grid regions of the cell a pawn's step left and the one it came to."""
    return {cell_name(*cell) for cell in ((start, to) if start is not None else (to,))}


def differs(a: Action, b: Action) -> bool:
    return a.to_json() != b.to_json()


def same_action(a: Action, b: Action) -> bool:
    ja, jb = a.to_json(), b.to_json()
    ja.pop("color", None), jb.pop("color", None)
    return ja == jb


def action_read(region: str, label: str, seat: str | None, expected: Expected) -> Action | None:
    """The action the reading shows, legal or not (for calling an illegal play)."""
    if seat is None or label in NOT_A_CARD:
        return None
    try:
        if region == "pawn":
            r, c = (int(v) for v in label.split(","))
            return action_from_json({"by": seat, "do": "move", "to": [r, c]})
        if region.startswith("cell-"):
            _, row, col = region.split("-")
            return action_from_json({"by": seat, "do": "play", "card": label, "cell": [int(row), int(col)]})
        if region == "discard":
            grid = any(k.startswith("cell-") for k in expected.labels)
            return action_from_json({"by": seat, "do": "discard" if grid else "play", "card": label})
    except Exception:  # noqa: BLE001 - a label the engine does not know is simply not an action
        return None
    return None

