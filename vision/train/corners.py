"""Train the reader of partly covered cards (``python -m vision.train.corners``).

Writes ``vision/models/partial.onnx`` and ``partial.json``: the classifier of index corners. It
reads the two index corners (:func:`vision.corners.corner_crops`: the top left and, upside down,
the bottom right quarter of the card) of the card outlines :func:`vision.corners.partial_quads`
puts on the edges of overlapping cards (a fanned hand's cards under the top one show a corner
index and a strip of their face). Same input size and classes as the card model
(:mod:`vision.train`), and it starts from the card model's weights.

The samples are exactly what the reader sees at run time: tables of overlapping cards
(:func:`vision.overlap.compose_hands`: fans, rows, cascades, piles, thumbs, four tables) made
from card crops of the *training* photos only (:func:`vision.overlap.crop_photos`, cut with the
card model's help as :func:`vision.train.sources.best_quad` does), art-sheet cells and drawn
cards (the backs: there are no photos of backs); the two corners of every outline put on such
a table are samples: of an outline on a card (IoU >= 0.6), a corner where the card's index shows
gives the card's label, a corner where it is covered ``none``; an outline far from every card
(IoU < 0.35) gives ``none`` twice. The validation photos (:attr:`vision.data.Photo.validation`)
are left out: the pass's thresholds are chosen on their tables (``python -m
vision.train.tune_partial``). ``--table-size 640x640`` composes small tables of one or two hands
(the samples cost ~8x less); ``--base`` fine-tunes the committed corner model instead of starting
from the card model; the validation accuracy on held-back tables is checked every
``--check-every`` batches and at each epoch's end, and the best model so far is written at once
(early stopping after three checks without a gain). ``--augment camera`` puts a camera's
faults on the training samples (light and contrast, white balance, softness, noise: the index
model's :func:`vision.train.index.camera_noise`) and scores each check on the held-back samples
as they are and through such a camera (the mean of both accuracies): the corner model trained
without them read the quarter cards of tables seen through a worse camera
(``benchmarks/fanned_camera.py``) far worse than the index model; trained with them, it read
no more cards through that camera, so the committed model is trained without them.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from vision.classes import CLASSES, NONE
from vision.color import normalize_card
from vision.corners import card_width_of, corner_crops, corner_outlines, partial_quads
from vision.data import load_photos, require_data
from vision.detect import CARD_H, CARD_W, quad_iou
from vision.overlap import INDEX_VISIBLE, TABLES, compose_hands, crop_photos
from vision.train.export import export_onnx, samples_of_parts, scaled, table_shares, train_when_ready

MODELS = Path(__file__).resolve().parent.parent / "models"
#: Outlines matching a readable card by this IoU are that card; below NONE_IOU with all, none.
CARD_IOU, NONE_IOU = 0.6, 0.35
#: ``none`` samples kept per card sample (the outlines are mostly not a card).
NONE_PER_CARD = 1.5
#: Extra samples of each readable card through its own outline, jittered.
JITTER_COPIES = 2


def training_photos(split: str, per_label: int, photos: list | None = None) -> list:
    """The photos of ``split`` the overlap trainers cut their crops from, up to ``per_label`` a
    label (:func:`vision.overlap.crop_photos`); from ``photos`` where given, else from the
    photo data. The validation photos stay out: the thresholds are chosen on their tables
    (``python -m vision.train.tune_partial``), which must be tables the model never saw."""
    photos = load_photos(require_data()) if photos is None else photos
    return crop_photos([p for p in photos if not p.validation], split, per_label)


def card_pool(split: str, per_label: int, cache: str | None = None):
    """(label, image) crops of ``split``'s photos plus art-sheet cells and drawn backs."""
    from companion.cards import BACK
    from vision.card_art import draw_card
    from vision.recognize import CardReader
    from vision.train.sources import art_cards, real_cards

    if cache and Path(cache).is_file():
        import pickle

        real = pickle.load(open(cache, "rb"))
    else:
        real = [(s.label, s.image) for s in real_cards(training_photos(split, per_label), CardReader())]
    art = [(s.label, s.image) for s in art_cards()]
    rng = np.random.default_rng(11)
    backs = [(BACK, draw_card(BACK, 160, 248, rng=rng)) for _ in range(12)]
    return real, art + backs


