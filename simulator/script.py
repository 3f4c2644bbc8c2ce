"""Scripted games on the synthetic table: a physical table that plays a real game, frame by frame.

A script simulates the real cards (a shuffled deck, the hands, the grid's stacks, the piles), lets
the seats choose moves (mostly legal, some illegal attempts), checks each with the rule engine,
and turns every move into *beats*: an arm reaches in from the player's side, the card lands (or
the pawn moves), the arm leaves, the table rests. Moves the camera cannot see (a wild's colour, a
round's deal) are *phone* actions of the beat. Light drifts and the camera is nudged now and then.

The harness (:func:`run_script`) plays a script through the live pipeline
(:class:`vision.pipeline.Pipeline`: the reader and the camera referee), the script being its frame
source (:class:`ScriptFrames`) and its players (:class:`ScriptPlayer`, who send what phones send
and answer the referee's questions), and through a reference table that receives the scripted
actions directly, and compares the two event sequences.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, Iterator

from companion.decks import classic_deck
from companion.engine.actions import action_from_json
from companion.replay import start_game

from vision.geometry import Layout
from vision.sources import Frame, FrameSource
from .render import CameraPose, Lighting
from companion.seating import Seating

from .scene import Arm, Placement, Scene

__all__ = ["Beat", "FrameStep", "TableScript", "GridScript", "ENGINE_EVENTS", "ANY_TIME", "run_script",
           "RunResult", "ScriptFrames", "ScriptFrame", "ScriptPlayer", "seating_for", "arm_at"]


def seating_for(seats) -> Seating:
    """Where the scripted seats sit: seats named after sides (the grid game's ``north``,
    ``south``) at those sides, others round the table as :meth:`Seating.around` puts them."""
    if all(s in ("north", "east", "south", "west") for s in seats):
        return Seating.of({s: s for s in seats})
    return Seating.around(list(seats))

#: Actions a phone sends at any time, whoever is on turn: nothing shows them at the table.
ANY_TIME = ("penalty", "catch", "uno")

#: Bus events compared between the live run and the reference run.
ENGINE_EVENTS = {
    "turn", "played", "moved", "discarded", "drew", "skipped", "direction", "illegal", "penalty",
    "reshuffle", "draw-pile-low", "timeout", "won", "game-over", "round-over", "match-over",
    "flipped", "revealed", "color-declared", "uno", "caught", "challenged", "hand-shown",
    "refused", "action", "undone",
}


@dataclass(frozen=True)
class Beat:
    """One move at the table.

    ``action`` is the scripted action (replay JSON); ``by_camera`` says whether the camera must
    see it (else a phone sends it at the beat's start). ``scene`` is the table after the move;
    ``arm`` the arm doing it (None: nothing physical). ``answer`` picks the choice a player gives
    when the referee asks (by the choice's action). ``expect_refusal`` marks an illegal attempt.
    """

    action: dict[str, Any] | None
    by_camera: bool
    scene: Scene
    arm: Arm | None
    expect_refusal: bool = False
    distractor: Arm | None = None
    #: the cards the beat's arm really took from the draw pile (the ground truth of a draw)
    lifted: int = 0
    #: the turn the beat belongs to (counted from 0: a new turn when the seat to play changes)
    turn: int = 0
    #: the player also sends the action from their phone once the card lies there (a wild: the
    #: seat page asks its colour, which no camera sees); sent only if the table lacks it then
    tapped: bool = False

    @property
    def seat(self) -> str | None:
        """The seat whose arm really does the beat (None: no arm, or nobody's)."""
        return self.arm.seat if self.arm is not None else None

    @property
    def arms(self) -> tuple[Arm, ...]:
        """The arms over the table in this beat: the one doing it, then a second one."""
        return tuple(a for a in (self.arm, self.distractor) if a is not None)


@dataclass(frozen=True)
class FrameStep:
    scene: Scene
    pose: CameraPose | None = None
    lighting: Lighting | None = None
    phone: dict[str, Any] | None = None
    beat: int = -1
    hand_left: bool = False   # the first frame with the arm gone (latency is measured from here)
    #: a camera beat's action the player sends from the phone too (:attr:`Beat.tapped`)
    tap: dict[str, Any] | None = None


def _jitter(rng: random.Random, label: str, mm: float = 3.0, deg: float = 5.0) -> Placement:
    flip = 180.0 if rng.random() < 0.5 else 0.0  # players put cards either way up
    return Placement(label, rng.uniform(-mm, mm), rng.uniform(-mm, mm), flip + rng.uniform(-deg, deg))


def _landing(rng: random.Random, label: str, below: Placement | None, mm: float = 3.0,
             deg: float = 5.0) -> Placement:
    """Where a card put on top of ``below`` lands: jittered, but never within 2 mm and 4
    degrees of the card under it (a card put down by hand never lands exactly on another; if it
    did, no camera could tell it was there: the same face twice would look like one card)."""
    p = _jitter(rng, label, mm, deg)
    # a second draw comes from its own generator: the script's stream (and so every scripted
    # game of a seed) stays as it was
    again = random.Random(f"{label} {p.dx} {p.dy} {p.angle}")
    while below is not None:
        turn = abs((p.angle - below.angle + 90.0) % 180.0 - 90.0)  # cards look alike turned 180
        if math.hypot(p.dx - below.dx, p.dy - below.dy) >= 2.0 or turn >= 4.0:
            break
        p = _jitter(again, label, mm, deg)
    return p


class TableScript:
    """What every scripted game shares: timing, arms, light drift, camera nudges and the frames.

    Subclasses fill ``setup`` (the set-up line), ``beats`` and ``_setup_scene`` in ``_build``.
    """

    game = ""

    def __init__(self, actions: int = 300, *, seats=("north", "south"), seed: int = 0,
                 illegal_rate: float = 0.06, distractor_rate: float = 0.35, nudge_every: int = 80,
                 drift: float = 0.06, layout: Layout = Layout(), frames_in: int = 5,
                 frames_hold: int = 3, frames_out: int = 5, frames_rest: int = 10,
                 min_game_actions: int = 40, askew: tuple[float, float] | None = None,
                 phone_draws: bool = True, reach_back_rate: float = 0.05):
        self.n_actions = actions
        #: True: draws and passes are phone taps (a player's own draw is one beat: the tap and
        #: the arm taking the card), the second arm belongs to nobody. False: nobody taps a
        #: phone for a draw or a pass, the second arm is another seat's, from its own side, and
        #: now and then a seat reaches to the pile and puts the card back
        #: (``reach_back_rate``). Either way, in Flip and classic every other card drawn
        #: (penalties, counts) is a reach of the drawing seat's arm to the pile, one card a
        #: reach; in the grid game, with the phones, the card drawn after a play or a discard
        #: leaves the face-down pile in that beat.
        self.phone_draws = phone_draws
        self.reach_back_rate = reach_back_rate
        #: which side of the mat each seat's arms come from
        self.seating = seating_for(seats)
        self._owed: list[tuple[str, int]] = []   # cards drawn by the engine, not yet by an arm
        self._turn = 0
        self._turn_seat: str | None = None
        #: (mm, degrees): how far off its place and how turned a card may land; None: the usual
        #: care (3 mm and 5 degrees on the grid, 2 mm and 6 degrees on the piles)
        self.askew = askew
        self.seats = tuple(seats)
        self.rng = random.Random(seed)
        self.illegal_rate = illegal_rate
        self.distractor_rate = distractor_rate
        self.nudge_every = nudge_every
        self.drift = drift
        self.layout = layout
        self.timing = (frames_in, frames_hold, frames_out, frames_rest)
        self.min_game_actions = min_game_actions
        self.setup: dict[str, Any] = {}
        self.beats: list[Beat] = []
        self._build()

    def _build(self) -> None:
        raise NotImplementedError

    @property
    def table_actions(self) -> list[dict[str, Any]]:
        """Every scripted action, in order (camera and phone)."""
        return [b.action for b in self.beats if b.action is not None]

    def _spread(self, mm: float = 3.0, deg: float = 5.0) -> tuple[float, float]:
        """How far off its place a card lands (the script's ``askew``, else ``mm``/``deg``)."""
        return self.askew if self.askew is not None else (mm, deg)

    def _side(self, seat: str) -> str:
        return self.seating.side_of(seat)

    def _arm(self, seat: str, target, holds=None) -> Arm:
        return Arm(self._side(seat), target, skin=self.seats.index(seat), holds=holds, seat=seat)

    def _distractor(self, seat: str, to_pile: bool = True) -> Arm | None:
        """Now and then a second arm over the table while ``seat`` acts: nobody's, from another
        side (``phone_draws``); else another seat's, from its own side, reaching somewhere or
        (``to_pile``) to the draw pile and back without a card."""
        if self.rng.random() >= self.distractor_rate:
            return None
        L = self.layout
        if self.phone_draws:
            others = [s for s in ("north", "east", "south", "west") if s != self._side(seat)]
            side = self.rng.choice(others)
            target = (self.rng.uniform(80, L.width - 120), self.rng.uniform(90, L.height - 90))
            return Arm(side, target, skin=3, width_mm=75)
        other = self.rng.choice([s for s in self.seats if s != seat])
        if to_pile and self.rng.random() < 0.3:
            target = L.draw_pile
        else:
            target = (self.rng.uniform(80, L.width - 120), self.rng.uniform(90, L.height - 90))
        return Arm(self._side(other), target, skin=self.seats.index(other), width_mm=75, seat=other)

    # --- the ground truth and the draws every arm makes ----------------------------------------

    def _new_turn(self, seat: str) -> None:
        """The seat to play is ``seat``: a new turn when it changed."""
        if seat != self._turn_seat:
            if self._turn_seat is not None:
                self._turn += 1
            self._turn_seat = seat

    def _add(self, beat: Beat, settle: bool = True) -> None:
        """Append ``beat`` (in this turn), then the reaches for the cards the engine had drawn
        meanwhile and owed by hand: one reach a card, by the seat that drew."""
        self.beats.append(replace(beat, turn=self._turn))
        if settle:
            self._settle_draws()

    def _owe(self, seat: str, count: int) -> None:
        self._owed.append((seat, count))

    def _settle_draws(self) -> None:
        owed, self._owed = self._owed, []
        for seat, count in owed:
            for _ in range(count):
                if not self._take_card(seat):
                    break
                self.beats.append(Beat(None, False, self._scene(), self._arm(seat, self.layout.draw_pile),
                                       distractor=self._distractor(seat, to_pile=False), lifted=1,
                                       turn=self._turn))

    def _take_card(self, seat: str) -> bool:
        """``seat`` takes the draw pile's top card into its hand (False: the pile is empty)."""
        raise NotImplementedError

    def _reach_back(self, seat: str) -> None:
        """Now and then (``phone_draws=False``) a seat reaches to the draw pile and puts the card
        back: no draw."""
        if not self.phone_draws and self.rng.random() < self.reach_back_rate:
            self._add(Beat(None, False, self._scene(), self._arm(seat, self.layout.draw_pile)))

    def drawn_by_turn(self) -> list[dict[str, int]]:
        """The ground truth of the draws: per turn, the cards each seat really took from the draw
        pile by hand (seats that drew nothing left out)."""
        out: list[dict[str, int]] = [{} for _ in range((self.beats[-1].turn + 1) if self.beats else 0)]
        for b in self.beats:
            if b.lifted and b.seat is not None:
                out[b.turn][b.seat] = out[b.turn].get(b.seat, 0) + b.lifted
        return out

    # --- frames --------------------------------------------------------------------------------

    def frames(self) -> Iterator[FrameStep]:
        """Every frame of the script, in order."""
        n_in, n_hold, n_out, n_rest = self.timing
        pose = CameraPose()
        scene = self._initial_scene()  # the table as dealt, before anything happens
        frame_no = 0
        yield from (FrameStep(scene, pose, self._light(0)) for _ in range(n_rest))
        for b, beat in enumerate(self.beats):
            if self.nudge_every and b and b % self.nudge_every == 0:
                pose = pose.nudged(self.rng.uniform(-4, 4), self.rng.uniform(-3, 3), self.rng.uniform(-0.4, 0.4))
            phone = beat.action if (beat.action is not None and not beat.by_camera) else None
            arms = [a for a in (beat.arm, beat.distractor) if a is not None]
            total = n_in + n_hold + n_out
            for k in range(total + n_rest):
                frame_no += 1
                light = self._light(frame_no)
                if k < n_in:
                    t = (k + 1) / n_in
                elif k < n_in + n_hold:
                    t = 1.0
                elif k < total:
                    t = 1.0 - (k - n_in - n_hold + 1) / n_out
                else:
                    t = 0.0
                if k == n_in + n_hold // 2:
                    scene = beat.scene
                shown = scene
                if t > 0 and arms:
                    shown = scene.with_arms(*[self._arm_at(a, t) for a in arms])
                # a tap comes a moment after the hand left (the camera may have seen the card)
                tap = beat.action if beat.tapped and k == total + n_rest // 2 else None
                yield FrameStep(shown, pose, light, phone if k == 0 else None, b, hand_left=(k == total),
                                tap=tap)
        for _ in range(3 * n_rest):  # the table rests at the end: the last move settles
            frame_no += 1
            yield FrameStep(scene, pose, self._light(frame_no), None, len(self.beats) - 1)

    def _initial_scene(self) -> Scene:
        return self._setup_scene

    def _light(self, frame_no: int) -> Lighting:
        step = frame_no // 30  # the light changes slowly: a new level every second
        return Lighting(gain=1.0 + self.drift * math.sin(step / 9.0), slope=0.25,
                        angle=30 + 20 * math.sin(step / 23.0), tint=0.3 * math.sin(step / 17.0))

    def _arm_at(self, arm: Arm, t: float) -> Arm:
        return arm_at(arm, t, self.layout)


def arm_at(arm: Arm, t: float, layout: Layout = Layout()) -> Arm:
    """The arm ``t`` of the way in (0: outside the table, 1: at its target), coming straight in
    from its side."""
    L = layout
    out = {"north": (arm.tip[0], -260.0), "south": (arm.tip[0], L.height + 260.0),
           "west": (-260.0, arm.tip[1]), "east": (L.width + 260.0, arm.tip[1])}[arm.side]
    e = 0.5 - 0.5 * math.cos(math.pi * t)
    tip = (out[0] + (arm.tip[0] - out[0]) * e, out[1] + (arm.tip[1] - out[1]) * e)
    return replace(arm, tip=tip)


class GridScript(TableScript):
    """A grid game of at least ``actions`` scripted actions between ``seats``.

    ``illegal_rate`` of the turns are illegal attempts (a card that does not fit, a pawn step
    too far); ``distractor_rate`` of the beats have a second arm crossing the table; the light
    drifts and the camera is nudged every ``nudge_every`` beats (0: never).
    """

    game = "grid"

    # --- the physical game -------------------------------------------------------------------

    def _deal(self):
        deck = [c.name for c in classic_deck()]
        self.rng.shuffle(deck)
        self.hands = {s: [deck.pop() for _ in range(5)] for s in self.seats}
        self.stacks = [[deck.pop()] for _ in range(25)]
        self.discard: list[str] = []
        self.pile = deck
        self.places = [[_jitter(self.rng, s[0], *self._spread())] for s in self.stacks]
        self._cards_laid = 0   # the grid's cards put down since the deal (Placement.laid)
        self.discard_places: list[Placement] = []
        self.pawn_cell = (2, 2)

    def _laid(self, place: Placement) -> Placement:
        """``place`` numbered after every card put down before it (drawn over them)."""
        self._cards_laid += 1
        return replace(place, laid=self._cards_laid)

    def _scene(self, pawn_mm=None) -> Scene:
        pawn = pawn_mm if pawn_mm is not None else (
            self._pawn_mm(self.pawn_cell) if self.pawn_cell is not None else None)
        return Scene(grid=tuple(tuple(p) for p in self.places), pawn=pawn,
                     discard=tuple(self.discard_places[-3:]), draw_count=len(self.pile),
                     draw_top=self._draw_top)

    def _pawn_mm(self, cell):
        x, y = self.layout.cell_center(*cell)
        # a pawn that left the board lies a little beyond the edge, not a full cell away
        r, c = cell
        if r < 0:
            y += 25
        if r > 4:
            y -= 25
        if c < 0:
            x += 18
        if c > 4:
            x -= 18
        return (x + self.rng.uniform(-4, 4), y + self.rng.uniform(-4, 4))

    def _draw(self, seat: str, count: int) -> None:
        for _ in range(count):
            if not self.pile:
                break
            self.hands[seat].append(self.pile.pop())
        self._draw_top = Placement("back", self.rng.uniform(-2, 2), self.rng.uniform(-2, 2),
                                   self.rng.uniform(-4, 4))

    def _reshuffle(self) -> None:
        for i, stack in enumerate(self.stacks):
            self.pile += stack[:-1]
            self.stacks[i] = stack[-1:]
            self.places[i] = self.places[i][-1:]
        self.pile += self.discard
        self.discard, self.discard_places = [], []
        self.rng.shuffle(self.pile)

    def _new_game(self) -> list[list[str]]:
        deck = [c for stack in self.stacks for c in stack] + self.discard + self.pile
        for hand in self.hands.values():
            deck += hand
        self.rng.shuffle(deck)
        self.hands = {s: [deck.pop() for _ in range(5)] for s in self.seats}
        self.stacks = [[deck.pop()] for _ in range(25)]
        self.discard, self.discard_places = [], []
        self.pile = deck
        self.places = [[_jitter(self.rng, s[0], *self._spread())] for s in self.stacks]
        self._cards_laid = 0
        self.pawn_cell = (2, 2)
        return [[self.stacks[r * 5 + c][0] for c in range(5)] for r in range(5)]

    # --- choosing moves ---------------------------------------------------------------------

    def _build(self) -> None:
        self._deal()
        self._draw_top = Placement("back")
        self._setup_scene = self._scene()
        grid = [[self.stacks[r * 5 + c][0] for c in range(5)] for r in range(5)]
        self.setup = {"setup": {"game": "grid", "seats": list(self.seats), "first": self.seats[0],
                                "grid": grid, "options": {"turn_seconds": 0, "match_points": 1000}}}
        game, state = start_game(self.setup)
        self.engine = game
        count = 0
        game_actions = 0
        rng = self.rng
        while count < self.n_actions:
            sj = game.to_json(state)
            if sj["over"]:
                seat = sj["turn"]
                grid = self._new_game()
                action = {"by": seat, "do": "round", "grid": grid}
                out = game.apply(state, action_from_json(action))
                assert out.ok, out.error
                state = out.state
                self._add(Beat(action, False, self._scene(), self._arm(seat, self.layout.cell_center(2, 2))))
                count += 1
                game_actions = 0
                continue
            pending = sj.get("pending") or {}
            seat = pending.get("seat") or sj["turn"]
            self._new_turn(sj["turn"])
            forced = pending.get("what") == "forced-plays"
            hand = self.hands[seat]
            if not forced:
                self._reach_back(seat)
            r = rng.random()
            beat = None
            if not forced and r < self.illegal_rate:
                beat, state = self._illegal(game, state, sj, seat)
            if beat is None and not forced and r < 0.32:
                beat, state = self._move(game, state, sj, seat, game_actions >= self.min_game_actions)
            if beat is None and not (forced and pending.get("claimed_no_play")) and r < 0.9:
                beat, state = self._play(game, state, sj, seat)
            if beat is None:
                card = rng.choice(hand)
                action = {"by": seat, "do": "discard", "card": card}
                out = game.apply(state, action_from_json(action))
                assert out.ok, (action, out.error)
                hand.remove(card)
                self.discard.append(card)
                self.discard_places.append(_landing(rng, card, self.discard_places[-1] if self.discard_places else None,
                                                    *self._spread(2, 6)))
                self._after(out)
                state = out.state
                beat = Beat(action, True, self._scene(), self._arm(seat, self.layout.discard_pile, card),
                            distractor=self._distractor(seat))
            if isinstance(beat, tuple):  # an illegal attempt and its taking back
                self._add(beat[0], settle=False)
                self._add(beat[1])
            else:
                self._add(beat)
            count += 1
            game_actions += 1

    def _after(self, outcome) -> None:
        """The physical consequences of an accepted action's events (draws, reshuffles)."""
        for e in outcome.events:
            j = e.to_json()
            if j["type"] == "drew":
                if self.phone_draws:   # the card drawn after a play: it leaves in the play's beat
                    self._draw(j["seat"], j["count"])
                else:
                    self._owe(j["seat"], j["count"])
            elif j["type"] == "reshuffle":
                self._reshuffle()

    def _take_card(self, seat: str) -> bool:
        if not self.pile:
            return False
        self._draw(seat, 1)
        return True

    def _play(self, game, state, sj, seat):
        hand = self.hands[seat]
        cells = [(r, c) for r in range(5) for c in range(5) if [r, c] != sj["pawn"]]
        self.rng.shuffle(cells)
        for card in self.rng.sample(hand, len(hand)):
            for cell in cells:
                action = {"by": seat, "do": "play", "card": card, "cell": list(cell)}
                out = game.apply(state, action_from_json(action))
                if out.ok:
                    hand.remove(card)
                    i = cell[0] * 5 + cell[1]
                    self.stacks[i].append(card)
                    self.places[i].append(self._laid(_landing(self.rng, card, self.places[i][-1], *self._spread())))
                    self._after(out)
                    return Beat(action, True, self._scene(), self._arm(seat, self.layout.cell_center(*cell), card),
                                distractor=self._distractor(seat)), out.state
        return None, state

    def _move(self, game, state, sj, seat, allow_exit):
        pawn = tuple(sj["pawn"])
        steps = [(pawn[0] + dr, pawn[1] + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)]
        self.rng.shuffle(steps)
        for to in steps:
            off = not (0 <= to[0] < 5 and 0 <= to[1] < 5)
            if off and not allow_exit:
                continue
            action = {"by": seat, "do": "move", "to": list(to)}
            out = game.apply(state, action_from_json(action))
            if out.ok:
                self.pawn_cell = to
                self._after(out)
                return Beat(action, True, self._scene(), self._arm(seat, self._pawn_mm(to)),
                            distractor=self._distractor(seat)), out.state
        return None, state

    def _illegal(self, game, state, sj, seat):
        """A card that does not fit (or on the pawn's cell), then taken back."""
        hand = self.hands[seat]
        cells = [(r, c) for r in range(5) for c in range(5) if [r, c] != sj["pawn"]]
        self.rng.shuffle(cells)
        for card in self.rng.sample(hand, len(hand)):
            for cell in cells:
                action = {"by": seat, "do": "play", "card": card, "cell": list(cell)}
                out = game.apply(state, action_from_json(action))
                if not out.ok and out.error.code == "not-matching":
                    i = cell[0] * 5 + cell[1]
                    before = list(self.places[i])
                    self.places[i].append(self._laid(_landing(self.rng, card, self.places[i][-1], *self._spread())))
                    wrong = Beat(action, True, self._scene(), self._arm(seat, self.layout.cell_center(*cell), card),
                                 expect_refusal=True)
                    self.places[i] = before
                    self._after(out)
                    back = Beat(None, False, self._scene(), self._arm(seat, self.layout.cell_center(*cell)))
                    return (wrong, back), out.state
        return None, state

# --- the harness ---------------------------------------------------------------------------------

@dataclass
class RunResult:
    expected: list[tuple]
    got: list[tuple]
    frames: int
    quiet_ms: list[float] = field(default_factory=list)
    change_ms: list[float] = field(default_factory=list)
    latencies_s: list[float] = field(default_factory=list)
    questions: int = 0
    answered: int = 0
    camera_actions: int = 0
    stats: dict = field(default_factory=dict)
    #: (beat, frame, what) for every decision and answer: where a run went wrong
    trace: list = field(default_factory=list)
    #: (beat, action JSON, accepted) for every action the live table recorded, in order
    live_actions: list = field(default_factory=list)
    #: the beat during which each question was asked
    asked_beats: list = field(default_factory=list)

    @property
    def exact(self) -> bool:
        return self.expected == self.got

    def first_difference(self) -> str | None:
        for i, (a, b) in enumerate(zip(self.expected, self.got)):
            if a != b:
                return f"event {i}: expected {a}, got {b}"
        if len(self.expected) != len(self.got):
            return f"expected {len(self.expected)} events, got {len(self.got)}"
        return None


def _event_key(message) -> tuple | None:
    if message.type not in ENGINE_EVENTS:
        return None
    data = {k: v for k, v in message.data.items() if k not in ("source", "state", "message")}
    return (message.type, repr(sorted(data.items())))


def _akey(action) -> str:
    """An action's canonical form (key order and defaults do not matter)."""
    import json
    try:
        action = action_from_json(action).to_json()
    except Exception:  # noqa: BLE001 - compared as given
        pass
    return json.dumps(action, sort_keys=True)


def reference_events(script) -> list[tuple]:
    """The events the scripted actions cause when given straight to a table."""
    from companion.bus import EventBus
    from companion.referee.table import Table

    bus = EventBus()
    got: list[tuple] = []
    bus.subscribe(lambda m: got.append(k) if (k := _event_key(m)) else None)
    table = Table(script.setup, bus, clock=lambda: 0.0)
    for beat in script.beats:
        if beat.action is not None:
            table.act(beat.action, source="script")
    bus.join()
    return got


class ScriptFrames(FrameSource):
    """A script's frames as a frame source: each :class:`ScriptFrame` carries its
    :class:`FrameStep` (what the script does at it) and its time, ``fps`` frames a second from 0.
    ``pictures`` is an iterator of ``(image, FrameStep)`` (the rendered script, or recorded
    frames). :attr:`now` is the time of the last frame read (the camera's clock in a scripted
    run: the referee waits in it)."""

    name = "script"
    finite = True

    def __init__(self, pictures, fps: float = 30.0):
        self._pictures = iter(pictures)
        self.fps = fps
        self.now = 0.0
        #: the beat of the last frame read (-1 before the first beat)
        self.beat = -1
        self._index = 0

    @classmethod
    def rendered(cls, script, renderer, fps: float = 30.0) -> "ScriptFrames":
        """``script``'s frames drawn by ``renderer`` (a :class:`~simulator.render.SyntheticTable`),
        with the script's camera nudges and light."""
        def pictures():
            for step in script.frames():
                if step.pose is not None:
                    renderer.pose = step.pose
                if step.lighting is not None:
                    renderer.lighting = step.lighting
                yield renderer.render(step.scene), step
        return cls(pictures(), fps)

    def read(self) -> "ScriptFrame | None":
        got = next(self._pictures, None)
        if got is None:
            return None
        image, step = got
        n = self._index
        self._index += 1
        self.now = n / self.fps
        self.beat = step.beat
        return ScriptFrame(image, self.now, n, step)


@dataclass(frozen=True)
class ScriptFrame(Frame):
    """A frame of a script, with the script's :class:`FrameStep` at it."""

    step: FrameStep = field(default_factory=lambda: FrameStep(Scene()))


class ScriptPlayer:
    """The players of a script at the table (a :class:`vision.pipeline.Player`): they send
    from their phones what the script sends (:attr:`FrameStep.phone`, and a tap the table has
    not recorded: :attr:`FrameStep.tap`), and answer the referee's questions truthfully, with
    what the script did and the table has not recorded yet (a player knows that), or "another
    card..." naming the card, or else "nothing happened" (the camera misread)."""

    def __init__(self, script, bus, table, trace: list):
        self.table = table
        #: (beat, frame, "answer", kind, choice) for each answer given (the run's trace)
        self.trace = trace
        self.answered = 0
        self.frame_no = 0
        self._beats = dict(enumerate(script.beats))
        # how many times each action was scripted up to each beat, and sent to the live table
        self._scripted_until: dict[int, Counter] = {}
        running: Counter = Counter()
        for i, b in enumerate(script.beats):
            if b.action is not None:
                running[_akey(b.action)] += 1
            self._scripted_until[i] = Counter(running)
        self._done: Counter = Counter()
        bus.subscribe(lambda m: self._done.update([_akey(m.data["action"])]), {"action"})

    def _recorded(self, action: dict, beat: int) -> bool:
        """The table recorded ``action`` as often as the script did it up to ``beat``."""
        return self._done[_akey(action)] >= self._scripted_until[beat][_akey(action)]

    def before(self, pipeline, frame: ScriptFrame) -> None:
        step = frame.step
        if step.phone is not None:
            self.table.act(step.phone, source="phone")
            pipeline.sync()
        if step.tap is not None and not self._recorded(step.tap, step.beat):
            # the player taps what the table has not recorded (the page shows what it has)
            self.table.act(step.tap, source="phone")
            pipeline.sync()

    def after(self, pipeline, frame: ScriptFrame, report) -> None:
        self.frame_no = frame.index
        self.answer(pipeline, frame.step.beat)

    def answer(self, pipeline, beat_index: int) -> None:
        """A player answers the referee's open question (if any) truthfully."""
        referee = pipeline.referee
        q = referee.question
        if q is None:
            return
        # what the table did and the referee has not recorded yet (a player knows that)
        wanted = [b.action for i in range(beat_index - 3, beat_index + 1)
                  if (b := self._beats.get(i)) is not None and b.by_camera and b.action is not None
                  and not self._recorded(b.action, i)]
        pick = None
        for want in wanted:  # the earliest thing done that the referee has not recorded
            pick = next((c.id for c in q.choices if c.action is not None
                         and _akey(c.action.to_json()) == _akey(want)), None)
            if pick is not None:
                break
        if pick is None and self._answer_other(pipeline, q, wanted, beat_index):
            return
        if pick is None:
            pick = q.choices[-1].id  # nothing happened: the camera misread
        self.trace.append((beat_index, self.frame_no, "answer", q.kind.value, q.choice(pick).to_json()))
        self.answered += 1
        referee.answer(pick, by="player")
        referee.run_pending()
        pipeline.sync()

    def _answer_other(self, pipeline, q, wanted: list, beat_index: int) -> bool:
        """The card put where the question asks is not among its choices: the player answers
        "another card..." naming it, as a player at the table would. Only what they know: a
        card the question's seat put down in the region asked about (the cell, or the discard
        pile), that the table has not recorded. Told the rules refuse it, they say it was put
        down all the same (it was: an illegal attempt). False when no such card was put."""
        from companion.referee.camera import AnswerRefused, region_of

        referee = pipeline.referee
        if q.other is None:
            return False
        for want in wanted:
            action = action_from_json(want)
            card = getattr(action, "card", None)
            if card is None or action.by != q.seat or region_of(action) != q.region:
                continue
            color = getattr(action, "color", None)
            for illegal in (False, True):
                future = referee.answer_other(card.name, by="player", question_id=q.id,
                                              color=color, illegal=illegal)
                referee.run_pending()
                refused = future.exception(timeout=0)
                self.trace.append((beat_index, self.frame_no, "answer", q.kind.value,
                                   {"other": want, "refused": getattr(refused, "code", None)}))
                self.answered += 1
                if refused is None:
                    pipeline.sync()
                    return True
                if not (isinstance(refused, AnswerRefused) and refused.illegal):
                    break
            return False
        return False


class _Stopwatch:
    """What a scripted run measures, frame by frame (a :class:`vision.pipeline.Player` that
    only watches): the reader's time per frame, quiet or changing, and the time from a hand
    leaving the table to the event of what it did."""

    def __init__(self, script, result: RunResult):
        self.result = result
        self._beats = script.beats
        self._hand_left_at: float | None = None
        self._events_before = 0
        self._pending = False

    def before(self, pipeline, frame: ScriptFrame) -> None:
        step = frame.step
        if step.hand_left:
            self._hand_left_at = frame.time
            self._events_before = len(self.result.got)
            self._pending = self._beats[step.beat].by_camera

    def after(self, pipeline, frame: ScriptFrame, report) -> None:
        result = self.result
        quiet = report.state in ("quiet", "moving", "settling", "hands")
        (result.quiet_ms if quiet else result.change_ms).append(report.ms)
        if self._pending and len(result.got) > self._events_before and self._hand_left_at is not None:
            result.latencies_s.append(frame.time - self._hand_left_at + report.ms / 1000.0)
            self._pending = False
        result.frames += 1


def run_script(script, *, width: int = 1280, height: int = 720, fps: float = 30.0,
               classifier=None, frames_source=None, seed: int = 0, markers: bool = True,
               reader=None, faces=None, tuning=None) -> RunResult:
    """Play ``script`` through the synthetic camera and the live pipeline
    (:class:`vision.pipeline.Pipeline`: the reader and the camera referee), with its players
    (:class:`ScriptPlayer`) answering the referee's questions.

    ``frames_source`` (optional) replaces the synthetic renderer with an iterator of
    ``(image, FrameStep)`` (the video-file test replays recorded frames this way). ``faces``
    (:mod:`simulator.faces`) draws the cards: the art (default) or real photos. ``tuning``
    (a :class:`companion.tuning.Tuning`; default the product's) sets the referee's thresholds.
    """
    from companion.bus import EventBus
    from companion.referee.table import Table
    from vision.pipeline import Pipeline

    from .render import SyntheticTable

    expected = reference_events(script)
    bus = EventBus()
    got: list[tuple] = []
    bus.subscribe(lambda m: got.append(k) if (k := _event_key(m)) else None)
    table = Table(script.setup, bus, clock=lambda: 0.0)
    result = RunResult(expected, got, 0)
    if frames_source is None:
        frames = ScriptFrames.rendered(script, SyntheticTable(width, height, seed=seed, markers=markers,
                                                              faces=faces), fps)
    else:
        frames = ScriptFrames(frames_source, fps)
    player = ScriptPlayer(script, bus, table, result.trace)
    watch = _Stopwatch(script, result)
    bus.subscribe(lambda m: result.live_actions.append(
        (frames.beat, m.data.get("action"), bool(m.data.get("ok")))), {"action"})
    bus.subscribe(lambda m: result.asked_beats.append(frames.beat), {"confirm-needed"})
    # the scripted table is not read afresh at a new round: the reader follows the new deal as
    # changes, beat by beat
    pipeline = Pipeline.build(frames, table, bus, tuning=tuning, clock=lambda: frames.now,
                              classifier=classifier, reader=reader,
                              players=(player, watch), exact=True, reread_new_layouts=False)
    referee = pipeline.referee
    referee.on_decision = lambda d: result.trace.append(
        (frames.beat, result.frames, d.kind.value, d.region,
         d.action.to_json() if d.action else [a.to_json() for a in d.choices], d.reason.value))
    pipeline.run()
    pipeline.close()
    result.answered = player.answered
    result.questions = referee.stats["questions"]
    result.camera_actions = referee.stats["commits"] + referee.stats["illegal"]
    result.stats = dict(referee.stats)
    return result
