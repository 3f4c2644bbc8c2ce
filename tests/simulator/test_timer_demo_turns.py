"""``companion demo --mode timer``: most turns end quickly, some run into the last 10 seconds (the
warning and the ticks) and some run out (the time-up tune), so the demo shows all of them."""

from __future__ import annotations

from app.runner import TableLoop
from companion.host import Host
from simulator.bots import Bot


def test_the_timer_demo_shows_quick_turns_the_warning_and_time_up():
    clock = [0.0]
    host = Host(mode="timer", clock=lambda: clock[0])
    timer, ended = [], []
    host.bus.subscribe(lambda m: timer.append(m.data), {"timer"})
    host.bus.subscribe(lambda m: ended.append(m.data["action"]["do"]) if m.data.get("ok") else None,
                       {"action"})
    loop = TableLoop(host, bots=Bot(seed=3), pace=1.5, seed=3, rules={"turn_seconds": 30},
                     slow_turns=True)
    while clock[0] < 20 * 60:       # twenty simulated minutes
        clock[0] += 0.25
        loop.tick(clock[0])
    assert host.bus.join(timeout=10)
    assert host.table.game.name == "timer"
    warned = [t for t in timer if t.get("kind") == "warning"]
    expired = [t for t in timer if t.get("kind") == "expired"]
    passes = ended.count("pass")
    assert len(expired) >= 2, "no turn ran out of time: the time-up tune is never heard"
    assert len(warned) >= len(expired) + 2, "no turn ended within its last 10 s"
    assert passes >= 4 * len(warned), (passes, len(warned))   # most turns are quick


def test_without_slow_turns_every_bot_acts_at_its_pace():
    clock = [0.0]
    host = Host(mode="timer", clock=lambda: clock[0])
    timer = []
    host.bus.subscribe(lambda m: timer.append(m.data), {"timer"})
    loop = TableLoop(host, bots=Bot(seed=3), pace=1.5, seed=3, rules={"turn_seconds": 30})
    while clock[0] < 20 * 60:
        clock[0] += 0.25
        loop.tick(clock[0])
    assert host.bus.join(timeout=10)
    assert not [t for t in timer if t.get("kind") in ("warning", "expired")]
