"""The table: one running match, the actions that reach it and the events it publishes.

:class:`Table` is where player actions from every source meet the rule engine: phone taps,
table buttons, the turn timer and (through the camera referee) what the camera read. It

* applies each action with the pure engine (refusals come back with their reason code),
* writes the action and its events to the event log *before* anyone is told (if a log is given),
* publishes every event on the :class:`~companion.bus.EventBus` -- after releasing its lock,
  in the order the state changed (a :class:`~companion.bus.Outbox`),
* runs the turn timer from an injectable clock, and
* can undo the last action (the engine is pure, so undo is "the state before").

It is thread-safe: the camera loop, the web threads and the button callbacks all call it.
Its lock guards the history and the timer; under it the table only changes state and writes
the event log; it never publishes or calls anything else while holding it.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable

from ..bus import EventBus, Outbox
from ..engine.actions import Action, Timeout, action_from_json
from ..engine.errors import BadInput, RuleError, SetupError
from ..engine.look import TableLook, WaitingFor
from ..replay import start_game
from .hands import seating_of
from .timer import TurnTimer

if TYPE_CHECKING:
    from ..eventlog import EventLog

__all__ = ["Table", "Answer"]


@dataclass(frozen=True)
class Answer:
    """What became of one action: the replay answer form plus the action itself."""

    ok: bool
    events: tuple[dict[str, Any], ...]
    state: dict[str, Any]
    error: str | None = None
    message: str | None = None
    action: dict[str, Any] | None = None
    #: a refusal's parameters (:attr:`RuleError.params`), for words in the reader's language
    params: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"ok": self.ok, "events": list(self.events), "state": self.state}
        if not self.ok:
            out = {"ok": False, "error": self.error, "message": self.message, **out}
            if self.params:
                out["params"] = self.params
        return out


@dataclass
class _Frame:
    """One step of history: the action taken and the engine state it led to."""

    action: dict[str, Any] | None
    state: Any
    events: tuple[dict[str, Any], ...] = field(default_factory=tuple)
    #: the action's sequence number (:attr:`Table.last_seq`); 0 for the match's start
    seq: int = 0
    #: the id of the camera frame the action was decided on (:meth:`Table.act`'s ``evidence``)
    evidence: str | None = None


class Table:
    """A match at the table. ``setup`` is the replay set-up object (``{"setup": {...}}``).

    ``log`` is an :class:`~companion.eventlog.EventLog` (or ``None``); ``clock`` is the
    monotonic clock of the turn timer (tests pass a fake one).

    ``setup`` may also hold ``"seating"`` (``{seat: side}``: which side of the mat each seat's
    arms come from, when it is not the default); it is checked here (a bad one raises
    :class:`~companion.seating.SeatingError`, a ``ValueError``), stored with the set-up in the
    event log, and read by the camera referee as :attr:`seating`.
    """

    def __init__(self, setup: dict[str, Any], bus: EventBus | None = None, *,
                 log: EventLog | None = None, clock: Callable[[], float] = time.monotonic,
                 resume_actions: Iterable[dict[str, Any]] | None = None) -> None:
        self.setup = setup
        self.bus = bus or EventBus()
        self._outbox = Outbox(self.bus)
        self.log = log
        self.game, state = start_game(setup)
        self.seating = seating_of(setup)
        self._history: list[_Frame] = [_Frame(None, state)]
        self._seq = 0   # the last sequence number given to an action (never given twice)
        self._lock = threading.RLock()
        # the legal actions of one state, kept: the camera referee asks for them several times a
        # reading (a grid state has some 400), and a state never changes
        self._legal: tuple[Any, tuple[Action, ...]] = (None, ())
        options = setup["setup"].get("options") or {}
        self.timer = TurnTimer(int(options.get("turn_seconds", 30)), clock=clock)
        self.match_id: int | None = None
        if log is not None:
            self.match_id = log.start_match(setup) if resume_actions is None else log.current_match_id()
            assert self.match_id is not None   # (resumed: the unfinished match)
        for action in resume_actions or ():
            self._apply(action_from_json(action), [], record=False)
        self.bus.publish("table-ready", game=self.game.name, state=self.state_json())
        self._restart_timer(new_turn=True)

    @classmethod
    def resume(cls, log: EventLog, bus: EventBus | None = None, *,
               clock: Callable[[], float] = time.monotonic) -> "Table | None":
        """The unfinished match in ``log``, replayed to exactly where it stopped; None if none.

        A match whose set-up today's rules refuse (an old log: e.g. a seat name that cannot be
        printed) cannot be resumed: it is marked finished, with the reason, and None is returned.
        """
        found = log.unfinished()
        if found is None:
            return None
        setup, actions = found
        try:
            start_game(setup)
        except SetupError as exc:
            match_id = log.current_match_id()
            assert match_id is not None   # (the unfinished match just found)
            log.finish_match(match_id, {"ended_by": "unresumable", "reason": str(exc)})
            return None
        table = cls(setup, bus, log=log, clock=clock, resume_actions=actions)
        assert table.match_id is not None   # (resumed from the log)
        table._resume_evidence(log.entries(table.match_id))
        return table

    def _resume_evidence(self, entries: list[dict[str, Any]]) -> None:
        """Each standing action's evidence id, as its logged events carry it (undos resolved)."""
        standing: list[str | None] = []
        for entry in entries:
            if entry["action"].get("do") == "undo":
                if standing:
                    standing.pop()
                continue
            standing.append(next((e["evidence"] for e in entry["events"]
                                  if isinstance(e.get("evidence"), str)), None))
        with self._lock:
            frames = [f for f in self._history[1:] if f.action is not None]
            for frame, evidence in zip(frames, standing[-len(frames):] if frames else ()):
                frame.evidence = evidence

    # --- what the table knows ---------------------------------------------------------------

    @property
    def state(self) -> Any:
        return self._history[-1].state

    @property
    def seats(self) -> list[str]:
        return list(self.setup["setup"]["seats"])

    def state_json(self) -> dict[str, Any]:
        with self._lock:
            return self.game.to_json(self.state)

    def view(self) -> tuple[TableLook, WaitingFor]:
        """What the table should look like and what it waits for, typed, at one moment."""
        with self._lock:
            state = self.state
            return self.game.table_look(state), self.game.waiting_for(state)

    def legal_actions(self) -> list[Action]:
        with self._lock:
            state = self.state
            if self._legal[0] is not state:
                self._legal = (state, tuple(self.game.legal_actions(state)))
            return list(self._legal[1])

    @property
    def last_seq(self) -> int | None:
        """The sequence number of the last action standing (the one :meth:`undo` takes back),
        None when there is none. Each action that changed the state gets the next number; one
        taken back never comes back, so a number names one action of this table for good."""
        with self._lock:
            return self._history[-1].seq if len(self._history) > 1 else None

    @property
    def last_evidence(self) -> str | None:
        """The evidence id of the last standing action (the one an undo takes back), if the
        camera decided it."""
        return self._history[-1].evidence

    def actions_taken(self) -> list[dict[str, Any]]:
        with self._lock:
            return [f.action for f in self._history[1:] if f.action is not None]

    def what_if(self, actions: list[Action]) -> WaitingFor | None:
        """What the table would wait for after ``actions`` (nothing is applied); None when the
        rules refuse one of them. The camera referee asks it before it infers a missing tap."""
        with self._lock:
            state = self.state
            for action in actions:
                outcome = self.game.apply(state, action)
                if not outcome.ok:
                    return None
                state = outcome.state
            return self.game.waiting_for(state)

    def check(self, action: Action) -> RuleError | None:
        """The rules' refusal of ``action`` now (malformed for this game, or illegal), or None
        when they would take it. Nothing is applied: a refused Flip or classic play's penalty
        neither (the camera referee checks a card a phone names before it plays it)."""
        with self._lock:
            return self.game.malformed(action) or self.game.apply(self.state, action).error

    # --- acting -------------------------------------------------------------------------------

    def act(self, action: Action | dict[str, Any], source: str = "phone", *,
            evidence: str | None = None) -> Answer:
        """Apply one action (an :class:`Action` or its replay JSON form) and tell everyone.

        ``evidence`` is the id of the camera frame the action was decided on: every event the
        action gives (and its logged events) carry it as ``evidence``."""
        out: list[tuple[str, dict[str, Any]]] = []
        with self._lock:
            try:
                parsed = action if isinstance(action, Action) else action_from_json(action)
            except RuleError as exc:
                out.append(("refused", {"code": exc.code, "message": exc.message,
                                        "params": exc.params, "source": source}))
                answer = Answer(False, (), self.state_json(), exc.code, exc.message,
                                action if isinstance(action, dict) else None, exc.params)
            else:
                answer = self._apply(parsed, out, source=source, evidence=evidence)
            self._outbox.add(out)
        self._outbox.flush()
        return answer

    def _apply(self, action: Action, out: list[tuple[str, dict[str, Any]]], *,
               source: str = "phone", record: bool = True,
               evidence: str | None = None) -> Answer:
        """Under the lock: apply ``action``, log it (``record``), and add the events to say to
        ``out`` (published by the caller after the lock is released)."""
        outcome = self.game.apply(self.state, action)
        events = tuple(e.to_json() for e in outcome.events)
        action_json = action.to_json()
        changed = outcome.ok or outcome.state is not self.state
        if evidence is not None:
            events = tuple({**e, "evidence": evidence} for e in events)
        if changed:
            self._seq += 1
            self._history.append(_Frame(action_json, outcome.state, events, self._seq, evidence))
        state_json = self.game.to_json(outcome.state)
        if record and changed and self.log is not None:
            assert self.match_id is not None   # (set with the log)
            # Written (and synced) before anything is signalled: a crash loses nothing said.
            # The action that wins the match closes it in the same transaction.
            finish = ({"champions": state_json["champions"], "scores": state_json.get("scores")}
                      if state_json.get("champions") else None)
            self.log.append(self.match_id, action_json, events, source=source, finish=finish)
        said = {"evidence": evidence} if evidence is not None else {}
        out.append(("action", {"action": action_json, "source": source, "ok": outcome.ok,
                               "error": outcome.error.code if outcome.error else None, **said}))
        out.extend((e["type"], {k: v for k, v in e.items() if k != "type"}) for e in events)
        if outcome.error is not None:   # (not outcome.ok)
            out.append(("refused", {"code": outcome.error.code, "message": outcome.error.message,
                                    "params": outcome.error.params, "seat": action.by,
                                    "source": source, **said}))
        out.append(("state", {"state": state_json}))
        self._restart_timer(new_turn=any(e["type"] == "turn" for e in events))
        if outcome.error is not None:
            return Answer(False, events, state_json, outcome.error.code, outcome.error.message,
                          action_json, outcome.error.params)
        return Answer(True, events, state_json, action=action_json)

    def undo(self, by: str = "table", seq: int | None = None) -> Answer:
        """Take back the last action that changed the state (the table agreed to it).

        ``seq`` names the action meant (:attr:`last_seq`): when another is last (that one was
        taken back already, or another was played since) nothing is undone and the answer is
        refused ``undo-stale``."""
        with self._lock:
            if len(self._history) < 2:
                err = BadInput("nothing to undo", code="nothing-to-undo")
                return Answer(False, (), self.state_json(), err.code, err.message)
            last = self._history[-1].seq
            if seq is not None and seq != last:
                err = BadInput(f"action {seq} is not the last action standing ({last} is)",
                               code="undo-stale", seq=seq, last=last)
                return Answer(False, (), self.state_json(), err.code, err.message,
                              params=err.params)
            undone = self._history.pop()
            if self.log is not None:
                assert self.match_id is not None   # (set with the log)
                self.log.append(self.match_id, {"by": by, "do": "undo"}, (), source="table")
            state_json = self.state_json()
            self._outbox.add([("undone", {"action": undone.action, "by": by, "seq": undone.seq}),
                              ("state", {"state": state_json})])
            self._restart_timer(new_turn=True)
        self._outbox.flush()
        return Answer(True, (), state_json, action={"by": by, "do": "undo"})

    # --- the turn timer -----------------------------------------------------------------------

    def poll_timer(self) -> Answer | None:
        """Call often (the referee loop does): publishes timer signals, applies a timeout at 0."""
        out: list[tuple[str, dict[str, Any]]] = []
        with self._lock:
            answer = None
            for signal in self.timer.poll():
                out.append(("timer", {"kind": signal.kind, "seat": signal.seat, "left": signal.left}))
                if signal.kind == "expired":
                    answer = self._apply(Timeout(by=signal.seat), out, source="timer")
            self._outbox.add(out)
        self._outbox.flush()
        return answer

    def pause_timer(self) -> None:
        with self._lock:
            self.timer.pause()
            self._outbox.add([("timer", {"kind": "paused", "seat": self.timer.seat,
                                         "left": int(self.timer.left())})])
        self._outbox.flush()

    def resume_timer(self) -> None:
        with self._lock:
            self.timer.resume()
            self._outbox.add([("timer", {"kind": "resumed", "seat": self.timer.seat,
                                         "left": int(self.timer.left())})])
        self._outbox.flush()

    def _restart_timer(self, new_turn: bool) -> None:
        """A new turn (a ``turn`` event, or another seat to act) gets the full time again."""
        state = self.game.to_json(self.state)
        turn = None if state.get("over") else state.get("turn")
        if turn is None:
            self.timer.stop()
        elif new_turn or self.timer.seat != turn:
            self.timer.start(turn)
