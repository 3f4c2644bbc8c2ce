"""The people round the demo's table as the camera referee meets them: they answer its questions
(``companion demo``).

The demo's bots choose the moves (:class:`simulator.bots.Bot`) and its table's arms do them
(:class:`simulator.demo_table.DemoTable`, the frame source); :class:`DemoPlayers` is the third
part, what the players would tap on their phones when the camera asks: the action the arm over
the table was doing, picked among the question's choices, named with "another card" where the
choices do not hold it, or "nothing happened" where the question is about something no arm did.
The table loop (:class:`app.runner.TableLoop`) gives them a moment each heartbeat, as it gives
the bots theirs.
"""

from __future__ import annotations

import time
from typing import Any

__all__ = ["DemoPlayers"]


class DemoPlayers:
    """The demo's players: each question the camera referee asks (a ``confirm-needed`` event on
    ``bus``) is answered ``answer_after_s`` after it was asked, at the first :meth:`tick` after
    that, through the referee :meth:`attach` gave (whose answers only queue: any thread may give
    them)."""

    def __init__(self, bus, table, *, answer_after_s: float = 0.6, clock=time.monotonic):
        self.table = table
        self.answer_after_s = answer_after_s
        self.clock = clock
        self.referee = None
        # (asked at, the question): set by the bus's dispatcher thread, taken by tick's
        self._question: tuple[float, dict[str, Any]] | None = None
        bus.subscribe(self._on_event, {"confirm-needed", "confirmed"})

    def attach(self, referee) -> None:
        """The camera referee whose questions these players answer."""
        self.referee = referee

    def _on_event(self, message) -> None:
        self._question = (self.clock(), message.data) if message.type == "confirm-needed" else None

    def tick(self) -> None:
        """Answer the open question if it has waited ``answer_after_s`` (on :attr:`clock`)."""
        pending = self._question  # read once: the dispatcher thread may replace it meanwhile
        if pending is None or self.referee is None:
            return
        since, q = pending
        if self.clock() - since < self.answer_after_s:
            return
        self._question = None
        doing = self.table.in_hand
        wanted = doing.action.to_json() if doing is not None else None
        pick = next((c["id"] for c in q["choices"] if c["action"] is not None and c["action"] == wanted),
                    None)
        if pick is None and doing is not None and self._names_another_card(q, doing):
            # the card put down is not among the choices: its player names it with the card
            # picker ("another card"), and says it was put down even where the rules refuse it
            self.referee.answer_other(wanted["card"], by=doing.seat, question_id=q.get("id"),
                                      color=wanted.get("color"), illegal=True)
            return
        if pick is None:
            pick = q["choices"][-1]["id"]  # nothing happened: the camera misread
        self.referee.answer(pick, by=doing.seat if doing is not None else "phone")

    @staticmethod
    def _names_another_card(question: dict[str, Any], doing) -> bool:
        """The question takes another card (``other``) and asks where this arm's card went, of
        the seat that put it there."""
        if not question.get("other"):
            return False
        wanted = doing.action.to_json()
        return (wanted.get("do") == question["other"] and "card" in wanted
                and doing.region == question.get("region")
                and question.get("seat") in (None, doing.seat))
