"""What the browser tests share: Debian's Chromium (its headless shell) driven by Playwright, one
per test process.

Importing this module skips the importing test module, with the reason, where Playwright or
Chromium is missing (``scripts/install-browser.sh`` installs Chromium): a browser test module
imports it (``from tests.support.browser import WAIT``) and takes the ``browser`` fixture
(``tests/conftest.py``).
"""

from __future__ import annotations

import os
import shutil

import pytest

#: Debian's headless shell (``scripts/install-browser.sh``: the same Blink without the desktop
#: browser, 40 % less CPU in these tests), else its full Chromium; ``COMPANION_CHROMIUM`` names
#: another.
CANDIDATES = ("/usr/bin/chromium-headless-shell", "/usr/bin/chromium")
CHROMIUM = os.environ.get("COMPANION_CHROMIUM") or next(
    (path for path in CANDIDATES if os.path.exists(path)), CANDIDATES[0])
#: Headless, and no background connections (this machine's closed network refuses them).
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
#: How long a page may take to show what a test waits for (ms). A bound on waiting, not a speed
#: check: a wait ends as soon as its condition holds, and on a loaded machine a page can take
#: seconds (speed belongs to benchmarks/web_sse_load.py).
WAIT = 30_000

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright is not installed: pip install -e '.[test]'")
if not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM):
    pytest.skip(f"Chromium is not installed at {CHROMIUM}: run scripts/install-browser.sh "
                "(apt-get install -y chromium-headless-shell)", allow_module_level=True)


def launch_chromium():
    """Playwright and Debian's Chromium, started (a browser that does not start is a skip, with
    why); returns (playwright, browser). Used once per test process (``tests/conftest.py``'s
    ``chromium`` fixture): a start costs 1.5 CPU-seconds."""
    pw = sync_api.sync_playwright().start()
    try:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
    except Exception as exc:  # noqa: BLE001 - an unusable browser is a skip, with the reason
        pw.stop()
        pytest.skip(f"Chromium at {CHROMIUM} did not start: {exc}")
    b.new_context = _Contexts(b.new_context).new_context
    return pw, b


class _Contexts:
    """``Browser.new_context`` for tests: what a test closes is kept, emptied, for the next test
    that asks for the same options.

    A new context with one of our pages costs Chromium 1.1-1.4 CPU-seconds; a kept one, with its
    first page sent back to ``about:blank`` and its cookies (the only state our pages keep) cleared,
    0.3-0.4. Each context keeps its first page (``new_page`` hands it out again), so its renderer
    process stays up. Pages are without motion unless a test asks for it: an open page's endless
    CSS animations (the turn banner's pulse, a blinking light) are repainted by the software
    compositor at 60 frames a second, CPU-seconds per test on a 2-core machine.
    """

    def __init__(self, new_context):
        self._new = new_context
        self._idle: dict[str, list] = {}

    def new_context(self, **options):
        options.setdefault("reduced_motion", "reduce")
        key = repr(sorted(options.items()))
        if self._idle.get(key):
            kept = self._idle[key].pop()
            kept.parked = False
            return kept.context
        kept = _Kept(self._new(**options), lambda: self._idle.setdefault(key, []).append(kept))
        return kept.context


class _Kept:
    """One kept context: its ``new_page`` and ``close`` replaced (``close`` parks it)."""

    def __init__(self, context, park):
        self.context, self._park = context, park
        self.first = context.new_page()
        self.first_out = False
        self.parked = False
        self._new_page = context.new_page
        context.new_page = self.new_page
        context.close = self.close

    def new_page(self):
        if self.first_out:
            return self._new_page()
        self.first_out = True
        return self.first

    def close(self):
        if self.parked:      # the module's clean-up closes every context, parked ones too
            return
        for page in self.context.pages:
            if page is not self.first:
                page.close()
        if self.first.is_closed():   # (a test closed it: the context keeps a page of its own)
            self.first = self._new_page()
        self.first.goto("about:blank")
        self.first_out = False
        self.context.clear_cookies()
        self.parked = True
        self._park()


#: The boxes of the first element of each selector, measured in one turn of the page's script.
_BOXES = """(selectors) => selectors.map((sel) => {
  const el = document.querySelector(sel);
  if (!el || !el.getClientRects().length) return null;
  const r = el.getBoundingClientRect();
  return {x: r.x, y: r.y, width: r.width, height: r.height};
})"""


def boxes(page, *selectors: str) -> list[dict | None]:
    """The bounding box (``x``, ``y``, ``width``, ``height``) of the first element of each
    selector, or None where it is missing or not shown.

    Measured at once: our pages redraw their boards as the table's state arrives (the table view
    every 3 s), so boxes taken by separate Playwright calls can straddle a redraw and one of them
    come from a detached element (None)."""
    return page.evaluate(_BOXES, list(selectors))
