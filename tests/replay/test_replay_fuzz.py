"""``companion replay`` never crashes and never loses an answer, whatever the lines hold.

Real games (random legal scripts) are replayed with mutated copies of their lines in between:
wrong types in any field, a ``do`` that is a list or an object, nesting thousands deep, integers
of thousands of digits, NaN, invalid UTF-8, cut lines, unknown cards and fields, raw bytes. The
lines go through the very function the command runs (from a file and from standard input), and
once through the command as a process. Every run checks:

* one JSON answer per non-blank line after the set-up, each valid JSON (no NaN), in order: the
  k-th answer is what :class:`Replay` answers to the k-th line;
* a line that cannot be read answers ``bad-input`` and changes nothing (state as before, no
  events); an unknown card ``bad-card`` (or ``bad-input`` where the action has no card);
* the state keeps its invariants (the documented keys, hand and pile counts whole and >= 0).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import json
import string
import subprocess
import sys
import tempfile
from dataclasses import fields
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from app.commands import replay as replay_command
from companion.cards import UnknownCard, parse_card
from companion.engine.actions import ACTIONS
from companion.replay import Replay
from tests.support.games import flip_setup, grid_setup, random_script

ROOT = Path(__file__).resolve().parents[2]

#: Every run of this file replays at least this many lines (file and stdin together).
MIN_LINES = 10_000
LINES_PER_EXAMPLE = 2 * 60
EXAMPLES = MIN_LINES // LINES_PER_EXAMPLE // 2 + 2

STATE_KEYS = {"turn", "direction", "side", "top", "color", "pawn", "last_cell", "hands",
              "draw_pile", "pending", "winners", "scores", "over", "champions"}
FIELDS = sorted({f.name for cls in ACTIONS.values() for f in fields(cls)})


@functools.cache
def games():
    """The five scripted games the fuzz mutates, made once a process, when a test first asks
    (not at import: every worker imports this file to collect it, most run none of it)."""
    setups = [grid_setup(3), flip_setup(), flip_setup("classic", seats=("ann", "ben")),
              {"setup": {"game": "scoreboard", "seats": ["ann", "ben", "cai"], "options": {}}},
              {"setup": {"game": "timer", "seats": ["ann", "ben"], "options": {}}}]
    return [(setup, random_script(setup, 150, seed)) for seed, setup in enumerate(setups)]


# --- mutations: each gives the line's bytes and what its answer must be -----------------------

BAD_INPUT, REFUSED, ANY = "bad-input", "refused", "any"

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=12)
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                                 max_size=4),
    max_leaves=8)
containers = st.lists(json_values, max_size=3) | st.dictionaries(st.text(max_size=6), json_values,
                                                                 max_size=3)
not_a_card = st.text(max_size=15).filter(lambda s: not _is_card(s))
unknown_field = st.text(string.ascii_lowercase + "_", min_size=1, max_size=10).filter(
    lambda s: s not in FIELDS and s != "do")
# Never valid UTF-8, wherever they land: overlong leads, bytes above f4, a UTF-16 surrogate.
never_utf8 = st.sampled_from([b"\xff", b"\xfe", b"\xc0", b"\xc1", b"\xf5", b"\xed\xa0\x80"])


def _is_card(name: str) -> bool:
    try:
        parse_card(name)
    except UnknownCard:
        return False
    return True


def _dump(obj) -> bytes:
    return json.dumps(obj, ensure_ascii=False).encode("utf-8", "surrogatepass")


def _with_raw(action: dict, field: str, raw: str) -> bytes:
    """The action with ``field`` set to ``raw`` JSON text (deep nesting, huge numbers, NaN)."""
    marker = "\u0000MARK\u0000"
    return _dump({**action, field: marker}).replace(json.dumps(marker).encode(), raw.encode())


@st.composite
def mutated(draw, action: dict) -> tuple[bytes, str]:
    kind = draw(st.sampled_from([
        "field", "do", "by", "unknown-field", "unknown-card", "deep", "nested", "huge-int",
        "long-int", "utf8", "nan", "not-object", "cut", "bytes", "blank", "valid"]))
    some_field = draw(st.sampled_from(sorted(set(action) | set(FIELDS))))
    if kind == "field":
        return _dump({**action, some_field: draw(json_values)}), ANY
    if kind == "do":
        return _dump({**action, "do": draw(containers | st.integers() | st.none())}), BAD_INPUT
    if kind == "by":
        return _dump({**action, "by": draw(containers | st.integers() | st.just(""))}), BAD_INPUT
    if kind == "unknown-field":
        return _dump({**action, draw(unknown_field): draw(json_values)}), BAD_INPUT
    if kind == "unknown-card":
        return _dump({**action, "card": draw(not_a_card)}), REFUSED
    if kind == "deep":  # far deeper than any parser's stack
        depth = draw(st.integers(2_000, 60_000))
        return _with_raw(action, some_field, "[" * depth + "]" * depth), BAD_INPUT
    if kind == "nested":  # deep, but readable
        depth = draw(st.integers(2, 400))
        return _with_raw(action, some_field, "[" * depth + "1" + "]" * depth), ANY
    if kind == "huge-int":  # more digits than int() reads
        digits = draw(st.integers(4_301, 20_000))
        return _with_raw(action, some_field, "9" * digits), BAD_INPUT
    if kind == "long-int":  # readable, but far above any count
        return _with_raw(action, some_field, "7" * draw(st.integers(20, 4_300))), ANY
    if kind == "utf8":
        line = _dump(action)
        at = draw(st.integers(0, len(line)))
        return line[:at] + draw(never_utf8) + line[at:], BAD_INPUT
    if kind == "nan":
        raw = draw(st.sampled_from(["NaN", "Infinity", "-Infinity", "1e999", "-1e400"]))
        return _with_raw(action, some_field, raw), BAD_INPUT
    if kind == "not-object":
        return _dump(draw(st.one_of(st.lists(json_values), json_values.filter(
            lambda v: not isinstance(v, dict))))), BAD_INPUT
    if kind == "cut":
        line = _dump(action)
        return line[:draw(st.integers(1, len(line) - 1))], BAD_INPUT
    if kind == "bytes":
        return draw(st.binary(max_size=40)).replace(b"\n", b" "), ANY
    if kind == "blank":
        return draw(st.sampled_from([b"", b" ", b"\t \r"])), ANY
    return _dump(action), ANY


@st.composite
def runs(draw) -> tuple[list[bytes], list[str]]:
    """A set-up line, then the game's script with a mutated line after each of its lines."""
    setup, script = draw(st.sampled_from(games()))
    start = draw(st.integers(0, len(script) - 1))
    lines, expects = [_dump(setup)], [ANY]
    for k in range(LINES_PER_EXAMPLE // 2):
        action = script[(start + k) % len(script)]
        lines.append(_dump(action))
        expects.append(ANY)
        line, expect = draw(mutated(action))
        lines.append(line)
        expects.append(expect)
    return lines, expects


# --- the checks ---------------------------------------------------------------------------------

def _strict_json(text: str):
    def no_constant(name):
        raise AssertionError(f"{name} in an answer: not JSON")
    return json.loads(text, parse_constant=no_constant)


def check_answers(lines: list[bytes], expects: list[str], out: str, err: str) -> int:
    """All the invariants of one run; returns the number of lines replayed."""
    assert "Traceback" not in err and err == "", err
    assert out.endswith("\n") or out == ""
    answers = [_strict_json(text) for text in out.splitlines()]
    kept = [(line, expect) for line, expect in zip(lines[1:], expects[1:]) if line.strip()]
    assert len(answers) == len(kept), "one answer per non-blank line after the set-up"
    reference = Replay(lines[0])
    previous = reference.game.to_json(reference.state)
    for (line, expect), answer in zip(kept, answers):
        expected = json.loads(json.dumps(reference.answer(line)))
        assert answer == expected, line[:200]  # in order: nothing lost or shifted
        assert set(answer) >= {"ok", "events", "state"}
        state = answer["state"]
        assert STATE_KEYS <= set(state)
        assert all(isinstance(n, int) and n >= 0 for n in state["hands"].values())
        assert state["draw_pile"] is None or (isinstance(state["draw_pile"], int)
                                              and state["draw_pile"] >= 0)
        if not answer["ok"]:
            assert isinstance(answer["error"], str) and isinstance(answer["message"], str)
            assert len(answer["message"]) < 2_000, "a bad value is echoed cut short"
        if expect == BAD_INPUT:
            assert answer["error"] == "bad-input", (line[:200], answer)
        if expect == REFUSED:
            assert answer["error"] in ("bad-input", "bad-card"), (line[:200], answer)
        if expect in (BAD_INPUT, REFUSED):
            assert answer["events"] == [] and state == previous, "a refused line changes nothing"
        previous = state
    return len(lines)


def run_command(file: str) -> tuple[str, str, int]:
    """``companion replay FILE`` in this process: the command's own ``run``."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = replay_command.run(argparse.Namespace(file=file))
    return out.getvalue(), err.getvalue(), status


# No shrinking: a run of 120 lines, some of them 100 KB, shrinks for minutes; the failing line is
# in the assertion's message.
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None, report_multiple_bugs=False,
                print_blob=True,
                phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))


def test_mutated_lines_from_a_file():
    replayed = []

    @FUZZ
    @given(runs())
    def from_a_file(run):
        lines, expects = run
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "game.jsonl"
            path.write_bytes(b"\n".join(lines) + b"\n")
            out, err, status = run_command(str(path))
        assert status == 0
        replayed.append(check_answers(lines, expects, out, err))

    from_a_file()
    assert sum(replayed) >= MIN_LINES // 2


def test_mutated_lines_from_standard_input(monkeypatch):
    replayed = []

    @FUZZ
    @given(runs())
    def from_stdin(run):
        lines, expects = run
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"\n".join(lines))))
        out, err, status = run_command("-")
        assert status == 0
        replayed.append(check_answers(lines, expects, out, err))

    from_stdin()
    assert sum(replayed) >= MIN_LINES // 2


def test_the_command_as_a_process_goes_on_past_bad_bytes(tmp_path):
    setup, script = games()[1]
    good = [_dump(a) for a in script[:6]]
    lines = [_dump(setup), good[0], b'{"by": "ann", "do": "uno", "x": "\xff\xfe"}', good[1],
             _with_raw(script[2], "do", "[" * 100_000 + "]" * 100_000), good[2],
             _with_raw(script[3], "count", "1" * 5_000), good[3],
             _dump({"by": "ann", "do": {"play": 1}}), good[4], b"\xed\xa0\x80", good[5]]
    path = tmp_path / "game.jsonl"
    # Bad bytes on the last lines, after 200 KB of others: nothing before them may be lost.
    path.write_bytes(b"\n".join(lines) + b"\n")
    done = subprocess.run([sys.executable, "-m", "app", "replay", str(path)], capture_output=True,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 0 and done.stderr == b"", done.stderr.decode(errors="replace")
    answers = [_strict_json(line) for line in done.stdout.decode("ascii").splitlines()]
    assert [a["ok"] for a in answers] == [True, False] * 5 + [True]
    assert {a.get("error") for a in answers[1::2]} == {"bad-input"}
    check_answers(lines, [ANY] * len(lines), done.stdout.decode(), "")


def test_a_set_up_line_that_cannot_be_read_exits_2_with_one_message(tmp_path):
    for bad in (b'{"setup": {"game": "\xff"}}', b"[" * 50_000, b'{"setup": ' + b"9" * 5_000 + b"}"):
        path = tmp_path / "bad.jsonl"
        path.write_bytes(bad + b"\n" + _dump(games()[1][1][0]) + b"\n")
        out, err, status = run_command(str(path))
        assert status == 2 and out == ""
        assert err.startswith("companion replay: bad set-up line:") and err.count("\n") == 1, err


def test_a_reader_that_goes_away_is_no_traceback(tmp_path):
    setup, script = games()[1]
    path = tmp_path / "long.jsonl"
    path.write_bytes(b"\n".join([_dump(setup)] + [_dump(script[0])] * 20_000) + b"\n")
    proc = subprocess.Popen([sys.executable, "-m", "app", "replay", str(path)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert _strict_json(proc.stdout.readline())  # like `| head -1`
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 1 and b"Traceback" not in err, err.decode()
