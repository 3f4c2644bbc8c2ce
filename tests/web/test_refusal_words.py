"""Every refusal the engines give can be worded by the page in English and Japanese: random
actions (mostly illegal) in every game, and each refusal's code has its sentence in both
languages; where a sentence with parameters exists, the refusal carries every parameter it
names (for the rules of play)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from companion.bus import EventBus
from companion.referee.table import Table
from tests.support.flip_games import SETTINGS, any_action as any_flip_action, choices, setups, start
from tests.support.grid_games import FAST, any_action as any_grid_action, games, pick_legal
from web.i18n import strings

EN, JA = strings("en"), strings("ja")
#: Refusals of the rules of play: their sentence's parameters always come with them.
WITH_PARAMS = {"not-matching", "pawn-cell", "not-adjacent", "back-to-last-cell", "forced-play",
               "too-many-copies", "match-over"}


def check_worded(error) -> None:
    code = error.code
    assert f"err_{code}" in EN and f"err_{code}" in JA, f"no words for refusal {code!r}"
    full = EN.get(f"errp_{code}")
    if full is not None:
        assert f"errp_{code}" in JA
        named = set(re.findall(r"\{(\w+)\}", full))
        assert named == set(re.findall(r"\{(\w+)\}", JA[f"errp_{code}"]))
        if code in WITH_PARAMS:
            assert named <= set(error.params), (code, error.params)


@FAST
@given(setup=games(), data=st.data())
def test_every_grid_refusal_has_words(setup, data):
    game, state, _ = setup
    for _ in range(60):
        if state.over:
            break
        action = data.draw(any_grid_action(state)) if data.draw(st.booleans()) \
            else pick_legal(data, game, state)
        outcome = game.apply(state, action)
        if outcome.error is not None:
            check_worded(outcome.error)
        state = outcome.state


@SETTINGS
@given(setup=setups(), data=st.data())
def test_every_flip_and_classic_refusal_has_words(setup, data):
    game, state = start(setup)
    random_action = any_flip_action(setup["seats"])
    for _ in range(60):
        acts = choices(game, state)
        if not acts:
            break
        action = data.draw(random_action) if data.draw(st.booleans()) \
            else data.draw(st.sampled_from(acts))
        outcome = game.apply(state, action)
        if outcome.error is not None:
            check_worded(outcome.error)
        state = outcome.state


def test_the_refused_event_carries_the_parameters():
    bus = EventBus()
    refused = []
    bus.subscribe(lambda m: refused.append(m.data), {"refused"})
    table = Table({"setup": {"game": "classic", "seats": ["ann", "ben"], "dealer": "ben",
                             "start": "red-5", "options": {"turn_seconds": 0}}}, bus)
    answer = table.act({"by": "ann", "do": "play", "card": "green-8"})
    assert answer.to_json()["params"] == {"card": "green-8", "onto": "red-5", "color": "red"}
    table.act({"by": "ann", "do": "play", "card": "red-7"})  # ben's turn now
    assert refused[0]["code"] == "not-matching" and refused[0]["seat"] == "ann"
    assert refused[0]["params"] == {"card": "green-8", "onto": "red-5", "color": "red"}
    assert refused[1]["code"] == "not-your-turn" and refused[1]["params"] == {"seat": "ben"}
    table.act({"by": "ann", "do": "fly"})
    assert refused[2]["code"] == "bad-input" and refused[2]["params"] == {}
    assert "params" not in table.act({"by": "ann", "do": "fly"}).to_json()
