"""The torture benchmark (``benchmarks/table_torture.py``) for the tests that replay its runs:
it is a script under ``benchmarks/``, not a package, so it is loaded from its file, once."""

from __future__ import annotations

from functools import cache
from types import ModuleType

from tests.support.scripts import ROOT, load_script  # noqa: F401 - ROOT: the harness tests take it from here


@cache
def torture_module() -> ModuleType:
    """``benchmarks/table_torture.py``, loaded."""
    return load_script("benchmarks/table_torture.py")


def torture_run(game: str, condition: str, faces: str, seed: int, actions: int = 12) -> dict:
    """One torture run's report (:func:`table_torture.play`): a scripted ``game`` of ``actions``
    actions on ``seed`` under ``condition``, with ``faces`` (art or real)."""
    return torture_module().play({"game": game, "condition": condition, "faces": faces,
                                  "seed": seed, "actions": actions})


def real_faces_run(game: str, condition: str, seed: int, actions: int = 12) -> dict:
    """:func:`torture_run` with the real faces (cut from the photo data's held-out photos); the
    test is skipped, saying why, where the photo data is missing."""
    import pytest

    from vision.data import DataMissing, require_data

    try:
        require_data()
    except DataMissing as exc:
        pytest.skip(f"real faces need the photo data: {exc}")
    return torture_run(game, condition, "real", seed, actions)
