"""How well the camera reads cards as players really leave them, on the synthetic table.

Two measurements, each on freshly dealt random cards, real faces where the photo data is
(``--faces real``; the held-out photos only) or the drawings (``--faces art``):

* ``discard``: the discard pile read by the table reader (``vision.table_reader``) as a neat
  pile (each card within 2 mm and 5 degrees of the last) and as it really lies
  (:func:`simulator.laid_hands.messy_discard`: within ``--spread`` mm and ``--turn`` degrees, the
  lower cards peeking out on every side), each at first sight and played on (the pile settled,
  then its top card thrown on); right when the stable reading's discard is the top card;
* ``hands``: every loser's hand of a classic round (or a Flip round's, ``--game flip``, on the
  side showing at its end) laid open in its seat's zone, side by side
  (``spread``) or fanned (``fan``), read by the hand scanner (``app.hand_scan``) in the
  1280x720 frame and in a still ``--still-scale`` times as wide (as the camera worker reads
  them: a Pi camera's still is its sensor's full width); card F1 and the share of hands read
  exactly (the scores then need no correction). ``--tilt`` leans the camera (the far side of
  the mat that much smaller, the near side that much larger; 0.06 by default, 0.21 makes the
  far cards 0.65 the near ones' width, a camera about 27 degrees off the vertical).
  ``--in-parts N``: a hand of more than N cards is laid and read in parts of N, as a phone reads
  a hand larger than its zone (:meth:`companion.hand_reading.HandReadings.keep`, then a read
  asked for the next part); the hand counted is the kept parts and the last reading.

    .venv/bin/python benchmarks/laid_cards.py [--faces art|real] [--piles 30] [--rounds 6]
                                              [--parts discard,hands] [--still-scale 2]
                                              [--tilt 0.06] [--game classic|flip]
                                              [--first-round 1] [--in-parts 10]
                                              [--styles spread,fan]
                                              [--out F.json]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.decks import classic_deck
from companion.eventlog import EventLog
from companion.host import Host
from companion.seating import Seating
from simulator.faces import faces_named
from simulator.laid_hands import laid_hands, messy_discard
from simulator.render import CameraPose, SyntheticTable
from simulator.scene import Scene


def _settle(reader, table, scene, t0: float, frames: int = 8):
    reading = None
    for i in range(frames):
        report = reader.process(table.render(scene), t=t0 + i / 10)
        reading = report.reading or reading
    return reading


def discard_pile(faces, piles: int, spread: float, turn: float, seed: int = 7) -> dict:
    """Each pile read two ways: at first sight (a reader that never saw the table: a round's
    start, a recalibration) and played on (the reader saw the pile settle, then the top card is
    thrown on, as in play)."""
    from vision.table_reader import TableReader, default_classifier

    rng = random.Random(seed)
    deck = [c.name for c in classic_deck()]
    classifier = default_classifier("classic")
    out = {}
    for name, (sp, tu) in (("neat", (2.0, 5.0)), ("messy", (spread, turn))):
        for how in ("first-sight", "played-on"):
            right = unread = 0
            wrong = []
            for k in range(piles):
                labels = rng.sample(deck, rng.randint(3, 8))
                pile = messy_discard(labels, "classic", seed=k, spread_mm=sp, turn_deg=tu)
                table = SyntheticTable(1280, 720, seed=k, faces=faces)
                reader = TableReader("classic", view=table.view, classifier=classifier)
                if how == "played-on":
                    _settle(reader, table, Scene(extras=pile[:-1]), 0.0)
                reading = _settle(reader, table, Scene(extras=pile), 10.0)
                got = reading.discard.label if reading is not None and reading.discard else None
                if got == labels[-1]:
                    right += 1
                elif got in (None, "empty"):
                    unread += 1
                else:
                    wrong.append((labels[-1], got))
            out[f"{name} {how}"] = {"piles": piles, "right": right, "unread": unread,
                                    "wrong": len(wrong), "accuracy": round(right / piles, 3),
                                    "misreads": wrong[:6]}
    return out


def hands(faces, rounds: int, style: str, still_scale: float = 2.0,
          tilt: float = CameraPose.tilt, first: int = 1, game: str = "classic",
          in_parts: int = 0) -> dict:
    """Each round's hands read by the hand scanner as the camera worker runs it: in a still
    ``still_scale`` times as wide and high as the 1280x720 frames (a Pi camera's is its sensor's
    full width), or in the frame itself (``still_scale`` 0), the camera leaning by ``tilt``
    (:class:`simulator.render.CameraPose`); rounds ``first`` to ``first + rounds - 1`` (each
    round's number is its seed) of ``game`` (``classic``, or ``flip``: its hands laid on the side
    showing at the round's end, light or dark, and scored on it). ``in_parts``: hands of more
    cards are laid and read that many at a time, each part kept from the phone before the next
    is laid and asked for (0: every hand at once)."""
    from app.hand_scan import HandScanner
    from companion.hand_reading import HandReadError, face_set_of_table
    from tests.support.hands import round_to_show
    from vision.sources import Frame

    tp = fn = fp = exact = total = 0
    sides: Counter = Counter()
    for seed in range(first, first + rounds):
        host = Host(EventLog(":memory:"))
        dealt = round_to_show(host, game, seed=seed)
        side = face_set_of_table(host.table)   # the Flip side showing at the round's end
        sides[side] += 1
        longest = max(len(c) for c in dealt.values()) or 1
        size = in_parts or longest
        camera = SyntheticTable(1280, 720, seed=seed, faces=faces, pose=CameraPose(tilt=tilt))
        sharp = camera.sharper(still_scale) if still_scale else None
        scanner = HandScanner(host, clock=lambda: 0.0)   # due once: then only the asked seats
        for k in range(0, longest, size):
            nxt = tuple(seat for seat, cards in dealt.items() if cards[k:k + size])
            # a hand all read leaves its last part laid out (it starts at a multiple of size)
            part = {seat: cards[k:k + size] if seat in nxt else cards[(len(cards) - 1) // size * size:]
                    for seat, cards in dealt.items() if cards}
            if k:   # each phone keeps what was read, its player lays the next cards, asks for them
                for seat in nxt:
                    try:
                        host.hands.keep(seat)
                    except HandReadError:   # nothing read of the last part: nothing to keep
                        pass
                host.hands.request_scan(nxt)
            scene = Scene(extras=laid_hands(part, Seating.around(host.table.seats), side,
                                            style=style, seed=seed + k))
            still = None
            if sharp is not None:
                def still(sharp=sharp, scene=scene):  # this part's scene, taken when due
                    return Frame(sharp.render(scene), 0.0, 0)
            scanner.on_frame(camera.render(scene), camera.view, "quiet", still=still)
        read = {seat: host.hands.get(seat) for seat in dealt}
        for seat, cards in dealt.items():
            truth, got = Counter(cards), Counter(read[seat].labels if read[seat] else ())
            tp += sum((truth & got).values())
            fn += sum((truth - got).values())
            fp += sum((got - truth).values())
            exact += truth == got
            total += 1
    p = tp / max(1, tp + fp)
    r = tp / max(1, tp + fn)
    return {"game": game, "sides": dict(sides), "style": style,
            "read_in": f"still x{still_scale:g}" if still_scale else "frame",
            "tilt": tilt, "rounds": f"{first}-{first + rounds - 1}", "hands": total, "cards": tp + fn,
            "precision": round(p, 3), "recall": round(r, 3),
            "f1": round(2 * p * r / max(1e-9, p + r), 3), "hands_exact": exact,
            **({"in_parts": in_parts} if in_parts else {})}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--faces", default="art", choices=("art", "real"))
    ap.add_argument("--piles", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--game", default="classic", choices=("classic", "flip"),
                    help="the game whose rounds' hands are laid out (classic)")
    ap.add_argument("--first-round", type=int, default=1,
                    help="the hands' rounds are this one and those after it (each round's seed)")
    ap.add_argument("--spread", type=float, default=9.0)
    ap.add_argument("--turn", type=float, default=25.0)
    ap.add_argument("--parts", default="discard,hands")
    ap.add_argument("--still-scale", type=float, default=2.0,
                    help="hands are read in the frame and in a still this many times as wide (2)")
    ap.add_argument("--tilt", type=float, default=CameraPose.tilt,
                    help="the camera's lean: the far side of the mat this share smaller (0.06)")
    ap.add_argument("--styles", default="spread,fan",
                    help="how the hands are laid: spread (side by side), fan, or both")
    ap.add_argument("--in-parts", type=int, default=0,
                    help="hands of more cards are laid and read in parts of this many (0: at once)")
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    faces = faces_named(args.faces)
    result = {"faces": args.faces}
    parts = args.parts.split(",")
    if "discard" in parts:
        result["discard"] = discard_pile(faces, args.piles, args.spread, args.turn)
        print("discard pile:", json.dumps(result["discard"]), flush=True)
    if "hands" in parts:
        result["hands"] = [hands(faces, args.rounds, style, scale, args.tilt, args.first_round, args.game,
                                 args.in_parts)
                           for style in args.styles.split(",")
                           for scale in (0.0, args.still_scale)]
        for h in result["hands"]:
            print("hands laid open:", json.dumps(h), flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