def layout_cards(rng, real, other, n):
    """``n`` cards for a table: mostly real crops, some art cells and drawn backs."""
    out = []
    for _ in range(n):
        pool = real if rng.random() < 0.75 else other
        label, img = pool[int(rng.integers(len(pool)))]
        if img.shape[1] > img.shape[0]:
            img = cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE)
        out.append((label, img))
    return out


def _corner_samples(img, q, t, cw, xs, ys):
    """Both index corners of outline ``q`` of card ``t``: the card's label where its index
    shows there, ``none`` where it is covered, nothing where unsure."""
    for crop, outline in zip(corner_crops(img, q), corner_outlines(q)):
        share = t.index_share_near(outline.mean(0), 0.3 * cw)
        if share is None:
            continue
        if share >= INDEX_VISIBLE:
            xs.append(normalize_card(crop))
            ys.append(CLASSES.index(t.label))
        elif share < 0.3:
            xs.append(normalize_card(crop))
            ys.append(CLASSES.index(NONE))


def samples_of_table(img, truth, rng, card_width=None, jitter: int = JITTER_COPIES):
    """(rectified normalised index corner, class index) for the corners of every outline put on
    one table, and of each readable card's own outline a little off (JITTER_COPIES times)."""
    whole = [t.quad for t in truth if t.visible == "whole"] or [t.quad for t in truth]
    cw = card_width or card_width_of(whole) * rng.uniform(0.96, 1.04)
    xs, ys = [], []
    negatives = []
    for q in partial_quads(img, cw):
        ious = [quad_iou(q, t.quad) for t in truth]
        k = int(np.argmax(ious)) if ious else -1
        best = ious[k] if ious else 0.0
        if best >= CARD_IOU and truth[k].readable:
            _corner_samples(img, q, truth[k], cw, xs, ys)
        elif best < NONE_IOU:
            negatives.append(q)
    for t in truth:
        if t.readable:
            for _ in range(jitter):
                q = t.quad + rng.normal(0, 0.04 * cw, (4, 2)).astype(np.float32)
                _corner_samples(img, q, t, cw, xs, ys)
    keep = int(np.ceil(NONE_PER_CARD * max(1, len(xs)) / 2))
    for i in rng.permutation(len(negatives))[:keep]:
        for crop in corner_crops(img, negatives[int(i)]):
            xs.append(normalize_card(crop))
            ys.append(CLASSES.index(NONE))
    return xs, ys


def _build_part(job):
    """The samples of ``tables`` tables from one seed (one worker's share of :func:`build`)."""
    tables, real, other, seed, jitter, progress, size = job
    from tqdm import tqdm

    rng = np.random.default_rng(seed)
    X, Y = [], []
    for k in tqdm(range(tables), desc=f"tables (seed {seed})", unit="table", disable=not progress):
        if size:  # a corner of the table: one or two hands at the evaluated card size, 7x cheaper
            cards = layout_cards(rng, real, other, int(rng.integers(3, 9)))
            img, truth = compose_hands(cards, size[0], size[1], rng=rng, kind=TABLES[k % len(TABLES)],
                                       hands=int(rng.integers(1, 3)), card_width=rng.uniform(100, 150),
                                       singles=int(rng.integers(0, 2)))
        else:
            cards = layout_cards(rng, real, other, int(rng.integers(6, 17)))
            img, truth = compose_hands(cards, rng=rng, kind=TABLES[k % len(TABLES)])
        xs, ys = samples_of_table(img, truth, rng, jitter=jitter)
        X += xs
        Y += ys
    return np.array(X, np.uint8).reshape(-1, CARD_H, CARD_W, 3), np.array(Y, np.int64)


def build(tables: int, real, other, seed: int, progress=True, jitter: int = JITTER_COPIES,
          workers: int = 1, size: tuple[int, int] | None = None):
    """The samples of ``tables`` composed tables, made by ``workers`` processes (each its own
    seed: ``seed``, ``seed`` + 1, ...; one worker gives the tables of earlier versions). With
    ``size`` (width, height) the tables are that small, with one or two hands of 3-8 cards at
    the size cards have on the evaluated 1600x1066 tables (100-150 px wide); else 1600x1066 tables
    of 6-16 cards."""
    jobs = [(n, real, other, seed + i, jitter, progress and i == 0, size)
            for i, n in enumerate(table_shares(tables, workers))]
    return samples_of_parts(_build_part, jobs)


