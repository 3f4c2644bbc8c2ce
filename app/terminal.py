"""The demo's and the table's terminal: each event in one line of words.

An event's fields are written ``name=value``; what is not a plain value is said in words, never
as Python's lists and dicts: a cell ``4,3``, a list ``ann, ben``, a seating ``ann south, ben
west``, an action ``ann plays red-5 on cell 1,2``. A camera question says what it asks and its
choices, numbered as the page and the confirm button take them.

>>> event_fields("moved", {"seat": "east", "from": [2, 2], "to": [1, 2]})
'seat=east from=2,2 to=1,2'
>>> said = event_fields("confirm-needed", {"id": 3, "kind": "unsure", "seat": "ann",
...     "region": "discard", "card": "red-5", "choices": [
...         {"id": 0, "action": {"by": "ann", "do": "play", "card": "red-5"}},
...         {"id": 1, "action": None, "nothing": "misread"}]})
>>> for part in said.split(". "):
...     print(part)
question 3 (unsure) for ann about the discard pile, read red-5: 0) ann plays red-5; 1) nothing happened (misread)
Answer on a phone or the table view; the confirm button takes choice 0
"""

from __future__ import annotations

from typing import Any

__all__ = ["event_fields", "action_words", "region_words"]

_VERBS = {"play": "plays", "move": "moves the pawn", "discard": "discards", "draw": "draws",
          "pass": "passes", "uno": "calls UNO", "catch": "catches", "accept": "accepts",
          "challenge": "challenges", "reveal": "reveals", "declare": "declares", "show": "shows",
          "score": "scores", "round": "starts the next round", "penalty": "hands out a penalty",
          "timeout": "runs out of time"}


def _cell(value) -> str | None:
    if isinstance(value, (list, tuple)) and len(value) == 2 and all(isinstance(v, int) for v in value):
        return f"{value[0]},{value[1]}"
    return None


def region_words(region: str | None) -> str:
    """``discard`` -> the discard pile, ``cell-1-2`` -> cell 1,2."""
    if region is None:
        return "the table"
    if region.startswith("cell-"):
        return "cell " + ",".join(region.split("-")[1:])
    return {"discard": "the discard pile", "draw": "the draw pile", "pawn": "the pawn"}.get(
        region, region)


def action_words(action: dict[str, Any] | None) -> str:
    """A replay action (``{"by", "do", ...}``) in words: ``ann plays red-5 (blue) on cell 1,2``."""
    if not isinstance(action, dict):
        return "nothing"
    do = action.get("do")
    words = [str(action.get("by") or "someone"), _VERBS.get(do, str(do))]
    if action.get("card"):
        words.append(str(action["card"]))
    if action.get("color"):
        words.append(f"({action['color']})")
    if _cell(action.get("cell")):
        words.append(f"on cell {_cell(action['cell'])}")
    if _cell(action.get("to")):
        words.append(f"to {_cell(action['to'])}")
    for key in ("target", "count", "points", "verdict"):
        if action.get(key) not in (None, ""):
            words.append(f"{key} {value_words(action[key])}")
    return " ".join(words)


def value_words(value: Any) -> str:
    """One field's value in words (a cell, a list, a mapping, an action)."""
    cell = _cell(value)
    if cell is not None:
        return cell
    if isinstance(value, dict):
        if "do" in value and "by" in value:
            return action_words(value)
        return ", ".join(f"{k} {value_words(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(value_words(v) for v in value)
    return str(value)


def _question(data: dict[str, Any]) -> str:
    head = f"question {data.get('id')} ({data.get('kind') or 'unsure'})"
    if data.get("seat"):
        head += f" for {data['seat']}"
    head += f" about {region_words(data.get('region'))}"
    if data.get("card"):
        head += f", read {data['card']}"
    if data.get("by"):
        head += f", {data['by']}'s hand seen ({data.get('did') or 'play'})"
    choices = []
    for c in data.get("choices") or []:
        what = (action_words(c["action"]) if c.get("action") is not None
                else f"nothing happened ({c['nothing']})" if c.get("nothing") else "nothing happened")
        choices.append(f"{c.get('id')}) {what}")
    first = (data.get("choices") or [{}])[0].get("id")
    out = f"{head}: {'; '.join(choices)}. Answer on a phone or the table view"
    if first is not None:
        out += f"; the confirm button takes choice {first}"
    if data.get("other"):
        out += "; another card can be named on the page"
    return out


def event_fields(type: str, data: dict[str, Any]) -> str:
    """The words after an event's name in the terminal (``state`` and ``message`` left out)."""
    if type == "confirm-needed":
        return _question(data)
    return " ".join(f"{k}={value_words(v)}" for k, v in data.items()
                    if k not in ("state", "message") and v not in (None, "", [], {}))
