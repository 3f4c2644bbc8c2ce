"""Soak benchmark of a club night: the table under a night's worth of phones, retries, strangers
and a hostile league feed, checked for doubled and lost actions.

It serves the real app with waitress (``web.serve``) on 127.0.0.1 for a classic match of eight
seats, its event log on disk, and publishes the table to a real Mosquitto that a ``companion
league`` process (its own page) listens to. Then, for ``--seconds``:

* eight phones (one per seat, joined through the join link) play: on their turn each picks a
  legal action (a play while it holds three cards or more, else a draw and a pass, so the round
  never ends) and sends it with an ``Idempotency-Key``; ``--drop`` of the taps lose their answer
  (the connection is closed once the request is sent) and are sent again with the same key, as
  the page does;
* every ``--undo-every`` seconds one phone asks to undo the last action and three others agree
  at the same moment;
* every ``--question-every`` seconds the camera asks the table a question (a ``confirm-needed``
  on the bus, as the camera referee publishes it: "did a card go on the pile, or was it a
  misread?") and three phones answer it at the same moment: it must be taken exactly once;
* ``--slow`` connections from 127.0.0.2 trickle a request header a byte at a time;
* a stranger on 127.0.0.3 tries to join as organiser with wrong PINs and to open event streams;
* a table named ``hostile`` publishes junk to the league (``NaN``, huge numbers, deep nesting,
  wrong types) while the real table publishes its match; the league page's ``/api/league`` is
  read every second and must stay strict JSON.

Before the soak, the same phones play ``--quiet-seconds`` alone: the reference. The figures are
the taps' round trips (p50, p99, worst, and the soak's p99 as a ratio to the reference's), the
5xx answers, and the accounting: every key answered ``ok`` is one action in the event log
(doubled: more in the log; lost: fewer), every undo agreed is one undo, every question taken
exactly once, no tap left unanswered.

    .venv/bin/python benchmarks/club_soak.py [--seconds 600] [--quiet-seconds 60] [--drop 0.2]
        [--slow 500] [--undo-every 10] [--question-every 7] [--seed 1]
        [--out benchmarks/results/club_soak.json]

Exit status 1 if anything was doubled, lost or unanswered, any 5xx, the league page invalid
once, or the soak's p99 over 1 s. Needs mosquitto (scripts/install-test-tools.sh) and paho-mqtt;
``--no-league`` runs the rest without them. Traffic goes to loopback addresses only; every loop
is bounded by the run's end.
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import random
import socket
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.config import load_config
from companion.eventlog import EventLog
from companion.host import Host
from web import serve

SEATS = ["ann", "ben", "cai", "dee", "eve", "fay", "gus", "hal"]
SETUP = {"setup": {"game": "classic", "seats": SEATS, "dealer": "hal", "start": "red-5",
                   "options": {"turn_seconds": 0}}}
HOSTILE = [b'{"seq": NaN}', b'{"seq": 1e999}', b'{"seq": 99999999999999999999999}',
           b"[" * 100_000 + b"]" * 100_000, b'{"state": "not an object"}', b"\xff\xfe not utf-8",
           b'{"game": "classic", "scores": {"ann": Infinity}}', b"", b"null", b'"just a string"']


class Stats:
    """What every client saw, under one lock (nothing is called out while it is held)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.round_trips: dict[str, list[float]] = {"quiet": [], "soak": []}
        self.statuses: Counter[int] = Counter()
        self.applied_keys: set[str] = set()
        self.refused_keys: set[str] = set()
        self.unanswered = 0
        self.dropped = 0
        self.replayed = 0
        self.undos_agreed = 0
        self.undo_trios = 0
        self.undo_refusals: Counter[str] = Counter()
        self.questions = 0
        self.questions_taken_once = 0
        self.question_answers: Counter[str] = Counter()
        self.league_reads = 0
        self.league_invalid = 0
        self.stranger: Counter[int] = Counter()
        self.phase = "quiet"

    def status(self, code: int) -> None:
        with self.lock:
            self.statuses[code] += 1


def _strict_json(raw: bytes):
    def refuse(name):
        raise ValueError(f"not JSON: {name}")
    return json.loads(raw, parse_constant=refuse)


