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
    margin_ratio: float = knob(
        "likelihood ratio", "how far the best explanation must beat the next (and a card read must clear "
        "'no card' and illegal cards, by half of it): higher: fewer wrong commits between look-alike "
        "cards, more questions; also how close to the best read another card must be to be offered")
    illegal_confidence: float = knob(
        "probability", "how sure an agreed read must be to call an illegal play on its own (and 1 minus "
        "it: how likely every legal read together may be at most): higher: fewer false illegal calls, "
        "more illegal attempts asked about instead of called")
    named_confidence: float = knob(
        "probability", "how sure an agreed read must be for an illegal call when no legal card is near it, "
        "and for a card put where the hidden pawn stands to count: higher: fewer false calls, "
        "more questions")
    pawn_ratio: float = knob(
        "likelihood ratio", "how much a pawn marker seen on the cell a step leads to favours that step: "
        "higher: a step seen is committed over a card's weaker read")
    unsure_choices: int = knob(
        "choices", "the most actions an unsure question offers: higher: the card put down is more often "
        "offered, longer questions")
    best_choices: int = knob(
        "choices", "the legal actions that explain a read best that a question always offers (several "
        "changes at once: per region; a same face: the other cards): higher: longer questions")
    colour_wait_s: float = knob(
        "seconds", "how long a wild's colour is awaited from its player's phone before the table is "
        "asked: higher: fewer colour questions, a longer pause of the turn timer")
    same_face_look: float = knob(
        "look distance", "how different a region that reads the card it held must look for a new card "
        "of the same face (or that card moved): lower: more same-face plays seen, more questions "
        "about cards nobody touched")
    nudged_same_face_look: float = knob(
        "look distance", "the same after the camera was nudged and the whole table read again: lower: "
        "more same-face plays seen through a nudge, more questions about its misfit")
    new_face_look: float = knob(
        "look distance", "how different a region must look to show another card whatever its read and "
        "whether a hand was seen there: lower: fewer plays missed under gloss, more light taken for "
        "a card")
    nudge_misfit_factor: float = knob(
        "ratio", "after a nudge, how many times the median look change of the table a region must change "
        "to show a card put down: higher: fewer nudged cards taken for plays, more same faces missed")
    nudged_regions: int = knob(
        "regions", "the fewest card regions read again at once (also more than half of them) that mean "
        "the camera was nudged: lower: light or a hand stirring a few regions is more often taken "
        "for a nudge")
    expected_odds: float = knob(
        "probability", "how likely the read must give the card the state has there for the region to "
        "still show it: higher: more regions looked at as changed")
    formless_confidence: float = knob(
        "probability", "below this a read that is not clear shows no card (a hand, the pawn's body) "
        "and waits near the hidden pawn: higher: more weak reads wait instead of being asked")


@dataclass(frozen=True)
class ReaderTuning:
    """The table reader's thresholds (``[reader]`` in the file)."""

    # finding and reading a card in a region
    card_diff: float = knob(
        "summed |BGR| grey levels from the cloth that make a pixel card in good light (dim light"
        " lowers it to 40 %)",
        "lower: dark cards on dark cloth found, more shadows and cloth texture taken for a card")
    weak_read: float = knob(
        "probability of a card's likeliest label",
        "higher: more reads looked at again among the patch's card outlines (a fit between a card"
        " and the one below is caught), more classifier work per changed frame")
    sure_outline: float = knob(
        "probability",
        "higher: a re-found outline or a card where no outline showed counts less often (more"
        " 'no card' and questions), fewer wrong cards taken from a stray outline")
    contradicted_odds: float = knob(
        "odds of the card seen over the card its unsmeared read names",
        "higher: a card seen through a smear that the sharpened read contradicts stays surer"
        " (fewer questions), more wrong commits through a smear")
    contradicting_read: float = knob(
        "probability the sharpened read gives its other card",
        "lower: more sharpened reads contradict the card seen (more questions), fewer wrong"
        " commits through a smear")
    unsmear_pad: int = knob(
        "pixels of margin round what is read where the smear is taken out",
        "higher: the filtered piece's ringing edges stay further from the cards read, more"
        " pixels filtered per smeared frame")
    # what changed, and when to look
    touched_change: float = knob(
        "the change detector's measure (grey levels at its small frame)",
        "lower: more regions a hand was over are read again (a card put where its twin lay is"
        " seen), more reads of regions that did not change")
    strong_band: float = knob(
        "multiple of the border band's change threshold",
        "higher: fewer band changes count as an arm (waited for strong_band_frames), more as a"
        " shadow or light (faint_band_frames)")
    strong_band_frames: int = knob(
        "settled frames",
        "higher: an arm held still over the band is waited out longer, a thing left lying on the"
        " band holds reading back longer")
    faint_band_frames: int = knob(
        "settled frames",
        "higher: a faint still hand on the band is waited out longer, a shadow or light change"
        " on the band holds reading back longer")
    armless_frames: int = knob(
        "settled frames",
        "lower: a still thing in the band with no arm over the mat's rim becomes the table"
        " sooner, a hand resting there is taken for the table sooner")
    held_hand_frames: int = knob(
        "settled frames",
        "higher: a hand held still at the cards is waited out longer (fingers not read as card),"
        " something taken for an arm lying by the cards holds readings back longer")
    pile_wait: int = knob(
        "settled frames",
        "higher: a reach waits longer for the draw pile's verdict (fewer unknown draws),"
        " readings come later")
    # the camera nudged
    nudge_share: float = knob(
        "share of the card regions changed at once",
        "lower: the camera is checked for a nudge more often (slower frames), a nudge is caught"
        " with fewer regions changed")
    view_still_px: float = knob(
        "pixels the play area's corners moved (markers or the table's texture)",
        "higher: small nudges are ignored (their regions read through the old view), fewer"
        " needless recalibrations from a marker's noisy corners")
    grid_view_still_px: float = knob(
        "pixels the play area's corners moved (a view from the grid's cards)",
        "higher: a rough view from the cards replaces the view less often, a real nudge of that"
        " size goes unfollowed")
    max_follow_px: float = knob(
        "pixels the play area's corners moved",
        "higher: larger nudges of a markerless view are followed by the table's texture, a bad"
        " texture match is taken more often (instead of calibrating from the grid's cards)")
    arms_same_place_px: float = knob(
        "pixels the view moved",
        "higher: the arms followed so far keep their places across a larger nudge, an arm's"
        " place may be off by that much")


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
    sure_alone: float = knob(
        "probability", "lower: more cards read whole believed on the card model alone, without a "
        "corner index reading their label (more false cards on photos without a card)")
    index_agree: float = knob(
        "probability", "higher: a corner must read a card's label more surely to confirm it "
        "(fewer false cards, more real cards under a thumb doubted)")
    seen_not_index: float = knob(
        "probability", "lower: more of what the index finder sees left of the cards read whole dismissed "
        "as not an index (the index model reads 'none' there at least this surely): less CPU on "
        "cluttered tables, a covered card whose index reads badly missed")
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


if __name__ == "__main__":  # python -m companion.tuning: the fields, as the manual lists them
    for row in describe():
        print(f"[{row['section']}] {row['name']} ({row['unit']}): {row['trades']}")
