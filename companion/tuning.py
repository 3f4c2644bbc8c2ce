"""Every threshold of the camera referee and the table reader, in one frozen value.

A threshold trades one kind of mistake for another (a lower commit ratio asks fewer questions
and risks more wrong commits), so none is a constant buried in the code: each is a field of
:class:`RefereeTuning` or :class:`ReaderTuning`, with its unit and what it trades in the
field's ``metadata``, and its value comes from one versioned file, ``companion/tuning.toml``.
A benchmark or a calibration script runs with another file (``load(path)``); the product uses
:func:`default`.

The file must name every field of every section and nothing else: a missing, unknown or
mistyped value is a :class:`TuningError` that names it, never a silent default.

>>> t = default()
>>> t.version >= 1
True
>>> t.replace(referee={"commit_ratio": 99.0}).referee.commit_ratio
99.0
"""

from __future__ import annotations

import dataclasses
import functools
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

__all__ = ["DEFAULT_PATH", "PhotoTuning", "ReaderTuning", "RefereeTuning", "Tuning", "TuningError",
           "default", "describe", "load", "loads"]

#: The tuning the product runs with.
DEFAULT_PATH = Path(__file__).with_name("tuning.toml")
#: The file format this module reads (the file's ``version``).
VERSION = 1


class TuningError(ValueError):
    """A tuning file that is not one this version reads: it names the file, section and field."""


def knob(unit: str, trades: str) -> Any:
    """A tuning field: no default (the file gives every value), its unit and what it trades."""
    return field(metadata={"unit": unit, "trades": trades})


@dataclass(frozen=True)
class RefereeTuning:
    """The camera referee's thresholds (``[referee]`` in the file).

    Each field says its unit and what raising it trades (``describe()`` lists them).
    """

    commit_ratio: float = knob(
        "likelihood ratio", "higher: fewer wrong commits, more questions to the table")


@dataclass(frozen=True)
class ReaderTuning:
    """The table reader's thresholds (``[reader]`` in the file)."""

    min_card_confidence: float = knob(
        "probability", "higher: fewer false cards read, more cards left unread")


_SECTIONS: dict[str, type[Any]] = {"referee": RefereeTuning, "reader": ReaderTuning}


@dataclass(frozen=True)
class Tuning:
    """All the thresholds: ``referee`` and ``reader``, from a file of format ``version``."""

    version: int
    referee: RefereeTuning
    reader: ReaderTuning
    photo: PhotoTuning

    def replace(self, **sections: dict[str, Any]) -> "Tuning":
        """A copy with some fields changed, e.g. ``replace(referee={"commit_ratio": 50.0})``."""
        changed = {name: dataclasses.replace(getattr(self, name), **values)
                   for name, values in sections.items()}
        return dataclasses.replace(self, **changed)


def _section(cls: type[Any], values: Any, where: str) -> Any:
    if not isinstance(values, dict):
        raise TuningError(f"{where}: expected a table of values")
    names = {f.name for f in fields(cls)}
    unknown = sorted(set(values) - names)
    missing = sorted(names - set(values))
    if unknown:
        raise TuningError(f"{where}: unknown field(s) {', '.join(unknown)}")
    if missing:
        raise TuningError(f"{where}: missing field(s) {', '.join(missing)}")
    out = {}
    for f in fields(cls):
        v = values[f.name]
        want = f.type if isinstance(f.type, str) else f.type.__name__
        if want == "float" and isinstance(v, int) and not isinstance(v, bool):
            v = float(v)
        if want == "float" and not isinstance(v, float) or want == "int" and (
                not isinstance(v, int) or isinstance(v, bool)):
            raise TuningError(f"{where}.{f.name}: expected {want}, got {v!r}")
        out[f.name] = v
    return cls(**out)


def loads(text: str, where: str = "tuning") -> Tuning:
    """The tuning in TOML ``text`` (``where`` names it in errors)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise TuningError(f"{where}: not TOML: {e}") from None
    if data.get("version") != VERSION:
        raise TuningError(f"{where}: version {data.get('version')!r}, this build reads {VERSION}")
    extra = sorted(set(data) - set(_SECTIONS) - {"version"})
    if extra:
        raise TuningError(f"{where}: unknown section(s) {', '.join(extra)}")
    return Tuning(version=VERSION, **{name: _section(cls, data.get(name), f"{where} [{name}]")
                                      for name, cls in _SECTIONS.items()})


def load(path: str | Path = DEFAULT_PATH) -> Tuning:
    """The tuning in the file at ``path``."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise TuningError(f"{path}: cannot read: {e.strerror or e}") from None
    return loads(text, str(path))


@functools.cache
def default() -> Tuning:
    """The tuning the product runs with (``companion/tuning.toml``, read once)."""
    return load(DEFAULT_PATH)


def describe() -> list[dict[str, str]]:
    """Every field: section, name, unit and what it trades (for the manual and ``--help``)."""
    return [{"section": name, "name": f.name, "unit": f.metadata["unit"],
             "trades": f.metadata["trades"]}
            for name, cls in _SECTIONS.items() for f in fields(cls)]


