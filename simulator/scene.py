"""What lies on the synthetic table at one moment: small immutable values the renderer draws.

A :class:`Scene` is the physical table, not the game state: where each card lies (with the few
millimetres and degrees a hand leaves), the pawn's position, what lies on the piles, and the
arms reaching over the table. :mod:`simulator.script` turns a game into a timeline of
scenes; :mod:`simulator.render` draws them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

__all__ = ["Placement", "Arm", "Scene"]


@dataclass(frozen=True)
class Placement:
    """A card as it lies: its label and how far off the region's centre (mm, degrees).

    ``laid`` orders the grid's cards in time (0: dealt; a card put down later has a higher
    number): a card dropped askew over a neighbouring cell lies on top of that cell's card if
    it came later, as on a real table, and under it if it came first."""

    label: str
    dx: float = 0.0
    dy: float = 0.0
    angle: float = 0.0
    face_set: str | None = None  # "classic", "light" or "dark" (the design to draw)
    laid: int = 0


@dataclass(frozen=True)
class Arm:
    """An arm reaching from ``side`` of the table to ``tip`` (mat mm); ``holds`` a card face;
    ``seat``: whose arm it is (the scripts' ground truth; None: nobody's in particular)."""

    side: str
    tip: tuple[float, float]
    width_mm: float = 85.0
    skin: int = 0  # index into the renderer's skin tones
    holds: str | None = None
    seat: str | None = None


@dataclass(frozen=True)
class Scene:
    """The whole physical table.

    ``grid`` is 25 stacks (row by row), each a tuple of placements, bottom first; empty for the
    flip/classic games. ``pawn`` is the pawn's centre in mat mm (None: not on the table).
    ``discard`` holds the discard pile (bottom first; only the last few matter). ``draw_count`` is
    the number of cards in the draw pile, ``draw_top`` the face showing on it (``back``, or a dark
    face for Flip) and ``draw_nudge`` how the top card lies.
    """

    grid: tuple[tuple[Placement, ...], ...] = ()
    pawn: tuple[float, float] | None = None
    discard: tuple[Placement, ...] = ()
    draw_count: int = 0
    draw_top: Placement = Placement("back")
    arms: tuple[Arm, ...] = ()
    extras: tuple[tuple[Placement, tuple[float, float]], ...] = field(default=())

    def with_arms(self, *arms: Arm) -> "Scene":
        return replace(self, arms=tuple(arms))

    def static_key(self) -> tuple:
        """Everything but the arms: scenes with equal keys look the same under the arms."""
        return (self.grid, self.pawn, self.discard[-3:], self.draw_count, self.draw_top,
                self.extras)
