"""Train the reader of corner indices (``python -m vision.train.index``).

Writes ``vision/models/index.onnx`` and ``index.json``: a small network that reads the box round
one corner index of a card outline (:func:`vision.corners.index_crop`, 32x40 pixels) as the card
whose index shows there, or ``none``. The partial pass (:mod:`vision.partial`) reads every
outline it puts on a corner with it and with the corner model (``partial.onnx``, a quarter card)
and takes the geometric mean of the two.

Why a second model: in a tight fan a quarter card holds more of the neighbour's face than of
the card's own strip, and the corner model read the neighbour (the largest bin of lost cards).
The index box alone holds the card's own print.

The samples, from tables of one or two overlapping hands (640x640, cards 90-160 pixels wide,
:func:`vision.overlap.compose_hands`) of crops of the *training* photos only (the validation
photos, on whose tables the pass is measured, and the test photos are left out), art-sheet cells
and drawn backs (:func:`vision.train.corners.card_pool`), and drawn faces (:func:`drawn_faces`):

* both corners of every card's true outline, and of :data:`JITTER` copies of it turned (2
  degrees), scaled (3 %) and shifted (3 % of the width) at random, as the outlines the reader
  puts on edges are: the card's label where its index shows (:data:`vision.overlap.INDEX_VISIBLE`),
  ``none`` where less than 30 % of it does;
* both corners of the outlines :func:`vision.corners.partial_quads` puts on the table (as at run
  time): of a card (IoU >= 0.6) the same way, and of outlines on no card (IoU < 0.35) ``none``,
  half as many outlines as card samples.

The committed model: ``python -m vision.train.index --tables 1200 --epochs 7 --per-label 12
--augment camera`` (its default random seed), 108,592 samples (47,333 of cards), 1,168 s on the 2-core development
machine; accuracy on its own held-back tables 0.954 (cards 0.927, none 0.975). ``--augment
camera`` (:func:`camera_noise`) puts a camera's faults on the training boxes: read through a
worse camera (``benchmarks/fanned_camera.py``), the held-out test tables gave 746 of 851 cards
right against 707 with the model trained without them (``--augment light``: 0.957, cards 0.930 on
its held-back tables), and about the same on the tables as photographed (797 against 792).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from companion.cards import BACK
from vision.card_shape import order_quad
from vision.classes import CLASSES, NONE
from vision.corners import INDEX_H, INDEX_REGION, INDEX_W, card_width_of, index_crop, index_point, partial_quads
from vision.detect import quad_iou
from vision.overlap import INDEX_VISIBLE, TABLES, compose_hands
from vision.train.export import export_onnx, samples_of_parts, table_shares, train_when_ready

MODELS = Path(__file__).resolve().parent.parent / "models"
#: Jittered copies of each card's true outline.
JITTER = 2
#: Outlines matching a card by this IoU are that card; below NONE_IOU with every card, none.
CARD_IOU, NONE_IOU = 0.6, 0.35
#: The network's input scaling (pixels 0-255 -> about -2..2).
SHIFT, SCALE = 128.0, 64.0


def jittered(quad: np.ndarray, width: float, rng) -> np.ndarray:
    """``quad`` turned about a corner (2 degrees), scaled (3 %) and shifted (3 % of ``width``)."""
    a = np.radians(rng.normal(0, 2.0))
    pivot = quad[int(rng.integers(4))]
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]], np.float32)
    out = (quad - pivot) @ rot.T + pivot
    c = out.mean(0)
    out = (out - c) * np.float32(rng.normal(1.0, 0.03)) + c
    out = out + rng.normal(0, 0.03 * width, 2).astype(np.float32)
    return order_quad(out.astype(np.float32))


def rescaled(quad: np.ndarray, corner: int, scale: float) -> np.ndarray:
    """``quad`` scaled by ``scale`` about the card corner of index ``corner`` (0: its first
    point, 1: its third): an outline of another width whose index box stays on that index."""
    pivot = quad[2 * corner]
    return ((quad - pivot) * np.float32(scale) + pivot).astype(np.float32)


def samples_of_table(img, truth, rng, jitter: int = JITTER, scaled: int = 0, cut: float = INDEX_VISIBLE):
    """(index crops, class indices) of one composed table (see the module's docstring); with
    ``scaled``, that many outlines a card at 0.75-1.15 of its width about each index corner
    (the finder's width in tight fans is 0.73-0.81 of the true one; other prints' indices are
    larger or smaller); a face's index of which ``cut`` or more shows is the card's (below
    :data:`vision.overlap.INDEX_VISIBLE`: indices cut by the card over them, as a tight fan
    cuts them; a back's corner only where INDEX_VISIBLE shows: a back's black corner cut looks
    like a wild's, and the first model taught with cut backs read backs on wilds)."""
    whole = [t.quad for t in truth if t.visible == "whole"] or [t.quad for t in truth]
    width = card_width_of(whole) * rng.uniform(0.96, 1.04)
    xs, ys = [], []
    none = CLASSES.index(NONE)

    def add(quad, card):
        for k in (0, 1):
            share = card.index_share_near(index_point(quad, k), 0.3 * width)
            if share is None:
                continue
            if share >= (INDEX_VISIBLE if card.label == BACK else cut):
                xs.append(index_crop(img, quad, k))
                ys.append(CLASSES.index(card.label))
            elif share < 0.3:
                xs.append(index_crop(img, quad, k))
                ys.append(none)

    for card in truth:
        add(card.quad, card)
        for _ in range(jitter):
            add(jittered(card.quad, width, rng), card)
        for _ in range(scaled):
            add(rescaled(card.quad, int(rng.integers(2)), rng.uniform(0.75, 1.15)), card)
    off = []
    for q in partial_quads(img, width):
        ious = [quad_iou(q, t.quad) for t in truth]
        k = int(np.argmax(ious)) if ious else -1
        best = ious[k] if ious else 0.0
        if best >= CARD_IOU:
            add(q, truth[k])
        elif best < NONE_IOU:
            off.append(q)
    cards = sum(1 for y in ys if y != none)
    for i in rng.permutation(len(off))[:max(2, cards // 2)]:
        for k in (0, 1):
            xs.append(index_crop(img, off[int(i)], k))
            ys.append(none)
    return xs, ys


def drawn_faces(copies: int = 2, seed: int = 5) -> list:
    """(label, image) of every face drawn (:func:`vision.card_art.draw_card`) ``copies`` times,
    each in its own style: the synthetic table's cards. Their index is smaller and further in
    than a print's; without them the model read 13 of 18 drawn indices wrong."""
    from vision.card_art import draw_card

    rng = np.random.default_rng(seed)
    labels = [c for c in CLASSES if c not in (NONE, "back")]
    return [(label, draw_card(label, 160, 248, rng=rng)) for label in labels for _ in range(copies)]


def _build_part(job):
    tables, real, other, seed, scaled, cut = job
    from vision.train.corners import layout_cards

    rng = np.random.default_rng(seed)
    X, Y = [], []
    for k in range(tables):
        cards = layout_cards(rng, real, other, int(rng.integers(3, 9)))
        img, truth = compose_hands(cards, 640, 640, rng=rng, kind=TABLES[k % len(TABLES)],
                                   hands=int(rng.integers(1, 3)), card_width=rng.uniform(90, 160),
                                   singles=int(rng.integers(0, 2)))
        xs, ys = samples_of_table(img, truth, rng, scaled=scaled, cut=cut)
        X += xs
        Y += ys
    return np.array(X, np.uint8).reshape(-1, INDEX_H, INDEX_W, 3), np.array(Y, np.int64)


def build(tables: int, real, other, seed: int, workers: int = 2, scaled: int = 0,
          cut: float = INDEX_VISIBLE):
    """The samples of ``tables`` tables, made by ``workers`` processes (seeds ``seed``, ``seed`` + 1, ...)."""
    jobs = [(n, real, other, seed + i, scaled, cut) for i, n in enumerate(table_shares(tables, workers))]
    return samples_of_parts(_build_part, jobs)


def make_model():
    """Four blocks of 3x3 convolutions (32-128 channels), three halvings, the mean of each
    quarter of the last map: about 0.3 M weights."""
    import torch
    import torch.nn as nn

    class Quarters(nn.Module):
        """The mean of each quarter of a 5x4 map (2x2 out; the halves overlap by a row): an
        adaptive average pool spelled out, as ONNX has none for uneven sizes."""

        def forward(self, x):
            parts = [x[:, :, r0:r1, c0:c1].mean((2, 3))
                     for r0, r1 in ((0, 3), (2, 5)) for c0, c1 in ((0, 2), (2, 4))]
            return torch.stack(parts, dim=2).reshape(x.shape[0], x.shape[1], 2, 2)

    def block(i, o):
        return [nn.Conv2d(i, o, 3, 1, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True)]

    return nn.Sequential(*block(3, 32), *block(32, 32), nn.MaxPool2d(2),
                         *block(32, 64), *block(64, 64), nn.MaxPool2d(2),
                         *block(64, 128), nn.MaxPool2d(2),
                         *block(128, 128), Quarters(), nn.Flatten(), nn.Dropout(0.3),
                         nn.Linear(512, len(CLASSES)))


def samples(args, real, other):
    """The training and held-back samples, read from ``args.samples`` where that file exists,
    else built (and written there when given): trying training choices on the same samples."""
    cache = Path(args.samples) if args.samples else None
    # the options the samples are made of: a cache made with others is refused, not reused
    made_of = json.dumps({k: getattr(args, k) for k in ("tables", "per_label", "seed", "drawn", "scaled", "cut")})
    if cache is not None and cache.exists():
        with np.load(cache) as z:
            if str(z["made_of"]) != made_of:
                raise SystemExit(f"error: {cache} holds samples made with {z['made_of']}, not {made_of}")
            return z["x"], z["y"], z["xv"], z["yv"]
    x, y = build(args.tables, real, other, args.seed, args.workers, args.scaled, args.cut)
    xv, yv = build(max(8, args.tables // 10), real, other, args.seed + 1000, args.workers)
    if cache is not None:
        np.savez(cache, x=x, y=y, xv=xv, yv=yv, made_of=made_of)
    return x, y, xv, yv


def other_light(xb):
    """``xb`` (scaled) in another camera's light and contrast: each box's contrast and brightness
    off by about 15 %."""
    import torch

    n = xb.shape[0]
    return xb * (1 + 0.15 * torch.randn(n, 1, 1, 1)) + 0.15 * torch.randn(n, 1, 1, 1)


def camera_noise(xb, rng):
    """``xb`` (scaled) as another camera might give it: each channel's gain a little off (white
    balance the crop's own normalisation did not undo), a third of the boxes blurred or taken at
    a lower resolution and scaled back, and sensor noise."""
    import torch
    import torch.nn.functional as F

    n = xb.shape[0]
    xb = xb * (1 + 0.06 * torch.randn(n, 3, 1, 1))
    soft = torch.from_numpy(rng.random(n) < 0.33)
    if soft.any():
        h, w = xb.shape[2:]
        f = float(rng.uniform(0.45, 0.8))
        small = F.interpolate(xb[soft], scale_factor=f, mode="bilinear", align_corners=False)
        xb[soft] = F.interpolate(small, size=(h, w), mode="bilinear", align_corners=False)
    return xb + 0.04 * torch.randn_like(xb) * torch.rand(n, 1, 1, 1)


def train(args):
    import torch
    import torch.nn as nn
    from tqdm import tqdm

    from vision.train.corners import card_pool

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    t0 = time.time()
    real, other = card_pool("train", args.per_label, args.crops)
    other = other + drawn_faces(args.drawn)
    print(f"sources: {len(real)} training-photo crops, {len(other)} art cells, drawn faces and backs",
          flush=True)
    x, y, xv, yv = samples(args, real, other)
    none = CLASSES.index(NONE)
    print(f"{len(x)} samples ({(y != none).sum()} cards), {len(xv)} validation, {time.time() - t0:.0f} s",
          flush=True)
    X = torch.from_numpy(x).permute(0, 3, 1, 2).contiguous()
    Y = torch.from_numpy(y)
    XV = torch.from_numpy(xv).permute(0, 3, 1, 2).contiguous()
    YV = torch.from_numpy(yv)
    model = make_model()
    batches = len(X) // args.batch
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=args.epochs * batches)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    rng = np.random.default_rng(args.seed)

    def scaled(xb):
        return (xb.float() - SHIFT) / SCALE

    def check():
        model.eval()
        with torch.no_grad():
            p = torch.cat([model(scaled(XV[i:i + 1024])).argmax(1) for i in range(0, len(XV), 1024)])
        card = YV != none
        return ((p == YV).float().mean().item(), (p[card] == YV[card]).float().mean().item(),
                (p[~card] == none).float().mean().item())

    best = -1.0
    for epoch in range(args.epochs):
        model.train()
        order = torch.randperm(len(X))
        for b in tqdm(range(batches), desc=f"epoch {epoch + 1}", unit="batch", disable=not args.progress):
            idx = order[b * args.batch:(b + 1) * args.batch]
            xb = scaled(X[idx])
            # light and contrast of another camera, and an outline a pixel or two off
            xb = other_light(xb)
            xb = torch.roll(xb, shifts=(int(rng.integers(-2, 3)), int(rng.integers(-2, 3))), dims=(2, 3))
            if args.augment == "camera":
                xb = camera_noise(xb, rng)
            loss = loss_fn(model(xb), Y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        acc, cards, nones = check()
        print(f"epoch {epoch + 1}: validation accuracy {acc:.4f} (cards {cards:.4f}, none {nones:.4f}), "
              f"{time.time() - t0:.0f} s", flush=True)
        if acc > best:
            best = acc
            export(model, args, {"accuracy": round(acc, 4), "cards": round(cards, 4), "none": round(nones, 4)},
                   time.time() - t0, len(x))


def export(model, args, accuracy: dict, seconds: float, n: int) -> None:
    out = Path(args.out)
    export_onnx(model, out, (INDEX_H, INDEX_W), SHIFT, SCALE)
    meta = {"classes": list(CLASSES), "input": {"width": INDEX_W, "height": INDEX_H, "order": "BGR",
                                                "region": list(INDEX_REGION)},
            "trained_on": f"{n} index boxes on {args.tables} composed tables of training-photo crops",
            "validation": accuracy, "train_seconds": round(seconds),
            "args": {k: v for k, v in vars(args).items() if k not in ("out", "crops", "progress", "samples")}}
    out.with_suffix(".json").write_text(json.dumps(meta, indent=1) + "\n")
    print(f"wrote {out} and {out.with_suffix('.json')}", flush=True)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m vision.train.index", description=__doc__.splitlines()[0])
    p.add_argument("--tables", type=int, default=700, help="composed tables to train on (700)")
    p.add_argument("--per-label", type=int, default=6, help="photos per label to cut crops from (6)")
    p.add_argument("--epochs", type=int, default=6)
    p.add_argument("--batch", type=int, default=128)
    p.add_argument("--lr", type=float, default=3e-3, help="the one-cycle schedule's peak (3e-3)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--drawn", type=int, default=2, help="drawings of each face among the sources (2)")
    p.add_argument("--workers", type=int, default=2, help="processes composing the tables (2)")
    p.add_argument("--threads", type=int, default=2, help="torch threads training (2)")
    p.add_argument("--crops", default=None, help="a pickle of (label, image) training crops (a cache)")
    p.add_argument("--scaled", type=int, default=0,
                   help="outlines a card at 0.75-1.15 of its width about an index corner (0)")
    p.add_argument("--cut", type=float, default=INDEX_VISIBLE,
                   help="an index of which this share or more shows is read as its card; below "
                        f"{INDEX_VISIBLE} (an index counted as shown) it teaches cut indices ({INDEX_VISIBLE})")
    p.add_argument("--samples", default=None,
                   help="an .npz of the built samples: read where it exists, else written (a cache)")
    p.add_argument("--augment", choices=("light", "camera"), default="light",
                   help="light and contrast only (light), or also white balance, blur and noise (camera)")
    p.add_argument("--data", default=None, help="the photo data folder (else $UNO_DATA)")
    p.add_argument("--progress", action="store_true", help="a progress bar for each epoch")
    p.add_argument("--out", default=str(MODELS / "index.onnx"))
    return train_when_ready(p.parse_args(argv), train)


if __name__ == "__main__":
    sys.exit(main())
