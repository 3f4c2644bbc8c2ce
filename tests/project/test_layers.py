"""The layers only point down: app > simulator > vision | web | hardware | league > companion.

The contract is in ``pyproject.toml`` (``[tool.importlinter]``); import-linter reads every import
statement, the lazy ones inside functions included.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[2]


def test_import_contract_holds():
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or "lint-imports"
    proc = subprocess.run([exe, "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 broken" in proc.stdout


def test_the_core_imports_nothing_above_it():
    graph = grimp.build_graph("companion", "vision", "web", "hardware", "league", "app", "simulator",
                              cache_dir=None)
    upward = [(imp["importer"], imp["imported"])
              for above in ("vision", "web", "hardware", "league", "app", "simulator")
              for imp in graph.find_matching_direct_imports(import_expression=f"companion.** -> {above}.**")]
    upward += [(imp["importer"], imp["imported"])
               for above in ("vision", "web", "hardware", "league", "app", "simulator")
               for imp in graph.find_matching_direct_imports(import_expression=f"companion.** -> {above}")]
    assert upward == []


def test_the_referee_core_starts_without_numpy():
    # The crash-safe writer, `companion replay` and the event log start in a tenth of a second
    # on a Pi only if the core leaves numpy (a fifth of a second to import) to the camera code.
    code = ("import sys, companion.host, companion.replay, companion.eventlog, "
            "companion.referee.camera; print(sorted(m for m in ('numpy', 'cv2') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
