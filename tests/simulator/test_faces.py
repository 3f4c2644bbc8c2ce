"""Card faces for the synthetic table: the drawings, or real photos of the held-out split."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from simulator.faces import ArtFaces, RealFaces, faces_named
from simulator.render import SyntheticTable
from simulator.scene import Placement, Scene
from vision.data import DataMissing, data_dir, load_photos

ROOT = Path(__file__).resolve().parents[2]
HAS_DATA = (data_dir() / "photos" / "labels.csv").is_file()
needs_data = pytest.mark.skipif(not HAS_DATA, reason="the photo data (../shared/data or $UNO_DATA) is absent")


def test_art_faces_are_the_drawings():
    from vision.card_art import draw_card

    assert np.array_equal(ArtFaces().card("red-7", None, 3, 64, 96), draw_card("red-7", 64, 96))


def test_an_unknown_face_source_is_refused():
    with pytest.raises(ValueError, match="art, real"):
        faces_named("photos")


def test_real_faces_without_the_data_say_where_they_looked(tmp_path, monkeypatch):
    monkeypatch.setenv("UNO_DATA", str(tmp_path / "nowhere"))
    with pytest.raises(DataMissing, match="nowhere"):
        RealFaces(cache=tmp_path / "cache")


def test_bench_refuses_real_faces_without_the_data(tmp_path):
    env = {"UNO_DATA": str(tmp_path / "nowhere"), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-m", "app", "bench", "--faces", "real", "--actions", "1"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "--faces real" in proc.stderr and "Traceback" not in proc.stderr


@needs_data
def test_real_faces_come_from_held_out_photos_only(tmp_path):
    faces = RealFaces(cache=tmp_path)
    held_out = {p.rel for p in load_photos() if p.split == "test"}
    used = {p.rel for photos in faces._photos.values() for p in photos}
    assert used and used <= held_out


@needs_data
def test_a_real_face_is_a_photo_of_the_card_and_copies_differ(tmp_path):
    faces = RealFaces(cache=tmp_path)
    crops = faces.crops("red-7")
    assert len(crops) >= 2
    a = faces.card("red-7", None, 0, 64, 96)
    b = faces.card("red-7", None, 1, 64, 96)
    assert a.shape == (96, 64, 3) and not np.array_equal(a, b)
    # a real red card: far more red than the other hues, and not the drawing
    hue_red = ((a[..., 2].astype(int) - a[..., 1]) > 60).mean()
    assert hue_red > 0.15
    assert not np.array_equal(a, ArtFaces().card("red-7", None, 0, 64, 96))
    # cached: a second source reads the crops from the cache folder
    again = RealFaces(cache=tmp_path)
    assert np.array_equal(again.card("red-7", None, 0, 64, 96), a)


@needs_data
def test_a_face_without_a_photo_is_drawn_and_said(tmp_path):
    faces = RealFaces(cache=tmp_path)
    img = faces.card("teal-skip-everyone", "dark", 0, 64, 96)
    assert np.array_equal(img, ArtFaces().card("teal-skip-everyone", "dark", 0, 64, 96))
    assert faces.fallbacks == {"teal-skip-everyone"}


@needs_data
def test_the_synthetic_table_lays_real_faces(tmp_path):
    scene = Scene(discard=(Placement("red-7"),))
    art = SyntheticTable(640, 360, seed=1, noise=0).render(scene)
    real = SyntheticTable(640, 360, seed=1, noise=0, faces=RealFaces(cache=tmp_path)).render(scene)
    assert art.shape == real.shape
    assert np.abs(art.astype(int) - real).mean() > 0.05


@needs_data
def test_faces_cut_out_at_once_by_racing_sources_are_cut_out_once_each(tmp_path, monkeypatch):
    # (the test workers and a benchmark's each made every crop again, all at once; one could
    # read a crop another was still writing)
    import threading

    import simulator.faces as faces_module

    made = []
    real_rectified = faces_module._rectified
    monkeypatch.setattr(faces_module, "_rectified",
                        lambda photo, reader: made.append(photo.rel) or real_rectified(photo, reader))
    sources = [RealFaces(cache=tmp_path) for _ in range(3)]
    start = threading.Barrier(len(sources))
    crops = [None] * len(sources)

    def cut(i):
        start.wait()
        crops[i] = sources[i].crops("red-7")

    threads = [threading.Thread(target=cut, args=(i,)) for i in range(len(sources))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert sorted(made) == sorted(set(made)) and made  # each photo cut out once
    assert len({len(c) for c in crops}) == 1 and len(crops[0]) >= 2
    assert all(np.array_equal(a, b) for c in crops[1:] for a, b in zip(crops[0], c))
    assert not list(tmp_path.glob("*.part"))
