"""Train the card classifier and export it to ONNX (``python -m vision.train``).

Reproducible: fixed seeds, the held-out photos (see :mod:`vision.data`) are never used. Writes
``vision/models/cards.onnx`` and ``vision/models/cards.json``.

Needs two things the companion itself does not: the ``train`` extra (torch and onnx: ``pip
install -e '.[train]'``) and the photo data, which is not part of the repository (``--data DIR``
or ``$UNO_DATA``; by default a ``shared/data`` folder beside the repository's folder, holding
``photos/labels.csv`` and ``card_art/``). Without either it says so and exits with status 2.
Without the photo data the model cannot be trained again; the committed model
(``vision/models/cards.onnx``) is the one the companion uses.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import multiprocessing as mp
import sys
import time
from collections import defaultdict
from pathlib import Path

import cv2
import numpy as np

from vision.classes import CLASSES, NONE
from vision.data import DataMissing, load_photos, require_data
from vision.detect import CARD_H, CARD_W
from vision.train.export import export_onnx, scaled

MODELS = Path(__file__).resolve().parent.parent / "models"
#: What ``python -m vision.train --help`` says (the module's manual, in plain text).
DESCRIPTION = __doc__.replace("``", "")
#: The modules of the ``train`` extra.
TRAIN_MODULES = ("torch", "onnx")

_G: dict = {}

#: ``none`` gets this many times a face's samples: it stands for every kind of non-card.
NONE_SHARE = 5
#: Share of the ``none`` samples cut from real photos' backgrounds (with --background-negatives).
BACKGROUND_SHARE = 0.3
#: Share of a classic face's samples drawn from the drawn prints (--drawn-prints): the other
#: sources keep their proportions in the rest. More teaches print-independence, less keeps the
#: weight on the real photos of the prints at hand.
PRINT_SHARE = 0.3


def _gen(job):
    """Worker: render samples for a list of (class index, source kind, source index, seed)."""
    from vision.train.augment import background_sample, card_sample, negative_sample

    out = np.zeros((len(job), CARD_H, CARD_W, 3), np.uint8)
    for i, (cls, pool, idx, seed) in enumerate(job):
        rng = np.random.default_rng(seed)
        if cls == CLASSES.index(NONE) and pool == "none/background":
            out[i] = background_sample(rng, _G["pools"][pool][idx])
        elif cls == CLASSES.index(NONE):
            out[i] = negative_sample(rng, _G["textures"], _G["all_cards"], covered=_G["covered"])
        else:
            out[i] = card_sample(rng, _G["pools"][pool][idx], _G["textures"], _G["all_cards"],
                                 close_up=_G["close_up"])
    return out


def build(args):
    from tqdm import tqdm

    from vision.train.sources import art_cards, background_crops, proc_cards, real_cards

    root = require_data()
    photos = [p for p in load_photos(root) if p.split == "train"
              and not (args.hold_out_validation and p.validation)]
    if args.exclude_round_print:
        photos = [p for p in photos if p.source != "classic_more/round_print"]
    if args.leave_out_print:
        photos = [p for p in photos if p.print_name not in args.leave_out_print]
        print(f"left out of training: the photos of {', '.join(args.leave_out_print)}", flush=True)
    teacher = None
    if args.teacher != "none":
        from vision.recognize import CardReader

        if not Path(args.teacher).is_file():
            raise SystemExit(f"error: teacher model {args.teacher} not found")

        teacher = CardReader(args.teacher)
        print(f"teacher: {args.teacher} picks each photo's card outline", flush=True)
    else:
        print("no teacher: each photo's card is its biggest outline of the label's colour", flush=True)
    real = real_cards(photos, teacher)
    art = art_cards(root)
    proc = proc_cards(args.proc_per_label, seed=args.seed)
    drawn = []
    if args.drawn_prints:
        from vision.train.prints import print_cards

        drawn = print_cards(args.drawn_prints, seed=args.seed)
        proc += drawn
    background = background_crops(photos, args.background_negatives, seed=args.seed) \
        if args.background_negatives else []
    print(f"sources: {len(real)} real crops, {len(art)} art cells, {len(proc)} procedural "
          f"({len(drawn)} in drawn prints), "
          f"{len(background)} real non-card outlines", flush=True)
    by_label: dict[str, dict[str, list[np.ndarray]]] = defaultdict(lambda: defaultdict(list))
    for s in real + art + proc:
        by_label[s.label][s.kind].append(s.image)
    # table textures: downscaled training photos (cards in them are fine: they are backgrounds)
    rng = np.random.default_rng(args.seed)
    textures = []
    for p in rng.permutation(len(photos))[:150]:
        img = cv2.imread(str(photos[p].path))
        if img is not None:
            s = 400 / max(img.shape[:2])
            textures.append(cv2.resize(img, None, fx=s, fy=s, interpolation=cv2.INTER_AREA))
    pools = {"none/background": background}
    jobs = []
    for ci, label in enumerate(CLASSES):
        if label == NONE:
            for _ in range(args.per_class * NONE_SHARE):
                # (no draw without background crops: the default run's samples stay as they were)
                cut = bool(background) and rng.random() < BACKGROUND_SHARE
                jobs.append((ci, "none/background" if cut else "",
                             int(rng.integers(len(background))) if cut else 0, int(rng.integers(2**31))))
            continue
        kinds = by_label.get(label)
        if not kinds:
            print(f"warning: no source for {label}", file=sys.stderr)
            continue
        weights = {"real": 0.55, "art": 0.2, "proc": 0.25} if kinds.get("real") else \
            {"art": 0.45, "proc": 0.55}
        if kinds.get("print"):  # drawn prints: a share of their own, the others scaled down
            weights = {k: v * (1 - args.print_share) for k, v in weights.items()} | {"print": args.print_share}
        ks = [k for k in weights if kinds.get(k)]
        w = np.array([weights[k] for k in ks])
        w /= w.sum()
        for k in ks:
            pools[f"{label}/{k}"] = kinds[k]
        for _ in range(args.per_class):
            k = ks[rng.choice(len(ks), p=w)]
            jobs.append((ci, f"{label}/{k}", int(rng.integers(len(kinds[k]))), int(rng.integers(2**31))))
    # (negatives cut from real crops too made the model call real hand-held cards "none":
    # classic held-out 96.1 % against 97.7 %: art and procedural cards only)
    _G.update(pools=pools, textures=textures, all_cards=[s.image for s in art + proc],
              close_up=args.close_ups, covered=args.covered)
    labels = np.array([j[0] for j in jobs], np.int64)
    chunks = [jobs[i:i + 256] for i in range(0, len(jobs), 256)]
    parts = []
    ctx = mp.get_context("fork")
    with ctx.Pool(args.workers) as pool:
        for part in tqdm(pool.imap(_gen, chunks), total=len(chunks), desc="rendering samples",
                         unit="chunk"):
            parts.append(part)
    return np.concatenate(parts), labels


def make_model(n_classes: int):
    import torch.nn as nn

    def block(i, o, stride=1):
        return [nn.Conv2d(i, o, 3, stride, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True)]

    return nn.Sequential(
        *block(3, 24, 2),                 # 48 x 32
        *block(24, 32), nn.MaxPool2d(2),  # 24 x 16
        *block(32, 64), nn.MaxPool2d(2),  # 12 x 8
        *block(64, 96), nn.MaxPool2d(2),  # 6 x 4
        *block(96, 128),
        nn.Flatten(), nn.Dropout(0.3), nn.Linear(128 * 6 * 4, n_classes),
    )


def train(args):
    import torch
    import torch.nn as nn
    from tqdm import tqdm

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    t0 = time.time()
    x, y = build(args)
    print(f"{len(x)} samples rendered in {time.time() - t0:.0f} s", flush=True)
    if args.dump:
        idx = np.random.default_rng(0).permutation(len(x))[:200]
        cv2.imwrite(args.dump, np.vstack([np.hstack(list(x[idx[i:i + 20]])) for i in range(0, 200, 20)]))
    n_val = len(x) // 20
    perm = np.random.default_rng(args.seed).permutation(len(x))
    va, tr = perm[:n_val], perm[n_val:]
    X = torch.from_numpy(x).permute(0, 3, 1, 2).contiguous()  # uint8 N,3,H,W (BGR)
    Y = torch.from_numpy(y)
    model = make_model(len(CLASSES))
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    steps = args.epochs * (len(tr) // args.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=steps, pct_start=0.15)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)

    for epoch in range(args.epochs):
        model.train()
        order = torch.from_numpy(np.random.default_rng(args.seed + epoch).permutation(tr))
        bar = tqdm(range(len(tr) // args.batch), desc=f"epoch {epoch + 1}/{args.epochs}", unit="batch")
        tot = 0.0
        for b in bar:
            idx = order[b * args.batch:(b + 1) * args.batch]
            xb = scaled(X[idx])
            flip = torch.rand(len(idx)) < 0.5  # either way up
            xb[flip] = torch.flip(xb[flip], dims=(2, 3))
            loss = loss_fn(model(xb), Y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot = 0.98 * tot + 0.02 * loss.item() if b else loss.item()
            bar.set_postfix(loss=f"{tot:.3f}")
        model.eval()
        with torch.no_grad():
            pred = torch.cat([model(scaled(X[va[i:i + 512]])).argmax(1) for i in range(0, len(va), 512)])
        acc = (pred == Y[va]).float().mean().item()
        print(f"epoch {epoch + 1}: synthetic validation accuracy {acc:.4f}", flush=True)
    export(model, args, acc, time.time() - t0, len(x))


def export(model, args, val_acc, seconds, n):
    MODELS.mkdir(exist_ok=True)
    out = Path(args.out)
    export_onnx(model, out)
    meta = {
        "classes": list(CLASSES), "input": {"width": CARD_W, "height": CARD_H, "order": "BGR",
                                            "range": "0-255, vision.color.normalize_card applied"},
        "output": "softmax probabilities", "trained_on": f"{n} rendered samples",
        "synthetic_val_accuracy": round(val_acc, 4), "train_seconds": round(seconds),
        "args": {k: v for k, v in vars(args).items() if k not in ("out", "dump", "teacher")},
        "teacher": "none" if args.teacher == "none" else Path(args.teacher).name,
    }
    out.with_suffix(".json").write_text(json.dumps(meta, indent=1) + "\n")
    print(f"wrote {out} ({out.stat().st_size // 1024} KiB) and {out.with_suffix('.json')}")


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m vision.train", description=DESCRIPTION)
    p.add_argument("--data", metavar="DIR", default=None,
                   help="the photo data folder (sets UNO_DATA; default: $UNO_DATA, else "
                        "shared/data beside the repository's folder)")
    p.add_argument("--per-class", type=int, default=260, help="rendered samples per class")
    p.add_argument("--proc-per-label", type=int, default=4, help="procedural drawings per face")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--batch", type=int, default=128)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--exclude-round-print", action="store_true",
                   help="leave the non-standard round-centre print out of training")
    p.add_argument("--drawn-prints", type=int, default=0, metavar="N",
                   help="also train on N procedurally drawn print styles of the classic deck "
                        "(vision.train.prints: round sunburst and tilted or coloured ovals, other "
                        "fonts, outlines, shadows, shades, gloss, wear); default 0: none (the committed "
                        "model has none)")
    p.add_argument("--print-share", type=float, default=PRINT_SHARE, metavar="SHARE",
                   help=f"share of a classic face's samples drawn from the drawn prints (default {PRINT_SHARE})")
    p.add_argument("--close-ups", type=float, default=0.0, metavar="SHARE",
                   help="share of card samples seen up close: cut by the picture's edge or held "
                        "by big fingers, with an index still showing (e.g. 0.15; default 0: none)")
    p.add_argument("--covered", type=float, default=0.0, metavar="SHARE",
                   help="share of 'none' samples that are cards with the centre and both indices "
                        "covered: nothing to read, so no card (e.g. 0.04; default 0: none)")
    p.add_argument("--leave-out-print", action="append", default=[], metavar="PRINT",
                   help="leave the photos of this print (vision.data.PRINTS: newer, white-oval, "
                        "coloured-oval, older-worn, round-centre) out of training; repeatable")
    p.add_argument("--teacher", default="none",
                   help="a model that picks each training photo's card outline by its label "
                        "(e.g. vision/models/cards.onnx); default 'none': the biggest outline of "
                        "the label's colour, as the committed model was trained")
    p.add_argument("--hold-out-validation", action="store_true",
                   help="leave the validation photos out (vision.data.VALIDATION_SHARE of the "
                        "train photos), to compare variants with companion evaluate --split validation")
    p.add_argument("--background-negatives", type=int, default=0, metavar="N",
                   help="also teach as 'none' up to N outlines a training photo that lie outside "
                        "its card (keys, screen icons); default 0")
    p.add_argument("--out", default=str(MODELS / "cards.onnx"))
    p.add_argument("--dump", default=None, help="write a contact sheet of samples to this PNG")
    args = p.parse_args(argv)
    if args.data:
        os.environ["UNO_DATA"] = str(Path(args.data).resolve())  # the workers read it too
    try:
        require_data()
    except DataMissing as e:
        print(f"python -m vision.train: error: {e} (or give --data DIR). Without it the model "
              "cannot be trained again; the committed vision/models/cards.onnx is the one the "
              "companion uses.", file=sys.stderr)
        return 2
    from vision.data import PRINTS

    known = sorted({name for _, name in PRINTS})
    unknown = [n for n in args.leave_out_print if n not in known]
    if unknown:
        print(f"python -m vision.train: error: no print named {', '.join(unknown)} (the prints: "
              f"{', '.join(known)})", file=sys.stderr)
        return 2
    missing = [m for m in TRAIN_MODULES if importlib.util.find_spec(m) is None]
    if missing:
        print(f"python -m vision.train: error: {' and '.join(missing)} not installed: training "
              "needs the train extra (.venv/bin/pip install -e '.[train]'); running the "
              "companion does not.", file=sys.stderr)
        return 2
    try:
        train(args)
    except DataMissing as e:
        print(f"python -m vision.train: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