class Phone:
    """One seat's phone: a cookie, a CSRF token and plain HTTP/1.1 requests to 127.0.0.1."""

    def __init__(self, port: int, stats: Stats, seat: str | None, pin: str | None = None,
                 source: str = "127.0.0.1"):
        self.port, self.stats, self.seat, self.source = port, stats, seat, source
        body = {"token": "tok", "seat": seat} | ({"pin": pin} if pin else {})
        status, data, headers = self.request("POST", "/api/join", body)
        assert status == 200, (seat, status, data)
        self.cookie = headers.get("set-cookie", "").split(";")[0]
        self.csrf = data["csrf"]

    def request(self, method: str, path: str, body=None, key: str | None = None,
                timeout: float = 10.0):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout,
                                          source_address=(self.source, 0))
        headers = {"Content-Type": "application/json"}
        if getattr(self, "cookie", None):
            headers |= {"Cookie": self.cookie, "X-CSRF-Token": self.csrf}
        if key:
            headers["Idempotency-Key"] = key
        try:
            conn.request(method, path, None if body is None else json.dumps(body), headers)
            r = conn.getresponse()
            raw = r.read()
            self.stats.status(r.status)
            data = json.loads(raw) if raw and r.getheader("Content-Type", "").startswith("application/json") else {}
            return r.status, data, {k.lower(): v for k, v in r.getheaders()}
        finally:
            conn.close()

    def send_and_lose_the_answer(self, path: str, body, key: str) -> None:
        """The request reaches the table, its answer never reaches the phone."""
        raw = json.dumps(body).encode()
        head = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nContent-Type: "
                f"application/json\r\nContent-Length: {len(raw)}\r\nCookie: {self.cookie}\r\n"
                f"X-CSRF-Token: {self.csrf}\r\nIdempotency-Key: {key}\r\nConnection: close\r\n\r\n")
        with socket.create_connection(("127.0.0.1", self.port), timeout=5,
                                      source_address=(self.source, 0)) as s:
            s.sendall(head.encode() + raw)
            s.shutdown(socket.SHUT_WR)   # gone before the answer, as a phone leaving the Wi-Fi

    def tap(self, path: str, body, drop: bool):
        """One tap with its own key, sent again with that key until it is answered."""
        key = uuid.uuid4().hex
        start = time.monotonic()
        if drop:
            try:
                self.send_and_lose_the_answer(path, body, key)
            except OSError:
                pass
            with self.stats.lock:
                self.stats.dropped += 1
            time.sleep(0.05)
        for attempt in range(6):
            try:
                status, data, headers = self.request("POST", path, body, key=key)
            except OSError:
                time.sleep(0.5 * 2 ** attempt)
                continue
            took = time.monotonic() - start
            with self.stats.lock:
                if not drop:
                    self.stats.round_trips[self.stats.phase].append(took)
                if headers.get("idempotent-replayed"):
                    self.stats.replayed += 1
            return key, status, data
        with self.stats.lock:
            self.stats.unanswered += 1
        return key, None, {}


def choose(rng: random.Random, actions: list[dict], cards_held: int) -> dict | None:
    """A play while three cards or more are held (never the last: the round goes on), else a draw
    or a pass; never a penalty on another seat."""
    mine = [a for a in actions if a.get("do") != "penalty"]
    plays = [a for a in mine if a["do"] == "play"]
    if plays and cards_held >= 3:
        return rng.choice(plays)
    for do in ("draw", "pass"):
        for a in mine:
            if a["do"] == do:
                return a
    others = [a for a in mine if a["do"] != "play"]
    return rng.choice(others) if others else None


def play(phone: Phone, stats: Stats, rng: random.Random, drop: float, end: float,
         turn_lock: threading.Lock) -> None:
    while time.monotonic() < end:
        try:
            status, state, _ = phone.request("GET", "/api/state")
        except OSError:
            time.sleep(0.2)
            continue
        pending = (state.get("pending") or {}).get("seat")
        if status != 200 or (pending or state.get("turn")) != phone.seat or state.get("undo_request"):
            time.sleep(0.05)
            continue
        with turn_lock:          # (the undo trio waits while a tap is on its way)
            _, legal, _ = phone.request("GET", "/api/legal")
            action = choose(rng, legal.get("actions", []), state["hands"][phone.seat])
            if action is None:
                continue
            body = {k: v for k, v in action.items() if k != "by"}
            key, status, data = phone.tap("/api/action", body, rng.random() < drop)
        with stats.lock:
            if status == 200 and data.get("ok"):
                stats.applied_keys.add(key)
            elif status is not None:
                stats.refused_keys.add(key)


