"""Leave one print out: how the card model reads a print it has never seen.

For each classic print of the photo data (:data:`vision.data.PRINTS`), a card model is trained
(``python -m vision.train``, at the reduced budget given) without that print's photos, once with
the drawn print styles (``--drawn-prints``) and once without, and every photo of that print
(train and test split alike, none was trained on; at most ``--max-photos`` of them, evenly
spread) is read whole as ``companion evaluate``'s real part reads it: the photo's surest card
against its label. Label accuracy per print and per capture (phone, webcam, close-up,
in-fingers, crop) go to a JSON file, written after each model.

    UNO_DATA=../shared/data nice -n 10 .venv/bin/python benchmarks/leave_one_print_out.py \\
        --per-class 50 --epochs 4 --out benchmarks/results/leave_one_print_out.json

The real crops of the training photos are cut once and kept in ``--crops-cache`` (a pickle
outside the repository). Needs the ``train`` extra and the photo data.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

#: The prints measured, in this order (the smallest, and the ones nearest a new deck, first).
ORDER = ("round-centre", "white-oval", "coloured-oval", "older-worn", "newer")


def cached_real_cards(cache: Path):
    """:func:`vision.train.sources.real_cards` memoised by photo path in ``cache``."""
    from vision.train import sources

    original = sources.real_cards
    store: dict = pickle.loads(cache.read_bytes()) if cache.is_file() else {}

    def real_cards(photos, reader=None, progress=True):
        missing = [p for p in photos if p.rel not in store]
        if missing:
            for p in missing:
                store[p.rel] = original([p], reader, progress=False)
            cache.write_bytes(pickle.dumps(store))
        return [s for p in photos for s in store[p.rel]]

    return real_cards


def evaluate(model: Path, photos) -> dict:
    import cv2

    from vision.evaluate import Tally, photo_answer
    from vision.recognize import CardReader

    reader = CardReader(str(model))
    tallies: dict = {}
    wrong = defaultdict(int)
    for p in photos:
        img = cv2.imread(str(p.path))
        pred = photo_answer(reader.read(img, deck="auto") if img is not None else [])
        for key in ("all", f"capture / {p.capture}"):
            tallies.setdefault(key, Tally(key)).add(p.label, pred)
        if pred != p.label:
            wrong[f"{p.label} -> {pred or '(no card)'}"] += 1
    out = {k: {"right": t.correct, "photos": t.total, "found": t.found,
               "accuracy": round(t.accuracy, 4)} for k, t in tallies.items()}
    out["wrong"] = dict(sorted(wrong.items(), key=lambda kv: -kv[1]))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--prints", default=",".join(ORDER), help="the prints to hold out, in turn")
    ap.add_argument("--variants", default="drawn,plain",
                    help="drawn: with --drawn-prints; plain: --drawn-prints 0 (default both)")
    ap.add_argument("--per-class", type=int, default=50)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--drawn-prints", type=int, default=8)
    ap.add_argument("--close-ups", type=float, default=0.15,
                    help="the trainer's --close-ups in every variant (default 0.15)")
    ap.add_argument("--covered", type=float, default=0.04,
                    help="the trainer's --covered in every variant (default 0.04)")
    ap.add_argument("--print-share", type=float, default=None,
                    help="the drawn prints' share of a face's samples (default: the trainer's); "
                         "its variant is named drawn-SHARE")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--max-photos", type=int, default=150, help="photos read of each held-out print")
    ap.add_argument("--crops-cache", default=str(Path(tempfile.gettempdir()) / "lopo_real_crops.pkl"))
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "leave_one_print_out.json"))
    ap.add_argument("--rows-only", action="store_true",
                    help="train nothing: rewrite the JSON's table of rows from its models")
    args = ap.parse_args(argv)
    out_path = Path(args.out)
    if args.rows_only:
        result = json.loads(out_path.read_text())
        result["rows"] = rows_of(result)
        out_path.write_text(json.dumps(result, indent=1) + "\n")
        return 0

    from vision.data import load_photos, require_data
    from vision.train import __main__ as trainer
    from vision.train import sources

    os.environ.setdefault("UNO_DATA", str(require_data()))
    photos = [p for p in load_photos() if p.deck == "classic" and not p.label.startswith("*")]
    sources.real_cards = cached_real_cards(Path(args.crops_cache))
    result = json.loads(out_path.read_text()) if out_path.is_file() else {}
    result["budget"] = {"per_class": args.per_class, "epochs": args.epochs, "threads": args.threads,
                        "drawn_prints": args.drawn_prints, "max_photos": args.max_photos,
                        "reading": "CardReader.read(deck='auto'), whole cards only, surest card"}
    result.setdefault("models", {})
    for name in args.prints.split(","):
        held = [p for p in photos if p.print_name == name]
        step = max(1, len(held) // args.max_photos) if args.max_photos else 1
        held = held[::step][:args.max_photos or None]
        for variant in args.variants.split(","):
            key = f"{name} / {variant}"
            model = Path(tempfile.gettempdir()) / f"lopo_{name}_{variant}.onnx"
            t0 = time.time()
            targv = ["--per-class", str(args.per_class), "--epochs", str(args.epochs),
                     "--threads", str(args.threads), "--workers", str(args.workers),
                     "--leave-out-print", name, "--out", str(model),
                     "--drawn-prints", str(args.drawn_prints if variant.startswith("drawn") else 0),
                     "--close-ups", str(args.close_ups), "--covered", str(args.covered)]
            if args.print_share is not None and variant.startswith("drawn"):
                targv += ["--print-share", str(args.print_share)]
                key = f"{name} / drawn-{args.print_share}"
            print(f"== {key}: python -m vision.train {' '.join(targv)}", flush=True)
            targs = trainer_args(trainer, targv)
            trainer.train(targs)
            trained = time.time() - t0
            figures = evaluate(model, held)
            figures.update(train_seconds=round(trained), eval_seconds=round(time.time() - t0 - trained),
                           train_args=targv)
            result["models"][key] = figures
            print(f"{key}: {figures['all']['right']}/{figures['all']['photos']} = "
                  f"{figures['all']['accuracy']:.4f}", flush=True)
            result["rows"] = rows_of(result)
            out_path.write_text(json.dumps(result, indent=1) + "\n")
    return 0


def rows_of(result: dict) -> list[dict]:
    """One row a held-out print: its photos read by the model trained without it, with the
    drawn prints and without, overall and per capture."""
    by_print: dict = defaultdict(dict)
    for key, m in result.get("models", {}).items():
        name, variant = key.split(" / ")
        by_print[name][variant] = m
    rows = []
    every = set().union({"drawn", "plain"}, *by_print.values())  # each row has every column
    for name, v in by_print.items():
        row = {"print": name}
        for variant in sorted(every, key=lambda k: (k != "drawn", k != "plain", k)):
            m = v.get(variant)
            col = variant.replace("-", "_").replace(".", "_")  # (a name str.format can fill)
            a = m and m["all"]
            row[col] = "-" if not a else f"{a['right']}/{a['photos']} = {100 * a['accuracy']:.1f}%"
            if m is not None:
                row[f"{col} by capture"] = ", ".join(
                    f"{k.split(' / ')[1]} {c['right']}/{c['photos']}" for k, c in sorted(m.items())
                    if k.startswith("capture / "))
        rows.append(row)
    return rows


def trainer_args(trainer, argv):
    """The namespace ``python -m vision.train argv`` would train with."""
    captured = {}

    def fake_train(a):
        captured["args"] = a

    real_train = trainer.train
    trainer.train = fake_train
    try:
        trainer.main(argv)
    finally:
        trainer.train = real_train
    return captured["args"]


if __name__ == "__main__":
    sys.exit(main())
