"""``companion evaluate``: measure card recognition on held-out real photos and on renders."""

from __future__ import annotations

import json
import os
import sys

NAME = "evaluate"
HELP = "measure card recognition (held-out real photos, renders, composited tables)"
DESCRIPTION = """\
Reads the fixed held-out split of the real photos of the photo data, which is not part of the
repository (--data DIR, or $UNO_DATA; by default a shared/data folder beside the repository's
folder: it holds photos/labels.csv and card_art/), and reports label accuracy per deck and per
source folder, per-class accuracy and the confusions, then per print (print / white-oval, ...) and
per way of taking the photo (capture / webcam, close-up, in-fingers, ...), read from the note
column of labels.csv; then tables composed from art-sheet and
procedural cards per face set (classic, Flip light, Flip dark); then tables composed from real crops
of held-out photos (15 cards each, touching or slightly overlapping) for the recall of cards; then
such tables with three drawn card backs among twelve real crops (backs and faces counted apart);
then tables of overlapping hands (fans, rows, cascades, piles, thumbs over them) of real crops of
held-out photos: card F1, recall, label accuracy and every wrong read of the cards whose corner
index shows, pooled over the tables of eight seeds (505-512; --seeds, --seed), each seed's F1 beside
it. The real, composite and backs parts read whole cards only, as the live table reads;
--second-pass reads them as `companion recognize` and the hand scanner do, the second pass for
partly covered cards included. Without the photo data only the renders can be measured (--parts
renders, drawn cards only); the other parts stop with exit status 2 and say where they looked."""

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
                        "(default: 77 and 91 for the composite and backs parts, the seeds of "
                        "--seeds for the fanned part): other seeds measure the spread")
    p.add_argument("--seeds", type=_seeds, default=None, metavar="A-B[,C...]",
                   help="fanned part: the tables of these seeds, their cards pooled into one card "
                        "F1, with every seed's F1 and the worst seed beside it (about 2.5 "
                        "CPU-minutes a seed; default 505-512, or the one seed of --seed); the "
                        "target is judged on the pooled figure, one seed's 220 cards being too few")
    p.add_argument("--jobs", type=int, default=None,
                   help="fanned part: seeds read at once, in separate processes (default: one a "
                        "CPU core, up to the number of seeds)")
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
    from vision.data import data_folder

    with data_folder(args.data):   # (the fanned part's workers read it too)
        return _run(args)


def _run(args) -> int:
    from vision.data import DataMissing
    from vision import evaluate as ev
    from vision.recognize import CardReader

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
    if args.jobs is not None and args.jobs < 1:
        print("companion evaluate: error: --jobs must be 1 or more", file=sys.stderr)
        return 2
    # the fanned part: the seeds asked for, else the one seed of --seed, else the default set
    fanned_seeds = args.seeds or ([args.seed] if args.seed is not None else list(ev.FANNED_SEEDS))
    if "fanned" in parts and args.jobs and args.jobs > 1 and len(fanned_seeds) == 1:
        print(f"companion evaluate: error: --jobs {args.jobs} reads several seeds at once, but the "
              f"fanned part reads one (seed {fanned_seeds[0]}): give --seeds A-B", file=sys.stderr)
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
            for key in sorted(tallies, key=lambda k: (" / " in k, k.split(" / ")[0] in ev.GROUPED_BY, k)):
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
        if "fanned" in parts and len(fanned_seeds) > 1:
            print(f"== fanned and overlapping hands of real crops, seeds {_named(fanned_seeds)} ==")
            jobs = args.jobs or min(len(fanned_seeds), os.cpu_count() or 1)
            t, by_seed = ev.eval_fanned_seeds(fanned_seeds, scenes=2 * args.scenes, split=args.split,
                                              model=args.model, overlap=not args.no_overlap,
                                              jobs=jobs)
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
            print(f"== fanned and overlapping hands of real crops, seed {fanned_seeds[0]} ==")
            fan_reader = CardReader(args.model, overlap=not args.no_overlap)
            t = ev.eval_fanned(fan_reader, scenes=2 * args.scenes, split=args.split,
                               seed=fanned_seeds[0])
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
