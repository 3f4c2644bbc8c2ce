"""Train the corner-index finder (``python -m vision.train.index_points``).

Writes ``vision/models/index_points.onnx`` and ``index_points.json``: the network of
:mod:`vision.index_points`, which marks where a corner index's middle lies on a whole image and
which way the index reads.

The samples are tables of overlapping hands (:func:`vision.overlap.compose_hands`: fans, rows,
cascades, piles, thumbs; wood, cloth, white and dark) of card crops cut from the **training**
photos only (the validation photos are left out, as for the corner model: the pass's thresholds
are chosen on their tables), art-sheet cells and drawn backs (:func:`vision.train.corners.
card_pool`). Each table is composed at twice the size and shrunk by half (as a photo is shrunk
to a card :data:`vision.index_points.CARD_PX` wide), its cards 52-80 pixels wide (the card width
measured on a table is off by up to a fifth). Every corner index of which at least
:data:`vision.overlap.INDEX_VISIBLE` shows is a target: a peak of the heat map on its middle and
its reading direction; an index showing a third to that is neither target nor background (the
loss leaves it out).

The loss is CenterNet's (Zhou et al., "Objects as Points", 2019): a focal loss on the heat map
(a Gaussian round each index, 1 at its own cell) and an L1 loss on the direction near each index.
``--tables`` composed tables (1200), random 256x256 crops of them, ``--minutes`` of training on
the CPU (``--threads``), the held-back tables' loss checked every ``--check-every`` batches and
the best model kept (and its weights beside it, ``index_points.pt``, which ``--base`` trains on
from; the ``.pt`` is not committed).
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from vision.index_points import CARD_PX, STRIDE
from vision.overlap import INDEX_VISIBLE, compose_hands

MODELS = Path(__file__).resolve().parent.parent / "models"
#: Crops trained on, in pixels of the shrunk table.
CROP = 256
#: The Gaussian round each index on the heat map, in output cells.
SIGMA = 1.0
#: An index showing at least this share (but under INDEX_VISIBLE) is left out of the loss.
HALF_SHOWN = 0.3


def index_targets(truth, shrink: float) -> list[tuple[float, float, float, float, float]]:
    """``(x, y, right_x, right_y, share shown)`` of every corner index of a composed table's
    cards, in the shrunk table's pixels."""
    out = []
    for card in truth:
        for k, (box, share) in enumerate(card.indices):
            box = np.asarray(box, np.float64)
            mid = box.mean(0) * shrink
            right = box[1] - box[0]
            if k == 1:                 # the bottom right index is printed upside down
                right = -right
            right /= max(1e-9, float(np.hypot(*right)))
            out.append((float(mid[0]), float(mid[1]), float(right[0]), float(right[1]), float(share)))
    return out


def _table(job):
    seed, real, other = job
    from vision.train.corners import layout_cards

    rng = np.random.default_rng(seed)
    cards = layout_cards(rng, real, other, int(rng.integers(5, 15)))
    size = 2 * int(rng.integers(384, 577))
    cw = 2 * rng.uniform(0.8125, 1.25) * CARD_PX
    img, truth = compose_hands(cards, size, size, rng=rng, card_width=cw,
                               hands=int(rng.integers(1, 4)))
    small = cv2.resize(img, (size // 2, size // 2), interpolation=cv2.INTER_AREA)
    if rng.random() < 0.3:   # a photo's JPEG
        ok, data = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(50, 95))])
        small = cv2.imdecode(data, cv2.IMREAD_COLOR)
    return small, np.array(index_targets(truth, 0.5), np.float32).reshape(-1, 5)


def build(n: int, real, other, seed: int, workers: int = 2, progress: bool = True):
    """``n`` shrunk tables and their index targets."""
    from multiprocessing import get_context

    from tqdm import tqdm

    jobs = [(seed * 100_000 + k, real, other) for k in range(n)]
    if workers <= 1:
        return [_table(j) for j in tqdm(jobs, disable=not progress, desc="tables")]
    with get_context("fork").Pool(workers) as pool:
        return list(tqdm(pool.imap(_table, jobs, chunksize=8), total=n, disable=not progress, desc="tables"))


