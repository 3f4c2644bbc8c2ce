"""One running companion: the host, the signals, the web server and the table loop, together.

``companion run`` builds a :class:`Companion` with the real pins and the configured camera
(mode referee: :class:`CameraWorker` reads it and referees). It starts without a camera or
its pins: a camera that is not found, busy or hangs is ``camera`` {status: lost, cause} on the
bus (the page and the status LED say it) and is picked up when it appears; a GPIO fault is said
once, with which pin, why and the fix, and the LEDs, buzzer and buttons run on mock pins (the
page still shows them). Only an unknown camera source is :class:`CameraUnavailable`. Under
systemd it says when it is ready and feeds the watchdog while its threads make progress
(:mod:`app.sdnotify`);
``companion demo`` builds one with gpiozero's mock pins, bots and, in referee mode, the
synthetic table (:class:`simulator.demo_table.DemoTable`): the bots' card plays and pawn
moves are done there by arms crossing the table and read back by the camera referee, while
what only a phone can say (a wild's colour, UNO, accept/challenge, draws) goes straight to the
table. ``companion demo --mode timer`` has no camera: the bots act on the table directly.
Both stop cleanly on Ctrl-C or SIGTERM (systemd).
"""

from __future__ import annotations

import logging
import math
import queue
import random
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable, TextIO

from companion.config import Config
from companion.deal import deal_grid, opening_card
from simulator.bots import Bot
from companion.eventlog import EventLog
from companion.host import Host

__all__ = ["Companion", "TableLoop", "CameraWorker", "demo_setup", "CameraUnavailable",
           "camera_opener", "start_league"]

log = logging.getLogger(__name__)

#: The games the demo plays in turn, by ``[table] mode``: the three card games on the camera's
#: table (referee), or the mode's own game, with no camera (timer, scoreboard).
DEMO_GAMES = {"referee": ("grid", "flip", "classic"), "timer": ("timer",),
              "scoreboard": ("scoreboard",)}


#: The rules flags that say how long a demo match of each game lasts.
_MATCH_LENGTH = {"grid": ("match_points",), "flip": ("target", "rounds"),
                 "classic": ("target", "rounds")}


def demo_setup(game: str, rng: random.Random, rules: dict[str, Any] | None = None) -> dict[str, Any]:
    """A set-up line for a demo match of ``game``, dealt with ``rng``. Of ``rules`` it takes
    the turn timer's flags and how long a match lasts (the grid's ``match_points``, Flip's and
    classic's ``target`` and ``rounds``)."""
    rules = rules or {}
    keep = ("turn_seconds", "timeout_action", *_MATCH_LENGTH.get(game, ()))
    options = {k: v for k, v in rules.items() if k in keep}
    if game == "grid":
        return {"setup": {"game": "grid", "seats": ["north", "east", "south", "west"],
                          "first": "north", "grid": deal_grid(rng), "options": options}}
    if game == "timer":
        return {"setup": {"game": "timer", "seats": ["ann", "ben", "cai", "dee"], "first": "ann",
                          "options": options}}
    if game == "scoreboard":
        return {"setup": {"game": "scoreboard", "seats": ["ann", "ben", "cai", "dee"]}}
    return {"setup": {"game": game, "seats": ["ann", "ben", "cai", "dee"], "dealer": "dee",
                      "start": opening_card(rng, game), "options": options}}


class CameraUnavailable(RuntimeError):
    """The configured camera cannot be opened; the message says which and what to do."""


# --- the camera ----------------------------------------------------------------------------------

_SPEC_KINDS = ("auto", "picamera", "opencv", "folder", "synthetic")


def camera_opener(cam) -> Callable[[], Any]:
    """What opens the configured camera (``cam``, the ``[camera]`` section) for ``companion
    run``, again and again: it raises :class:`~vision.sources.CameraLost` (with its cause)
    while there is none, and the camera worker keeps trying. On the real table ``auto`` is the
    Pi camera (never the synthetic table). An unknown source is :class:`CameraUnavailable`."""
    from vision.sources import PiCameraSource

    from simulator.source import open_source

    kind = cam.source.partition(":")[0]
    if kind not in _SPEC_KINDS:
        raise CameraUnavailable(f"unknown camera source {cam.source!r}: expected auto, picamera, "
                                "opencv:N, opencv:PATH, folder:PATH or synthetic ([camera] source)")
    if kind in ("auto", "picamera"):
        return lambda: PiCameraSource(cam.width, cam.height, cam.fps, sensor_mode=cam.sensor_mode,
                                      height_cm=cam.height_cm, focus=cam.focus,
                                      mains_hz=cam.mains_hz, still=cam.still)
    return lambda: open_source(cam.source, width=cam.width, height=cam.height, fps=cam.fps)


