"""The two table modes with no rules through the web app: timer only and scoreboard only
(chosen at set-up, each works alone), and the words for every event the table emits."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from companion.eventlog import EventLog
from companion.host import Host
from web import create_app, i18n
from tests.support.phones import joined

ROOT = Path(__file__).resolve().parents[2]
TIMER = {"setup": {"game": "timer", "seats": ["ann", "ben", "cai"], "first": "ben",
                   "options": {"turn_seconds": 20}}}
SCORES = {"setup": {"game": "scoreboard", "seats": ["ann", "ben", "cai"],
                    "options": {"target": 100}}}


def make(mode="referee"):
    host = Host(EventLog(":memory:"), mode=mode)
    return host, create_app(host, secret_key="k", join_token="tok")


def options_data(html):
    return json.loads(html.split('id="options-data" type="application/json">')[1].split("</script>")[0])


def recorder(host):
    seen = []
    host.bus.subscribe(lambda m: seen.append(m.type))
    return seen


# --- set-up -------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode, game", [("referee", "grid"), ("timer", "timer"),
                                        ("scoreboard", "scoreboard")])
def test_setup_page_proposes_the_modes_game_first(mode, game):
    host, app = make(mode)
    html = app.test_client().get("/setup").get_data(as_text=True)
    checked = re.findall(r'name="game" value="([a-z]+)" checked', html)
    assert checked == [game]
    assert 'value="timer"' in html and 'value="scoreboard"' in html
    assert f'data-mode="{mode}"' in html


def test_setup_page_offers_the_options_of_both_modes():
    host, app = make()
    data = options_data(app.test_client().get("/setup").get_data(as_text=True))
    assert {o["name"] for o in data["timer"]} == {"turn_seconds", "timeout_action"}
    assert {o["name"] for o in data["scoreboard"]} == {"deck", "scoring", "target", "rounds"}
    deck = next(o for o in data["scoreboard"] if o["name"] == "deck")
    assert deck["choices"] == ["classic", "light", "dark"]


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_every_game_option_and_choice_has_a_label(lang):
    host, app = make()
    data = options_data(app.test_client().get("/setup").get_data(as_text=True))
    words = json.loads((ROOT / "web" / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
    keys = {f"game_{g}" for g in data}
    for opts in data.values():
        for o in opts:
            keys.add(f"opt_{o['name']}")
            keys.update(f"choice_{c}" for c in o.get("choices", []))
    assert sorted(keys - set(words)) == []


def test_setup_fields_are_marked_per_game():
    host, app = make("timer")
    html = app.test_client().get("/setup").get_data(as_text=True)
    # first seat: grid and timer; dealer and opening card: flip and classic; no turns: scoreboard
    assert re.search(r'data-games="grid timer">[^<]*</span>', html)
    assert re.search(r'<div class="row" data-games="flip classic"><span id="start-card-label">Opening card', html)
    assert 'data-games="flip classic timer scoreboard"' in html     # the seats list


# --- timer only -----------------------------------------------------------------------------------

def test_timer_match_end_my_turn_from_the_phone():
    host, app = make("timer")
    org, ho = joined(app, None)
    r = org.post("/api/match", json=TIMER, headers=ho)
    assert r.status_code == 200 and r.json["game"] == "timer"
    s = org.get("/api/state").json
    assert (s["turn"], s["turns"], s["turn_seconds"], s["mode"]) == ("ben", 0, 20, "timer")
    assert s["timer"]["seconds"] == 20 and s["timer"]["seat"] == "ben"
    ben, hb = joined(app, "ben")
    r = ben.post("/api/action", json={"do": "pass"}, headers=hb)
    assert r.status_code == 200 and r.json["ok"]
    assert [e["type"] for e in r.json["events"]] == ["turn"]
    host.bus.join()  # "recent" is the page's record of what the bus said
    s = ben.get("/api/state").json
    assert (s["turn"], s["turns"], s["timer"]["seat"]) == ("cai", 1, "cai")
    assert any(e["type"] == "turn" and e["seat"] == "cai" for e in s["recent"])


def test_timer_refusals():
    host, app = make("timer")
    host.start_match(TIMER)
    ann, ha = joined(app, "ann")
    # not ann's turn: the rules refuse it, HTTP 200 with ok false, nothing changes
    r = ann.post("/api/action", json={"do": "pass"}, headers=ha)
    assert r.status_code == 200 and not r.json["ok"] and r.json["error"] == "not-your-turn"
    assert host.table.state_json()["turn"] == "ben"
    # the timer's own action is not sent from a phone
    seen = recorder(host)
    r = ann.post("/api/action", json={"do": "timeout", "by": "ann"}, headers=ha)
    assert r.status_code == 403 and r.json["error"] == "not-from-phone"
    for body in ({"do": "play", "card": "red-7"}, {"do": "score", "points": 3}, {"do": "uno"}):
        r = ann.post("/api/action", json=body, headers=ha)
        assert r.status_code == 400 and r.json["error"] == "bad-input"
    assert host.table.state_json()["turns"] == 0
    assert "turn" not in seen
    # a phone of another seat, or no CSRF header: refused before the table
    assert ann.post("/api/action", json={"do": "pass", "by": "ben"}, headers=ha).status_code == 403
    assert ann.post("/api/action", json={"do": "pass"}).status_code == 403


@pytest.mark.parametrize("setup", [
    {"game": "timer", "seats": ["ann", "ben"], "dealer": "ann"},
    {"game": "timer", "seats": ["ann", "ben"], "first": "zed"},
    {"game": "timer", "seats": ["ann", "ben"], "options": {"timeout_action": "explode"}},
    {"game": "scoreboard", "seats": ["ann", "ben"], "first": "ann"},
    {"game": "scoreboard", "seats": ["ann"]},
    {"game": "scoreboard", "seats": ["ann", "ben"], "options": {"deck": "neon"}},
])
def test_bad_mode_setups_are_400(setup):
    host, app = make()
    org, ho = joined(app, None)
    r = org.post("/api/match", json={"setup": setup}, headers=ho)
    assert r.status_code == 400 and r.json["error"] == "bad-setup" and r.json["message"]
    assert host.table is None


def test_timer_match_pages_render():
    host, app = make("timer")
    host.start_match(TIMER)
    c = app.test_client()
    for path in ("/", "/seat/ben", "/scoreboard", "/setup", "/join/tok"):
        assert c.get(path).status_code == 200
    html = c.get("/scoreboard").get_data(as_text=True)
    assert "keeps no scores" in html


# --- scoreboard only ------------------------------------------------------------------------------

def test_scoreboard_round_typed_and_laid_open():
    host, app = make("scoreboard")
    host.start_match(SCORES)
    ann, ha = joined(app, "ann")
    ben, hb = joined(app, "ben")
    cai, hc = joined(app, "cai")
    s = ann.get("/api/state").json
    assert s["turn"] is None and s["round"] == 1 and s["pending"]["seats"] == ["ann", "ben", "cai"]
    # the winner cannot close the round before the others have entered
    r = ann.post("/api/action", json={"do": "round"}, headers=ha)
    assert r.status_code == 200 and not r.json["ok"] and r.json["error"] == "hands-not-shown"
    r = ben.post("/api/action", json={"do": "score", "points": 30}, headers=hb)
    assert r.json["ok"] and r.json["events"][0] == {"type": "hand-shown", "seat": "ben", "points": 30}
    r = cai.post("/api/action", json={"do": "show", "cards": ["red-7", "blue-skip"]}, headers=hc)
    assert r.json["ok"] and r.json["events"][0]["points"] == 27
    s = ann.get("/api/state").json
    assert s["entered"] == {"ben": 30, "cai": 27} and s["pending"]["seats"] == ["ann"]
    r = ann.post("/api/action", json={"do": "round"}, headers=ha)
    assert r.json["ok"]
    assert [e["type"] for e in r.json["events"]] == ["won", "round-over"]
    s = ann.get("/api/state").json
    assert s["scores"] == {"ann": 57, "ben": 0, "cai": 0} and s["round"] == 2 and s["entered"] == {}


@pytest.mark.parametrize("body, code", [
    ({"do": "score", "points": -1}, "bad-input"),
    ({"do": "score", "points": 10000}, "bad-input"),
    ({"do": "score", "points": "12"}, "bad-input"),
    ({"do": "score"}, "bad-input"),
    ({"do": "show", "cards": ["pink-5"]}, "bad-card"),       # a dark card on a classic scoreboard
    ({"do": "show", "cards": ["red-77"]}, "bad-card"),
    ({"do": "show", "cards": "red-7"}, "bad-input"),
    ({"do": "pass"}, "bad-input"),
    ({"do": "uno"}, "bad-input"),
])
def test_scoreboard_malformed_entries_are_400_and_publish_nothing(body, code):
    host, app = make("scoreboard")
    host.start_match(SCORES)
    ben, hb = joined(app, "ben")
    seen = recorder(host)
    r = ben.post("/api/action", json=body, headers=hb)
    assert r.status_code == 400 and r.json["error"] == code, r.json
    assert seen == [] and host.table.state_json()["entered"] == {}


def test_scoreboard_deck_decides_which_cards_count():
    host, app = make("scoreboard")
    host.start_match({"setup": {"game": "scoreboard", "seats": ["ann", "ben"],
                                "options": {"deck": "dark"}}})
    ben, hb = joined(app, "ben")
    assert ben.post("/api/action", json={"do": "show", "cards": ["red-5"]},
                    headers=hb).json["error"] == "bad-card"
    r = ben.post("/api/action", json={"do": "show", "cards": ["pink-5", "teal-skip-everyone"]},
                 headers=hb)
    assert r.json["ok"], r.json
    assert host.table.state_json()["entered"]["ben"] == 5 + 30


def test_organiser_may_type_scores_and_close_rounds_but_not_play():
    host, app = make("scoreboard")
    host.start_match(SCORES)
    org, ho = joined(app, None)
    for seat, points in (("ben", 4), ("cai", 6)):
        assert org.post("/api/action", json={"do": "score", "by": seat, "points": points},
                        headers=ho).json["ok"]
    assert org.post("/api/action", json={"do": "show", "by": "ann", "cards": []},
                    headers=ho).json["error"] == "no-seat"
    r = org.post("/api/action", json={"do": "round", "by": "ann"}, headers=ho)
    assert r.json["ok"] and host.table.state_json()["scores"]["ann"] == 10


def test_scoreboard_page_rounds_live_row_chart_and_history():
    host, app = make("scoreboard")
    host.start_match(SCORES)
    t = host.table
    for winner, hands in (("ann", {"ben": 30, "cai": 12}), ("ben", {"ann": 5, "cai": 20})):
        for seat, points in hands.items():
            assert t.act({"by": seat, "do": "score", "points": points}, source="test").ok
        assert t.act({"by": winner, "do": "round"}, source="test").ok
    assert t.act({"by": "cai", "do": "score", "points": 9}, source="test").ok
    c = app.test_client()
    html = c.get("/scoreboard").get_data(as_text=True)
    assert "Round 1" in html and "Round 2" in html and "Round 3 (now)" in html
    # each round row says that round's points (ann scored nothing in round 2), and the total
    rows = re.findall(r"<tr><th scope=\"row\">Round \d</th>(.*?)</tr>", html, re.S)
    points = [re.findall(r'class="round-points">([^<]*)<', row) for row in rows]
    assert points == [["+42", "0", "0"], ["0", "+25", "0"]]
    assert [re.findall(r'class="running">total (\d+)<', row) for row in rows] == [
        ["42", "0", "0"], ["42", "25", "0"]]
    assert html.count("<polyline") == 3
    assert "Scoreboard only" in html
    data = c.get("/api/scoreboard").json["current"]
    assert data["game"] == "scoreboard"
    assert [r["winners"] for r in data["rounds"]] == [["ann"], ["ben"]]
    assert data["totals"] == {"ann": 42, "ben": 25, "cai": 0}
    # to the target: the match is over, its champion in the history
    assert t.act({"by": "ben", "do": "score", "points": 70}, source="test").ok
    assert t.act({"by": "ann", "do": "round"}, source="test").ok
    data = c.get("/api/scoreboard").json
    assert data["current"]["champions"] == ["ann"]
    html = c.get("/scoreboard").get_data(as_text=True)
    assert "Match over: ann won!" in html and 'class="now"' not in html


def test_scoreboard_japanese():
    host, app = make("scoreboard")
    host.start_match(SCORES)
    html = app.test_client().get("/setup?lang=ja").get_data(as_text=True)
    assert "スコアボードのみ" in html and "タイマーのみ" in html


# --- events in words --------------------------------------------------------------------------------

#: Types the "What happened" list leaves out on purpose (big, frequent, or not about the game).
QUIET = {"state", "table-ready", "action", "reading", "signals", "hello", "resync"}


def emitted_event_types() -> set[str]:
    found = set()
    for folder in ("companion", "vision", "hardware", "web"):
        for path in (ROOT / folder).rglob("*.py"):
            text = path.read_text(encoding="utf-8", errors="replace")
            found.update(re.findall(r'\bevent\(\s*"([a-z][a-z-]*)"', text))
            found.update(re.findall(r'\.publish\(\s*"([a-z][a-z-]*)"', text))
    return found


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_every_event_type_emitted_has_words(lang):
    types = emitted_event_types()
    assert {"turn", "new-game", "redraw", "went-out", "round", "face-not-predicted",
            "confirm-needed", "camera"} <= types
    words = json.loads((ROOT / "web" / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
    assert sorted(t for t in types - QUIET if f"ev_{t}" not in words) == []
    for status in ("ok", "lost"):
        assert f"camera_{status}" in words
    for kind in ("expired", "paused", "resumed"):
        assert f"ev_timer_{kind}" in words


def test_quiet_types_match_the_app():
    from web.app import _QUIET
    assert _QUIET <= QUIET
