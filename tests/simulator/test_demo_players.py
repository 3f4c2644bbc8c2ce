"""The demo's players (simulator.demo_players): they answer the camera's questions as the player
who did the arm's action would, once the question has waited, on the table loop's heartbeat."""

from __future__ import annotations

import random
import time

from app.runner import TableLoop, demo_setup
from companion.host import Host
from simulator.bots import Bot
from simulator.demo_players import DemoPlayers
from simulator.demo_table import DemoTable


class _Answers:
    """A camera referee that only records how the demo's players answer it."""

    has_baseline = True

    def __init__(self):
        self.answers, self.others = [], []

    def answer(self, choice, by="phone", question_id=None):
        self.answers.append((choice, by))

    def answer_other(self, card, by="phone", question_id=None, *, color=None, illegal=False, act=True):
        self.others.append((card, by, question_id, color, illegal))


class _Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def _demo(game="classic", answer_after_s=0.0):
    host = Host(mode="referee")
    host.start_match(demo_setup(game, random.Random(3), {"turn_seconds": 0}))
    table = DemoTable(host, 320, 180, seed=2, realtime=False)
    clock = _Clock()
    players = DemoPlayers(host.bus, table, answer_after_s=answer_after_s, clock=clock)
    referee = _Answers()
    table.attach(referee)
    players.attach(referee)
    loop = TableLoop(host, bots=Bot(seed=5, illegal_rate=0.0), pace=0.0, hands=table, players=players)
    now = time.monotonic()
    for _ in range(20):     # until a bot's action is being done by an arm over the table
        now += 1.0
        loop.tick(now)
        if table.in_hand is not None:
            return host, table, players, referee, loop, clock
    raise AssertionError("no bot action went to the arm")


def _asked(host, table, region, *, other="play"):
    """The camera asks, through the bus, about ``region``; its one choice is a card never
    played, then "nothing happened"."""
    doing = table.in_hand
    host.bus.publish("confirm-needed", id=7, kind="unsure", seat=doing.seat, region=region,
                     other=other, choices=[
                         {"id": 0, "action": {"by": doing.seat, "do": "play", "card": "no-such"}},
                         {"id": 1, "action": None, "nothing": "misread"}])
    host.bus.join()
    return doing


def test_a_card_the_choices_do_not_offer_is_named_with_another_card():
    host, table, players, referee, loop, _ = _demo()
    doing = _asked(host, table, table.in_hand.region)
    players.tick()
    wanted = doing.action.to_json()
    assert referee.others == [(wanted["card"], doing.seat, 7, wanted.get("color"), True)]
    assert referee.answers == []


def test_a_question_about_another_place_is_answered_nothing_happened():
    host, table, players, referee, loop, _ = _demo()
    doing = _asked(host, table, "cell-0-0")      # not where this arm puts its card
    players.tick()
    assert referee.others == [] and referee.answers == [(1, doing.seat)]


def test_the_choice_that_is_the_arms_action_is_picked():
    host, table, players, referee, loop, _ = _demo()
    doing = table.in_hand
    host.bus.publish("confirm-needed", id=8, kind="unsure", seat=doing.seat, region=doing.region, choices=[
        {"id": 0, "action": {"by": doing.seat, "do": "play", "card": "no-such"}},
        {"id": 1, "action": doing.action.to_json()},
        {"id": 2, "action": None, "nothing": "misread"}])
    host.bus.join()
    players.tick()
    assert referee.answers == [(1, doing.seat)] and referee.others == []


def test_the_players_wait_before_answering_and_answer_on_the_loops_heartbeat():
    host, table, players, referee, loop, clock = _demo(answer_after_s=0.6)
    _asked(host, table, "cell-0-0")
    clock.now += 0.5
    loop.tick(time.monotonic())
    assert referee.answers == []          # asked 0.5 s ago: not yet
    clock.now += 0.2
    loop.tick(time.monotonic())
    assert len(referee.answers) == 1      # the loop's next heartbeat answered it
    loop.tick(time.monotonic())
    assert len(referee.answers) == 1      # once


def test_a_question_settled_meanwhile_is_not_answered():
    host, table, players, referee, loop, clock = _demo(answer_after_s=0.6)
    _asked(host, table, "cell-0-0")
    host.bus.publish("confirmed", id=7)
    host.bus.join()
    clock.now += 1.0
    players.tick()
    assert referee.answers == [] and referee.others == []
