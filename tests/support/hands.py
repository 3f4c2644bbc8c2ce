"""A Flip or classic round played by bots to its end, and the hands its losers hold.

The engines only count hands; a real table's hands are whatever cards are left. Here each
awaited seat is dealt faces the deck still has (``copies_left``), so the engine takes them.
"""

from __future__ import annotations

import random

from companion.engine.flip_rules import copies_left
from companion.engine.look import Awaiting

from app.runner import demo_setup
from simulator.bots import Bot


def round_to_show(host, game: str = "classic", seed: int = 1) -> dict[str, list[str]]:
    """Start a ``game`` match on ``host``, let legal-only bots play the round until hands are
    awaited, and return a hand for each awaited seat, ``{seat: [labels]}``."""
    host.start_match(demo_setup(game, random.Random(seed)))
    table = host.table
    bot = Bot(seed, illegal_rate=0.0)
    for _ in range(5000):
        _look, waiting = table.view()
        if waiting.what is Awaiting.SHOW:
            break
        table.act(bot.choose(table.game, table.state), source="bot")
    else:
        raise AssertionError("the bots did not finish the round")
    rng = random.Random(seed)
    pool = [card for card, k in copies_left(table.state).items() for _ in range(k)]
    rng.shuffle(pool)
    counts = table.state_json()["hands"]
    return {seat: [pool.pop().name for _ in range(counts[seat])] for seat in waiting.seats}