def model_from_onnx(path: Path):
    """The card model's network (:func:`vision.train.__main__.make_model` with its batch norms
    folded into the convolutions, as the ONNX file holds it) with the file's weights."""
    import onnx
    import torch
    import torch.nn as nn
    from onnx import numpy_helper

    m = onnx.load(str(path))
    w = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}
    convs = [n for n in m.graph.node if n.op_type == "Conv"]
    layers, strides = [], []
    for n in convs:
        weight, bias = w[n.input[1]], w[n.input[2]]
        stride = [a.ints for a in n.attribute if a.name == "strides"][0][0]
        conv = nn.Conv2d(weight.shape[1], weight.shape[0], 3, stride, 1)
        conv.weight.data = torch.from_numpy(weight.copy())
        conv.bias.data = torch.from_numpy(bias.copy())
        strides.append(stride)
        layers += [conv, nn.ReLU(inplace=True)]
    seq = [*layers[:2], *layers[2:4], nn.MaxPool2d(2), *layers[4:6], nn.MaxPool2d(2),
           *layers[6:8], nn.MaxPool2d(2), *layers[8:10], nn.Flatten(), nn.Dropout(0.3)]
    fc_w = [k for k in w if k.endswith(".weight") and w[k].ndim == 2][0]
    fc = nn.Linear(w[fc_w].shape[1], w[fc_w].shape[0])
    fc.weight.data = torch.from_numpy(w[fc_w].copy())
    fc.bias.data = torch.from_numpy(w[fc_w.replace("weight", "bias")].copy())
    return nn.Sequential(*seq, fc)


