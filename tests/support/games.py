"""Random legal games for tests that need a real match: scripts of actions the engine accepts."""

from __future__ import annotations

import random
from typing import Any

from companion.cards import parse_card
from companion.deal import deal_grid
from companion.engine.actions import Round
from companion.replay import start_game


def grid_setup(seed: int, seats=("north", "east", "south", "west"), **options) -> dict[str, Any]:
    grid = deal_grid(random.Random(seed))
    return {"setup": {"game": "grid", "seats": list(seats), "first": seats[0], "grid": grid,
                      "options": {"turn_seconds": 0, **options}}}


def flip_setup(game: str = "flip", seats=("ann", "ben", "cai"), start="red-5", **options):
    return {"setup": {"game": game, "seats": list(seats), "dealer": seats[-1], "start": start,
                      "options": {"turn_seconds": 0, **options}}}


def random_script(setup: dict[str, Any], length: int, seed: int,
                  stop_before_match_end: bool = False) -> list[dict[str, Any]]:
    """Up to ``length`` legal actions, chosen at random among the engine's legal actions."""
    rng = random.Random(seed)
    game, state = start_game(setup)
    script = []
    while len(script) < length:
        legal = list(game.legal_actions(state))
        public = game.to_json(state)
        if not legal and game.name == "grid" and public["over"] and not public["champions"]:
            grid = tuple(tuple(parse_card(c) for c in row) for row in deal_grid(rng))
            legal = [Round(by=public["turn"], grid=grid)]  # the table deals the next game
        if not legal:
            break
        by_kind: dict[str, list] = {}
        for action in legal:
            by_kind.setdefault(action.do, []).append(action)
        action = rng.choice(by_kind[rng.choice(sorted(by_kind))])
        outcome = game.apply(state, action)
        assert outcome.ok, (action, outcome.error)
        if stop_before_match_end and game.to_json(outcome.state)["champions"]:
            break
        state = outcome.state
        script.append(action.to_json())
    return script
