"""The demo of ``companion demo`` (referee mode) on a simulated clock, driven frame by frame.

Its table (:class:`simulator.demo_table.DemoTable`), its players who answer the camera
(:class:`simulator.demo_players.DemoPlayers`), its camera referee
(:class:`app.runner.CameraWorker`) and its bots (:class:`app.runner.TableLoop`) run on one
simulated clock (10 frames a second, as the demo's camera), as fast as the machine renders and
reads. Each frame checks that the demo is alive (a play at least every :data:`IDLE_S`) and that
the camera's reading is what the engine says lies on the table (never wrong for
:data:`DISAGREE_S`). Used, with the web server and a browser watching, by
``tests/web/test_demo_three_matches_browser.py``.
"""

from __future__ import annotations

from app.runner import CameraWorker, TableLoop
from companion.host import Host
from companion.referee.camera import differing, expected_of
from simulator.bots import Bot
from simulator.demo_players import DemoPlayers
from simulator.demo_table import DemoTable

FPS = 10
#: no play for this long (simulated seconds) is a dead demo
IDLE_S = 60.0
#: the camera's reading may lag the board while an arm is over it or a question is answered,
#: never this long (simulated seconds)
DISAGREE_S = 20.0


class DemoRun:
    """The demo of ``companion demo`` (referee mode), on a simulated clock. The camera draws no
    picture for the web page (``camera.jpeg_every``, infinite) unless a test asks it to."""

    def __init__(self, seed: int, rules: dict):
        self.now = 1000.0

        def clock() -> float:
            return self.now

        self.host = Host(mode="referee", clock=clock)
        self.table = DemoTable(self.host, 1280, 720, seed=seed, realtime=False, clock=clock)
        self.camera = CameraWorker(self.host, lambda: self.table, first=self.table, jpeg_per_s=0,
                                   clock=clock)
        self.table.attach(self.camera.referee)
        self.players = DemoPlayers(self.host.bus, self.table, clock=clock)
        self.players.attach(self.camera.referee)
        self.loop = TableLoop(self.host, bots=Bot(seed, win_rate=0.5), pace=0.5, seed=seed,
                              hands=self.table, players=self.players, rules=rules)
        self.last_play = self.now
        self.disagree_since: float | None = None
        self.games: list[str] = []
        self.matches_won = 0
        self.host.bus.subscribe(self._on_event, {"action", "match-started", "match-over"})

    def _on_event(self, message) -> None:
        data = message.data
        if message.type == "match-started":
            self.games.append(data["game"])
        elif message.type == "match-over":
            self.matches_won += 1
        elif data.get("ok") and (data.get("action") or {}).get("do") != "timeout":
            self.last_play = self.now  # (a timeout is the table waiting, not a play)

    def frame(self) -> None:
        self.now += 1.0 / FPS
        self.camera.process(self.table.read().image)
        self.camera.step()
        self.loop.tick(self.now)
        self.host.bus.join()
        assert self.now - self.last_play < IDLE_S, (
            f"no play for {IDLE_S:.0f} s in {self.where()}")
        self._check_picture()

    def where(self) -> str:
        table = self.host.table
        state = table.state_json() if table is not None else {}
        return (f"match {len(self.games)} ({table.game.name if table else None}), game/round "
                f"{state.get('game_number') or state.get('round')}, {len(table.actions_taken())} actions")

    def _check_picture(self) -> None:
        """What the camera last read of the table is what the engine says lies there."""
        table = self.host.table
        reading = self.camera.reader.last_reading if self.camera.reader is not None else None
        if table is None or reading is None or table.state_json().get("champions"):
            self.disagree_since = None
            return
        look, _ = table.view()
        # (a region read unsure, its likeliest face under even odds, shows no other card: the
        # referee asks or waits on such a read; one read clearly as another card is wrong)
        wrong = {r: got for r, got in differing(expected_of(look), reading).items()
                 if r == "pawn" or reading.region(r).confidence >= 0.5}
        if not wrong:
            self.disagree_since = None
            return
        if self.disagree_since is None:
            self.disagree_since = self.now
        assert self.now - self.disagree_since < DISAGREE_S, (
            f"for {DISAGREE_S:.0f} s the camera has read {wrong} where the board has "
            f"{ {r: expected_of(look).labels.get(r, expected_of(look).pawn) for r in wrong} } "
            f"in {self.where()}")
