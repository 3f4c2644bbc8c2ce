"""Examples in the docs that tests run: each ```jsonl block followed by a ```json block holding
the part of the last answer the page promises."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def doc_examples(doc: Path) -> list[tuple[int, list[str], dict]]:
    """(line number, input lines, expected part of the last answer) for each ```jsonl block."""
    text = doc.read_text(encoding="utf-8")
    blocks = [(text[:m.start()].count("\n") + 1, m.group(1), m.group(2))
              for m in re.finditer(r"```(\w*)\n(.*?)```", text, re.S)]
    examples = []
    for i, (line, lang, body) in enumerate(blocks):
        if lang == "jsonl":
            follow = blocks[i + 1]
            assert follow[1] == "json", f"{doc.name} line {line}: a jsonl example needs a json answer"
            examples.append((line, body.strip().splitlines(), json.loads(follow[2])))
    return examples


def contains(actual, expected, where="answer") -> None:
    """``expected`` is part of ``actual``: dict keys recursively, lists item by item."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{where}: {actual!r} is not an object"
        for key, value in expected.items():
            assert key in actual, f"{where}: no {key!r} in {actual!r}"
            contains(actual[key], value, f"{where}.{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), \
            f"{where}: {actual!r} != {expected!r}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            contains(a, e, f"{where}[{i}]")
    else:
        assert actual == expected, f"{where}: {actual!r} != {expected!r}"


def run_cli(text: str) -> subprocess.CompletedProcess:
    """``companion replay -`` as a process, fed ``text``."""
    return subprocess.run([sys.executable, "-m", "app", "replay", "-"], input=text,
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