def train(args):
    import torch
    import torch.nn as nn
    from tqdm import tqdm

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    t0 = time.time()
    real, other = card_pool("train", args.per_label, args.crops)
    print(f"sources: {len(real)} training-photo crops, {len(other)} art cells and drawn backs", flush=True)
    if args.samples and Path(args.samples).is_file():
        z = np.load(args.samples)
        x, y, xv, yv = z["x"], z["y"], z["xv"], z["yv"]
    else:
        size = tuple(int(v) for v in args.table_size.split("x")) if args.table_size else None
        x, y = build(args.tables, real, other, args.seed, jitter=args.jitter, workers=args.workers, size=size)
        xv, yv = build(max(8, args.tables // 10), real, other, args.seed + 1000, jitter=args.jitter,
                       workers=args.workers, size=size)
        if args.samples:
            np.savez(args.samples, x=x, y=y, xv=xv, yv=yv)
    print(f"{len(x)} samples ({(y != CLASSES.index(NONE)).sum()} cards), {len(xv)} validation, "
          f"{time.time() - t0:.0f} s", flush=True)
    X = torch.from_numpy(x).permute(0, 3, 1, 2).contiguous()
    Y = torch.from_numpy(y)
    XV = torch.from_numpy(xv).permute(0, 3, 1, 2).contiguous()
    YV = torch.from_numpy(yv)
    model = model_from_onnx(Path(args.base))
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)

    # with --augment camera the held-back samples are also read once through a camera's faults
    # (drawn once, so every check reads the same ones), and a check scores the mean of both: the
    # model that reads the photos as well and a worse camera better is the one kept
    rng = np.random.default_rng(args.seed + 2000)
    if args.augment == "camera":
        from vision.train.index import camera_noise, other_light

        XVC = torch.cat([camera_noise(scaled(XV[i:i + 512]), rng) for i in range(0, len(XV), 512)])

    def accuracy(batch_of):
        """The share of the held-back samples read right, batch ``i`` of 512 read as ``batch_of(i)``."""
        pred = torch.cat([model(batch_of(i)).argmax(1) for i in range(0, len(XV), 512)])
        return (pred == YV).float().mean().item()

    def val_acc():
        model.eval()
        with torch.no_grad():
            acc = accuracy(lambda i: scaled(XV[i:i + 512]))
            if args.augment != "camera":
                return acc
            return (acc + accuracy(lambda i: XVC[i:i + 512])) / 2

    best, stale = val_acc(), 0
    print(f"before: validation accuracy {best:.4f}", flush=True)
    per_epoch = len(X) // args.batch
    every = args.check_every or per_epoch
    done = False
    for epoch in range(args.epochs):
        order = torch.from_numpy(np.random.default_rng(args.seed + epoch).permutation(len(X)))
        for b in tqdm(range(per_epoch), desc=f"epoch {epoch + 1}", unit="batch"):
            model.train()
            idx = order[b * args.batch:(b + 1) * args.batch]
            xb = scaled(X[idx])
            flip = torch.rand(len(idx)) < 0.5  # either way up
            xb[flip] = torch.flip(xb[flip], dims=(2, 3))
            if args.augment == "camera":
                # another camera's light and contrast, then its softness, white balance and noise
                xb = camera_noise(other_light(xb), rng)
            loss = loss_fn(model(xb), Y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            step = epoch * per_epoch + b + 1
            if step % every and b + 1 < per_epoch:
                continue
            # a check every --check-every batches and at each epoch's end: the best so far is
            # written at once, so that a run stopped early leaves its best model
            acc = val_acc()
            print(f"epoch {epoch + 1}, batch {b + 1}: validation accuracy {acc:.4f} "
                  f"({time.time() - t0:.0f} s)", flush=True)
            if acc > best:
                best, stale = acc, 0
                export(model, args, best, time.time() - t0, len(x))
            else:
                stale += 1
            if stale >= 3 or time.time() - t0 > args.max_seconds:
                done = True
                break
        if done:
            break


def export(model, args, acc, seconds, n):
    out = Path(args.out)
    export_onnx(model, out)
    meta = {"classes": list(CLASSES), "input": {"width": CARD_W, "height": CARD_H, "order": "BGR"},
            "trained_on": f"{n} outlines on {args.tables} composed tables of training-photo crops",
            "validation_accuracy": round(acc, 4), "train_seconds": round(seconds),
            "args": {k: (Path(v).name if k == "base" else v) for k, v in vars(args).items()
                     if k not in ("out", "crops", "samples")}}
    out.with_suffix(".json").write_text(json.dumps(meta, indent=1) + "\n")
    print(f"wrote {out} and {out.with_suffix('.json')}")


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m vision.train.corners", description=__doc__)
    p.add_argument("--tables", type=int, default=400, help="composed tables to train on (400)")
    p.add_argument("--per-label", type=int, default=4, help="photos per label to cut crops from (4)")
    p.add_argument("--epochs", type=int, default=6)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--lr", type=float, default=5e-4)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jitter", type=int, default=JITTER_COPIES,
                   help=f"samples of each readable card through its own outline, jittered ({JITTER_COPIES})")
    p.add_argument("--workers", type=int, default=1, help="processes composing the tables (1)")
    p.add_argument("--threads", type=int, default=1, help="torch threads training (1)")
    p.add_argument("--check-every", type=int, default=0,
                   help="check the validation accuracy (and write the best model) every N batches "
                        "as well as at each epoch's end (0: at each epoch's end only)")
    p.add_argument("--table-size", default=None,
                   help="compose small tables WxH (e.g. 640x640: one or two hands each) instead of 1600x1066")
    p.add_argument("--max-seconds", type=float, default=1000, help="stop training after this (1000)")
    p.add_argument("--base", default=str(MODELS / "cards.onnx"), help="the card model to start from")
    p.add_argument("--augment", choices=("none", "camera"), default="none",
                   help="camera: put a camera's faults on the training samples "
                        "(vision.train.index.camera_noise) and choose on held-back samples read "
                        "as they are and through such a camera (none)")
    p.add_argument("--crops", default=None, help="a pickle of (label, image) training crops (a cache)")
    p.add_argument("--samples", default=None,
                   help="an .npz of the rendered samples: written when missing, else read (a cache)")
    p.add_argument("--data", default=None, help="the photo data folder (else $UNO_DATA)")
    p.add_argument("--out", default=str(MODELS / "partial.onnx"))
    return train_when_ready(p.parse_args(argv), train)


if __name__ == "__main__":
    sys.exit(main())