def undo_trios(phones: dict[str, Phone], stats: Stats, rng: random.Random, every: float, end: float,
               turn_lock: threading.Lock) -> None:
    while time.monotonic() + every < end:
        time.sleep(every)
        with turn_lock:
            _, state, _ = phones["ann"].request("GET", "/api/state")
            seq = state.get("undo_seq")
            if not seq:
                continue
            asker, *agree = rng.sample(SEATS, 4)
            status, data, _ = phones[asker].request("POST", "/api/undo", {"seq": seq}, key=uuid.uuid4().hex)
            if status != 202:
                with stats.lock:
                    stats.undo_refusals[data.get("error", str(status))] += 1
                continue
            answers: list = [None] * 3
            barrier = threading.Barrier(3)

            def agree_now(i: int, seat: str, barrier=barrier, answers=answers, seq=seq) -> None:
                barrier.wait()
                answers[i] = phones[seat].request("POST", "/api/undo", {"seq": seq}, key=uuid.uuid4().hex)

            threads = [threading.Thread(target=agree_now, args=(i, s)) for i, s in enumerate(agree)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        with stats.lock:
            stats.undo_trios += 1
            stats.undos_agreed += sum(a is not None and a[0] == 200 and a[1].get("ok") for a in answers)
            for a in answers:
                if a is not None and a[0] != 200:
                    stats.undo_refusals[a[1].get("error", str(a[0]))] += 1


def questions(host: Host, phones: dict[str, Phone], stats: Stats, rng: random.Random, every: float,
              end: float) -> None:
    """The camera's questions, each answered by three phones at once ("misread": nothing is
    played, so the accounting of actions stays the phones')."""
    n = 10_000
    while time.monotonic() + every < end:
        time.sleep(every)
        n += 1
        top = (host.table.state_json().get("top") if host.table else None) or "red-5"
        host.bus.publish("confirm-needed", id=n, kind="unsure", seat=None, region="discard", card=top,
                         choices=[{"id": 0, "action": None, "nothing": "misread"}])
        host.bus.join(timeout=5)
        answers: list = [None] * 3
        barrier = threading.Barrier(3)

        def answer_now(i: int, seat: str, barrier=barrier, answers=answers) -> None:
            barrier.wait()
            answers[i] = phones[seat].request("POST", "/api/confirm", {"choice": 0}, key=uuid.uuid4().hex)

        threads = [threading.Thread(target=answer_now, args=(i, s)) for i, s in enumerate(rng.sample(SEATS, 3))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        taken = sum(a is not None and a[0] == 202 for a in answers)
        with stats.lock:
            stats.questions += 1
            stats.questions_taken_once += taken == 1
            for a in answers:
                stats.question_answers[str(a[0]) if a is not None else "none"] += 1


def slow_connections(port: int, count: int, end: float) -> None:
    """``count`` connections from 127.0.0.2, each sending a header a byte every few seconds."""
    socks = []
    for _ in range(count):
        if time.monotonic() > end:
            break
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=2, source_address=("127.0.0.2", 0))
            s.setblocking(False)
            socks.append(s)
        except OSError:
            time.sleep(0.01)
    line = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 10_000
    sent = 0
    while time.monotonic() < end:
        for i, s in enumerate(socks):
            try:
                s.send(line[sent % len(line):sent % len(line) + 1])
            except OSError:               # dropped by the server: come back, as an attacker would
                s.close()
                try:
                    socks[i] = socket.create_connection(("127.0.0.1", port), timeout=2,
                                                        source_address=("127.0.0.2", 0))
                    socks[i].setblocking(False)
                except OSError:
                    pass
        sent += 1
        time.sleep(2.0)
    for s in socks:
        s.close()


def stranger(port: int, stats: Stats, end: float) -> None:
    """Wrong organiser PINs and cookie-less event streams from 127.0.0.3."""
    while time.monotonic() < end:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5, source_address=("127.0.0.3", 0))
            conn.request("POST", "/api/join", json.dumps({"token": "tok", "seat": None, "pin": "000000"}),
                         {"Content-Type": "application/json"})
            r = conn.getresponse()
            r.read()
            conn.close()
            with stats.lock:
                stats.stranger[r.status] += 1
                stats.statuses[r.status] += 1
            s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=("127.0.0.3", 0))
            s.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
            s.settimeout(2)
            first = s.recv(64)
            s.close()
            code = int(first.split()[1]) if first.startswith(b"HTTP/") else 0
            with stats.lock:
                stats.stranger[code] += 1
                stats.statuses[code] += 1
        except OSError:
            pass
        time.sleep(0.5)


