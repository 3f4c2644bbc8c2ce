"""The reference every speed figure is measured against: a small detector's forward pass.

This machine (and the Pi) is shared and its speed changes from minute to minute, so no figure in
``benchmarks/results/`` stands alone: each is a ratio to the forward pass of **YOLOv8n's
architecture at 640x640** (the detector a user would reach for), run by OpenCV's ``cv2.dnn`` on the
same CPU, in the same process, interleaved with the work measured (medians of both). The
product's own models run on ONNX Runtime (:mod:`vision.onnx_model`), which runs the reference in
about half the time: ``runtime="onnxruntime"`` (``--reference-runtime onnxruntime`` in the
benchmarks) times it so, the stricter comparison.

The weights do not matter for timing, so the network is built from the architecture with a fixed
seed (random weights, BatchNorm folded as an exported detector has it) and exported to ONNX by
torch. The ONNX (12.8 MB of random numbers) is not committed; it is built once into a cache::

    python3 -m venv /tmp/refvenv && /tmp/refvenv/bin/pip install torch==2.13.0 onnx==1.23.2
    /tmp/refvenv/bin/python benchmarks/reference.py --build      # writes the cache file below

(or ``.venv/bin/pip install -e '.[train]'`` and ``.venv/bin/python benchmarks/reference.py
--build``). The cache is ``$UNO_BENCH_CACHE`` or ``~/.cache/uno-companion``; the benchmarks say
how to build it when it is missing. torch is never a dependency of the product, and nothing is
downloaded at run time.

    .venv/bin/python benchmarks/reference.py            # times the reference alone (ms, median)
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

#: The fixed seed of the reference's random weights (the timing does not depend on it).
SEED = 8
INPUT = 640
FILE_NAME = "yolov8n-arch-640-seed8.onnx"
#: What can run the reference: OpenCV's dnn module (the default, every committed figure's) or the
#: product's own runtime.
RUNTIMES = ("cv2.dnn", "onnxruntime")


class ReferenceMissing(RuntimeError):
    """The reference detector's ONNX has not been built into the cache yet."""


