"""The pages' set-ups that the layout tests check and scripts/screenshots.py photographs: the
five screen sizes, a match of each mode, and the lights panel as the hardware reports it."""

from __future__ import annotations

#: The five screens: a TV, a laptop, a tablet upright, a phone, a small phone.
SIZES = {"tv": (1920, 1080), "laptop": (1366, 768), "tablet": (768, 1024),
         "phone": (390, 844), "small-phone": (360, 740)}
SEATS = ["ann", "ben", "cai"]
#: The widest faces ("W+4", "+2", "⊘") on the grid.
GRID = [["wild-draw-four", "red-draw-two", "green-draw-two", "blue-skip", "yellow-reverse"],
        ["red-7", "green-7", "wild", "yellow-draw-two", "blue-reverse"],
        ["green-skip", "red-skip", "green-3", "wild-draw-four", "red-0"],
        ["yellow-1", "red-3", "blue-9", "green-reverse", "yellow-8"],
        ["blue-draw-two", "green-9", "red-reverse", "yellow-skip", "wild"]]
#: A match of each mode (``{"setup": MODES[name]}``); "flip-dark" is flipped to the Dark side by
#: the caller.
MODES = {
    "grid": {"game": "grid", "seats": ["north", "south"], "first": "north", "grid": GRID,
             "options": {"turn_seconds": 60}},
    "flip-dark": {"game": "flip", "seats": SEATS, "dealer": "cai", "start": "red-5",
                  "options": {"turn_seconds": 60}},
    "timer": {"game": "timer", "seats": SEATS, "first": "ann", "options": {"turn_seconds": 45}},
    "scoreboard": {"game": "scoreboard", "seats": SEATS, "options": {"target": 300}},
}
#: The lights panel as the hardware reports it: ann's LED on, the side LED white (the Light side).
LIGHTS = {"seats": {"south": {"on": True, "pattern": "on", "seats": ["ann"]},
                    "west": {"on": False, "pattern": "off", "seats": ["ben"]},
                    "north": {"on": False, "pattern": "off", "seats": ["cai"]}},
          "side": {"side": "light", "color": "white", "rgb": [1, 1, 1]},
          "status": {"color": "green", "mode": "ok", "rgb": [0, 1, 0], "showing": None},
          "buzzer": {"kind": "tonal", "note": None, "playing": None}}
