"""The table, the camera referee and the bus under threads: phones undo, act and answer while
the camera thread feeds the referee readings. Nothing may ever block for good (the deadlock
this guards against: a phone's undo holding the table's lock while the bus called the
referee, whose thread held its own lock and waited for the bus), and what is said on the bus
and written to the log must stay in the order the table changed."""

from __future__ import annotations

import random
import threading

import pytest

from companion.bus import EventBus
from companion.eventlog import EventLog
from companion.referee.camera import CameraReferee
from companion.referee.table import Table
from tests.support.readings import ALL_CELLS, SETUP, reading

#: Generous: only a thread that blocked for good runs past it (no speed is asserted).
LIVENESS_S = 120.0
#: Readings the camera thread feeds (each seed: with 800 phone actions and undos, and answers).
ROUNDS = 600
#: The phones start once the camera has committed a play, or after this many readings whatever
#: it did: started together, the phones' random legal actions could win the game before the
#: camera's first play (seen on a loaded machine), and "commits > 0" then failed for no bug.
HEAD_START = 50


def _camera(table, referee, rounds: int, rng: random.Random, stop: threading.Event,
            go: threading.Event) -> None:
    """The camera thread (the referee's owner): a reading of the table as it is, often with one
    legal play or pawn move on it, sometimes read unsurely (a question), then a tick. It lets
    the phones ``go`` once it has committed a play (or after ``HEAD_START`` readings)."""
    try:
        _readings(table, referee, rounds, rng, stop, go)
    finally:
        go.set()  # (a camera thread that failed must not hold the phones back)


def _readings(table, referee, rounds, rng, stop, go) -> None:
    referee.on_reading(reading(table.state_json()["grid"], changed=ALL_CELLS))
    for seq in range(2, rounds + 2):
        if stop.is_set():
            return
        if referee.stats["commits"] > 0 or seq > HEAD_START:
            go.set()
        state = table.state_json()
        grid = [row[:] for row in state["grid"]]
        pawn = tuple(state["pawn"]) if state.get("pawn") else (2, 2)
        changed, probs = [], {}
        shown = [a.to_json() for a in table.legal_actions()]
        shown = [a for a in shown if a["do"] in ("play", "move") and ("cell" in a or "to" in a)]
        if shown and rng.random() < 0.7:
            a = rng.choice(shown)
            if a["do"] == "move":
                pawn = tuple(a["to"])
            else:
                r, c = a["cell"]
                grid[r][c] = a["card"]
                changed.append(f"cell-{r}-{c}")
                if rng.random() < 0.3:  # read unsurely: the referee asks the table
                    probs[changed[0]] = {a["card"]: 0.55, "red-0": 0.40, state["grid"][r][c]: 0.05}
        else:
            changed.append(rng.choice(ALL_CELLS))
        referee.on_reading(reading(grid, seq=seq, pawn=pawn, changed=tuple(changed), probs=probs))
        referee.tick()


def _phone_actions(table, n: int, rng: random.Random, stop: threading.Event, done: list,
                   go: threading.Event) -> None:
    go.wait(LIVENESS_S)
    for _ in range(n):
        if stop.is_set():
            return
        legal = table.legal_actions()
        if legal:
            table.act(rng.choice(legal).to_json(), source="phone")
            done.append("act")


def _phone_undos(table, n: int, rng: random.Random, stop: threading.Event, done: list,
                 go: threading.Event) -> None:
    go.wait(LIVENESS_S)
    for _ in range(n):
        if stop.is_set():
            return
        if table.undo(by=rng.choice(["north", "south"])).ok:
            done.append("undo")


def _phone_answers(referee, n: int, rng: random.Random, stop: threading.Event, futures: list,
                   go: threading.Event) -> None:
    go.wait(LIVENESS_S)
    for _ in range(n):
        if stop.is_set():
            return
        question = referee.question
        if question is None:
            continue
        choice = rng.choice(question.choices).id
        # the web plays a choice itself (act=False); a button lets the referee play it
        futures.append(referee.answer(choice, by="phone", question_id=question.id,
                                      act=rng.random() < 0.5))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_phones_and_the_camera_never_block_each_other(seed):
    bus = EventBus()
    log = EventLog(":memory:")
    table = Table(SETUP, bus, log=log, clock=lambda: 0.0)
    referee = CameraReferee(lambda: table, bus)
    said = []
    bus.subscribe(lambda m: said.append(m), {"state", "undone", "action"})
    stop, go = threading.Event(), threading.Event()
    done: list[str] = []
    futures: list = []
    threads = [
        threading.Thread(target=_camera, args=(table, referee, ROUNDS, random.Random(seed), stop, go),
                         name="camera", daemon=True),
        *[threading.Thread(target=_phone_actions,
                           args=(table, 200, random.Random(seed * 10 + i), stop, done, go),
                           name=f"phone-act-{i}", daemon=True) for i in range(2)],
        *[threading.Thread(target=_phone_undos,
                           args=(table, 200, random.Random(seed * 20 + i), stop, done, go),
                           name=f"phone-undo-{i}", daemon=True) for i in range(2)],
        threading.Thread(target=_phone_answers,
                         args=(referee, 1500, random.Random(seed * 30), stop, futures, go),
                         name="phone-answer", daemon=True),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(LIVENESS_S)
    stuck = [t.name for t in threads if t.is_alive()]
    stop.set()  # (daemon threads: a stuck one cannot hold up the run)
    assert not stuck, f"blocked for good: {stuck}"

    # the camera thread is done: this thread owns the referee now and hands out what is queued
    assert bus.join(LIVENESS_S)
    referee.tick()
    assert all(f.done() for f in futures)
    # the interleavings really happened
    assert referee.stats["readings"] == ROUNDS + 1 and referee.stats["commits"] > 0
    assert done.count("undo") > 0 and done.count("act") > 0
    # the bus said the states in the order the table reached them: the last one is the table's
    assert bus.join(LIVENESS_S)
    states = [m.data["state"] for m in said if m.type == "state"]
    assert states[-1] == table.state_json()
    assert [m.seq for m in said] == sorted(m.seq for m in said)
    # and the log holds them in that order too: a resumed table is the same table
    assert Table.resume(log).state_json() == table.state_json()
