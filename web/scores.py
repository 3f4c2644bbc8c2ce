"""The scoreboard: rounds and totals of a match, and the chart of the scores, drawn as SVG here.

Round results come from the event log (``round-over`` / ``game-over`` events carry every seat's
match total after that round), so the scoreboard survives a restart like the match does.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Any, Callable

__all__ = ["Scoreboard", "scoreboard", "chart_svg", "SERIES_COLORS"]

# Distinct for the common colour-blindness types (Okabe-Ito), and each line also has its own
# marker shape and a label at its end, so colour is never the only cue.
SERIES_COLORS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#000000",
                 "#F0E442", "#999999", "#882255")
_MARKERS = ("circle", "square", "diamond", "triangle")


@dataclass(frozen=True)
class Scoreboard:
    """One match: ``rounds[i]`` is ``{"winners": [...], "scores": {seat: total}}``."""

    match_id: int | None
    game: str | None
    seats: list[str]
    rounds: list[dict[str, Any]]
    totals: dict[str, int]
    champions: list[str]

    def round_points(self) -> list[dict[str, int]]:
        """What each seat scored in each round (the rounds carry running totals: the difference
        from the round before).

        >>> board = Scoreboard(1, "scoreboard", ["ann", "ben"], [
        ...     {"winners": ["ann"], "scores": {"ann": 42, "ben": 0}},
        ...     {"winners": ["ben"], "scores": {"ann": 42, "ben": 25}}], {}, [])
        >>> board.round_points()
        [{'ann': 42, 'ben': 0}, {'ann': 0, 'ben': 25}]
        """
        out, before = [], {}
        for r in self.rounds:
            now = {s: int(r["scores"].get(s, 0)) for s in self.seats}
            out.append({s: now[s] - before.get(s, 0) for s in self.seats})
            before = now
        return out

    def to_json(self) -> dict[str, Any]:
        return {"match_id": self.match_id, "game": self.game, "seats": self.seats,
                "rounds": self.rounds, "totals": self.totals, "champions": self.champions}


def scoreboard(match: dict[str, Any] | None, state: dict[str, Any] | None = None) -> Scoreboard:
    """The scoreboard of one ``EventLog.matches()`` entry; ``state`` (if it is the match being
    played) gives the live totals."""
    if match is None:
        return Scoreboard(None, None, [], [], {}, [])
    setup = match.get("setup", {}).get("setup", {})
    seats = list(setup.get("seats", []))
    rounds = [r for r in match.get("rounds", []) if isinstance(r.get("scores"), dict)]
    if state is not None and isinstance(state.get("scores"), dict):
        totals = dict(state["scores"])
        champions = list(state.get("champions") or [])
    else:
        totals = dict(rounds[-1]["scores"]) if rounds else {s: 0 for s in seats}
        result = match.get("result") or {}
        champions = list(result.get("champions") or [])
    return Scoreboard(match.get("id"), setup.get("game"), seats, rounds, totals, champions)


def chart_svg(board: Scoreboard, *, width: int = 480, height: int = 300, title: str = "",
              seat_name: Callable[[str], str] = str) -> str:
    """A line chart of each seat's total after every round (round 0 = the start, all zero).
    ``seat_name`` says a seat as the page does (the grid game's sides in its language)."""
    seats = board.seats
    series = {s: [0] + [int(r["scores"].get(s, 0)) for r in board.rounds] for s in seats}
    n = len(board.rounds)
    values = [v for vs in series.values() for v in vs] or [0]
    lo, hi = min(0, min(values)), max(1, max(values))
    left, right, top, bottom = 40, 100, 16, 34
    plot_w, plot_h = width - left - right, height - top - bottom

    def x(i: int) -> float:
        return left + (plot_w * i / n if n else plot_w / 2)

    def y(v: float) -> float:
        return top + plot_h * (hi - v) / (hi - lo)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
           f'class="chart" role="img" aria-label="{escape(title)}">']
    if title:
        out.append(f"<title>{escape(title)}</title>")
    for v in _ticks(lo, hi):
        out.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{y(v):.1f}" y2="{y(v):.1f}" '
                   f'class="grid"/><text x="{left - 6}" y="{y(v) + 4:.1f}" class="tick" '
                   f'text-anchor="end">{v}</text>')
    for i in range(n + 1):
        out.append(f'<text x="{x(i):.1f}" y="{height - 12}" class="tick" text-anchor="middle">{i}</text>')
    label_y = _spread({seat: y(series[seat][-1]) for seat in seats}, gap=17)
    for k, seat in enumerate(seats):
        color = SERIES_COLORS[k % len(SERIES_COLORS)]
        pts = [(x(i), y(v)) for i, v in enumerate(series[seat])]
        path = " ".join(f"{px:.1f},{py:.1f}" for px, py in pts)
        out.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="3" '
                   f'stroke-linejoin="round"/>')
        for px, py in pts:
            out.append(_marker(_MARKERS[k % len(_MARKERS)], px, py, color))
        lx = pts[-1][0]
        out.append(f'<text x="{lx + 10:.1f}" y="{label_y[seat] + 5:.1f}" class="label" '
                   f'fill="{color}">{escape(seat_name(seat))} {series[seat][-1]}</text>')
    out.append("</svg>")
    return "".join(out)


def _spread(ys: dict[str, float], gap: float) -> dict[str, float]:
    """The end labels' heights, pushed apart so that equal totals do not print on each other."""
    out: dict[str, float] = {}
    last = None
    # from the lowest line up (the x-axis numbers are below), then down again if off the top
    for seat, value in sorted(ys.items(), key=lambda kv: -kv[1]):
        value = value if last is None else min(value, last - gap)
        out[seat] = last = value
    last = None
    for seat, value in sorted(out.items(), key=lambda kv: kv[1]):
        value = max(value, 12.0) if last is None else max(value, last + gap)
        out[seat] = last = value
    return out


def _marker(kind: str, x: float, y: float, color: str) -> str:
    if kind == "circle":
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="5" fill="{color}"/>'
    if kind == "square":
        return f'<rect x="{x - 5:.1f}" y="{y - 5:.1f}" width="10" height="10" fill="{color}"/>'
    if kind == "diamond":
        return (f'<polygon points="{x:.1f},{y - 6:.1f} {x + 6:.1f},{y:.1f} {x:.1f},{y + 6:.1f} '
                f'{x - 6:.1f},{y:.1f}" fill="{color}"/>')
    return (f'<polygon points="{x:.1f},{y - 6:.1f} {x + 6:.1f},{y + 5:.1f} {x - 6:.1f},{y + 5:.1f}" '
            f'fill="{color}"/>')


def _ticks(lo: float, hi: float) -> list[int]:
    span = hi - lo
    step = 1
    for candidate in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000):
        step = candidate
        if span / candidate <= 6:
            break
    start = int(lo // step) * step
    return [v for v in range(start, int(hi) + step, step) if lo <= v <= hi]
