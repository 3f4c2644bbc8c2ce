"""Bots for the demo table: they pick among the engine's legal actions, and now and then try
something illegal, so the demo shows penalties and refusals as a real table would.

A bot never sees hands (nobody does: the engine only counts them); it plays any face the rules
allow, which is exactly what a real player holding that card could do.
"""

from __future__ import annotations

import random
from typing import Any

from companion.cards import CLASSIC, DARK, LIGHT
from companion.deal import deal_grid
from companion.engine.actions import Action, Move, Play, Round

__all__ = ["Bot"]

# How often a bot picks each kind of action when several are legal: plays and moves are the
# game; penalties, catches and challenges are rare at a real table.
_WEIGHTS = {
    "play": 6.0, "move": 4.0, "discard": 1.0, "draw": 2.0, "pass": 2.0, "uno": 3.0,
    "catch": 0.5, "accept": 3.0, "challenge": 1.0, "reveal": 5.0, "declare": 5.0,
    "penalty": 0.05, "show": 5.0, "round": 5.0, "timeout": 0.0,
}


class Bot:
    """Chooses the next action for whoever must act at a table (all seats are bots)."""

    def __init__(self, seed: int | None = None, illegal_rate: float = 0.06,
                 win_rate: float = 0.15):
        self.rng = random.Random(seed)
        self.illegal_rate = illegal_rate
        #: Chance of taking a legal step off the board when one is possible (games end).
        self.win_rate = win_rate

    def choose(self, game, state) -> Action | None:
        """The next action, or None when nothing is left to do (the match is over)."""
        public = game.to_json(state)
        if public.get("champions"):
            return None
        legal = list(game.legal_actions(state))
        if not legal and game.name == "grid" and public.get("over"):
            return self._next_grid_game(public)
        if not legal:
            return None
        # (illegal card plays belong to the card games: the timer and the scoreboard have none)
        if game.name in ("grid", "flip", "classic") and public.get("turn") \
                and not public.get("pending") and self.rng.random() < self.illegal_rate:
            attempt = self._illegal_attempt(game, state, public)
            if attempt is not None:
                return attempt
        return self._pick(legal)

    def _pick(self, legal: list[Action]) -> Action:
        by_kind: dict[str, list[Action]] = {}
        for action in legal:
            by_kind.setdefault(action.do, []).append(action)
        if "move" in by_kind:
            on_board = [a for a in by_kind["move"] if _on_board(a)]
            off_board = [a for a in by_kind["move"] if not _on_board(a)]
            if off_board and self.rng.random() < self.win_rate:
                return self.rng.choice(off_board)
            if on_board:
                by_kind["move"] = on_board
            else:
                del by_kind["move"]
        kinds = sorted(by_kind)
        weights = [_WEIGHTS.get(k, 1.0) or 0.001 for k in kinds]
        kind = self.rng.choices(kinds, weights)[0]
        return self.rng.choice(by_kind[kind])

    def _illegal_attempt(self, game, state, public: dict[str, Any]) -> Action | None:
        """A play of a random face; only returned if the engine would refuse it."""
        faces = {"grid": CLASSIC, "classic": CLASSIC}.get(game.name) or (
            DARK if public.get("side") == "dark" else LIGHT)
        card = self.rng.choice([c for c in faces.faces if not c.is_wild])
        if game.name == "grid":
            action = Play(by=public["turn"], card=card,
                          cell=(self.rng.randrange(5), self.rng.randrange(5)))
        else:
            action = Play(by=public["turn"], card=card)
        return None if game.apply(state, action).ok else action

    def _next_grid_game(self, public: dict[str, Any]) -> Action:
        from companion.cards import parse_card

        grid = tuple(tuple(parse_card(c) for c in row) for row in deal_grid(self.rng))
        return Round(by=public["turn"], grid=grid)


def _on_board(move: Move) -> bool:
    return all(0 <= v <= 4 for v in move.to)
