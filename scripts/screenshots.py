"""Screenshots of the table view and a phone's seat page at the sizes the board must fit.

    .venv/bin/python scripts/screenshots.py            # writes artifacts/board-fit/*.png

Not part of ``make test`` (``tests/web/test_board_fit_browser.py`` checks the fit itself): it serves the app
on 127.0.0.1 with a grid match and an UNO Flip match, opens Debian's Chromium (Playwright) at a
phone (390x844), a tablet (768x1024), a laptop (1366x768) and a TV (1920x1080), and saves each
page there in English and Japanese.
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.decks import classic_deck
from companion.eventlog import EventLog
from companion.host import Host

ROOT = Path(__file__).resolve().parents[1]

CHROMIUM = os.environ.get("COMPANION_CHROMIUM") or next(
    (path for path in ("/usr/bin/chromium-headless-shell", "/usr/bin/chromium")
     if os.path.exists(path)), "/usr/bin/chromium")
OUT = ROOT / "artifacts" / "board-fit"
SIZES = {"phone": (390, 844), "tablet": (768, 1024), "laptop": (1366, 768), "tv": (1920, 1080)}
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def grid_setup(seed: int = 0) -> dict:
    """A grid match whose deal shows the widest faces ("W+4", "+2")."""
    deck = list(classic_deck())
    random.Random(seed).shuffle(deck)
    names = [c.name for c in deck if c.name in ("wild-draw-four", "red-draw-two", "blue-draw-two")]
    rest = [c.name for c in deck if c.name not in names]
    cards = names + rest
    return {"setup": {"game": "grid", "seats": ["north", "south"], "first": "north",
                      "grid": [[cards[r * 5 + c] for c in range(5)] for r in range(5)],
                      "options": {"turn_seconds": 60}}}


FLIP = {"setup": {"game": "flip", "seats": ["ann", "ben", "cai"], "dealer": "cai",
                  "start": "red-draw-one", "options": {"turn_seconds": 90}}}


def main() -> int:
    from playwright.sync_api import sync_playwright

    from web import serve

    host = Host(EventLog(":memory:"))
    server = serve(host, "127.0.0.1", 0, block=False, secret_key="shots", join_token="join-me",
                   phones_per_seat=8, table_streams=64, heartbeat_s=1)
    OUT.mkdir(parents=True, exist_ok=True)
    written = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for game, setup in (("grid", grid_setup()), ("flip", FLIP)):
            host.start_match(setup)
            for lang in ("en", "ja"):
                for name, (w, h) in SIZES.items():
                    phone = name == "phone"
                    ctx = browser.new_context(viewport={"width": w, "height": h},
                                              device_scale_factor=2 if phone else 1,
                                              is_mobile=phone, has_touch=phone)
                    page = ctx.new_page()
                    pages = [("table", "/")]
                    if phone:
                        seat = host.table.seats[0]
                        page.goto(f"{server.url}/join/join-me?lang={lang}")
                        page.locator(f'.join-seat[data-seat="{seat}"]').click()
                        page.wait_for_url(f"**/seat/{seat}")
                        pages.append(("seat", f"/seat/{seat}"))
                    for what, path in pages:
                        page.goto(f"{server.url}{path}?lang={lang}")
                        page.wait_for_selector("#board .card, #pile .card", timeout=5000)
                        page.wait_for_selector('#conn[data-state="on"]', timeout=5000)
                        target = OUT / f"{what}-{game}-{name}-{w}x{h}-{lang}.png"
                        page.screenshot(path=str(target), full_page=what == "seat")
                        written.append(target)
                    ctx.close()
        browser.close()
    server.shutdown()
    for path in written:
        print(path.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