def crop_targets(points: np.ndarray, x0: int, y0: int, size: int = CROP):
    """``(heat, right, weight, ignore)`` targets of a ``size`` crop at (x0, y0) of a table."""
    g = size // STRIDE
    heat = np.zeros((g, g), np.float32)
    right = np.zeros((2, g, g), np.float32)
    weight = np.zeros((g, g), np.float32)
    ignore = np.zeros((g, g), np.float32)
    gy, gx = np.mgrid[0:g, 0:g].astype(np.float32)
    for x, y, rx, ry, share in points:
        cx, cy = (x - x0 - (STRIDE - 1) / 2) / STRIDE, (y - y0 - (STRIDE - 1) / 2) / STRIDE
        if not (-2 <= cx < g + 2 and -2 <= cy < g + 2):
            continue
        d2 = (gx - cx) ** 2 + (gy - cy) ** 2
        if share >= INDEX_VISIBLE:
            heat = np.maximum(heat, np.exp(-d2 / (2 * SIGMA ** 2)))
            ix, iy = int(round(cx)), int(round(cy))
            if 0 <= ix < g and 0 <= iy < g:
                heat[iy, ix] = 1.0
            near = d2 <= 2.0
            right[0][near], right[1][near] = rx, ry
            weight[near] = 1.0
        elif share >= HALF_SHOWN:
            ignore[d2 <= 4.0] = 1.0
    ignore[heat > 0.05] = 0.0
    return heat, right, weight, ignore


def model():
    import torch.nn as nn

    def conv(a, b, stride=1, dilation=1):
        return [nn.Conv2d(a, b, 3, stride, padding=dilation, dilation=dilation, bias=False),
                nn.BatchNorm2d(b), nn.ReLU(inplace=True)]

    layers = (conv(3, 16, 2) + conv(16, 16) + conv(16, 32, 2) + conv(32, 32)
              + conv(32, 32, dilation=2) + conv(32, 32, dilation=4) + conv(32, 32, dilation=8)
              + conv(32, 32) + [nn.Conv2d(32, 3, 1)])
    net = nn.Sequential(*layers)
    net[-1].bias.data[0] = -4.0   # most cells are no index: start the heat near 0
    return net


def losses(out, heat, right, weight, ignore):
    import torch

    p = torch.sigmoid(out[:, 0]).clamp(1e-4, 1 - 1e-4)
    pos = (heat >= 1.0).float()
    keep = 1.0 - ignore
    pos_loss = -(pos * (1 - p) ** 2 * torch.log(p)).sum()
    neg_loss = -((1 - pos) * keep * (1 - heat) ** 4 * p ** 2 * torch.log(1 - p)).sum()
    n = pos.sum().clamp(min=1.0)
    d = out[:, 1:3]
    d = d / d.norm(dim=1, keepdim=True).clamp(min=1e-6)
    dir_loss = ((d - right).abs().sum(1) * weight).sum() / weight.sum().clamp(min=1.0)
    return (pos_loss + neg_loss) / n, dir_loss


