"""The evidence behind the camera's calls: the frame each camera decision was taken on is kept on
disk (app.evidence.EvidenceStore), carried by the decision's events, served by the web
(GET /api/evidence/<id>.jpg) and still there after a restart; the bound and the match window
drop the oldest frames."""

from __future__ import annotations

import random
import time

import cv2
import numpy as np
import pytest

from app.evidence import EvidenceStore
from app.runner import CameraWorker, TableLoop, demo_setup
from companion.eventlog import EventLog
from companion.host import Host
from simulator.bots import Bot
from simulator.demo_players import DemoPlayers
from simulator.demo_table import DemoTable
from tests.support.readings import ALL_CELLS, GRID, SETUP, reading, with_cell
from web import create_app


def _blob(n: int, fill: int = 7) -> bytes:
    return bytes([0xFF, 0xD8]) + bytes([fill]) * (n - 2)


# --- the store -----------------------------------------------------------------------------

def test_the_store_drops_the_oldest_frames_beyond_its_bound(tmp_path):
    store = EvidenceStore(tmp_path / "evidence", max_bytes=3000)
    ids = [store.add(_blob(1000, i), match=1) for i in range(4)]
    assert all(ids) and len(set(ids)) == 4
    assert store.jpeg(ids[0]) is None and not (tmp_path / "evidence" / f"{ids[0]}.jpg").exists()
    assert [store.jpeg(i) for i in ids[1:]] == [_blob(1000, i) for i in range(1, 4)]
    assert store.size <= 3000 and sorted(p.name for p in (tmp_path / "evidence").iterdir()) == \
        sorted(f"{i}.jpg" for i in ids[1:])


def test_only_the_current_match_and_the_one_before_keep_their_frames(tmp_path):
    store = EvidenceStore(tmp_path / "evidence", max_bytes=10**6)
    first = store.add(_blob(100), match=1)
    second = store.add(_blob(100), match=2)
    assert store.jpeg(first) and store.jpeg(second)
    third = store.add(_blob(100), match=3)
    assert store.jpeg(first) is None and not (tmp_path / "evidence" / f"{first}.jpg").exists()
    assert store.jpeg(second) and store.jpeg(third)


def test_a_restart_finds_the_kept_frames_and_never_reuses_an_id(tmp_path):
    store = EvidenceStore(tmp_path / "evidence", max_bytes=10**6)
    kept = store.add(_blob(500, 3), match=4)
    again = EvidenceStore(tmp_path / "evidence", max_bytes=10**6)
    assert again.jpeg(kept) == _blob(500, 3) and again.ids() == [kept]
    assert again.add(_blob(500), match=4) != kept
    # a smaller bound set since drops the oldest at once
    small = EvidenceStore(tmp_path / "evidence", max_bytes=600)
    assert small.ids() == [again.ids()[-1]] and small.jpeg(kept) is None


def test_no_frames_are_kept_with_a_bound_of_zero_and_ids_are_checked(tmp_path):
    store = EvidenceStore(tmp_path / "evidence", max_bytes=0)
    assert store.add(_blob(100), match=1) is None and store.ids() == []
    assert store.jpeg("../../etc/passwd") is None and store.jpeg("1-x") is None


