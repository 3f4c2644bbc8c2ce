"""What the league accepts from a table: every incoming message checked against one schema, here.

:func:`parse` takes a message's kind (the last level of its topic: ``events``, ``state`` or
``online``) and its payload (bytes) and returns what the league keeps, or raises
:class:`Rejected` saying why, in one line. Every message is bounded as a whole (its size, how
deep it nests, the length of every string, list and object, every number finite and every
whole number within what a browser's JSON keeps exactly, ±2^53) and then typed field by field
(:data:`ENTRY`, :data:`STATE`): what the league stores, counts and the page draws has the type
they expect, and ``GET /api/league`` is always valid JSON. Fields a table sends that the league
does not read are bounded only.

Written by hand (a few combinators, no dependency): the project has no JSON Schema library, and
the bounds that matter here (depth before recursion, ``NaN``, integers beyond 2^53) are the
ones such libraries leave to the JSON parser.

>>> parse("events", b'{"seq": 1, "match": 1, "action": {"do": "pass"}, "events": []}')["seq"]
1
>>> parse("events", b'{"seq": 1, "match": 1, "action": {}, "events": [], "time": NaN}')
Traceback (most recent call last):
...
league.schema.Rejected: not JSON (NaN is not a number JSON allows)
>>> parse("state", b'{"seq": 18446744073709551616}')
Traceback (most recent call last):
...
league.schema.Rejected: state.seq: 18446744073709551616 is beyond ±2^53
>>> parse("online", b"true")
True
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Callable

__all__ = ["Rejected", "parse", "check", "KINDS", "MAX_PAYLOAD", "MAX_DEPTH", "MAX_STRING", "MAX_ITEMS",
           "MAX_INT", "ENTRY", "STATE"]

#: The kinds of message a table sends (the last level of its topics).
KINDS = ("events", "state", "online")
#: The largest message the league reads (a grid set-up and its state are a few kB).
MAX_PAYLOAD = 256 * 1024
#: How deep objects and lists may nest (a table's state nests 5 deep).
MAX_DEPTH = 32
#: The longest string (a name, a card, a reason).
MAX_STRING = 4096
#: The most items in one list or keys in one object.
MAX_ITEMS = 2000
#: The largest whole number (a browser keeps integers exactly up to 2^53).
MAX_INT = 2 ** 53

Check = Callable[[Any, str], None]


class Rejected(ValueError):
    """A message the league ignores; the text says why."""


# --- the whole message: sizes, depth, finite numbers ----------------------------------------------

def _bounded(value: Any, where: str) -> None:
    """Every value in ``value``: nests at most MAX_DEPTH, strings, lists and objects within their
    lengths, numbers finite and integers within ±MAX_INT. Iterative (no recursion to exhaust)."""
    stack = [(value, where, 0)]
    while stack:
        item, at, depth = stack.pop()
        if isinstance(item, bool) or item is None:
            continue
        if isinstance(item, int):
            if abs(item) > MAX_INT:
                raise Rejected(f"{at}: {item} is beyond ±2^53")
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise Rejected(f"{at}: {item} is not a finite number")
        elif isinstance(item, str):
            if len(item) > MAX_STRING:
                raise Rejected(f"{at}: a string of {len(item)} characters (at most {MAX_STRING})")
        elif isinstance(item, (list, dict)):
            if depth >= MAX_DEPTH:
                raise Rejected(f"{at}: nested more than {MAX_DEPTH} deep")
            if len(item) > MAX_ITEMS:
                raise Rejected(f"{at}: {len(item)} items (at most {MAX_ITEMS})")
            if isinstance(item, dict):
                for key, inner in item.items():
                    if len(key) > MAX_STRING:
                        raise Rejected(f"{at}: a key of {len(key)} characters")
                    stack.append((inner, f"{at}.{key[:40]}", depth + 1))
            else:
                stack.extend((inner, f"{at}[{i}]", depth + 1) for i, inner in enumerate(item))


# --- the fields: small checks that compose ----------------------------------------------------------

def integer(low: int, high: int = MAX_INT) -> Check:
    def check(value: Any, at: str) -> None:
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise Rejected(f"{at} must be a whole number from {low} to {high}")
    return check


def number(value: Any, at: str) -> None:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise Rejected(f"{at} must be a number")


def text(longest: int) -> Check:
    def check(value: Any, at: str) -> None:
        if not isinstance(value, str) or len(value) > longest:
            raise Rejected(f"{at} must be a string of at most {longest} characters")
    return check


def pattern(regex: str, what: str) -> Check:
    compiled = re.compile(regex)

    def check(value: Any, at: str) -> None:
        if not isinstance(value, str) or not compiled.fullmatch(value):
            raise Rejected(f"{at} must be {what}")
    return check


def nullable(inner: Check) -> Check:
    def check(value: Any, at: str) -> None:
        if value is not None:
            inner(value, at)
    return check


def list_of(inner: Check, longest: int = MAX_ITEMS) -> Check:
    def check(value: Any, at: str) -> None:
        if not isinstance(value, list) or len(value) > longest:
            raise Rejected(f"{at} must be a list of at most {longest}")
        for i, item in enumerate(value):
            inner(item, f"{at}[{i}]")
    return check


def map_of(inner: Check) -> Check:
    def check(value: Any, at: str) -> None:
        if not isinstance(value, dict):
            raise Rejected(f"{at} must be an object")
        for key, item in value.items():
            inner(item, f"{at}.{key[:40]}")
    return check


def anything(value: Any, at: str) -> None:
    """Bounded only (by :func:`_bounded`)."""


def obj(required: dict[str, Check], optional: dict[str, Check] | None = None) -> Check:
    """An object with the ``required`` fields and perhaps the ``optional`` ones, each checked;
    other fields are bounded only."""
    optional = optional or {}

    def check(value: Any, at: str) -> None:
        if not isinstance(value, dict):
            raise Rejected(f"{at} must be a JSON object")
        for key, inner in required.items():
            if key not in value:
                raise Rejected(f"{at} has no {key}")
            inner(value[key], f"{at}.{key}")
        for key, inner in optional.items():
            if key in value:
                inner(value[key], f"{at}.{key}")
    return check


# --- the schema ---------------------------------------------------------------------------------

NAME = text(64)
#: A log's id (:mod:`league.feed`): which stream of a table's entries a message belongs to.
EPOCH = pattern(r"[A-Za-z0-9_-]{1,64}", "1-64 letters, digits, - or _")
SCORES = map_of(number)

#: One event of an entry: the league reads its type, a round's scores and a match's champions.
EVENT = obj({}, {"type": NAME, "scores": SCORES, "champions": list_of(NAME, 16)})

#: One entry of a table's event log (``.../events``).
ENTRY = obj(
    {"seq": integer(1), "match": integer(1), "action": obj({}, {"do": NAME}),
     "events": list_of(EVENT)},
    {"epoch": EPOCH, "game": nullable(NAME), "seats": list_of(NAME, 16), "source": nullable(NAME),
     "time": number})

#: A table's state (``.../state``, retained): the fields the league and its page read are typed.
STATE = obj(
    {},
    {"epoch": EPOCH, "match": nullable(integer(1)), "seq": integer(0), "time": number,
     "game": nullable(NAME), "seats": list_of(NAME, 16), "turn": nullable(NAME),
     "top": nullable(NAME), "color": nullable(NAME), "side": nullable(NAME),
     "champions": list_of(NAME, 16), "scores": SCORES,
     "grid": nullable(list_of(list_of(nullable(NAME), 64), 64)),
     "pawn": nullable(list_of(integer(-MAX_INT), 2))})


def _no_constant(name: str) -> Any:
    raise Rejected(f"{name} is not a number JSON allows")


def parse(kind: str, payload: bytes) -> Any:
    """The message of ``kind`` in ``payload``, checked: True/False for ``online``, the object for
    ``events`` (:data:`ENTRY`) and ``state`` (:data:`STATE`). :class:`Rejected` says why not."""
    if kind not in KINDS:
        raise Rejected(f"{kind[:40]!r} is not a kind of message a table sends")
    if len(payload) > MAX_PAYLOAD:
        raise Rejected(f"{len(payload)} bytes is more than a table ever sends")
    try:
        body = payload.decode("utf-8")
    except UnicodeDecodeError:
        raise Rejected("not UTF-8") from None
    if kind == "online":
        if body not in ("true", "false"):
            raise Rejected("online must be true or false")
        return body == "true"
    try:
        value = json.loads(body, parse_constant=_no_constant)
    except Rejected as exc:
        raise Rejected(f"not JSON ({exc})") from None
    except RecursionError:
        raise Rejected(f"nested more than {MAX_DEPTH} deep") from None
    except ValueError as exc:  # (also a number of more than 4300 digits)
        raise Rejected(f"not JSON ({str(exc)[:120]})") from None
    return check(kind, value)


def check(kind: str, value: Any) -> Any:
    """``value`` (parsed already: what a league of an older version kept) checked as a message
    of ``kind`` (``events`` or ``state``); returned, or :class:`Rejected`."""
    label = "entry" if kind == "events" else "state"
    _bounded(value, label)
    (ENTRY if kind == "events" else STATE)(value, label)
    return value
