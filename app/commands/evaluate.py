"""``companion evaluate``: measure card recognition on held-out real photos and on renders."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

NAME = "evaluate"
HELP = "measure card recognition (held-out real photos, renders, composited tables)"
DESCRIPTION = """\
Reads the fixed held-out split of the real photos of the photo data, which is not part of the
repository (--data DIR, or $UNO_DATA; by default a shared/data folder beside the repository's
folder: it holds photos/labels.csv and card_art/), and reports label accuracy per deck and per source folder, per-class accuracy and the
confusions; then tables composed from art-sheet and procedural cards per face set (classic, Flip
light, Flip dark); then tables composed from real crops of held-out photos (15 cards each,
touching or slightly overlapping) for the recall of cards; then such tables with three drawn
card backs among twelve real crops (backs and faces counted apart); then tables of overlapping hands
(fans, rows, cascades, piles, thumbs over them) of real crops of held-out photos: card F1,
recall, label accuracy and every wrong read of the cards whose corner index shows. The real,
composite and backs parts read whole cards only, as the live table reads; --second-pass reads
them as `companion recognize` and the hand scanner do, the second pass for partly covered cards
included. Without the photo data only the
renders can be measured (--parts renders, drawn cards only); the other parts stop with exit
status 2 and say where they looked."""

#: What to do without the photo data, said after the error.
WITHOUT_DATA = ("Without the photo data, `companion evaluate --parts renders` measures the model "
                "on synthetic tables of drawn cards.")

PARTS = ("real", "renders", "composite", "backs", "fanned")


def register(sub) -> None:
    p = sub.add_parser(NAME, help=HELP, description=DESCRIPTION)
    p.add_argument("--data", metavar="DIR", default=None,
                   help="the photo data folder (sets UNO_DATA; default: $UNO_DATA, else "
                        "shared/data beside the repository's folder)")
    p.add_argument("--parts", default=",".join(PARTS),
                   help=f"comma-separated parts to run (default: {','.join(PARTS)})")
    p.add_argument("--deck", choices=("auto", "known"), default="auto",
                   help="real photos: read with all labels (auto), or narrowed to the photo's deck")
    p.add_argument("--scenes", type=int, default=12, help="synthetic tables per face set")
    p.add_argument("--split", choices=("test", "validation"), default="test",
                   help="real photos and composite crops from the held-out test photos (default), "
                        "or from the validation photos set aside from training "
                        "(python -m vision.train --hold-out-validation): choose model variants "
                        "on those, never on the test photos")
    p.add_argument("--seed", type=int, default=None,
                   help="the seed of the composed tables of the composite, backs and fanned parts "
                        "(default: each part's own, 77, 91 and 505): other seeds measure the spread")
    p.add_argument("--seeds", type=_seeds, default=None, metavar="A-B[,C...]",
                   help="fanned part: the tables of these seeds (e.g. 505-512), their cards "
                        "pooled into one card F1, with every seed's F1 and the worst seed beside "
                        "it (about 2.5 CPU-minutes a seed); the target is judged on the pooled "
                        "figure, one seed's 220 cards being too few")
    p.add_argument("--jobs", type=int, default=1,
                   help="with --seeds: seeds read at once, in separate processes (default 1)")
    p.add_argument("--model", default=None, help="the ONNX model to measure (default: the committed one)")
    p.add_argument("--no-overlap", action="store_true",
                   help="fanned part: read whole cards only (no second pass for partly covered "
                        "cards: the reader before it); the renders part always reads whole cards "
                        "only")
    p.add_argument("--second-pass", action="store_true",
                   help="real, composite and backs parts: read with the second pass for partly "
                        "covered cards as well, as companion recognize and the hand scanner read "
                        "(by default whole cards only, as the live table reads)")
    p.add_argument("--confusion-csv", default=None,
                   help="write the confusion matrix of the real photos to this CSV file")
    p.add_argument("--json", action="store_true", help="print a JSON summary as the last line")
    p.set_defaults(run=run)


def run(args) -> int:
    from vision.data import DataMissing
    from vision import evaluate as ev
    from vision.recognize import CardReader

    if args.data:
        os.environ["UNO_DATA"] = str(Path(args.data).resolve())
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    bad = [p for p in parts if p not in PARTS]
    if bad:
        print(f"companion evaluate: error: unknown part(s) {', '.join(bad)}; expected {', '.join(PARTS)}",
              file=sys.stderr)
        return 2
    try:
        reader = CardReader(args.model)
    except FileNotFoundError as e:
        print(f"companion evaluate: error: {e}", file=sys.stderr)
        return 2
    summary = {}
    seed = {} if args.seed is None else {"seed": args.seed}
    # photos read as companion recognize and the hand scanner read them, the second pass
    # included, if asked
    as_recognized, how_read = reader, ""
    if args.second_pass and {"real", "composite", "backs"} & set(parts):
        as_recognized, how_read = CardReader(args.model, overlap=True), ", read with the second pass"
        summary["separated second pass"] = True
    try:
        if "real" in parts:
            tallies = ev.eval_real(as_recognized, args.deck, split=args.split)
            print(f"== {'held-out' if args.split == 'test' else 'validation'} real photos "
                  f"(read with deck={args.deck}{how_read}) ==")
            for key in sorted(tallies, key=lambda k: (" / " in k, k)):
                t = tallies[key]
                print(t.report(per_class=" / " not in key))
                summary[f"real {key}"] = round(t.accuracy, 4)
            if args.confusion_csv:
                labels, m = ev.Tally("all").matrix() if not tallies else _merge(tallies)
                with open(args.confusion_csv, "w") as f:
                    f.write("true\\read," + ",".join(labels) + "\n")
                    for lab, row in zip(labels, m):
                        f.write(lab + "," + ",".join(str(int(v)) for v in row) + "\n")
                print(f"confusion matrix written to {args.confusion_csv}")
        if "renders" in parts:
            print("== renders (art-sheet and procedural cards on synthetic tables) ==")
            for name, t in ev.eval_renders(reader, scenes=args.scenes).items():
                print(t.report())
                summary[f"renders {name}"] = round(t.accuracy, 4)
                summary[f"renders {name} recall"] = round(t.recall, 4)
        if "composite" in parts:
            print(f"== composited real crops (15 per table{how_read}) ==")
            t = ev.eval_composite(as_recognized, scenes=max(4, args.scenes + 4), split=args.split, **seed)
            print(t.report(per_class=False))
            summary["composite recall"] = round(t.recall, 4)
            summary["composite accuracy"] = round(t.accuracy, 4)
        if "backs" in parts:
            print(f"== separated cards with drawn backs among the real crops{how_read} ==")
            backs, faces = ev.eval_backs(as_recognized, scenes=max(4, args.scenes + 4), split=args.split, **seed)
            print(backs.report(per_class=False))
            print(faces.report(per_class=False))
            summary["backs recall"] = round(backs.recall, 4)
            summary["backs accuracy"] = round(backs.accuracy, 4)
            summary["backs faces recall"] = round(faces.recall, 4)
            summary["backs faces accuracy"] = round(faces.accuracy, 4)
        if "fanned" in parts and args.seeds:
            print(f"== fanned and overlapping hands of real crops, seeds {_named(args.seeds)} ==")
            t, by_seed = ev.eval_fanned_seeds(args.seeds, scenes=2 * args.scenes, split=args.split,
                                              model=args.model, overlap=not args.no_overlap,
                                              jobs=max(1, args.jobs))
            for n, one in by_seed.items():
                print(f"seed {n}: card F1 {one.f1:.4f} ({one.right}/{one.cards} right, "
                      f"{len(one.wrong)} wrong, {one.extra} extra, {one.twice} counted twice)")
            print(t.report())
            worst = min(by_seed, key=lambda n: by_seed[n].f1)
            print(f"seeds: F1 {by_seed[worst].f1:.4f} (worst, seed {worst}) to "
                  f"{max(x.f1 for x in by_seed.values()):.4f}")
            summary.update({f"fanned {k}": v for k, v in t.summary().items()})
            summary["fanned seeds"] = {str(n): round(x.f1, 4) for n, x in by_seed.items()}
            summary["fanned worst seed"] = worst
        elif "fanned" in parts:
            print("== fanned and overlapping hands of real crops ==")
            fan_reader = CardReader(args.model, overlap=not args.no_overlap)
            t = ev.eval_fanned(fan_reader, scenes=2 * args.scenes, split=args.split, **seed)
            print(t.report())
            summary.update({f"fanned {k}": v for k, v in t.summary().items()})
    except DataMissing as e:
        print(f"companion evaluate: error: {e} (or give --data DIR). {WITHOUT_DATA}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(summary))
    return 0


def _seeds(text: str) -> list[int]:
    import argparse

    from vision.evaluate import parse_seeds

    try:
        return parse_seeds(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _named(seeds: list[int]) -> str:
    """``seeds`` as few ranges as they make: 505-512, 561."""
    runs: list[list[int]] = []
    for n in seeds:
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def _merge(tallies):
    from vision.evaluate import Tally

    t = Tally("all")
    for key, x in tallies.items():
        if " / " in key:
            continue
        for lab, (ok, n) in x.per_class.items():
            t.per_class[lab][0] += ok
            t.per_class[lab][1] += n
        t.confusions.update(x.confusions)
    return t.matrix()