def league_side(work: Path, host: Host, stats: Stats, end: float, started: threading.Event,
                ready: threading.Event) -> None:
    """Mosquitto, ``companion league``, the table's publisher and a hostile table; the page read
    every second until ``end``."""
    from league.mqtt import Topics, make_client
    from league.publisher import TablePublisher
    from tests.support.mosquitto import Broker, start_league, wait_until

    users = {"club": "pw-club", "league": "pw-league", "hostile": "pw-hostile"}
    broker = Broker(work / "broker", users).start()
    league, port = start_league(work, broker)
    cfg = load_config(None, {"league.broker": broker.url, "league.table": "club",
                             "league.username": "club", "league.password": "pw-club"})
    publisher = TablePublisher(host, cfg.league).start()
    hostile = make_client(load_config(None, {"league.broker": broker.url, "league.table": "hostile",
                                             "league.username": "hostile",
                                             "league.password": "pw-hostile"}).league, "hostile-soak")
    topics = Topics(cfg.league.league, "hostile")

    def read() -> bytes:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("GET", "/api/league")
        r = conn.getresponse()
        raw = r.read()
        conn.close()
        stats.status(r.status)
        return raw

    try:
        wait_until(lambda: _answers(read), 30, "the league page")
        host_name, broker_port = "127.0.0.1", broker.port
        hostile.connect(host_name, broker_port)
        hostile.loop_start()
        ready.set()
        started.wait()
        rng = random.Random(7)
        next_read = 0.0
        while time.monotonic() < end:
            payload = rng.choice(HOSTILE)
            hostile.publish(rng.choice([topics.state, topics.events]), payload, qos=0)
            if time.monotonic() >= next_read:
                next_read = time.monotonic() + 1.0
                try:
                    raw = read()
                    _strict_json(raw)
                    ok = True
                except (OSError, ValueError):
                    ok = False
                with stats.lock:
                    stats.league_reads += 1
                    stats.league_invalid += not ok
            time.sleep(0.2)
    finally:
        ready.set()
        hostile.loop_stop()
        publisher.stop()
        league.terminate()
        league.wait(10)
        broker.stop()


