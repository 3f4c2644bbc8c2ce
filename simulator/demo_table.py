"""The demo's physical table: the synthetic table showing what the host's table holds, where
the bots' physical actions (a card played, the pawn moved, a discard, the face a flip turns up)
are done by an arm crossing the table, for the camera referee to read (``companion demo``).
"""

from __future__ import annotations

import logging
import math
import random
import threading
import time
from dataclasses import dataclass
from typing import Any

from vision.sources import Frame, FrameSource

log = logging.getLogger(__name__)

__all__ = ["DemoTable", "InHand"]


@dataclass(frozen=True)
class InHand:
    """What an arm over the demo's table is doing: ``action`` (a bot's), in ``region`` (where
    its card or the pawn goes), by ``seat``."""

    action: Any
    region: str
    seat: str


class DemoTable(FrameSource):
    """The synthetic table as the demo's camera sees it (a frame source: its
    :meth:`~vision.sources.FrameSource.still`, for reading the hands laid open, is the next
    frame, the demo's camera having no finer mode).

    The table shows what the host's table holds; :meth:`perform` hands it a bot's physical
    action, which an arm then does over the following frames. The action is done when the
    table's state moved on (the camera referee committed it, or called it illegal and the card
    went back) or after ``give_up_s`` (then the bot sends it itself: the demo never stalls).
    A wild is played from the phone too (with its colour) ``tap_after_s`` after the arm left.
    The camera's questions are answered by the players (:class:`simulator.demo_players.DemoPlayers`),
    who see what the arm is doing (:attr:`in_hand`).
    """

    name = "demo-table"
    finite = False

    def __init__(self, host, width: int = 1280, height: int = 720, *, fps: float = 10.0,
                 seed: int | None = None, give_up_s: float = 8.0, tap_after_s: float = 0.6,
                 realtime: bool = True, faces=None, clock=time.monotonic):
        from .render import SyntheticTable

        self.host = host
        self.renderer = SyntheticTable(width, height, seed=seed or 0, faces=faces)
        self.layout = self.renderer.layout
        self.fps = fps
        self.rng = random.Random(seed)
        self.give_up_s = give_up_s
        self.tap_after_s = tap_after_s
        self.realtime = realtime
        #: the clock of the arms' and the players' waits (a test's may run faster than time)
        self.clock = clock
        self.referee = None  # the camera referee reading the table (:meth:`attach`)
        self._lock = threading.Lock()
        self._job: dict[str, Any] | None = None
        self._lying: dict[str, Any] = {}     # region -> Placement as it lies
        self._index = 0
        self._next = time.monotonic()

    def attach(self, referee) -> None:
        """The camera referee reading this table: the bots wait until it has seen the layout."""
        self.referee = referee

    @property
    def in_hand(self) -> InHand | None:
        """The action an arm is doing over the table now (None: no arm is)."""
        job = self._job
        return InHand(job["action"], job["region"], job["seat"]) if job is not None else None

    # --- the bots' side ---------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        """An arm is over the table, or the camera has not seen the layout yet (bots wait)."""
        return self._job is not None or (self.referee is not None and self.host.table is not None
                                         and not self.referee.has_baseline)

    def perform(self, action) -> bool:
        """Do ``action`` physically when the camera can see it (True), else False."""
        from companion.referee.camera import region_of

        region = region_of(action)
        if region is None:
            return False
        table = self.host.table
        state = table.state_json() if table is not None else None  # (the table's lock, not under ours)
        placement = self._placement(action)
        with self._lock:
            self._job = {"action": action, "region": region, "frame": 0, "started": self.clock(),
                         "table": table, "state": state, "seat": action.by,
                         "placement": placement}
        return True

    # --- frames ------------------------------------------------------------------------------

    def read(self) -> Frame:
        if self.realtime:
            delay = self._next - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            self._next = max(self._next + 1.0 / self.fps, time.monotonic())
        scene = self._scene()
        i = self._index
        self._index += 1
        return Frame(self.renderer.render(scene), i / self.fps, i)

    def close(self) -> None:
        pass

    def _placement(self, action):
        from .scene import Placement

        card = getattr(action, "card", None)
        if card is None:
            return None
        table = self.host.table
        side = (table.state_json().get("side") if table is not None else None) or "classic"
        fs = "classic" if table is None or table.game.name in ("grid", "classic") else side
        flip = 180.0 if self.rng.random() < 0.5 else 0.0
        return Placement(card.name, self.rng.uniform(-3, 3), self.rng.uniform(-3, 3),
                         flip + self.rng.uniform(-5, 5), fs)

    def _lies(self, region: str, label: str | None, face_set: str | None):
        """The placement lying in ``region`` showing ``label`` (a new one if the label changed)."""
        from .scene import Placement

        if label is None:
            return None
        have = self._lying.get(region)
        if have is None or have.label != label:
            flip = 180.0 if self.rng.random() < 0.5 else 0.0
            have = Placement(label, self.rng.uniform(-3, 3), self.rng.uniform(-3, 3),
                             flip + self.rng.uniform(-5, 5), face_set)
            self._lying[region] = have
        return have

    def _scene(self):
        from .scene import Scene

        table = self.host.table
        job = self._job
        if job is not None and job["table"] is not table:
            # The match ended (or another began) under the arm: its action is moot. Dropping
            # the job is what lets the bots (who wait while an arm is busy) start the next one.
            with self._lock:
                if self._job is job:
                    self._job = None
            job = None
        if table is None:
            return Scene()
        state = table.state_json()
        game = table.game.name
        if job is not None:
            moved_on = state != job["state"]
            # a wild's player plays it from the seat page too (it asks the colour, which no
            # camera sees) a moment after the arm left: the referee waits for that
            tap = (not moved_on and getattr(job["action"], "color", None) is not None
                   and job["frame"] >= 10
                   and self.clock() - job["started"] > self.tap_after_s + 10 / self.fps)
            if moved_on or tap or self.clock() - job["started"] > self.give_up_s:
                with self._lock:
                    self._job = None
                if not moved_on:  # the colour's tap, or the camera did not see it: the phone
                    if not tap:
                        log.info("demo: the camera missed %s; sent by the bot", job["action"].to_json())
                    table.act(job["action"], source="bot")
                    state = table.state_json()
                if (moved_on or tap) and job["placement"] is not None:
                    self._lying[job["region"]] = job["placement"]
                job = None
        fs = "classic" if game in ("grid", "classic") else state.get("side") or "light"
        grid = ()
        pawn = None
        if game == "grid" and state.get("grid"):
            stacks = []
            for r, row in enumerate(state["grid"]):
                for c, name in enumerate(row):
                    stacks.append((self._lies(f"cell-{r}-{c}", name, "classic"),))
            grid = tuple(stacks)
            if state.get("pawn"):
                pawn = self._pawn_mm(tuple(state["pawn"]))
            top = (state.get("discard_pile") or {}).get("top")
        else:
            top = state.get("top")
        # (no card on the pile, as the grid's next game starts: the pile was cleared away)
        lying = self._lies("discard", top, fs)
        discard = (lying,) if lying is not None else ()
        draw_count = state.get("draw_pile") if isinstance(state.get("draw_pile"), int) else 40
        arms = ()
        if job is not None:
            k = job["frame"]
            job["frame"] += 1
            n_in, n_hold, n_out = 4, 2, 4
            target = self._target(job)
            if k >= n_in + n_hold // 2:  # the card (or the pawn) is down
                if job["region"] == "pawn":
                    pawn = self._pawn_mm(tuple(job["action"].to))
                elif job["region"].startswith("cell-"):
                    r, c = (int(v) for v in job["region"].split("-")[1:])
                    grid = tuple(((job["placement"],) if i == r * 5 + c else s) for i, s in enumerate(grid))
                else:
                    discard = (job["placement"],)
            if k < n_in + n_hold + n_out:
                t = min(1.0, (k + 1) / n_in) if k < n_in else (
                    1.0 if k < n_in + n_hold else 1.0 - (k - n_in - n_hold + 1) / n_out)
                arms = (self._arm(job["seat"], target, t),)
        return Scene(grid=grid, pawn=pawn, discard=discard, draw_count=draw_count or 0, arms=arms)

    def _target(self, job) -> tuple[float, float]:
        L = self.layout
        region = job["region"]
        if region == "pawn":
            return self._pawn_mm(tuple(job["action"].to))
        if region.startswith("cell-"):
            r, c = (int(v) for v in region.split("-")[1:])
            return L.cell_center(r, c)
        return L.discard_pile

    def _pawn_mm(self, cell) -> tuple[float, float]:
        x, y = self.layout.cell_center(*cell)
        r, c = cell
        y += 25 if r < 0 else (-25 if r > 4 else 0)
        x += 18 if c < 0 else (-18 if c > 4 else 0)
        return (x, y)

    def _arm(self, seat: str, target, t: float):
        from .scene import Arm

        table = self.host.table
        seats = list(table.seats) if table is not None else [seat]
        # the arm comes in by the side the set-up seats its player at (companion.seating)
        side = table.seating.side_of(seat) if table is not None and seat in seats else "south"
        L = self.layout
        out = {"north": (target[0], -260.0), "south": (target[0], L.height + 260.0),
               "west": (-260.0, target[1]), "east": (L.width + 260.0, target[1])}[side]
        e = 0.5 - 0.5 * math.cos(math.pi * max(0.0, t))
        tip = (out[0] + (target[0] - out[0]) * e, out[1] + (target[1] - out[1]) * e)
        return Arm(side, tip, skin=seats.index(seat) if seat in seats else 0)