class _Background:
    """A daemon thread running :meth:`_run` until :meth:`stop`; ``_stop`` is its flag."""

    thread_name = "background"

    def _init_background(self) -> None:
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self):
        self._thread = threading.Thread(target=self._run, name=self.thread_name, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _run(self) -> None:
        raise NotImplementedError


class CameraWorker(_Background):
    """The camera referee of a running companion (see the module docs).

    ``open_source()`` opens the frame source (again, after the camera was lost); ``first`` is
    an already opened one. Call :meth:`start` and :meth:`stop`. The camera thread owns the
    referee: it feeds it each reading and ticks it after each frame; the table's answers (the
    web's ``confirm-answer``, the confirm button) are queued to it
    (:meth:`CameraReferee.answer <companion.referee.camera.CameraReferee.answer>`).
    """

    def __init__(self, host, open_source: Callable[[], Any], *, first=None, jpeg_per_s: float = 3.0,
                 classifier_for: Callable[[str], Any] | None = None, retry_s: float = 1.0,
                 lost_after: int = 3, ok_after: int = 5, evidence=None,
                 clock: Callable[[], float] = time.monotonic, tuning=None):
        from vision.pipeline import Pipeline
        from vision.sources import ResilientSource

        self.host = host
        #: where the frames of the referee's decisions are kept (an app.evidence.EvidenceStore)
        self.evidence = evidence
        self._image = None  # the frame being read (the camera thread's)
        self._init_background()
        #: monotonic time the camera thread last made progress (a frame, a failed read, a retry)
        self.alive_at = time.monotonic()
        opened = [first]

        def reopen():
            if opened[0] is not None:
                source, opened[0] = opened[0], None
                return source
            return open_source()

        # while the camera is lost, answers and the referee's re-checks still go on
        source = ResilientSource(reopen, host.bus, retry_s=retry_s, stop=self._stop.is_set,
                                 sleep=self._pause, lost_after=lost_after, ok_after=ok_after)
        self.jpeg_every = 1.0 / jpeg_per_s if jpeg_per_s > 0 else math.inf
        self.classifier_for = classifier_for or _default_classifier_for()
        #: the camera's frames through the reader and the referee (a new match, the grid's next
        #: game or a new round is a new layout: the pipeline reads it all again; without a fresh
        #: read, cards that came with no hand over them are taken as the same cards in other
        #: light, and the referee waits for a baseline for ever)
        self.pipeline = Pipeline.build(source, lambda: host.table, host.bus, host=host,
                                       tuning=tuning, clock=clock, classifier_for=self.classifier_for,
                                       witness=self._witness if evidence is not None else None)
        self._last_jpeg = -math.inf
        self._failing: str | None = None  # the error the last frames failed with, said once
        self._unsubscribe = host.bus.subscribe(self._on_event, {"confirm-answer", "confirm-needed"})
        from app.hand_scan import HandScanner

        #: reads the seats' hand zones at a round's end (app.hand_scan)
        self.hand_scan = HandScanner(host)

    @property
    def source(self):
        """The camera (a :class:`~vision.sources.ResilientSource`), the pipeline's frame source."""
        return self.pipeline.source

    @source.setter
    def source(self, source) -> None:
        self.pipeline.source = source

    @property
    def referee(self):
        """The camera referee (:class:`~companion.referee.camera.CameraReferee`)."""
        return self.pipeline.referee

    @property
    def reader(self):
        """The table reader of the game being played (None before a match's first frame)."""
        return self.pipeline.reader

    @property
    def frames(self) -> int:
        """The frames read so far."""
        return self.pipeline.frames

    @property
    def last_report(self):
        """The reader's report on the last frame (None before the first)."""
        return self.pipeline.last_report

    # --- the bus (dispatcher thread: only queue) -----------------------------------------------

    def _on_event(self, message) -> None:
        if message.type == "confirm-needed":  # the question kept beside its frame
            evidence = message.data.get("evidence")
            if self.evidence is not None and isinstance(evidence, str):
                self.evidence.keep_question(evidence, message.to_json())
            return
        data = message.data
        other = data.get("other")
        if isinstance(other, dict) and isinstance(other.get("card"), str):
            # another card than the choices: the web checked it and played it itself
            asked = data.get("question")
            self.referee.answer_other(other["card"], by=data.get("seat") or "phone",
                                      question_id=asked if isinstance(asked, int) else None,
                                      color=other.get("color"),
                                      illegal=bool(data.get("illegal")), act=False)
            return
        choice = data.get("choice")
        index = data.get("index")
        if isinstance(choice, dict) and "id" in choice:
            index = choice["id"]
        # the web plays a choice's action itself: the referee only closes its question
        played = isinstance(choice, dict) and isinstance(choice.get("action"), dict)
        if isinstance(index, int):
            self.referee.answer(index, by=data.get("seat") or "phone", act=not played)

    def step(self) -> None:
        """On the camera thread (after each frame; tests call it): handle the queued answers
        and events, run the turn timer, let the referee re-check."""
        self.alive_at = time.monotonic()
        self.pipeline.tick()

    def _pause(self, seconds: float) -> None:
        """Between two tries to open a lost camera: the referee goes on meanwhile, in steps
        short enough for the watchdog to see the thread alive."""
        end = time.monotonic() + seconds
        while not self._stop.is_set():
            self.step()
            left = end - time.monotonic()
            if left <= 0:
                return
            self._stop.wait(min(left, 1.0))

    def confirm(self):
        """The confirm button (its own thread): yes, what the camera suggests first is what
        happened. Returns the referee's future (see ``CameraReferee.answer``), None when
        nothing is asked."""
        question = self.referee.question
        if question is None:
            return None
        return self.referee.answer(question.choices[0].id, by="button", question_id=question.id)

    # --- the camera thread ----------------------------------------------------------------------

    thread_name = "camera"

    def stop(self) -> None:
        super().stop()
        self._unsubscribe()
        self.pipeline.close()
        self.source.close()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                frame = self.source.read()
                if frame is None:  # a finite source ended (a video): nothing more to see
                    self._stop.wait(0.5)
                else:
                    self.process(frame.image)
                    self._failing = None
                self.step()
            except Exception as exc:  # the camera thread must outlive one bad frame
                # The source's own errors are ResilientSource's (camera lost); these are the
                # reader's. The same error frame after frame is logged once, not every frame.
                failing = f"{type(exc).__name__}: {exc}"
                if failing != self._failing:
                    log.exception("camera frame failed")
                    self._failing = failing
                self._stop.wait(0.2)

    def process(self, image) -> Any:
        """One frame through the reader and the referee (the thread's work; tests call it)."""
        self._image = image  # (the referee's witness keeps it, should it decide on it)
        report = self.pipeline.process(image)
        if report is None:  # no match: nothing to read
            self._publish_jpeg(image, None)
            return None
        self.hand_scan.on_frame(image, self.reader.view, report.state, still=self.source.still)
        self._publish_jpeg(image, report)
        return report

    def _witness(self, regions: tuple[str, ...]) -> str | None:
        """The referee's ``witness`` (camera thread): keep the frame a decision is taken on,
        with ``regions`` outlined thick; its id, or None before the first frame."""
        if self._image is None:
            return None
        table = self.host.table
        jpeg = annotated_jpeg(self._image, self.reader, self.last_report, quality=70, focus=regions)
        return self.evidence.add(jpeg, table.match_id if table is not None else None)

    def _publish_jpeg(self, image, report) -> None:
        now = time.monotonic()
        if now - self._last_jpeg < self.jpeg_every:
            return
        self._last_jpeg = now
        try:
            view = report.state if report is not None else "no-match"
            self.host.show_frame(annotated_jpeg(image, self.reader, report), view=view)
        except Exception:  # a picture for the web page is never worth a crash
            log.exception("could not draw the camera frame")


def _default_classifier_for() -> Callable[[str], Any]:
    cache: dict[str, Any] = {}

    def classifier_for(game: str):
        from vision.table_reader import default_classifier
        if game not in cache:
            cache[game] = default_classifier(game)
        return cache[game]
    return classifier_for


_SHORT_FACES = {"skip": "S", "reverse": "R", "draw-two": "+2", "draw-one": "+1", "draw-five": "+5",
                "skip-everyone": "SE", "flip": "F", "wild": "W", "wild-draw-four": "W+4",
                "wild-draw-two": "W+2", "wild-draw-color": "W+C", "back": "back"}


def _short(label: str) -> str:
    """A label short enough to write on a cell of a small picture: red-5 -> r5, wild -> W."""
    if label in _SHORT_FACES:
        return _SHORT_FACES[label]
    color, _, face = label.partition("-")
    return color[:1] + _SHORT_FACES.get(face, face)


def annotated_jpeg(image, reader, report, width: int = 640, *, quality: int = 75,
                   focus: tuple[str, ...] = ()) -> bytes:
    """The frame, shrunk to ``width``, with the regions and what was read there drawn on it;
    the regions named in ``focus`` (a decision's: :mod:`app.evidence`) in a thick line."""
    import cv2
    import numpy as np

    h, w = image.shape[:2]
    scale = width / w
    small = cv2.resize(image, (width, int(round(h * scale))), interpolation=cv2.INTER_AREA)
    view = getattr(reader, "view", None)
    reading = reader.last_reading if reader is not None else None
    if view is not None:
        for name in reader.region_names:
            quad = view.region_quad(reader.layout.regions[name]) * scale
            got = reading.region(name) if reading is not None else None
            color = (0, 200, 0) if got is not None and got.confidence >= 0.9 else (0, 200, 255)
            if name in focus:
                color, thick = (0, 0, 255), 3
            else:
                thick = 1
            cv2.polylines(small, [quad.astype(np.int32)], True, color, thick, cv2.LINE_AA)
            if got is not None and got.label != "empty":
                x, y = quad.min(0)
                cv2.putText(small, _short(got.label), (int(x) + 2, int(y) + 11), cv2.FONT_HERSHEY_PLAIN,
                            0.9, (255, 255, 255), 1, cv2.LINE_AA)
        if reading is not None and reading.pawn.seen:
            at = view.to_image([reader.layout.cell_center(*reading.pawn.cell)])[0] * scale
            cv2.circle(small, (int(at[0]), int(at[1])), 9, (0, 0, 255), 4 if "pawn" in focus else 2,
                       cv2.LINE_AA)
    # The calibration preview: the ArUco markers found, outlined, with their ids.
    from vision.geometry import detect_markers

    for marker_id, corners in detect_markers(small).items():
        cv2.polylines(small, [np.asarray(corners, np.int32).reshape(-1, 2)], True, (255, 0, 255), 2,
                      cv2.LINE_AA)
        x, y = np.asarray(corners).reshape(-1, 2)[0]
        cv2.putText(small, str(marker_id), (int(x), int(y) - 3), cv2.FONT_HERSHEY_PLAIN, 0.9,
                    (255, 0, 255), 1, cv2.LINE_AA)
    # What the camera is doing is not written here: the page says it in its own language
    # (Host.show_frame's view).
    ok, buf = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return buf.tobytes() if ok else b""


# --- the loop ------------------------------------------------------------------------------------

class TableLoop(_Background):
    """The referee's heartbeat: polls the turn timer and lets bots act, in its own thread.

    ``pace`` is the seconds between two bot actions; with ``bots`` None nobody plays for the
    table (the real table: phones, buttons and the camera act). ``slow_turns``: in the timer
    game, some bots think into their turn's last 10 s or let it run out, so that a person watching
    the demo sees the warning and hears the time-up tune (``companion demo``); off, every bot
    acts at ``pace`` (tests and benchmarks that want the actions).
    """

    def __init__(self, host: Host, *, bots: Bot | None = None, pace: float = 1.5,
                 rules: dict[str, Any] | None = None, seed: int | None = None,
                 step: Callable[[], None] | None = None, period: float = 0.05,
                 hands=None, players=None, slow_turns: bool = False):
        self.host = host
        self.bots = bots
        self.slow_turns = slow_turns
        #: the demo's physical table (``perform(action) -> bool``, ``busy``): bots' card plays
        #: and pawn moves are done there for the camera; None: bots act straight on the table
        self.hands = hands
        #: the demo's players (``tick()``: :class:`simulator.demo_players.DemoPlayers`), who
        #: answer the camera's questions; None: the phones answer them
        self.players = players
        self.pace = pace
        self.rules = rules or {}
        self.rng = random.Random(seed)
        self.step = step  # called each heartbeat (a hook; the camera ticks its referee itself)
        self.period = period
        self._init_background()
        self._next_bot: float | None = None  # set from the first tick's clock
        self._games = iter(())
        self._match_over_since: float | None = None
        self._turn_key: tuple | None = None  # (seat, turns) of the timer game's turn seen last
        self._hold_until: float | None = None  # the bot on turn thinks until then

    thread_name = "table-loop"

    def _run(self) -> None:
        while not self._stop.wait(self.period):
            try:
                self.tick(time.monotonic())
            except Exception:  # the loop must outlive one bad moment
                log.exception("table loop step failed")

    def tick(self, now: float) -> None:
        """One heartbeat: the step hook, the timer, and (demo) the bots' next move."""
        if self.step is not None:
            self.step()
        table = self.host.table
        if table is not None:
            table.poll_timer()
        if self.players is not None:
            self.players.tick()
        if self._next_bot is None:
            self._next_bot = now + self.pace
        if self.bots is None or now < self._next_bot:
            return
        if self.hands is not None and self.hands.busy:
            return  # an arm is still over the table
        self._next_bot = now + self.pace
        if table is None or table.state_json().get("champions"):
            self._start_next_demo_match(now)
            return
        if self.slow_turns and table.game.name == "timer" and self._thinking(table.state_json(), now):
            return
        action = self.bots.choose(table.game, table.state)
        if action is not None and not (self.hands is not None and self.hands.perform(action)):
            table.act(action, source="bot")

    #: The timer game's demo: the share of turns a bot thinks into the last 10 s (the warning,
    #: the ticks), and of turns it lets run out (the time-up tune); the others end at ``pace``.
    SLOW_TURNS, LOST_TURNS = 0.08, 0.04

    def _thinking(self, state: dict[str, Any], now: float) -> bool:
        """Whether the timer game's bot on turn still thinks: a new turn draws how long."""
        from companion.referee.timer import WARNING_AT

        key = (state.get("turn"), state.get("turns"))
        if key != self._turn_key:
            self._turn_key = key
            seconds = state.get("turn_seconds") or 0
            r = self.rng.random()
            # (a turn let run out is ended by the table's timer; should it not run, the bot
            # ends the turn a little after the time is up)
            self._hold_until = (None if seconds <= WARNING_AT or r >= self.SLOW_TURNS + self.LOST_TURNS
                                else now + seconds + 3 if r < self.LOST_TURNS
                                else now + seconds - WARNING_AT + 4)
        return self._hold_until is not None and now < self._hold_until

    def _start_next_demo_match(self, now: float) -> None:
        # Leave the winner's fanfare a moment before the next match.
        if self._match_over_since is None and self.host.table is not None:
            self._match_over_since = now
            return
        if self._match_over_since is not None and now - self._match_over_since < 4 * self.pace:
            return
        self._match_over_since = None
        game = self._next_game()
        self.host.start_match(demo_setup(game, self.rng, self.rules))

    def _next_game(self) -> str:
        games = DEMO_GAMES.get(self.host.mode, DEMO_GAMES["referee"])
        current = self.host.table.game.name if self.host.table else None
        if current not in games:
            return games[0]
        return games[(games.index(current) + 1) % len(games)]


def start_league(config: Config, address: str, port: int):
    """``companion league``: the league (:class:`league.service.League`) hearing the broker of
    ``config.league``, and its page served on ``address:port``. Returns (league, server)."""
    from league.service import League

    league = League(config.league, config.league_store_path())
    try:
        server = league.serve(address, port)
    except Exception:
        league.close()
        raise
    return league.start(), server


class Companion:
    """Everything of one running companion. Build it, :meth:`start` it, :meth:`stop` it."""

    def __init__(self, config: Config, *, demo: bool, pin_factory=None, log_path: Path | None = None,
                 seed: int | None = None, pace: float = 1.5, out: TextIO | None = None, faces=None,
                 web: bool = True, mock_pins_on_fault: bool = False, slow_turns: bool = False):
        from hardware.buttons import TableButtons
        from hardware.errors import HardwareError
        from hardware.pinmap import PinMap

        self.config = config
        self.faces = faces  # the demo table's card faces (simulator.faces); None: the drawings
        self.demo = demo
        self.out = out
        #: the demo's throw-away folder for its log (no ``log_path``), removed by :meth:`stop`
        #: (and, should the companion never get that far, when the process exits)
        self._scratch: tempfile.TemporaryDirectory | None = None
        if log_path is None and demo:
            self._scratch = tempfile.TemporaryDirectory(prefix="uno-demo-")
            log_path = Path(self._scratch.name) / "events.sqlite3"
        path = log_path or config.log_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        self.event_log = EventLog(path)
        if self.event_log.set_aside is not None:
            print(f"warning: {self.event_log.set_aside}", file=self.out)
        self.host = Host(self.event_log, mode=config.table.mode)
        from app.hand_scan import photo_reader

        self.host.hands.photo_reader = photo_reader()  # a phone's photo of a hand, read here
        if config.table.mode == "referee":
            self.host.default_game = config.table.game
        pinmap = PinMap.from_config(config.pins)
        #: the GPIO fault the companion started with (a PinUnavailable), None when the pins work
        self.gpio_fault: HardwareError | None = None
        try:
            self.signals, self.buttons = self._pins(pinmap, pin_factory)
        except HardwareError as exc:
            if not mock_pins_on_fault:
                raise
            self.gpio_fault = exc
            log.info("GPIO: %s", exc)  # (said once, below: not twice on a terminal)
            after = ("" if exc.kind == "no-gpio"
                     else " Restart the companion after the fix.")
            print(f"companion: GPIO: {exc} Meanwhile the LEDs, buzzer and buttons run on mock "
                  f"pins, shown on the web page.{after}", file=sys.stderr, flush=True)
            from gpiozero.pins.mock import MockFactory, MockPWMPin

            pin_factory = MockFactory(pin_class=MockPWMPin)
            self.signals, self.buttons = self._pins(pinmap, pin_factory)
        self.camera: CameraWorker | None = None
        self.demo_table = None
        self.demo_players = None
        #: the frames the camera's calls were taken on, beside the event log (app.evidence)
        self.evidence = None
        if config.table.mode == "referee":
            from app.evidence import EvidenceStore

            self.evidence = EvidenceStore(path.parent / "evidence",
                                          max_bytes=config.camera.evidence_mb * 2**20)
            try:
                self.camera = self._camera(config, demo, seed)
            except Exception:
                self.buttons.close()
                self.signals.close()
                raise
            self.buttons.close()  # again, now with the camera's confirm
            self.buttons = TableButtons.for_host(self.host, pinmap, pin_factory=pin_factory,
                                                 confirm=self.camera.confirm)
        self.loop = TableLoop(self.host, bots=Bot(seed) if demo else None, pace=pace,
                              rules=config.rules, seed=seed,
                              hands=self.demo_table, players=self.demo_players, slow_turns=slow_turns)
        self.league = None  # the league publisher, when [league] names a broker and this table
        self.web_server = None
        self._want_web = web
        self._stopped = threading.Event()
        self._lines: "queue.SimpleQueue[Any]" = queue.SimpleQueue()
        self._watchdog_s: float | None = None
        if out is not None:
            self.host.bus.subscribe(self._lines.put)
            threading.Thread(target=self._print_events, name="terminal", daemon=True).start()

    def _pins(self, pinmap, pin_factory):
        """The LEDs, buzzer and buttons on ``pin_factory``'s pins (both closed if one fails)."""
        from hardware.buttons import TableButtons
        from hardware.signals import Signals

        signals = Signals.for_host(self.host, pinmap, pin_factory)
        try:
            return signals, TableButtons.for_host(self.host, pinmap, pin_factory=pin_factory)
        except Exception:
            signals.close()
            raise

    def _camera(self, config: Config, demo: bool, seed: int | None) -> "CameraWorker":
        """The camera referee: the demo's synthetic table, or the configured camera."""
        cam = config.camera
        if demo:
            from simulator.demo_players import DemoPlayers
            from simulator.demo_table import DemoTable

            self.demo_table = DemoTable(self.host, cam.width, cam.height, seed=seed, faces=self.faces)
            worker = CameraWorker(self.host, lambda: self.demo_table, first=self.demo_table,
                                  evidence=self.evidence)
            self.demo_table.attach(worker.referee)
            self.demo_players = DemoPlayers(self.host.bus, self.demo_table)
            self.demo_players.attach(worker.referee)
            return worker
        return CameraWorker(self.host, camera_opener(cam), lost_after=cam.lost_after,
                            ok_after=cam.ok_after, evidence=self.evidence)

    def start(self) -> "Companion":
        if self._want_web:
            from web import serve

            address = self.config.web.host
            self.web_server = serve(self.host, address, self.config.web.port, block=False,
                                    public_url=self.config.web.public_url or None,
                                    phones_per_seat=self.config.web.phones_per_seat,
                                    allowed_hosts=self.config.web.allowed_hosts,
                                    league_url=self.config.league.page_url or None,
                                    evidence=self.evidence)
            if self.out is not None:
                print(f"table view on {self.web_server.url}/\n{self.web_server.phones_note()}\n"
                      f"{self.web_server.pin_note()}", file=self.out, flush=True)
        if self.config.league.broker and self.config.league.table:
            from league.publisher import TablePublisher

            self.league = TablePublisher(self.host, self.config.league).start()
            if self.out is not None:
                page = self.config.league.page_url
                print(f"league: publishing as table {self.config.league.table!r} to "
                      f"{self.config.league.broker}" + (f"; league page {page}" if page else ""),
                      file=self.out, flush=True)
        if self.camera is not None:
            self.camera.start()
        self.loop.start()
        return self

    def healthy(self, now: float | None = None, stale_s: float = 20.0) -> bool:
        """The companion's threads make progress: the table loop runs, and the camera thread
        (if any) moved within ``stale_s`` seconds (a read waits at most a few seconds: longer
        is a hang, e.g. in the camera driver). The watchdog is fed only while this holds."""
        now = time.monotonic() if now is None else now
        loop = self.loop._thread
        if loop is not None and not loop.is_alive():
            return False
        return self.camera is None or now - self.camera.alive_at < stale_s

    def stop_on_signals(self) -> None:
        """From now on Ctrl-C and SIGTERM ask the companion to stop (:meth:`run_until_stopped`
        then stops it); call it before :meth:`start`, so that a signal while starting stops it
        cleanly too. Main thread only."""
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: self._stopped.set())

    def run_until_stopped(self) -> None:
        """Block until Ctrl-C or SIGTERM, then stop everything. Under systemd: ``READY=1``
        now, and ``WATCHDOG=1`` at half the watchdog's interval while :meth:`healthy`."""
        from app.sdnotify import notify, watchdog_seconds

        self.stop_on_signals()
        self._watchdog_s = watchdog_seconds()
        notify("READY=1")
        pause = min(0.5, self._watchdog_s / 4) if self._watchdog_s else 0.5
        try:
            while not self._stopped.wait(pause):
                if self._watchdog_s and self.healthy(stale_s=max(self._watchdog_s / 2, 5.0)):
                    notify("WATCHDOG=1")
        finally:
            notify("STOPPING=1")
            self.stop()

    def stop(self) -> None:
        self.loop.stop()
        if self.camera is not None:
            self.camera.stop()
        if self.web_server is not None:
            self.web_server.shutdown()
        self.host.close()  # what is still queued on the bus reaches the signals and terminal
        if self.league is not None:
            self.league.stop()  # after the bus: the log's last entries are sent too
        self.buttons.close()
        self.signals.close()
        self.event_log.close()
        if self._scratch is not None:
            self._scratch.cleanup()

    # --- the terminal -----------------------------------------------------------------------

    _QUIET = {"state", "action", "timer", "table-ready", "reading"}

    def _print_events(self) -> None:
        """The demo's terminal: events in a line each, and the virtual pins after key ones.

        Runs in its own thread so a slow terminal never holds up the bus."""
        while True:
            message = self._lines.get()
            if message.type in self._QUIET and not (message.type == "timer"
                                                    and message.data.get("kind") == "expired"):
                continue
            from app.terminal import event_fields

            line = f"{time.strftime('%H:%M:%S')} {message.type:<14} {event_fields(message.type, message.data)}"
            try:
                print(line, file=self.out, flush=True)
            except (UnicodeError, ValueError, OSError):
                # a name the terminal cannot show (a lone surrogate) or a closed terminal: the
                # line is shown escaped, or dropped; the thread, and the queue behind it, go on
                try:
                    print(line.encode("ascii", "backslashreplace").decode(), file=self.out, flush=True)
                except (ValueError, OSError):
                    pass
            if message.type in ("turn", "illegal", "flipped", "won", "match-over", "penalty"):
                self.signals.flush(0.2)  # so the line shows what the pins show now
                print(f"{'':9}{'pins':<14} {self.signals.describe()}", file=self.out, flush=True)
