"""The page's words in English and Japanese (``en.json``, ``ja.json`` beside this file).

The language comes from ``?lang=`` (remembered in a cookie), else the browser's
``Accept-Language``, else English. A key missing in one language falls back to English.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["LANGS", "DEFAULT", "strings", "choose", "translate"]

LANGS = ("en", "ja")
DEFAULT = "en"
_HERE = Path(__file__).parent


@cache
def strings(lang: str) -> dict[str, str]:
    """Every string of ``lang`` (English where it has none)."""
    base = json.loads((_HERE / "en.json").read_text(encoding="utf-8"))
    if lang != DEFAULT:
        base = {**base, **json.loads((_HERE / f"{lang}.json").read_text(encoding="utf-8"))}
    return base


def choose(query: str | None, cookie: str | None, accept_languages: Any) -> str:
    """The language for one request. ``accept_languages`` is werkzeug's ``request.accept_languages``."""
    for asked in (query, cookie):
        if asked in LANGS:
            return asked
    if accept_languages is not None:
        best = accept_languages.best_match(LANGS)
        if best:
            return best
    return DEFAULT


def translate(lang: str, key: str, **values: Any) -> str:
    text = strings(lang).get(key, key)
    return text.format(**values) if values else text
