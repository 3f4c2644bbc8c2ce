"""The page's words as the page's own functions say them (``web/static/common.js``, run under
node by ``tests/support/evaluate.js``: no browser), and the English vocabulary a Japanese page
must not show."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

from web.i18n import strings

ROOT = Path(__file__).resolve().parents[2]
I18N = ROOT / "web" / "i18n"
NODE = shutil.which("node") or shutil.which("nodejs")


def words(text: str) -> set[str]:
    """The words of three letters or more in ``text``, lower case, its {fields} left out."""
    return {w.lower() for w in re.findall(r"[A-Za-z]{3,}", re.sub(r"\{\w+\}", " ", text))}


def _vocabulary() -> set[str]:
    """The English catalogue's words that the Japanese catalogue does not use itself."""
    en = json.loads((I18N / "en.json").read_text(encoding="utf-8"))
    ja = json.loads((I18N / "ja.json").read_text(encoding="utf-8"))
    return set().union(*map(words, en.values())) - set().union(*map(words, ja.values()))


VOCABULARY = _vocabulary()


def evaluate(lang: str, exprs: list[str]) -> list:
    """Each JavaScript expression's value, evaluated with the page's functions in ``lang``."""
    out = subprocess.run([NODE, str(ROOT / "tests" / "support" / "evaluate.js")], check=True,
                         input=json.dumps({"lang": lang, "strings": strings(lang), "exprs": exprs}),
                         capture_output=True, text=True, timeout=60)
    return json.loads(out.stdout)
