"""One ONNX network on the CPU, run by ONNX Runtime: the card, index and index-finder models.

    >>> import numpy as np
    >>> from vision.recognize import MODEL_PATH
    >>> model = OnnxModel(MODEL_PATH)
    >>> model.run(np.zeros((2, 3, 96, 64), np.float32)).shape[0]
    2

Why ONNX Runtime and not OpenCV's own ``cv2.dnn`` (which reads the same files): on these small
convolutional networks it runs the same arithmetic (the outputs agree to about 1e-6) in a third
to a half of the time, on the Pi's arm64 as on x86 (``benchmarks/photo_bench.py`` times both
readers against the same reference detector), and one session may be run from several threads
at once without a lock.

**Threads.** A session runs on as many threads as OpenCV is set to use when it is made
(``cv2.setNumThreads``; OpenCV's default is every core), so one setting governs the whole reader:
the tests and the benchmarks set it to 1 before they load a model. Threads of a pool sleep
between runs instead of spinning: the camera thread reads a few crops per frame and the Pi's
cores have other work (the web server, the encoder).

A missing or unreadable file raises :class:`ModelError` naming the file, never a bare
ONNX Runtime error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np

__all__ = ["ModelError", "OnnxModel"]


class ModelError(RuntimeError):
    """A model file that is missing or that ONNX Runtime cannot load."""


class OnnxModel:
    """The network in an ``.onnx`` file: ``run(blob)`` gives its first output for a float32 batch
    (N x C x H x W). Safe to share between threads."""

    def __init__(self, path: str | Path, threads: int | None = None):
        import onnxruntime as ort

        self.path = Path(path)
        if not self.path.is_file():
            raise ModelError(f"model not found at {self.path}")
        options = ort.SessionOptions()
        n = max(1, cv2.getNumThreads() if threads is None else threads)
        options.intra_op_num_threads = n
        options.inter_op_num_threads = 1
        if n > 1:
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3  # errors only: its warnings name graph internals, not ours
        try:
            self._session = ort.InferenceSession(str(self.path), options, providers=["CPUExecutionProvider"])
        except Exception as e:  # onnxruntime raises its own exception types for a bad file
            raise ModelError(f"cannot load the model {self.path}: {e}") from e
        self._input = self._session.get_inputs()[0].name
        self.threads = n

    def run(self, blob: np.ndarray) -> np.ndarray[Any, np.dtype[np.float32]]:
        """The network's first output for ``blob`` (made float32 and contiguous here)."""
        x = np.ascontiguousarray(blob, np.float32)
        out: np.ndarray = self._session.run(None, {self._input: x})[0]
        return out
