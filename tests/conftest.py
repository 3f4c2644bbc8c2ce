"""What every test shares: its own state folder, and the slow tests handed out first.

* Each test gets its own ``XDG_STATE_HOME`` (so its own default event log,
  ``<state>/uno-companion/events.sqlite3``): a test, or a ``companion`` process it starts,
  never writes the developer's real log, nor one another test run in parallel writes.
* The tests marked ``slow`` (``@pytest.mark.slow``; registered in pyproject.toml) run first: with
  ``-n auto`` (pytest-xdist) the long ones are then spread over the workers from the start
  instead of one of them ending the run alone. ``-m "not slow"`` leaves them out.
* OpenCV works on one thread in each test process (and in the processes tests start): the
  workers already use every core, and OpenCV's own thread pool on top of them only makes the
  threads wait for one another (a scripted game took 2.4 times as long on a loaded machine).
* Once the tests are collected, every object alive then (the modules, the collected tests) is
  moved out of the garbage collector's sight (``gc.freeze``): they live to the end, and each
  full collection walked them all again (collections took 3.8 % of the workers' CPU, 3.3 %
  frozen).
"""

from __future__ import annotations

import gc
import os

import cv2
import pytest

os.environ["OPENCV_FOR_THREADS_NUM"] = "1"
cv2.setNumThreads(1)


@pytest.fixture(autouse=True)
def own_state_dir(tmp_path_factory, monkeypatch):
    """A fresh ``XDG_STATE_HOME`` for the test (and the processes it starts)."""
    state = tmp_path_factory.mktemp("state")
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)  # systemd's, which would win
    return state


def pytest_collection_finish(session):
    """Everything alive after collection stays alive: the collector need not walk it again."""
    gc.collect()
    gc.freeze()


def pytest_collection_modifyitems(config, items):
    """The slow tests first, each group in its collected order; with ``--dist loadgroup``, each
    test of an ``xdist_group`` named for its group, as pytest-xdist would name it."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
    if config.getoption("loadgroup", default=False):
        _name_groups(items)


def _name_groups(items) -> None:
    """pytest-xdist 3.8 sends a test of a group to the group's worker by the name it gives the
    test ("path::test@group"), but sets a field pytest 9 no longer reads, so every group was
    spread over the workers: the name is set here, where pytest 9 reads it."""
    from _pytest.nodeid import NodeId

    for item in items:
        groups = sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default"))
                         for m in item.iter_markers("xdist_group")})
        if groups and "@" not in item.nodeid:
            item._id = NodeId.parse(f"{item.nodeid}@{'_'.join(groups)}")


@pytest.fixture(scope="session")
def chromium():
    """One Chromium for every browser test module this process runs (``tests/support/browser``,
    which a browser test module imports: that skips the module where Playwright or Chromium is
    missing)."""
    from tests.support.browser import launch_chromium

    pw, browser = launch_chromium()
    yield browser
    browser.close()
    pw.stop()


@pytest.fixture(scope="module")
def browser(chromium):
    """The test process's Chromium for the module's tests; what the module left open (pages,
    contexts) is closed after its last test, so that no module's pages run on in the next."""
    yield chromium
    for context in list(chromium.contexts):
        context.close()
