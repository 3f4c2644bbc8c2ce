"""The SQLite event log: appends, resume data, history, and unusable files set aside."""

import sqlite3

import pytest

from companion.eventlog import FORMAT_VERSION, EventLog
from companion.host import Host

SETUP = {"setup": {"game": "flip", "seats": ["ann", "ben"], "dealer": "ben", "start": "red-5"}}


def test_an_unfinished_match_comes_back_with_its_actions_in_order(tmp_path):
    path = tmp_path / "events.sqlite3"
    log = EventLog(path)
    match = log.start_match(SETUP)
    log.append(match, {"by": "ann", "do": "draw"}, [{"type": "drew", "seat": "ann", "count": 1}])
    log.append(match, {"by": "ann", "do": "pass"}, [])
    log.close()

    again = EventLog(path)
    setup, actions = again.unfinished()
    assert setup == SETUP
    assert actions == [{"by": "ann", "do": "draw"}, {"by": "ann", "do": "pass"}]
    assert again.entries(match)[0]["events"] == [{"type": "drew", "seat": "ann", "count": 1}]


def test_an_undo_takes_the_previous_action_out_of_the_resume_list():
    log = EventLog(":memory:")
    match = log.start_match(SETUP)
    log.append(match, {"by": "ann", "do": "draw"}, [])
    log.append(match, {"by": "table", "do": "undo"}, [])
    log.append(match, {"by": "ann", "do": "play", "card": "red-7"}, [])
    assert log.unfinished()[1] == [{"by": "ann", "do": "play", "card": "red-7"}]


def test_a_finished_match_is_not_resumed_but_stays_in_the_history():
    log = EventLog(":memory:")
    match = log.start_match(SETUP)
    log.append(match, {"by": "ann", "do": "play", "card": "red-7"},
               [{"type": "round-over", "winners": ["ann"], "scores": {"ann": 40, "ben": 0}}])
    log.finish_match(match, {"champions": ["ann"]})
    assert log.unfinished() is None
    [entry] = log.matches()
    assert entry["result"] == {"champions": ["ann"]}
    assert entry["rounds"] == [{"winners": ["ann"], "scores": {"ann": 40, "ben": 0}}]


def test_starting_a_new_match_abandons_the_unfinished_one():
    log = EventLog(":memory:")
    first = log.start_match(SETUP)
    second = log.start_match(SETUP)
    assert log.current_match_id() == second != first
    assert log.matches()[1]["result"] == {"abandoned": True}


def test_the_database_runs_in_wal_mode_with_full_sync(tmp_path):
    log = EventLog(tmp_path / "e.sqlite3")
    assert log._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert log._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_a_corrupt_file_is_kept_aside_and_a_fresh_log_starts(tmp_path):
    path = tmp_path / "events.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    log = EventLog(path)
    assert log.set_aside is not None
    assert "could not be used" in str(log.set_aside)
    assert log.set_aside.path.read_bytes().startswith(b"this is not a database")
    assert log.unfinished() is None
    log.start_match(SETUP)  # the fresh log works


def test_a_newer_format_is_kept_aside_too(tmp_path):
    path = tmp_path / "events.sqlite3"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    db.execute("INSERT INTO meta VALUES ('format', ?)", (str(FORMAT_VERSION + 1),))
    db.commit()
    db.close()
    log = EventLog(path)
    assert "newer" in str(log.set_aside)
    assert log.set_aside.path.exists()


def test_appending_to_an_unknown_match_fails_loudly():
    log = EventLog(":memory:")
    with pytest.raises(sqlite3.IntegrityError):
        log.append(999, {"by": "ann", "do": "draw"}, [])


class _Killed(BaseException):
    """The process dies here (kill -9, the plug pulled)."""


def test_a_kill_right_after_the_winning_action_still_leaves_the_match_won(tmp_path, monkeypatch):
    path = tmp_path / "events.sqlite3"
    host = Host(EventLog(path), mode="scoreboard")
    table = host.start_match({"setup": {"game": "scoreboard", "seats": ["ann", "ben"],
                                        "options": {"target": 10}}})
    assert table.act({"by": "ben", "do": "score", "points": 30}).ok

    def killed(*args, **kwargs):  # anything written after the winning action is lost
        raise _Killed

    monkeypatch.setattr(EventLog, "finish_match", killed)
    try:
        table.act({"by": "ann", "do": "round"})  # ann wins the match
    except _Killed:
        pass
    monkeypatch.undo()
    again = EventLog(path)  # the restart
    assert again.unfinished() is None
    [match] = again.matches()
    assert match["result"]["champions"] == ["ann"] and "abandoned" not in match["result"]
    assert [e["action"]["do"] for e in again.entries(match["id"])] == ["score", "round"]


def test_append_with_finish_closes_the_match(tmp_path):
    log = EventLog(tmp_path / "events.sqlite3")
    match = log.start_match({"setup": {"game": "timer", "seats": ["ann", "ben"]}})
    log.append(match, {"by": "ann", "do": "timeout"}, [{"type": "won"}], finish={"champions": ["ann"]})
    assert log.unfinished() is None and log.matches()[0]["result"] == {"champions": ["ann"]}
