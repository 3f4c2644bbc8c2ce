"""Every ``companion ...`` command line in README.md and docs/*.md parses with the real
command line (``app.cli.build_parser``), so that the manual and the commands cannot drift apart.

A command line is a code span or a line of a code block that starts with ``companion``
(or ``.venv/bin/companion``, ``/opt/uno-companion/venv/bin/companion``). The manual's own
notation is read as a reader would: ``[...]`` is optional (its content must parse too),
``a|b`` are alternatives (each must parse), ``NAME...`` is one or more, and an upper-case word
(``N``, ``FILE``, ``OUT.avi``) is a placeholder, given a value of the option's type. An option
named alone in a code span (```--faces real```) must be an option of some command.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

from app.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

_FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
_SPAN = re.compile(r"`([^`\n]+(?:\n[^`\n]+)?)`")  # a span may wrap onto the next line
_START = re.compile(r"(?:^|\s)((?:\.venv/bin/|/opt/uno-companion/venv/bin/)?companion\s+(?:[a-z-]+).*)")
_PLACEHOLDER = re.compile(r"^[A-Z][A-Z0-9_]*(?:\.[a-z0-9]+)?$")
#: Options of other tools that the manual names alone in a code span: deploy/install.sh and
#: uninstall.sh, apt, venv, pytest, python -m vision.train, the benchmarks.
OTHER_TOOLS = {
    "--hostname", "--dry-run", "--root", "--no-apt", "--no-pip", "--no-start", "--python",
    "--wheels", "--purge", "--no-install-recommends", "--doctest-modules", "--dump",
    "--system-site-packages", "--dist", "--durations", "--teacher", "--hold-out-validation",
    "--exclude-round-print", "--background-negatives", "--games", "--seeds", "--conditions",
    "--jobs", "--no-markers", "--per-class", "--epochs", "--write", "--any-release", "--debian",
    # python -m vision.train (the card model's trainer): the drawn prints and close-ups
    "--drawn-prints", "--print-share", "--close-ups", "--covered", "--leave-out-print",
    # python -m vision.train.corners (the corner model's trainer)
    "--tables", "--table-size", "--jitter", "--workers", "--threads", "--base", "--check-every",
    "--max-seconds", "--crops", "--samples", "--per-label",
    # python -m vision.train.index_points (the index finder's trainer)
    "--minutes", "--tables-cache",
    # python -m vision.train.index (the index model's trainer: indices cut by the card over them)
    "--cut",
    # benchmarks/laid_cards.py and benchmarks/fanned_camera.py (a leaning camera)
    "--tilt", "--lean", "--first-round", "--game", "--in-parts", "--styles",
    # python -m vision.train.fanned_misses (which step loses each card of the composed tables)
    "--index-model",
    # benchmarks/table_torture.py (another tuning file; the tuning seeds beside the hold-out)
    "--tuning", "--tuning-seeds", "--holdout-seeds",
    # mypy (make lint)
    "--strict",
}


def _command_texts(page: Path):
    """(line number, text) of every command line on a page."""
    text = page.read_text()
    found = []
    for block in _FENCE.finditer(text):
        start = text[:block.start(1)].count("\n") + 1
        for i, line in enumerate(block.group(1).splitlines()):
            m = _START.search(line.lstrip("$ "))
            if m:
                found.append((start + i, m.group(1)))
    prose = _FENCE.sub(lambda b: "\n" * b.group(0).count("\n"), text)
    for span in _SPAN.finditer(prose):
        body = " ".join(span.group(1).split())
        if re.match(r"(?:\.venv/bin/|/opt/uno-companion/venv/bin/)?companion\s+[a-z-]", body):
            found.append((prose[:span.start()].count("\n") + 1, body))
    return found


def _cut(text: str) -> str:
    """The command alone: no comment, no shell pipe or sequence after it, no table escapes."""
    text = text.replace("\\|", "|")
    text = re.split(r"\s#\s|\s\|\s|\s&&\s|;\s|\s>\s", " " + text + " ", maxsplit=1)[0]
    return text.strip()


def _tokens(text: str) -> list[list[str]]:
    """Tokens, each a list of its alternatives; optional brackets and ``...`` dropped."""
    text = text.replace("[", " ").replace("]", " ").replace("...", " ")
    out = []
    for token in shlex.split(text):
        alternatives = [a for a in token.split("|") if a] if not token.startswith("|") else [token]
        out.append(alternatives or [token])
    return out


def _option_actions(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {o: a for a in parser._actions for o in a.option_strings}


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _sample(action: argparse.Action | None, placeholder: str, k: int) -> str:
    """A value for a placeholder: of the option's type, or one of its choices."""
    if action is None:
        return placeholder
    if action.choices:
        choices = list(action.choices)
        return str(choices[k % len(choices)])
    if action.type is int or getattr(action.type, "__name__", "") in ("_positive",):
        return "2"
    if action.type is float or getattr(action.type, "__name__", "") == "_positive_float":
        return "1.5"
    return placeholder