def batches(tables, rng, size: int = 16):
    imgs, hs, rs, ws, igs = [], [], [], [], []
    for _ in range(size):
        img, pts = tables[int(rng.integers(len(tables)))]
        h, w = img.shape[:2]
        x0 = STRIDE * int(rng.integers(0, max(1, (w - CROP) // STRIDE + 1)))
        y0 = STRIDE * int(rng.integers(0, max(1, (h - CROP) // STRIDE + 1)))
        crop = img[y0:y0 + CROP, x0:x0 + CROP]
        k = int(rng.integers(4))       # a quarter turn: the table seen from another side
        heat, right, weight, ignore = crop_targets(pts, x0, y0)
        if k:
            crop = np.rot90(crop, k)
            heat, weight, ignore = (np.rot90(a, k) for a in (heat, weight, ignore))
            right = np.stack([np.rot90(right[0], k), np.rot90(right[1], k)])
            # a vector turned with the image: np.rot90 turns counterclockwise on screen
            for _ in range(k):
                right = np.stack([right[1], -right[0]])
        gain = rng.uniform(0.75, 1.25)
        imgs.append(np.clip(crop.astype(np.float32) * gain, 0, 255) / 255.0 - 0.5)
        hs.append(heat), rs.append(right), ws.append(weight), igs.append(ignore)
    import torch

    def t(a):
        return torch.from_numpy(np.ascontiguousarray(np.stack(a)))
    return t([i.transpose(2, 0, 1) for i in imgs]), t(hs), t(rs), t(ws), t(igs)


def train(args) -> int:
    import torch

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    from vision.train.corners import card_pool

    real, other = card_pool("train", args.per_label, args.crops)
    tables, held = [], []
    if args.tables_cache and Path(args.tables_cache).is_file():
        tables, held = pickle.load(open(args.tables_cache, "rb"))
    if len(tables) < args.tables or not held:
        # more tables than the cache holds: the rest composed from seeds of their own
        tables += build(args.tables - len(tables), real, other, args.seed + 1000 * len(tables), args.workers)
        held = held or build(args.held, real, other, args.seed + 1, args.workers)
        if args.tables_cache:
            pickle.dump((tables, held), open(args.tables_cache, "wb"))
    tables = tables[:args.tables]
    print(f"{len(tables)} tables to train on, {len(held)} held back", flush=True)
    net = model()
    if args.base:
        net.load_state_dict(torch.load(args.base))
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    rng = np.random.default_rng(args.seed)
    held_batches = [batches(held, np.random.default_rng(k), 16) for k in range(args.held_batches)]
    best, since, step, started = float("inf"), 0, 0, time.time()
    while time.time() - started < args.minutes * 60:
        net.train()
        x, heat, right, weight, ignore = batches(tables, rng, args.batch)
        hl, dl = losses(net(x), heat, right, weight, ignore)
        opt.zero_grad()
        (hl + args.dir_weight * dl).backward()
        opt.step()
        step += 1
        if step % args.check_every == 0:
            net.eval()
            with torch.no_grad():
                vals = [losses(net(b[0]), *b[1:]) for b in held_batches]
            v = float(np.mean([float(a) + args.dir_weight * float(b) for a, b in vals]))
            print(f"step {step} ({time.time() - started:.0f} s): train {float(hl):.3f}+{float(dl):.3f} "
                  f"held {v:.3f}", flush=True)
            if v < best:
                best, since = v, 0
                export(net, args, v, step, time.time() - started)
            else:
                since += 1
            if step % (args.check_every * 8) == 0:
                for g in opt.param_groups:
                    g["lr"] *= 0.6
    print(f"best held-back loss {best:.3f}; written {args.out}")
    return 0


def export(net, args, loss, steps, seconds):
    import torch

    net.eval()
    out = Path(args.out)
    torch.onnx.export(net, torch.zeros(1, 3, CROP, CROP), str(out), input_names=["image"],
                      output_names=["heat_right"], opset_version=11,
                      dynamic_axes={"image": {2: "h", 3: "w"}, "heat_right": {2: "gh", 3: "gw"}},
                      dynamo=False)
    torch.save(net.state_dict(), out.with_suffix(".pt"))   # to train on from (--base); not committed
    out.with_suffix(".json").write_text(json.dumps({
        "model": "corner-index finder (vision.index_points)", "card_px": CARD_PX, "stride": STRIDE,
        "trained_on": f"{args.tables} composed tables of training-photo crops (validation photos left out)",
        "held_back_loss": round(loss, 4), "steps": steps, "seconds": round(seconds),
        "command": "python -m vision.train.index_points " + " ".join(sys.argv[1:]),
    }, indent=1) + "\n")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m vision.train.index_points", description=__doc__.split("\n")[0])
    p.add_argument("--tables", type=int, default=1200, help="composed tables to train on (1200)")
    p.add_argument("--held", type=int, default=48, help="tables held back to check the loss (48)")
    p.add_argument("--held-batches", type=int, default=4)
    p.add_argument("--per-label", type=int, default=4, help="training photos per label to cut crops from (4)")
    p.add_argument("--crops", default=None, help="a pickle of (label, image) training crops (a cache)")
    p.add_argument("--tables-cache", default=None, help="a pickle of the composed tables (a cache)")
    p.add_argument("--minutes", type=float, default=20.0)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--dir-weight", type=float, default=1.0)
    p.add_argument("--check-every", type=int, default=50)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--workers", type=int, default=2, help="processes composing the tables (2)")
    p.add_argument("--seed", type=int, default=31)
    p.add_argument("--base", default=None, help="a .pt of this network's weights to train on from "
                   "(each run writes one beside its model)")
    p.add_argument("--out", default=str(MODELS / "index_points.onnx"))
    args = p.parse_args(argv)
    from vision.data import DataMissing

    try:
        return train(args)
    except DataMissing as exc:
        print(f"the photo data is missing: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
