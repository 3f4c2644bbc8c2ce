"""What every test shares: its own state folder, and the slow tests handed out first.

* Each test gets its own ``XDG_STATE_HOME`` (so its own default event log,
  ``<state>/uno-companion/events.sqlite3``): a test, or a ``companion`` process it starts,
  never writes the developer's real log, nor one another test run in parallel writes.
* The tests marked ``slow`` (``@pytest.mark.slow``; registered in pyproject.toml) run first: with
  ``-n auto`` (pytest-xdist) the long ones are then spread over the workers from the start
  instead of one of them ending the run alone; their modules are dealt round the packages, so
  the ones that wait run beside the ones that compute. ``-m "not slow"`` leaves them out.
* The browser tests (modules named ``*_browser.py``) all run on one worker, which shares one
  Chromium between them (``pytest_xdist_make_scheduler``).
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


def pytest_collection_modifyitems(items):
    """The slow tests first, their modules dealt round the packages; then the others, each in
    its collected order.

    Dealt, because a package's slow tests are alike: the league's and the crash tests mostly
    wait (for a broker, a process), the vision and referee ones compute. In the collected order
    the waiting ones ran side by side at the start, with the cores half idle; dealt round, a
    worker that waits leaves its core to one that computes. A module's tests stay together (its
    module fixtures are made once per worker, not once per test)."""
    slow = [item for item in items if item.get_closest_marker("slow") is not None]
    rest = [item for item in items if item.get_closest_marker("slow") is None]
    items[:] = dealt_round_packages(slow) + rest


def dealt_round_packages(items: list) -> list:
    """``items`` by module, the first module of every package, then the second of each, and so
    on; a module's items in their order.

    >>> from types import SimpleNamespace as Item
    >>> names = ["a/x.py::1", "a/x.py::2", "a/y.py::1", "b/z.py::1"]
    >>> [i.nodeid for i in dealt_round_packages([Item(nodeid=n) for n in names])]
    ['a/x.py::1', 'a/x.py::2', 'b/z.py::1', 'a/y.py::1']
    """
    modules: dict[str, list] = {}
    for item in items:
        modules.setdefault(item.nodeid.split("::", 1)[0], []).append(item)
    first: dict[str, int] = {}   # a package: where it first appears
    dealt: dict[str, int] = {}   # a package: how many of its modules are placed so far
    order = {}
    for module in modules:
        package = module.rsplit("/", 1)[0]
        first.setdefault(package, len(first))
        order[module] = (dealt.get(package, 0), first[package])
        dealt[package] = dealt.get(package, 0) + 1
    return [item for module in sorted(modules, key=order.__getitem__) for item in modules[module]]


#: The browser test modules: their file names end so. They run on one worker, one after the
#: other, sharing its one Chromium (a second Chromium costs more than the waits it would overlap).
BROWSER_MODULE_SUFFIX = "_browser.py"


def browser_scope(nodeid: str) -> str:
    """The unit of work a test is handed out in: every browser test together, any other test
    alone.

    >>> browser_scope("tests/web/test_seat_page_browser.py::test_join[en]")
    'browser'
    >>> browser_scope("tests/companion/test_bus.py::test_order")
    'tests/companion/test_bus.py::test_order'
    """
    module = nodeid.split("::", 1)[0]
    return "browser" if module.endswith(BROWSER_MODULE_SUFFIX) else nodeid


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook: a run without xdist has no such hook
def pytest_xdist_make_scheduler(config, log):
    """With ``--dist load`` (the Makefile's), hand the tests out one by one as pytest-xdist does,
    but every browser test to one worker: pytest-xdist's public scheduler hook, with its scope
    scheduler told the scope by :func:`browser_scope` (the controller sees only test ids, so the
    browser modules are known by their names, not by a marker)."""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class BrowserTogether(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return browser_scope(nodeid)

    return BrowserTogether(config, log)


@pytest.fixture
def rig():
    """The signals of a three-seat Flip table on mock pins and a manual clock
    (:class:`tests.support.pins.SignalsRig`)."""
    from tests.support.pins import SignalsRig

    r = SignalsRig(seats=["ann", "ben", "cai"], game="flip")
    yield r
    r.signals.close()


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
