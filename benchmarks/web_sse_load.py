"""Load benchmark of the live stream: 20 phones following ``/api/events`` while actions stream in.

It serves the real app with waitress (``web.serve``) on 127.0.0.1 (a free port), opens N SSE
clients (raw sockets, one reader thread each, like N phones), then plays a flip match by
``POST /api/action`` from joined phones and by the referee directly. Each bus message carries
its publish time (wall clock); every client notes when each ``data:`` line arrived. The figure
is the delay from publish to delivery, over every client and every event.

    .venv/bin/python benchmarks/web_sse_load.py [--clients 20] [--actions 150] [--budget-ms 200]

Exit status 1 if the p95 delay is over the budget. Traffic goes to 127.0.0.1 only; the run is
bounded in count and time.
"""

from __future__ import annotations

import argparse
import http.client
import json
import socket
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.eventlog import EventLog
from companion.host import Host
from web import serve

SETUP = {"setup": {"game": "flip", "seats": ["ann", "ben", "cai"], "dealer": "cai",
                   "start": "red-5", "options": {"turn_seconds": 0}}}


class Reader(threading.Thread):
    """One phone following the stream: records (seq, publish time, arrival time)."""

    def __init__(self, port: int, stop: threading.Event):
        super().__init__(daemon=True)
        self.port, self.stop = port, stop
        self.got: list[tuple[int, float, float]] = []
        self.ready = threading.Event()
        self.heartbeats = 0

    def run(self) -> None:
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        sock.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
        buf = b""
        sock.settimeout(0.5)
        while not self.stop.is_set():
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                continue
            if not chunk:
                break
            now = time.time()
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                if line.startswith(b": heartbeat"):
                    self.heartbeats += 1
                if not line.startswith(b"data: "):
                    continue
                ev = json.loads(line[6:])
                if ev.get("type") == "hello":
                    self.ready.set()
                elif "time" in ev:
                    self.got.append((ev["seq"], ev["time"], now))
        sock.close()


def post(port: int, path: str, body: dict, headers: dict | None = None) -> tuple[int, dict, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json", **(headers or {})})
    r = conn.getresponse()
    data = json.loads(r.read() or b"{}")
    cookie = r.getheader("Set-Cookie", "").split(";")[0]
    conn.close()
    return r.status, data, cookie


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--actions", type=int, default=150, help="phone actions to send")
    ap.add_argument("--budget-ms", type=float, default=200.0)
    args = ap.parse_args()

    host = Host(EventLog(":memory:"))
    host.start_match(SETUP)
    # The readers have no cookie: they take the pool of pages without one (the table screens).
    server = serve(host, "127.0.0.1", 0, block=False, secret_key="bench", join_token="tok",
                   heartbeat_s=2.0, table_streams=args.clients)
    port = server.port
    stop = threading.Event()
    readers = [Reader(port, stop) for _ in range(args.clients)]
    for r in readers:
        r.start()
    for r in readers:
        if not r.ready.wait(10):
            print("a client never got the stream's hello", file=sys.stderr)
            return 2

    phones = {}
    for seat in ("ann", "ben", "cai"):
        _, data, cookie = post(port, "/api/join", {"token": "tok", "seat": seat})
        phones[seat] = {"Cookie": cookie, "X-CSRF-Token": data["csrf"]}

    # A stream of actions: every seat draws then passes in turn (always legal, never ends the
    # round), from the phones over HTTP; half-way the referee acts directly too.
    sent, refused, deadline = 0, 0, time.monotonic() + 60
    t0 = time.monotonic()
    while sent < args.actions and time.monotonic() < deadline:
        turn = host.table.state_json()["turn"]
        for body in ({"do": "draw"}, {"do": "pass"}):
            status, data, _ = post(port, "/api/action", body, phones[turn])
            sent += 1
            refused += not (status == 200 and data.get("ok"))
    elapsed = time.monotonic() - t0
    time.sleep(0.5)                       # let the last events drain
    stop.set()
    for r in readers:
        r.join(timeout=2)

    published = max(len(r.got) for r in readers)
    delays = [(arrival - sent_at) * 1000 for r in readers for _, sent_at, arrival in r.got]
    complete = sum(len(r.got) == published for r in readers)
    delays.sort()
    p50 = statistics.median(delays)
    p95 = delays[int(0.95 * (len(delays) - 1))]
    worst = delays[-1]
    print(f"clients: {args.clients} (all received every event: {complete}/{args.clients})")
    print(f"actions: {sent} posted in {elapsed:.2f} s ({sent / elapsed:.0f}/s), refused: {refused}")
    print(f"events per client: {published}; deliveries measured: {len(delays)}")
    print(f"publish -> delivery: p50 {p50:.1f} ms, p95 {p95:.1f} ms, max {worst:.1f} ms "
          f"(budget p95 <= {args.budget_ms:.0f} ms)")
    server.shutdown()
    ok = p95 <= args.budget_ms and complete == args.clients and refused == 0
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
