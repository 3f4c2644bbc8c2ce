"""The demo's physical table never stalls the demo: a match that ends under a bot's arm."""

from __future__ import annotations

import random
import time

from app.runner import TableLoop, demo_setup
from companion.host import Host
from simulator.bots import Bot
from simulator.demo_table import DemoTable


def _demo(game="grid"):
    host = Host(mode="referee")
    host.start_match(demo_setup(game, random.Random(3), {"turn_seconds": 0}))
    table = DemoTable(host, 320, 180, seed=2, realtime=False)
    loop = TableLoop(host, bots=Bot(seed=5, illegal_rate=0.0), pace=0.0, hands=table)
    return host, table, loop


def _arm_moving(host, table, loop, now):
    """Tick until a bot's action is being done by an arm over the table."""
    for _ in range(20):
        now += 1.0
        loop.tick(now)
        if table.busy:
            return now
    raise AssertionError("no bot action went to the arm")


def test_a_match_ended_while_an_arm_moves_lets_the_next_match_start():
    host, table, loop = _demo()
    now = _arm_moving(host, table, loop, time.monotonic())
    table.read()                    # the arm is on its way
    first = host.table
    host.end_match()                # the table ends the match now (web page, button)
    table.read()                    # the camera's next frame
    assert not table.busy
    for _ in range(10):             # the bots wait the winner's moment, then deal again
        now += 1.0
        loop.tick(now)
    assert host.table is not None and host.table is not first


def test_a_new_match_under_the_arm_drops_the_old_action():
    host, table, loop = _demo()
    _arm_moving(host, table, loop, time.monotonic())
    second = host.start_match(demo_setup("flip", random.Random(4), {"turn_seconds": 0}))
    table.read()
    assert not table.busy
    assert second.actions_taken() == []  # the old match's play was not sent to the new one
