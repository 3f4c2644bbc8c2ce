"""Screenshots of every page at every size the pages are made for, in English and Japanese.

    .venv/bin/python scripts/screenshots.py            # writes artifacts/screenshots/*.png
    .venv/bin/python scripts/screenshots.py --full     # whole pages, not just the first screen

Not part of ``make test`` (``tests/web/test_layout_sizes_browser.py`` checks the same pages): it
serves the app on 127.0.0.1, opens Debian's Chromium (Playwright) at a TV (1920x1080), a laptop
(1366x768), a tablet (768x1024) and two phones (390x844, 360x740), and saves, for each mode (the
grid game, UNO Flip on its Dark side with a wild's colour chosen, the turn timer only, the
scoreboard only), the table view and a joined phone's seat page, then the scoreboard, set-up and
join pages: ``{page}-{mode}-{width}x{height}-{lang}.png``. The first screen only unless
``--full``: what shows without scrolling is what the pages are judged on.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.eventlog import EventLog
from companion.host import Host
from tests.support.page_setups import LIGHTS, MODES, SIZES

ROOT = Path(__file__).resolve().parents[1]

CHROMIUM = os.environ.get("COMPANION_CHROMIUM") or next(
    (path for path in ("/usr/bin/chromium-headless-shell", "/usr/bin/chromium")
     if os.path.exists(path)), "/usr/bin/chromium")
OUT = ROOT / "artifacts" / "screenshots"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def start(host: Host, mode: str) -> str:
    """Start ``mode``'s match, played a little; the seat the phone joins."""
    table = host.start_match({"setup": MODES[mode]})
    if mode == "flip-dark":
        for action in ({"by": "ann", "do": "play", "card": "red-flip"},
                       {"by": "ann", "do": "reveal", "card": "pink-2"},
                       {"by": "ben", "do": "play", "card": "wild-draw-color", "color": "teal"}):
            assert table.act(action, source="shots").ok, action
    elif mode == "scoreboard":
        assert table.act({"by": "ben", "do": "score", "points": 12}, source="shots").ok
    elif mode == "grid":
        state = table.state_json()
        move = next(a for a in table.legal_actions() if a.by == state["turn"] and a.do == "move")
        assert table.act(move, source="shots").ok
    return table.seats[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--full", action="store_true", help="whole pages, not the first screen")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    from web import serve

    host = Host(EventLog(":memory:"))
    host.show_signals(lambda: LIGHTS)
    server = serve(host, "127.0.0.1", 0, block=False, secret_key="shots", join_token="join-me",
                   phones_per_seat=8, table_streams=64, heartbeat_s=1)
    OUT.mkdir(parents=True, exist_ok=True)
    written = []

    def shot(page, name: str) -> None:
        page.wait_for_timeout(300)   # the live state drawn
        target = OUT / f"{name}.png"
        page.screenshot(path=str(target), full_page=args.full)
        written.append(target)

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for (w, h) in SIZES.values():
            phone = w < 600
            ctx = browser.new_context(viewport={"width": w, "height": h}, reduced_motion="reduce",
                                      device_scale_factor=2 if phone else 1,
                                      is_mobile=phone, has_touch=phone)
            page = ctx.new_page()
            for mode in MODES:
                seat = start(host, mode)
                page.goto(f"{server.url}/join/join-me")
                page.locator(f'.join-seat[data-seat="{seat}"]').click()
                page.wait_for_url(f"**/seat/{seat}")
                for lang in ("en", "ja"):
                    for what, path in (("table", "/"), ("seat", f"/seat/{seat}")):
                        page.goto(f"{server.url}{path}?lang={lang}")
                        page.wait_for_selector('#conn[data-state="on"]', timeout=10000)
                        page.wait_for_selector("#board > *, #pile > *", timeout=10000)
                        shot(page, f"{what}-{mode}-{w}x{h}-{lang}")
                    if mode == "scoreboard":
                        page.goto(f"{server.url}/scoreboard?lang={lang}")
                        shot(page, f"scoreboard-{mode}-{w}x{h}-{lang}")
            for lang in ("en", "ja"):
                page.goto(f"{server.url}/join/join-me?lang={lang}")
                shot(page, f"join-{w}x{h}-{lang}")
            page.locator('.join-seat[data-seat=""]').click()
            page.wait_for_url("**/setup")
            for lang in ("en", "ja"):
                page.goto(f"{server.url}/setup?lang={lang}")
                shot(page, f"setup-{w}x{h}-{lang}")
            ctx.close()
        browser.close()
    server.shutdown()
    for path in written:
        print(path.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
