"""The scoreboard page's chart says the seats as the page does: the grid game's sides in the
page's language (``GET /scoreboard``)."""

from __future__ import annotations

import random
import re

from app.runner import demo_setup
from companion.eventlog import EventLog
from companion.host import Host
from simulator.bots import Bot
from web import create_app


def grid_match_after_one_game() -> Host:
    host = Host(EventLog(":memory:"))
    table = host.start_match(demo_setup("grid", random.Random(1), {"turn_seconds": 0}))
    bot = Bot(seed=1, illegal_rate=0.0, win_rate=1.0)
    for _ in range(500):
        if table.state_json().get("game_number", 1) > 1 or table.state_json().get("champions"):
            break
        assert table.act(bot.choose(table.game, table.state), source="test").ok
    assert table.state_json().get("game_number", 1) > 1 or table.state_json().get("champions")
    return host


def chart_labels(page: str) -> list[str]:
    svg = page[page.index('<svg'):page.index('</svg>')]
    return re.findall(r'class="label"[^>]*>([^<]*)</text>', svg)


def test_the_chart_names_the_grid_games_sides_in_japanese_on_the_japanese_page():
    host = grid_match_after_one_game()
    client = create_app(host, secret_key="chart-test", join_token="tok").test_client()
    ja = chart_labels(client.get("/scoreboard?lang=ja").get_data(as_text=True))
    en = chart_labels(client.get("/scoreboard?lang=en").get_data(as_text=True))
    assert len(ja) == 4 and len(en) == 4
    assert {label.split()[0] for label in ja} == {"北", "東", "南", "西"}, ja
    assert {label.split()[0] for label in en} == {"north", "east", "south", "west"}, en