@dataclass(frozen=True)
class PhotoTuning:
    """The thresholds of ``companion recognize``'s pass for partly covered cards
    (:mod:`vision.partial`, ``[photo]`` in the file): what makes an outline a card under others,
    and where the pass looks. vision/partial.py says what each measures."""

    known_iou: float = knob(
        "IoU",
        "higher: the place of a card read whole read again more often; lower: outlines of cards under it dropped")
    index_weight: float = knob(
        "share",
        "higher: the index model outweighs the quarter-card model: cut values read better, patterns worse")
    min_mass: float = knob(
        "probability", "higher: fewer strips and patterns reported as cards, more half-hidden cards missed")
    min_label: float = knob(
        "probability", "higher: fewer misread strips, more covered cards whose index is cut missed")
    agreeing_reads: int = knob(
        "outlines", "higher: fewer cut indices lifted by outlines that agree, fewer misreads lifted")
    agreeing_least: float = knob(
        "probability", "lower: more cut indices lifted by agreeing outlines, more misreads lifted")
    agreeing_mean: float = knob(
        "probability", "lower: more cut indices lifted by agreeing outlines, more misreads lifted")
    wild_min_label: float = knob(
        "probability", "lower: more covered wilds found, more strip edges read as wilds")
    same_card_iou: float = knob(
        "IoU", "higher: two outlines of one card of one label counted twice more often; lower: twins dropped")
    same_place_iou: float = knob(
        "IoU", "lower: neighbours of a tight fan dropped as one card; higher: a card read twice counted twice")
    same_label_corner: float = knob(
        "card widths", "lower: more twins of a label found, more cards on loose outlines counted twice")
    same_label_corner_whole: float = knob(
        "card widths", "as same_label_corner, beside a card read whole")
    back_same_iou: float = knob(
        "IoU", "higher: backs of a tight fan kept, one back counted twice more often")
    back_corner: float = knob(
        "card widths", "higher: fewer backs read twice at another corner, backs fanned about a pivot dropped")
    back_corner_iou: float = knob(
        "IoU", "lower: more backs read twice dropped, more fanned backs dropped")
    strip_card_like: float = knob(
        "share", "lower: narrow strips kept, outlines sticking out over the table kept too")
    strip_px: float = knob(
        "pixels a card width", "higher: narrow strips seen on the map, more CPU a photo")
    strip_sure: float = knob(
        "probability", "lower: more strips kept on their index alone on a white table, more misreads kept")
    strip_sure_iou: float = knob(
        "IoU", "higher: sure strips of tight fans kept, outlines grown over a neighbour kept too")
    strip_shrink: float = knob(
        "share", "higher: strips under outlines that overhang seen, outlines beside a card take its overhang")
    covered: float = knob(
        "share", "lower: readings barely touching a card found start chains, lines on the table among them")
    seed: float = knob(
        "probability", "lower: a hand whose top card was missed started more often, lone misreads too")
    odd_shape: float = knob(
        "share", "lower: more cards on outlines a little off reshaped; higher: merged outlines kept")
    reshape_inside: float = knob(
        "share", "lower: cards read whole reshaped onto outlines that only partly hold them")
    back_reshape_iou: float = knob(
        "IoU", "lower: backs moved onto corner outlines half off them")
    odd_sure: float = knob(
        "probability",
        "higher: more cards on loose outlines left out for their corners; lower: hands' outlines kept as one card")
    big_outline: float = knob(
        "card areas", "lower: more large close outlines left out; higher: hands' outlines kept as one card")
    hidden_indices: int = knob(
        "indices", "higher: fewer outlines across a hand's strips left out")
    hidden_below: float = knob(
        "probability", "higher: more cards read whole left out for sure indices inside them")
    unexplained: float = knob(
        "card areas", "higher: the pass skipped on more photos (faster), a narrow strip's card missed more often")
    own_corners: float = knob(
        "probability", "higher: fewer outlines trusted as a card's own: the pass searches more, slower")
    indexless: float = knob(
        "probability", "higher: more cards read whole reshaped when their corners read weakly")
    width_unrefined_sure: float = knob(
        "probability", "lower: widths measured on unsure outlines (a hand's) trusted")
    edge_width_sure: float = knob(
        "probability", "lower: widths measured on unsure outlines (a table's) trusted")
    rough_width: float = knob(
        "share of the short side", "higher: fewer card-like pixels counted on a photo with no card read whole")
    look_margin: float = knob(
        "card widths", "higher: the index finder sees more round each patch left, more CPU")
    search_margin: float = knob(
        "card heights", "higher: the pass searches more round each index seen, more CPU")
    whole_search: float = knob(
        "share of the image", "higher: searched in places more often: less CPU, cards at the places' edges lost")
    far_end: float = knob(
        "times the outline's length", "higher: more second readings at a card's far end dropped, twins too")
    far_end_near: float = knob(
        "times the outline's length", "lower: readings nearer the first dropped as its far end")
    far_end_side: float = knob(
        "card widths", "higher: a leaning camera's far ends dropped, neighbours too")
    far_end_facing: float = knob(
        "cosine", "lower: readings facing other ways (crossed twins) dropped as the far end")
    refine_mass: float = knob(
        "probability", "lower: more outlines moved onto their index, more CPU")
    refine_turn: float = knob(
        "degrees", "higher: outlines further off put right, coarser steps")
    refine_shift: float = knob(
        "card widths", "higher: outlines further off put right, coarser steps")
    refine_rounds: int = knob(
        "rounds", "higher: outlines moved further, 12 readings more an outline a round")
    shown_over: float = knob(
        "card widths", "higher: more readings over a shown index dropped")
    as_read_inside: float = knob(
        "share", "lower: more backs half under a reshaped back dropped")
    isolated_sure: float = knob(
        "probability", "lower: more lone cards the whole-card pass missed kept, more patterns (a sweater) too")
    isolated_card_like: float = knob(
        "share", "lower: more lone cards kept, more patterns too")
    mutual_shrink: float = knob(
        "share", "higher: fewer neighbours taken for one card read at both ends")
    same_index: float = knob(
        "card widths", "higher: more readings at one index taken for one card, close neighbours too")


_SECTIONS["photo"] = PhotoTuning
