"""What the card trainers share (``python -m vision.train`` and ``python -m vision.train.corners``):
the network's input scaling and the ONNX export the reader loads (:mod:`vision.recognize`).

The exported model takes a batch of rectified cards (N x 3 x CARD_H x CARD_W, BGR, 0-255, after
:func:`vision.color.normalize_card`) and gives softmax probabilities over :data:`vision.classes.CLASSES`;
the scaling is inside the model, so the reader feeds it pixels as they are. Needs torch (the
``train`` extra).
"""

from __future__ import annotations

from pathlib import Path

from vision.detect import CARD_H, CARD_W

#: Pixels 0-255 to the network's input: (x - SHIFT) / SCALE.
SHIFT, SCALE = 127.5, 64.0


def scaled(xb):
    """A batch of card pixels (a uint8 tensor) as the network's float input."""
    return (xb.float() - SHIFT) / SCALE


def export_onnx(model, out: Path) -> None:
    """Write ``model`` to ``out`` as the ONNX file the reader loads: pixels in, probabilities out."""
    import torch

    class WithScaling(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, x):  # x: N,3,H,W BGR 0..255 float
            return torch.softmax(self.m((x - SHIFT) / SCALE), dim=1)

    torch.onnx.export(WithScaling(model).eval(), torch.zeros(1, 3, CARD_H, CARD_W), str(out),
                      input_names=["card"], output_names=["prob"],
                      dynamic_axes={"card": {0: "n"}, "prob": {0: "n"}}, opset_version=13,
                      dynamo=False)