def _answers(read) -> bool:
    try:
        read()
        return True
    except OSError:
        return False


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=600)
    ap.add_argument("--quiet-seconds", type=float, default=60)
    ap.add_argument("--drop", type=float, default=0.2, help="share of taps whose answer is lost")
    ap.add_argument("--slow", type=int, default=500, help="slow connections held")
    ap.add_argument("--undo-every", type=float, default=10.0)
    ap.add_argument("--question-every", type=float, default=7.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-league", action="store_true", help="no broker, league or hostile feed")
    ap.add_argument("--out", type=Path, help="also write the figures as JSON (with this command)")
    args = ap.parse_args()

    work = Path(tempfile.mkdtemp(prefix="club-soak-"))
    log = EventLog(work / "events.sqlite3")
    host = Host(log)
    host.start_match(SETUP)
    server = serve(host, "127.0.0.1", 0, block=False, secret_key="soak", join_token="tok")
    stats = Stats()
    rng = random.Random(args.seed)
    phones = {seat: Phone(server.port, stats, seat) for seat in SEATS}
    organiser = Phone(server.port, stats, None, pin=server.organiser_pin)
    turn_lock = threading.Lock()

    def players(end: float) -> list[threading.Thread]:
        return [threading.Thread(target=play, args=(phones[s], stats, random.Random(args.seed * 100 + i),
                                                    args.drop, end, turn_lock), daemon=True)
                for i, s in enumerate(SEATS)]

    # the reference: the same phones, alone
    quiet_end = time.monotonic() + args.quiet_seconds
    threads = players(quiet_end)
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    league_started, league_ready = threading.Event(), threading.Event()
    stats.phase = "soak"
    end = time.monotonic() + args.seconds + (0 if args.no_league else 60)   # (the league's start)
    side = []
    if not args.no_league:
        side.append(threading.Thread(target=league_side, args=(work, host, stats, end, league_started,
                                                               league_ready), daemon=True))
        side[-1].start()
        league_ready.wait(60)
    end = time.monotonic() + args.seconds
    league_started.set()
    side += [threading.Thread(target=slow_connections, args=(server.port, args.slow, end), daemon=True),
             threading.Thread(target=stranger, args=(server.port, stats, end), daemon=True),
             threading.Thread(target=undo_trios, args=(phones, stats, rng, args.undo_every, end, turn_lock),
                              daemon=True),
             threading.Thread(target=questions, args=(host, phones, stats, random.Random(args.seed + 1),
                                                      args.question_every, end), daemon=True)]
    threads = players(end)
    for t in side[-4:] + threads:
        t.start()
    for t in threads + side:
        t.join(timeout=args.seconds + 120)
    _, phones_list, _ = organiser.request("GET", "/api/phones")
    server.shutdown()

    entries = [e for m in log.matches() for e in log.entries(m["id"])]
    undos = sum(e["action"].get("do") == "undo" for e in entries)
    actions = sum(e["action"].get("do") != "undo" and e.get("source") == "phone" for e in entries)
    log.close()
    applied = len(stats.applied_keys)
    quiet, soak = stats.round_trips["quiet"], stats.round_trips["soak"]
    fives = sum(n for code, n in stats.statuses.items() if code >= 500)
    report = {
        "command": " ".join([".venv/bin/python", "benchmarks/club_soak.py", *sys.argv[1:]]),
        "seconds": args.seconds, "quiet_seconds": args.quiet_seconds, "phones": len(SEATS),
        "drop": args.drop, "slow_connections": args.slow, "league": not args.no_league,
        "taps_answered_ok": applied, "taps_refused": len(stats.refused_keys),
        "taps_answer_lost_and_sent_again": stats.dropped, "answers_replayed": stats.replayed,
        "taps_never_answered": stats.unanswered,
        "actions_in_log": actions, "doubled": max(0, actions - applied), "lost": max(0, applied - actions),
        "undo_trios": stats.undo_trios, "undos_agreed": stats.undos_agreed, "undos_in_log": undos,
        "undo_refusals": dict(stats.undo_refusals),
        "questions": stats.questions, "questions_taken_exactly_once": stats.questions_taken_once,
        "question_answers": dict(stats.question_answers),
        "stranger_answers": {str(k): v for k, v in sorted(stats.stranger.items())},
        "status_counts": {str(k): v for k, v in sorted(stats.statuses.items())}, "5xx": fives,
        "league_reads": stats.league_reads, "league_invalid": stats.league_invalid,
        "phones_joined_at_end": len(phones_list.get("phones", [])) if isinstance(phones_list, dict) else None,
        "tap_s": {phase: {"n": len(v), "p50": round(percentile(v, 0.5), 4), "p99": round(percentile(v, 0.99), 4),
                          "max": round(max(v), 4) if v else None}
                  for phase, v in (("quiet", quiet), ("soak", soak))},
    }
    report["soak_p99_over_quiet_p99"] = round(percentile(soak, 0.99) / percentile(quiet, 0.99), 2) \
        if quiet and soak else None
    ok = (report["doubled"] == 0 and report["lost"] == 0 and stats.unanswered == 0 and fives == 0
          and undos == stats.undos_agreed and stats.league_invalid == 0
          and stats.questions_taken_once == stats.questions
          and percentile(soak, 0.99) < 1.0 and applied > 0)
    report["ok"] = ok
    print(json.dumps(report, indent=1))
    if args.out:
        args.out.write_text(json.dumps(report, indent=1) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
