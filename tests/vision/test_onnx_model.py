"""The models' runtime (vision.onnx_model): the same outputs as OpenCV's own reading of each
committed model, a clear error for a bad file, threads as OpenCV is set, safe from racing threads."""

from __future__ import annotations

import threading

import cv2
import numpy as np
import pytest

from vision.index_points import MODEL_PATH as POINTS_PATH
from vision.onnx_model import ModelError, OnnxModel
from vision.partial import HANDS_INDEX_MODEL_PATH, INDEX_MODEL_PATH, PARTIAL_MODEL_PATH
from vision.recognize import MODEL_PATH as CARDS_PATH

#: Each committed model with an input of its shape (a batch, as the readers send it).
MODELS = [(CARDS_PATH, (5, 3, 96, 64)), (PARTIAL_MODEL_PATH, (3, 3, 96, 64)),
          (INDEX_MODEL_PATH, (7, 3, 40, 32)), (HANDS_INDEX_MODEL_PATH, (2, 3, 40, 32)),
          (POINTS_PATH, (1, 3, 96, 128))]


def _input(shape, seed=0):
    return np.random.default_rng(seed).random(shape).astype(np.float32)


@pytest.mark.parametrize(("path", "shape"), MODELS, ids=lambda v: getattr(v, "stem", None))
def test_every_model_gives_what_opencv_gives(path, shape):
    x = _input(shape)
    net = cv2.dnn.readNetFromONNX(str(path))
    net.setInput(x)
    expected = net.forward()
    got = OnnxModel(path).run(x)
    assert got.shape == expected.shape
    assert np.abs(got - expected).max() < 1e-4


def test_a_missing_file_is_a_model_error_naming_it(tmp_path):
    with pytest.raises(ModelError, match="nowhere.onnx"):
        OnnxModel(tmp_path / "nowhere.onnx")


def test_a_file_that_is_not_a_model_is_a_model_error_naming_it(tmp_path):
    bad = tmp_path / "cards.onnx"
    bad.write_bytes(b"not a network at all")
    with pytest.raises(ModelError, match="cannot load the model .*cards.onnx"):
        OnnxModel(bad)


def test_threads_follow_opencv_unless_given():
    before = cv2.getNumThreads()
    try:
        cv2.setNumThreads(1)
        assert OnnxModel(CARDS_PATH).threads == 1
        cv2.setNumThreads(2)
        assert OnnxModel(CARDS_PATH).threads == 2
        assert OnnxModel(CARDS_PATH, threads=3).threads == 3
    finally:
        cv2.setNumThreads(before)


def test_racing_threads_each_get_their_own_input_read():
    model = OnnxModel(CARDS_PATH)
    inputs = [_input((2, 3, 96, 64), seed) for seed in range(6)]
    alone = [model.run(x) for x in inputs]
    got: dict[int, list[np.ndarray]] = {i: [] for i in range(len(inputs))}
    start = threading.Barrier(len(inputs))

    def reader(i):
        start.wait()
        for _ in range(15):
            got[i].append(model.run(inputs[i]))

    threads = [threading.Thread(target=reader, args=(i,)) for i in range(len(inputs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, outs in got.items():
        assert len(outs) == 15
        assert all(np.array_equal(out, alone[i]) for out in outs)