def _variants(tokens: list[list[str]], sub: argparse.ArgumentParser | None) -> list[list[str]]:
    """The concrete argument lists: one per alternative (the k-th of every token)."""
    actions = _option_actions(sub) if sub is not None else {}
    n = max((len(t) for t in tokens), default=1)
    out = []
    for k in range(n):
        argv, previous = [], None
        for alternatives in tokens:
            word = alternatives[min(k, len(alternatives) - 1)]
            if _PLACEHOLDER.match(word):
                word = _sample(actions.get(previous) if previous else None, word, k)
            argv.append(word)
            previous = word if word.startswith("--") else None
        out.append(argv)
    return out


def _parse(parser: argparse.ArgumentParser, argv: list[str]) -> str | None:
    """None when ``argv`` parses; else what argparse said."""
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            parser.parse_args(argv)
    except SystemExit as exc:
        if exc.code not in (0, None):  # --help and --version exit 0
            return err.getvalue().strip().splitlines()[-1] if err.getvalue() else str(exc.code)
    return None


COMMAND_LINES = [(page, line, text) for page in PAGES for line, text in _command_texts(page)]


def test_the_manual_has_command_lines_to_check():
    assert len(COMMAND_LINES) > 30
    assert {"run", "demo", "replay", "recognize", "record", "mat", "bench", "doctor", "evaluate"} <= {
        _cut(text).split()[1] for _, _, text in COMMAND_LINES}


@pytest.mark.parametrize("page,line,text", COMMAND_LINES,
                         ids=[f"{p.name}:{n}" for p, n, _ in COMMAND_LINES])
def test_every_command_line_of_the_manual_parses(page, line, text):
    parser = build_parser()
    tokens = _tokens(_cut(text))[1:]  # the program's path left out
    commands = _subparsers(parser)
    if len(tokens) == 1 and not tokens[0][0].startswith("-"):  # the command named in a sentence
        assert tokens[0][0] in commands, f"{page.name}:{line}: `{text}`: no such command"
        return
    sub = commands.get(tokens[0][0]) if tokens else None
    hidden = {o for a in (sub._actions if sub else ()) if a.help == argparse.SUPPRESS
              for o in a.option_strings}
    old = [t[0] for t in tokens if t[0] in hidden]
    assert not old, f"{page.name}:{line}: `{text}` uses an old option name: {old}"
    for argv in _variants(tokens, sub):
        problem = _parse(parser, argv)
        assert problem is None, f"{page.name}:{line}: `{text}` -> companion {' '.join(argv)}: {problem}"


def _visible_options() -> set[str]:
    parser = build_parser()
    names = {o for a in parser._actions for o in a.option_strings}
    for sub in _subparsers(parser).values():
        names |= {o for a in sub._actions if a.help != argparse.SUPPRESS for o in a.option_strings}
    return names


def test_every_option_named_alone_belongs_to_a_command():
    known = _visible_options() | OTHER_TOOLS
    unknown = []
    for page in PAGES:
        prose = _FENCE.sub("", page.read_text())
        for span in _SPAN.finditer(prose):
            m = re.match(r"(--[a-z][a-z0-9-]*)", span.group(1))
            if m and m.group(1) not in known:
                unknown.append(f"{page.name}: `{span.group(1)}`")
    assert not unknown, unknown


def test_the_checker_catches_a_wrong_line():
    parser = build_parser()
    assert _parse(parser, ["record", "OUT.avi", "--source", "synthetic"]) is None  # (the old name)
    assert _parse(parser, ["run", "--source", "opencv:OUT.avi"]) is not None
    assert _parse(parser, ["bench", "--game", "poker"]) is not None
    tokens = _tokens(_cut("companion bench [--game grid|flip|poker]"))[1:]
    bench = _subparsers(parser)["bench"]
    assert [_parse(parser, argv) is None for argv in _variants(tokens, bench)] == [True, True, False]