def test_racing_writers_and_readers_keep_the_bound_and_every_id_once(tmp_path):
    import threading

    store = EvidenceStore(tmp_path / "evidence", max_bytes=20_000)
    ids: list[str] = []
    lock = threading.Lock()
    start = threading.Barrier(6)

    def write(match: int) -> None:
        start.wait()
        for i in range(40):
            got = store.add(_blob(1000, i % 200), match=match)
            with lock:
                ids.append(got)

    def read() -> None:
        start.wait()
        for _ in range(200):
            for kept in store.ids():
                data = store.jpeg(kept)
                assert data is None or data[:2] == b"\xff\xd8"  # whole, or already dropped

    threads = [threading.Thread(target=write, args=(m,)) for m in (1, 1, 2, 2)]
    threads += [threading.Thread(target=read) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(ids) == 160 and len(set(ids)) == 160
    on_disk = sorted(p.stem for p in (tmp_path / "evidence").iterdir())
    assert on_disk == sorted(store.ids()) and store.size <= 20_000 and len(on_disk) == 20


# --- the camera referee keeps its frames ---------------------------------------------------

def _camera(tmp_path, setup=SETUP):
    """A grid match on the synthetic table, its camera worker keeping evidence, one frame read."""
    log = EventLog(tmp_path / "events.sqlite3")
    host = Host(log)
    host.start_match(setup)
    store = EvidenceStore(tmp_path / "evidence")
    table = DemoTable(host, 1280, 720, seed=1, realtime=False)
    worker = CameraWorker(host, lambda: table, first=table, evidence=store)
    worker.process(table.read().image)  # the frame the next decisions are taken on
    seen = []
    host.bus.subscribe(lambda m: seen.append(m.to_json()))
    worker.referee.on_reading(reading(GRID, seq=1, changed=ALL_CELLS))  # the layout
    return host, store, worker, seen


def test_a_camera_decided_play_keeps_the_frame_it_was_decided_on(tmp_path):
    host, store, worker, seen = _camera(tmp_path)
    worker.referee.on_reading(reading(with_cell(GRID, 0, 0, "red-7"), seq=2, changed=("cell-0-0",)))
    host.bus.join()
    action = next(e for e in seen if e["type"] == "action")
    assert action["source"] == "camera" and action["ok"]
    evidence = action["evidence"]
    played = next(e for e in seen if e["type"] == "played")
    assert played["evidence"] == evidence  # the line the pages list carries it too
    path = tmp_path / "evidence" / f"{evidence}.jpg"
    assert path.exists()
    image = cv2.imdecode(np.frombuffer(path.read_bytes(), np.uint8), cv2.IMREAD_COLOR)
    assert image is not None and image.shape[1] == 640 and path.stat().st_size < 120_000
    assert host.table.last_evidence == evidence
    # the frame names the match it belongs to
    assert evidence.startswith(f"{host.table.match_id}-")


def test_a_camera_question_carries_its_frame_and_its_answer_is_played_with_it(tmp_path):
    log = EventLog(tmp_path / "events.sqlite3")
    host = Host(log)
    host.start_match(SETUP)
    store = EvidenceStore(tmp_path / "evidence")
    table = DemoTable(host, 1280, 720, seed=1, realtime=False)
    worker = CameraWorker(host, lambda: table, first=table, evidence=store)
    worker.process(table.read().image)
    seen = []
    host.bus.subscribe(lambda m: seen.append(m.to_json()), {"confirm-needed", "action"})
    # a play before the camera's first look: asked, never committed
    worker.referee.on_reading(reading(with_cell(GRID, 0, 0, "red-7"), changed=("cell-0-0",)))
    host.bus.join()
    asked = next(e for e in seen if e["type"] == "confirm-needed")
    assert store.jpeg(asked["evidence"])[:2] == b"\xff\xd8"
    yes = next(c["id"] for c in asked["choices"] if c["action"] and c["action"].get("card") == "red-7")
    worker.referee.answer(yes, by="north")
    worker.step()
    host.bus.join()
    action = next(e for e in seen if e["type"] == "action")
    assert action["source"] == "confirm" and action["evidence"] == asked["evidence"]


@pytest.mark.slow
def test_the_demo_bots_plays_read_by_the_camera_each_keep_a_frame(tmp_path):
    host = Host(EventLog(tmp_path / "events.sqlite3"))
    host.start_match(demo_setup("grid", random.Random(3), {"turn_seconds": 0}))
    store = EvidenceStore(tmp_path / "evidence")
    table = DemoTable(host, 1280, 720, seed=2, realtime=False, tap_after_s=0.0)
    worker = CameraWorker(host, lambda: table, first=table, evidence=store)
    table.attach(worker.referee)
    players = DemoPlayers(host.bus, table, answer_after_s=0.0)
    players.attach(worker.referee)
    loop = TableLoop(host, bots=Bot(seed=5, illegal_rate=0.0), pace=0.0, hands=table, players=players)
    decided = []
    host.bus.subscribe(lambda m: decided.append(m.data) if m.data["source"] in ("camera", "confirm")
                       else None, {"action"})
    now = time.monotonic()
    for _ in range(140):
        now += 1.0
        loop.tick(now)
        worker.process(table.read().image)
        worker.step()
        host.bus.join()
        if len(decided) >= 2:
            break
    assert len(decided) >= 2
    for data in decided:
        assert store.jpeg(data["evidence"])[:2] == b"\xff\xd8"


# --- the web serves them, after a restart too --------------------------------------------

def test_the_web_serves_a_frame_and_after_a_restart_still_lists_and_serves_it(tmp_path):
    host, store, worker, seen = _camera(tmp_path)
    worker.referee.on_reading(reading(with_cell(GRID, 0, 0, "red-7"), seq=2, changed=("cell-0-0",)))
    host.bus.join()
    evidence = next(e for e in seen if e["type"] == "action")["evidence"]
    client = create_app(host, secret_key="t", evidence=store).test_client()
    got = client.get(f"/api/evidence/{evidence}.jpg")
    assert got.status_code == 200 and got.mimetype == "image/jpeg"
    assert got.data == (tmp_path / "evidence" / f"{evidence}.jpg").read_bytes()
    assert client.get("/api/evidence/99-99.jpg").get_json()["error"] == "no-evidence"
    assert client.get("/api/evidence/x.jpg").get_json()["error"] == "bad-input"
    assert client.get("/api/state").get_json()["last_evidence"] == evidence
    worker.stop()
    host.log.close()

    # the companion restarts over the same state folder
    host2 = Host(EventLog(tmp_path / "events.sqlite3"))
    client2 = create_app(host2, secret_key="t",
                         evidence=EvidenceStore(tmp_path / "evidence")).test_client()
    state = client2.get("/api/state").get_json()
    assert state["last_evidence"] == evidence
    assert any(e.get("evidence") == evidence and e["type"] == "played" for e in state["recent"])
    again = client2.get(f"/api/evidence/{evidence}.jpg")
    assert again.status_code == 200 and again.data == got.data


def test_without_a_store_the_web_answers_no_evidence():
    client = create_app(Host(), secret_key="t").test_client()
    got = client.get("/api/evidence/1-1.jpg")
    assert got.status_code == 404 and got.get_json()["error"] == "no-evidence"


def test_the_frames_of_two_matches_back_are_dropped_as_the_third_match_decides(tmp_path):
    host, store, worker, seen = _camera(tmp_path)
    kept = []
    for match in range(3):
        if match:
            host.start_match(SETUP)
            host.bus.join()  # the referee hears of the new match
            worker.process(worker.source.read().image)  # the new layout is read
            worker.referee.on_reading(reading(GRID, seq=1, changed=ALL_CELLS))
        worker.referee.on_reading(reading(with_cell(GRID, 0, 0, "red-7"), seq=2,
                                          changed=("cell-0-0",)))
        host.bus.join()
        kept.append(host.table.last_evidence)
        assert kept[-1] is not None and kept[-1].startswith(f"{host.table.match_id}-")
    assert store.jpeg(kept[0]) is None and not (tmp_path / "evidence" / f"{kept[0]}.jpg").exists()
    assert store.jpeg(kept[1]) and store.jpeg(kept[2])


def test_a_phones_answer_to_a_question_is_played_with_the_questions_frame(tmp_path):
    from tests.support.phones import joined

    log = EventLog(tmp_path / "events.sqlite3")
    host = Host(log)
    host.start_match(SETUP)
    store = EvidenceStore(tmp_path / "evidence")
    table = DemoTable(host, 1280, 720, seed=1, realtime=False)
    worker = CameraWorker(host, lambda: table, first=table, evidence=store)
    app = create_app(host, secret_key="t", join_token="tok", evidence=store)
    worker.process(table.read().image)
    actions = []
    host.bus.subscribe(lambda m: actions.append(m.data), {"action"})
    # a play before the camera's first look: asked; north's phone answers it
    worker.referee.on_reading(reading(with_cell(GRID, 0, 0, "red-7"), changed=("cell-0-0",)))
    host.bus.join()
    evidence = worker.referee.question.evidence
    c, h = joined(app, "north")
    confirm = c.get("/api/state").get_json()["confirm"]
    assert confirm["evidence"] == evidence
    yes = next(i for i, ch in enumerate(confirm["choices"])
               if ch["action"] and ch["action"].get("card") == "red-7")
    assert c.post("/api/confirm", json={"choice": yes}, headers=h).get_json()["ok"]
    host.bus.join()
    assert actions[-1]["source"] == "phone" and actions[-1]["evidence"] == evidence
    assert c.get("/api/state").get_json()["last_evidence"] == evidence


def test_a_question_is_kept_beside_its_frame_served_after_a_restart_and_dropped_with_it(tmp_path):
    host, store, worker, seen = _camera(tmp_path)
    asked = []
    host.bus.subscribe(lambda m: asked.append(m.to_json()), {"confirm-needed"})
    worker.referee.on_reading(reading(with_cell(GRID, 4, 4, "blue-9"), seq=2, changed=("cell-4-4",),
                                      probs={"cell-4-4": {"blue-9": 0.55, "blue-6": 0.45}}))
    host.bus.join()
    question = asked[-1]
    assert store.question(question["evidence"]) == question
    worker.stop()
    host.log.close()

    # after a restart (the event log keeps no questions) the web still says what was asked
    store2 = EvidenceStore(tmp_path / "evidence")
    client = create_app(Host(EventLog(tmp_path / "events.sqlite3")), secret_key="t",
                        evidence=store2).test_client()
    assert client.get(f"/api/evidence/{question['evidence']}.json").get_json() == {"question": question}
    others = [i for i in store2.ids() if i != question["evidence"]]
    assert all(client.get(f"/api/evidence/{i}.json").get_json() == {"question": None} for i in others)
    assert client.get("/api/evidence/x.json").get_json()["error"] == "bad-input"
    # a question is never kept for a frame that is not
    store2.keep_question("99-99", {"id": 1})
    assert store2.question("99-99") is None
    # dropped with its frame
    tiny = EvidenceStore(tmp_path / "evidence", max_bytes=1)
    assert tiny.ids() == [] and not list((tmp_path / "evidence").glob("*.json"))
