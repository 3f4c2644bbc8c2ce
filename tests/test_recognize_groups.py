"""Whole-photo reading reads only the largest outline of each group of near-identical outlines
while it is surely a card (vision.recognize), and the Pi camera asks for few buffers."""

import sys
import types

import numpy as np
import pytest

import vision.recognize as recognize
from vision.card_art import draw_card
from vision.recognize import CardReader
from vision.synth import compose_table


def _quad(x, y, w=60.0, h=93.0):
    return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float32)


def test_outlines_overlapping_by_the_group_iou_share_a_group():
    quads = [_quad(0, 0), _quad(2, 1), _quad(300, 0), _quad(0, 0, 40, 62), _quad(301, 2)]
    assert recognize._groups(quads, 0.7) == [[0, 1], [2, 4], [3]]
    # each on its own when no two overlap that much
    assert recognize._groups(quads, 0.99) == [[0], [1], [2], [3], [4]]
    assert recognize._groups([], 0.7) == []


@pytest.fixture(scope="module")
def table_photo():
    rng = np.random.default_rng(11)
    labels = ["red-7", "blue-skip", "green-2"]
    img, _ = compose_table([(lab, draw_card(lab, 120, 186, rng=rng)) for lab in labels], 800, 450,
                           rng=rng, kind="wood", spacing=1.9)
    return img, labels


def _reads(reader, img, monkeypatch):
    """The sightings and how many outlines the model read."""
    seen = []
    probs = reader._probs
    monkeypatch.setattr(reader, "_probs", lambda cards, deck: seen.append(len(cards)) or probs(cards, deck))
    out = reader.read(img)
    monkeypatch.setattr(reader, "_probs", probs)
    return sorted(s.label for s in out), sum(seen)


@pytest.mark.slow
def test_a_sure_card_spares_the_rest_of_its_group_and_an_unsure_group_is_read_whole(table_photo,
                                                                                  monkeypatch):
    img, labels = table_photo
    reader = CardReader()
    grouped, n_grouped = _reads(reader, img, monkeypatch)
    monkeypatch.setattr(recognize, "CARD_SURE", 1.1)  # nothing is sure: every group read whole
    unsure, n_unsure = _reads(reader, img, monkeypatch)
    monkeypatch.setattr(recognize, "GROUP_IOU", 1.01)  # every outline its own group: all read
    every, n_every = _reads(reader, img, monkeypatch)
    assert grouped == unsure == every == sorted(labels)
    assert n_grouped < n_unsure == n_every