def cache_dir() -> Path:
    env = os.environ.get("UNO_BENCH_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "uno-companion"


def onnx_path() -> Path:
    return cache_dir() / FILE_NAME


HOW_TO_BUILD = (
    "the reference detector (YOLOv8n's architecture, random weights) is not built yet: "
    "python3 -m venv /tmp/refvenv && /tmp/refvenv/bin/pip install torch==2.13.0 onnx==1.23.2 && "
    "/tmp/refvenv/bin/python benchmarks/reference.py --build"
)


class Reference:
    """The reference's forward pass (640x640 BGR in, raw head out: no NMS), timed on demand."""

    def __init__(self, path: Path | None = None, runtime: str = "cv2.dnn"):
        import cv2
        import numpy as np

        path = path or onnx_path()
        if not path.is_file():
            raise ReferenceMissing(f"{HOW_TO_BUILD} (looked for {path})")
        if runtime not in RUNTIMES:
            raise ValueError(f"runtime must be one of {RUNTIMES}, not {runtime!r}")
        self.runtime = runtime
        rng = np.random.default_rng(SEED)
        img = rng.integers(0, 256, (INPUT, INPUT, 3), np.uint8)
        self.blob = cv2.dnn.blobFromImage(img, 1 / 255.0, (INPUT, INPUT), swapRB=True)
        if runtime == "cv2.dnn":
            net = cv2.dnn.readNetFromONNX(str(path))

            def forward() -> None:
                net.setInput(self.blob)
                net.forward()
        else:
            from vision.onnx_model import OnnxModel

            model = OnnxModel(path)

            def forward() -> None:
                model.run(self.blob)
        self._forward = forward
        self.once()  # warm up (the first pass allocates)

    def once(self) -> float:
        """One forward pass; its wall time in ms."""
        return self.timed()[0]

    def timed(self) -> tuple[float, float]:
        """One forward pass; its wall time and the process's CPU time in ms."""
        t, c = time.perf_counter(), time.process_time()
        self._forward()
        return (time.perf_counter() - t) * 1000, (time.process_time() - c) * 1000


def interleaved(work, reference: Reference, runs: int) -> tuple[float, float, list[float], list[float]]:
    """``work()`` and the reference's forward pass, one after the other ``runs`` times: the
    medians in ms (work, reference) and every sample. Interleaving puts both under the same load."""
    w_ms, r_ms = [], []
    for _ in range(runs):
        r_ms.append(reference.once())
        t = time.perf_counter()
        work()
        w_ms.append((time.perf_counter() - t) * 1000)
    return statistics.median(w_ms), statistics.median(r_ms), w_ms, r_ms


# ---------------------------------------------------------------------------- building (torch)
def _yolov8n():
    """YOLOv8n (width 0.25, depth 0.33, 80 classes) as in its published configuration, with each
    convolution's BatchNorm already folded (Conv2d with bias + SiLU), as exported for inference."""
    import torch
    import torch.nn as nn

    class Conv(nn.Module):
        def __init__(self, c1, c2, k=1, s=1):
            super().__init__()
            self.conv = nn.Conv2d(c1, c2, k, s, k // 2, bias=True)
            self.act = nn.SiLU()

        def forward(self, x):
            return self.act(self.conv(x))

    class Bottleneck(nn.Module):
        def __init__(self, c, shortcut):
            super().__init__()
            self.cv1, self.cv2, self.add = Conv(c, c, 3), Conv(c, c, 3), shortcut

        def forward(self, x):
            y = self.cv2(self.cv1(x))
            return x + y if self.add else y

    class C2f(nn.Module):
        def __init__(self, c1, c2, n=1, shortcut=False):
            super().__init__()
            self.c = c2 // 2
            self.cv1 = Conv(c1, 2 * self.c, 1)
            self.cv2 = Conv((2 + n) * self.c, c2, 1)
            self.m = nn.ModuleList(Bottleneck(self.c, shortcut) for _ in range(n))

        def forward(self, x):
            y = list(self.cv1(x).chunk(2, 1))
            y.extend(m(y[-1]) for m in self.m)
            return self.cv2(torch.cat(y, 1))

    class SPPF(nn.Module):
        def __init__(self, c1, c2, k=5):
            super().__init__()
            c_ = c1 // 2
            self.cv1, self.cv2 = Conv(c1, c_, 1), Conv(c_ * 4, c2, 1)
            self.m = nn.MaxPool2d(k, 1, k // 2)

        def forward(self, x):
            y = [self.cv1(x)]
            y.extend(self.m(y[-1]) for _ in range(3))
            return self.cv2(torch.cat(y, 1))

    class Detect(nn.Module):
        def __init__(self, nc=80, ch=(64, 128, 256), reg_max=16):
            super().__init__()
            self.nc, self.reg_max = nc, reg_max
            c2, c3 = max(16, ch[0] // 4, reg_max * 4), max(ch[0], min(nc, 100))
            self.cv2 = nn.ModuleList(nn.Sequential(Conv(x, c2, 3), Conv(c2, c2, 3),
                                                   nn.Conv2d(c2, 4 * reg_max, 1)) for x in ch)
            self.cv3 = nn.ModuleList(nn.Sequential(Conv(x, c3, 3), Conv(c3, c3, 3),
                                                   nn.Conv2d(c3, nc, 1)) for x in ch)
            self.dfl = nn.Conv2d(reg_max, 1, 1, bias=False).requires_grad_(False)
            self.dfl.weight.data[:] = torch.arange(reg_max, dtype=torch.float).view(1, reg_max, 1, 1)
            anchors, strides = [], []
            for stride in (8, 16, 32):
                n = INPUT // stride
                sy, sx = torch.meshgrid(torch.arange(n) + 0.5, torch.arange(n) + 0.5, indexing="ij")
                anchors.append(torch.stack((sx, sy), -1).view(-1, 2))
                strides.append(torch.full((n * n, 1), float(stride)))
            self.register_buffer("anchors", torch.cat(anchors).T.unsqueeze(0))
            self.register_buffer("strides", torch.cat(strides).T.unsqueeze(0))

        def forward(self, xs):
            b = xs[0].shape[0]
            out = torch.cat([torch.cat((self.cv2[i](x), self.cv3[i](x)), 1).view(b, 4 * self.reg_max + self.nc, -1)
                             for i, x in enumerate(xs)], 2)
            box, cls = out.split((4 * self.reg_max, self.nc), 1)
            dist = self.dfl(box.view(b, 4, self.reg_max, -1).transpose(2, 1).softmax(1)).view(b, 4, -1)
            lt, rb = dist.chunk(2, 1)
            x1y1, x2y2 = self.anchors - lt, self.anchors + rb
            xywh = torch.cat(((x1y1 + x2y2) / 2, x2y2 - x1y1), 1) * self.strides
            return torch.cat((xywh, cls.sigmoid()), 1)  # (1, 84, 8400): boxes and class scores

    class YOLOv8n(nn.Module):
        def __init__(self):
            super().__init__()
            self.b = nn.ModuleList([
                Conv(3, 16, 3, 2), Conv(16, 32, 3, 2), C2f(32, 32, 1, True), Conv(32, 64, 3, 2),
                C2f(64, 64, 2, True), Conv(64, 128, 3, 2), C2f(128, 128, 2, True),
                Conv(128, 256, 3, 2), C2f(256, 256, 1, True), SPPF(256, 256)])
            self.up = nn.Upsample(scale_factor=2, mode="nearest")
            self.h12, self.h15 = C2f(384, 128), C2f(192, 64)
            self.d16, self.h18 = Conv(64, 64, 3, 2), C2f(192, 128)
            self.d19, self.h21 = Conv(128, 128, 3, 2), C2f(384, 256)
            self.detect = Detect()

        def forward(self, x):
            keep = {}
            for i, m in enumerate(self.b):
                x = m(x)
                keep[i] = x
            p4 = self.h12(torch.cat((self.up(keep[9]), keep[6]), 1))
            p3 = self.h15(torch.cat((self.up(p4), keep[4]), 1))
            n4 = self.h18(torch.cat((self.d16(p3), p4), 1))
            n5 = self.h21(torch.cat((self.d19(n4), keep[9]), 1))
            return self.detect([p3, n4, n5])

    torch.manual_seed(SEED)
    return YOLOv8n().eval()


def build(path: Path) -> Path:
    import torch

    model = _yolov8n()
    n_params = sum(p.numel() for p in model.parameters())
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with torch.no_grad():
        torch.onnx.export(model, torch.zeros(1, 3, INPUT, INPUT), str(tmp), opset_version=17,
                          input_names=["images"], output_names=["output0"], dynamo=False)
    tmp.replace(path)
    print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB, {n_params / 1e6:.2f} M parameters)")
    return path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", action="store_true", help="build the ONNX into the cache (needs torch)")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--runtime", choices=RUNTIMES, default=RUNTIMES[0])
    args = ap.parse_args(argv)
    if args.build:
        build(onnx_path())
        return 0
    try:
        ref = Reference(runtime=args.runtime)
    except ReferenceMissing as e:
        print(e, file=sys.stderr)
        return 2
    ms = [ref.once() for _ in range(args.runs)]
    print(f"reference forward pass (YOLOv8n architecture, 640x640, {args.runtime}): "
          f"median {statistics.median(ms):.1f} ms over {args.runs} runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
