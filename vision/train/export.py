"""What the card trainers share (``python -m vision.train``, ``vision.train.corners``, ``vision.train.index``):
the network's input scaling and the ONNX export the reader loads (:mod:`vision.recognize`).

The exported model takes a batch of rectified cards (N x 3 x CARD_H x CARD_W, BGR, 0-255, after
:func:`vision.color.normalize_card`) and gives softmax probabilities over :data:`vision.classes.CLASSES`;
the scaling is inside the model, so the reader feeds it pixels as they are. Needs torch (the
``train`` extra).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vision.detect import CARD_H, CARD_W

#: Pixels 0-255 to the network's input: (x - SHIFT) / SCALE.
SHIFT, SCALE = 127.5, 64.0


def scaled(xb):
    """A batch of card pixels (a uint8 tensor) as the network's float input."""
    return (xb.float() - SHIFT) / SCALE


def export_onnx(model, out: Path, size: tuple[int, int] = (CARD_H, CARD_W), shift: float = SHIFT,
                scale: float = SCALE) -> None:
    """Write ``model`` to ``out`` as the ONNX file the reader loads: pixels in (N x 3 x ``size``,
    BGR 0-255), probabilities out, the scaling ``(x - shift) / scale`` inside."""
    import torch

    class WithScaling(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, x):  # x: N,3,H,W BGR 0..255 float
            return torch.softmax(self.m((x - shift) / scale), dim=1)

    torch.onnx.export(WithScaling(model).eval(), torch.zeros(1, 3, *size), str(out),
                      input_names=["card"], output_names=["prob"],
                      dynamic_axes={"card": {0: "n"}, "prob": {0: "n"}}, opset_version=13,
                      dynamo=False)


def ready_to_train(data: str | None) -> int:
    """0 where training can start: torch and onnx installed (the ``train`` extra) and the photo
    data found (``data``, else ``$UNO_DATA``, which ``data`` sets); else 2, with why on stderr."""
    import os
    import sys

    from vision.data import DataMissing, require_data

    if data:
        os.environ["UNO_DATA"] = data
    try:
        import onnx  # noqa: F401 - only: is the train extra installed?
        import torch  # noqa: F401 - the same
    except ImportError:
        print("error: training needs the train extra: pip install -e '.[train]'", file=sys.stderr)
        return 2
    try:
        require_data()
    except DataMissing as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


def table_shares(tables: int, workers: int) -> list[int]:
    """How many of ``tables`` composed tables each of ``workers`` processes makes."""
    return [len(part) for part in np.array_split(np.arange(tables), max(1, workers)) if len(part)]


def samples_of_parts(build_part, jobs: list):
    """``build_part(job)`` for each job, in as many forked processes where more than one, each
    giving (samples, classes): all the samples and all the classes, in the jobs' order."""
    if len(jobs) == 1:
        parts = [build_part(jobs[0])]
    else:
        import multiprocessing

        with multiprocessing.get_context("fork").Pool(len(jobs)) as pool:
            parts = pool.map(build_part, jobs)
    return np.concatenate([x for x, _ in parts]), np.concatenate([y for _, y in parts])


def train_when_ready(args, train) -> int:
    """A trainer's exit status: 2 where :func:`ready_to_train` says it cannot start, else 0 once
    ``train(args)`` has run."""
    if ready_to_train(args.data):
        return 2
    train(args)
    return 0
