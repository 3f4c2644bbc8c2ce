"""Japanese everywhere the page speaks, in a real browser (Debian's Chromium, Playwright).

Walks every page of every mode (the table view, a seat's phone, the scoreboard, the set-up with
each game, the join page), every kind of camera question with its answer buttons, every event of
the catalogue, the refusals and the lights panel, in ``ja``, and fails on any English word of the
page's vocabulary. That vocabulary is built from the English catalogue (``web/i18n/en.json``:
every word of three letters or more, less the words the Japanese catalogue itself uses, such as
"UNO"), so a string added later is checked too. Each check is also run on an English page, where
it must find English: the check can fail.

One server and one Chromium for the module, in the ``browser`` xdist group.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from companion.eventlog import EventLog
from companion.host import Host

from tests.support.browser import WAIT
from web import serve
from web.reach import SERVE_ON_NETWORK

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "bypass_csp": True}
I18N = Path(__file__).resolve().parents[2] / "web" / "i18n"


pytestmark = pytest.mark.slow

SEATS = ["ann", "ben", "cai"]
GRID = [["red-1", "red-2", "red-3", "red-4", "red-5"],
        ["blue-1", "blue-2", "blue-3", "blue-4", "blue-5"],
        ["green-1", "green-2", "green-3", "green-4", "green-5"],
        ["yellow-1", "yellow-2", "yellow-3", "yellow-4", "yellow-5"],
        ["red-6", "red-7", "red-8", "red-9", "wild-draw-four"]]
SETUPS = {
    "grid": {"game": "grid", "seats": ["north", "south"], "first": "north", "grid": GRID,
             "options": {"turn_seconds": 30}},
    "flip": {"game": "flip", "seats": SEATS, "dealer": "cai", "start": "red-5",
             "options": {"turn_seconds": 30}},
    "classic": {"game": "classic", "seats": SEATS, "dealer": "cai", "start": "red-5",
                "options": {"turn_seconds": 30}},
    "timer": {"game": "timer", "seats": SEATS, "first": "ann", "options": {"turn_seconds": 45}},
    "scoreboard": {"game": "scoreboard", "seats": SEATS, "options": {"target": 300}},
}


def _words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-z]{3,}", re.sub(r"\{\w+\}", " ", text))}


def english_vocabulary() -> set[str]:
    """Every word of the English catalogue that the Japanese catalogue does not use itself (read
    from the files: ``i18n.strings("ja")`` fills a missing key with English)."""
    en = json.loads((I18N / "en.json").read_text(encoding="utf-8"))
    ja = json.loads((I18N / "ja.json").read_text(encoding="utf-8"))
    return set().union(*map(_words, en.values())) - set().union(*map(_words, ja.values()))


VOCABULARY = english_vocabulary()

#: The text of the page and what it says to a screen reader (labels, titles), links left out.
SPOKEN = """(root) => {
  const el = root ? document.querySelector(root) : document.body;
  const said = [el.innerText];
  // (a .mono field's placeholder is an example of the input's own syntax: card names as typed)
  for (const a of el.querySelectorAll("[aria-label], [title], [placeholder]:not(.mono)"))
    for (const name of ["aria-label", "title", "placeholder"])
      if (a.hasAttribute(name)) said.push(a.getAttribute(name));
  for (const d of document.querySelectorAll("dialog[open]")) said.push(d.innerText);
  return said.join("\\n");
}"""


def _spoken(page, root: str | None) -> str:
    """What the page says, less the links and the command line it quotes (both stay as typed)."""
    text = page.evaluate(SPOKEN, root).replace(SERVE_ON_NETWORK, " ")
    return re.sub(r"https?://\S+", " ", text)


def english_on(page, root: str | None = None) -> set[str]:
    return _words(_spoken(page, root)) & VOCABULARY


def english_lines(page, root: str | None = None) -> list[str]:
    """The lines of the page that hold an English word of the vocabulary ([] when none)."""
    text = _spoken(page, root)
    return sorted({line for line in text.splitlines() if _words(line) & VOCABULARY})


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    host = Host(EventLog(tmp_path_factory.mktemp("ja") / "log.db"))
    lights = {"seats": {"north": {"on": True, "pattern": "blink", "seats": ["north"]},
                        "south": {"on": False, "pattern": "off", "seats": ["south"]}},
              "side": {"side": None, "color": "off", "rgb": [0, 0, 0]},
              "status": {"color": "green", "mode": "ok", "rgb": [0, 1, 0], "showing": None},
              "buzzer": {"kind": "tonal", "note": None, "playing": None}}
    host.show_signals(lambda: lights)
    server = serve(host, "127.0.0.1", 0, block=False, secret_key="ja", join_token="join-me",
                   heartbeat_s=5, phones_per_seat=8)
    yield host, server
    server.shutdown()


def phone(browser, server, seat: str | None, lang: str = "ja"):
    """A phone in ``lang`` that joined ``seat`` (None: the organiser, on the set-up page)."""
    ctx = browser.new_context(locale="ja-JP" if lang == "ja" else "en-GB", **PHONE)
    page = ctx.new_page()
    page.goto(f"{server.url}/join/join-me?lang={lang}")
    assert english_on(page) == set() if lang == "ja" else True
    if seat is None:                               # the organiser types the PIN of the table
        page.locator("#organiser-pin").fill(server.organiser_pin)
    page.locator(f'.join-seat[data-seat="{seat or ""}"]').click()
    page.wait_for_url(f"**/seat/{seat}" if seat else "**/setup")
    page.wait_for_selector('#conn[data-state="on"]', timeout=WAIT)
    return page


def _play_a_little(host, game: str) -> None:
    """A few legal actions and one refused, so that the pages have events and a refusal to say."""
    t = host.table
    if game in ("timer", "scoreboard"):
        if game == "timer":
            assert t.act({"by": "ann", "do": "pass"}, source="test").ok
        else:
            assert t.act({"by": "ben", "do": "score", "points": 12}, source="test").ok
            assert t.act({"by": "cai", "do": "show", "cards": ["red-7", "wild"]}, source="test").ok
        return
    for _ in range(2):
        s = t.state_json()
        action = next(a for a in t.legal_actions() if a.by == s["turn"] and a.do in ("move", "play"))
        assert t.act(action, source="test").ok
    seat = t.state_json()["turn"]
    bad = ({"by": seat, "do": "play", "card": "blue-9", "cell": [0, 0]} if game == "grid"
           else {"by": seat, "do": "play", "card": "green-8"})
    assert not t.act(bad, source="test").ok


@pytest.mark.parametrize("game", list(SETUPS))
def test_every_page_of_every_mode_is_japanese(table, browser, game):
    host, server = table
    host.start_match({"setup": SETUPS[game]})
    _play_a_little(host, game)
    seat = host.table.seats[0]
    me = phone(browser, server, seat)
    me.wait_for_selector("#pile > *", timeout=WAIT)
    me.locator("details.recent summary").click()
    me.wait_for_selector("#events li", timeout=WAIT)
    assert not (bad := english_lines(me)), bad
    if game in ("flip", "classic", "grid") and host.table.state_json()["turn"] == seat:
        opener = me.locator('[data-do="play"], [data-do="discard"]').first
        opener.click()
        me.wait_for_selector("dialog.sheet[open]")
        assert not (bad := english_lines(me)), bad
        me.keyboard.press("Escape")
    for path in ("/", "/scoreboard"):
        me.goto(f"{server.url}{path}")
        me.wait_for_selector("#events li, table.scores, .history", timeout=WAIT)
        assert not (bad := english_lines(me)), bad
    me.context.close()


def test_the_set_up_page_with_each_game_and_the_english_page_for_contrast(table, browser):
    host, server = table
    host.start_match({"setup": SETUPS["flip"]})
    organiser = phone(browser, server, None)
    for game in SETUPS:
        organiser.locator(f'input[name="game"][value="{game}"]').check(force=True)
        assert not (bad := english_lines(organiser)), bad
    organiser.context.close()
    english = phone(browser, server, None, lang="en")
    assert {"rules", "start", "match"} <= english_on(english)
    english.context.close()


# --- every question, event and light of the catalogue, said by the page's own functions -------------

def _question(kind: str, seat="north", region="cell-1-2", card="red-7", choices=None) -> dict:
    return {"type": "confirm-needed", "id": 7, "kind": kind, "seat": seat, "region": region,
            "card": card, "choices": choices or []}


CHOICES = [
    {"id": 0, "action": {"by": "north", "do": "play", "card": "red-7", "cell": [1, 2]}},
    {"id": 1, "action": {"by": "north", "do": "play", "card": "wild", "color": "blue"}},
    {"id": 2, "action": {"by": "north", "do": "move", "to": [3, 1]}},
    {"id": 3, "action": {"by": "north", "do": "move", "to": [5, 1]}},
    {"id": 4, "action": {"by": "north", "do": "discard", "card": "green-skip"}},
    {"id": 5, "action": {"by": "ann", "do": "reveal", "card": "teal-draw-five"}},
    {"id": 6, "action": {"by": "ann", "do": "draw"}},
    {"id": 7, "action": None, "nothing": "misread"},
    {"id": 8, "action": None, "nothing": "only-moved"},
    {"id": 9, "action": None, "nothing": "laid-out"},
    {"id": 10, "action": None, "nothing": "out-of-turn"},
]
KINDS = ["colour", "same-face", "several", "first-look", "unsure", "out-of-turn", "drew"]
#: What the camera may name in a question: a card, nothing, a card face down, the pawn (null).
READ = ["red-7", "wild-draw-four", "empty", "back", "none", None]
REGIONS = ["cell-1-2", "discard", "pawn"]


def _every_question() -> list[dict]:
    out = []
    for kind in KINDS:
        for card in READ:
            for region in REGIONS:
                out.append(_question(kind, region=region, card=card, choices=CHOICES))
        out.append(_question(kind, seat=None, choices=CHOICES))
    return out


def _every_event() -> list[dict]:
    """One event for each ``ev_*`` string of the English catalogue, its fields all filled."""
    en = json.loads((I18N / "en.json").read_text(encoding="utf-8"))
    fields = {"seat": "north", "seats": ["north", "ann"], "card": "red-7", "count": 2,
              "direction": "ccw", "side": "dark", "left": 3, "points": 12, "winners": ["north"],
              "champions": ["south"], "predicted": ["blue-3", "wild"], "start": "red-5",
              "choice": {"nothing": "misread"}, "to": [3, 1], "cell": [3, 1], "by": "west",
              "game": 2, "starter": "east", "dealer": "south", "round": 2, "cards": ["red-1"],
              "color": "yellow", "open": True, "accused": "north", "target": "south"}
    out = []
    for key in en:
        if not key.startswith("ev_"):
            continue
        kind = key[3:]
        ev = {**fields, "type": kind, "time": 1700000000}
        if kind == "refused":
            ev.update(code="not-matching", params={"card": "green-8", "onto": "wild"},
                      message="green-8 does not match wild")
        if kind == "camera":
            for status in ("ok", "lost", "ended"):
                out.append({**ev, "status": status})
            for cause in ("missing", "busy", "hung", "error"):
                out.append({**ev, "status": "lost", "cause": cause, "reason": "Device busy"})
            continue
        if kind == "confirm-needed":
            out.extend({**ev, **q} for q in _every_question()[:: len(READ)])
            continue
        if kind == "illegal":      # never a line: the "refused" that follows it says it
            continue
        if kind == "timer":
            for timer in ("expired", "paused", "resumed"):
                out.append({**ev, "kind": timer})
            ev["kind"] = "warning"
        out.append(ev)
    out.append({**fields, "type": "refused", "seat": None, "code": "not-your-turn",
                "params": {"seat": "south"}, "message": "it is south's turn"})
    return out


def _lights() -> list[dict]:
    """The lights panel in every state the catalogue has words for."""
    en = json.loads((I18N / "en.json").read_text(encoding="utf-8"))
    seats = {"north": {"on": True, "pattern": "blink", "seats": ["north", "ann"]}}
    out = []
    for key in en:
        family, _, name = key.partition("_")
        status = {"color": "off", "mode": None, "rgb": [0, 0, 0], "showing": None}
        side = {"side": None, "color": "off", "rgb": [0, 0, 0]}
        buzzer = {"kind": "tonal", "note": None, "playing": None}
        if family == "status" and name != "led":
            status["mode"] = name
        elif family == "sig":
            status["showing"] = name
        elif family == "led":
            status["color"] = side["color"] = name
        elif family == "tune":
            buzzer.update(playing=name, note="A5")
        elif family == "side" and name in ("light", "dark"):
            side["side"] = name
        else:
            continue
        out.append({"seats": seats, "side": side, "status": status, "buzzer": buzzer})
    return out


SAY_ALL = """([questions, events, lights]) => {
  const out = [];
  for (const q of questions) {
    out.push(questionText(q));
    for (const c of q.choices) out.push(choiceText(q, c));
  }
  for (const ev of events) out.push(eventText(ev) || "");
  for (const sig of lights) {
    const box = document.createElement("div");
    box.innerHTML = signalsHtml(sig);
    out.push(box.textContent);
  }
  return out;
}"""


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_every_question_event_and_light_of_the_catalogue(table, browser, lang):
    host, server = table
    ctx = browser.new_context(**PHONE)
    page = ctx.new_page()
    page.goto(f"{server.url}/?lang={lang}")
    said = page.evaluate(SAY_ALL, [_every_question(), _every_event(), _lights()])
    assert [line for line in said if not line] == [], "every line has words"
    found = {line: _words(line) & VOCABULARY for line in said}
    english = {line: words for line, words in found.items() if words}
    if lang == "ja":
        assert english == {}
    else:                       # the same lines in English: the check above can fail
        assert len(english) > len(set(said)) // 2
    ctx.close()


@pytest.mark.parametrize("lang, busy, plain", [
    ("en", "Camera: busy: another program holds it; stop that program", "Camera: lost the picture"),
    ("ja", "使用中：別のプログラムが使っています。そのプログラムを止めてください", "映像が途切れた"),
])
def test_a_lost_camera_says_why_where_the_table_knows(table, browser, lang, busy, plain):
    # `run` tells why the camera is lost (missing, busy, hung); a cause without words of its own
    # ("error") says what any lost camera says, never the server's English reason
    host, server = table
    page = browser.new_context(**PHONE).new_page()
    page.goto(f"{server.url}/?lang={lang}")
    ev = {"type": "camera", "status": "lost", "time": 1700000000, "reason": "Device busy"}
    said = page.evaluate("(evs) => evs.map(eventText)", [{**ev, "cause": "busy"}, {**ev, "cause": "error"}, ev])
    assert busy in said[0] and "Device" not in said[0]
    assert plain in said[1] and plain in said[2] and "Device" not in said[1]
    page.context.close()


def test_every_kind_of_camera_question_on_the_phone_and_the_table_view(table, browser):
    host, server = table
    host.start_match({"setup": SETUPS["grid"]})
    north = phone(browser, server, "north")
    view = browser.new_context(locale="ja-JP", bypass_csp=True).new_page()
    view.goto(f"{server.url}/?lang=ja")
    view.wait_for_selector("#board .card", timeout=WAIT)
    for n, kind in enumerate(KINDS):
        question = _question(kind, choices=CHOICES)
        question.pop("type")
        other = kind in ("colour", "same-face", "first-look", "unsure")   # "Another card..."
        host.bus.publish("confirm-needed", **{**question, "id": 100 + n,
                                              **({"other": "play"} if other else {})})
        north.wait_for_function(
            f"document.querySelectorAll('#prompt:not([hidden]) button[data-confirm]').length === {len(CHOICES)}",
            timeout=WAIT)
        assert north.locator('#prompt button[data-do="other-card"]').count() == int(other)
        assert not (bad := english_lines(north, "#prompt")), bad
        north.locator('#prompt button[data-confirm="7"]').click()    # "nothing: a misread"
        north.wait_for_selector("#prompt", state="hidden", timeout=WAIT)
    # the table view's list: each question and each answer
    view.wait_for_function("document.querySelectorAll('#events li').length >= 10", timeout=WAIT)
    assert view.locator("#events").inner_text().count("カメラからの確認") == len(KINDS)
    assert not (bad := english_lines(view)), bad
    view.context.close()
    north.context.close()


def test_another_card_is_picked_on_the_phone_and_checked_by_the_rules(table, browser):
    # "ほかのカード…": the card picker, a card the rules refuse asked about once more (in
    # Japanese), said put down all the same; then a card they take, played on the cell
    host, server = table
    host.start_match({"setup": SETUPS["grid"]})
    refused = []
    host.bus.subscribe(lambda m: refused.append(m.data) if not m.data.get("ok") else None,
                       {"action"})
    north = phone(browser, server, "north")
    asked = {"kind": "unsure", "seat": "north", "region": "cell-1-2", "card": "red-7",
             "choices": [CHOICES[0], {"id": 1, "action": None, "nothing": "misread"}],
             "other": "play"}
    host.bus.publish("confirm-needed", id=200, **asked)
    north.locator('#prompt button[data-do="other-card"]').click()
    north.wait_for_selector("dialog[open] .picker-faces", timeout=WAIT)
    assert not (bad := english_lines(north)), bad
    north.locator('dialog[open] button[data-card="red-9"]').click()      # red 9 on blue 3
    north.wait_for_selector("dialog[open] button[data-yes]", timeout=WAIT)
    assert not (bad := english_lines(north)), bad
    assert host.table.actions_taken() == [] and not refused     # nothing yet: only asked
    north.locator("dialog[open] button[data-yes]").click()
    north.wait_for_selector("#prompt", state="hidden", timeout=WAIT)
    host.bus.join()
    assert refused[-1]["action"] == {"by": "north", "do": "play", "card": "red-9", "cell": [1, 2]}
    host.bus.publish("confirm-needed", id=201, **asked)
    north.locator('#prompt button[data-do="other-card"]').click()
    north.locator('dialog[open] button[data-color="yellow"]').click()
    north.locator('dialog[open] button[data-card="yellow-3"]').click()
    north.wait_for_selector("#prompt", state="hidden", timeout=WAIT)
    host.bus.join()
    assert host.table.state_json()["grid"][1][2] == "yellow-3"
    north.context.close()


@pytest.mark.parametrize("lang, said", [("ja", "テーブルの上に手があります"),
                                        ("en", "hands over the table")])
def test_the_camera_overlay_speaks_the_pages_language(table, browser, lang, said):
    import cv2
    import numpy as np

    host, server = table
    host.start_match({"setup": SETUPS["grid"]})
    ok, jpeg = cv2.imencode(".jpg", np.zeros((48, 64, 3), np.uint8))
    host.show_frame(jpeg.tobytes(), view="hands")
    try:
        page = browser.new_context(bypass_csp=True).new_page()
        page.goto(f"{server.url}/?lang={lang}")
        caption = page.locator(".camera-panel .frame-caption")
        caption.wait_for(state="visible", timeout=WAIT)
        assert caption.inner_text() == said
        page.context.close()
    finally:
        host.show_frame(None)
