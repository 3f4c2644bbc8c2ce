"""Scripted Flip and classic games on the synthetic table: a physical discard pile.

:class:`PileScript` simulates the real cards of a Flip (two-faced) or classic deck: a shuffled
draw pile, the hands, the discard pile. The camera must see every card that lands on the
discard pile (plays, illegal attempts then taken back, the face a flip turns up); the phones
send what the camera cannot see (a wild's player plays it from the seat page too, which asks
its colour, a moment after putting it down; the referee waits for that instead of asking; UNO
calls and catches, accept/challenge, a player's own draw, draw-until-colour counts, hands shown
at a round's end, the next round). The physical consequences of every accepted action follow
the engine's events (``drew``, ``reshuffle``), so the physical table and the engine never part.
"""

from __future__ import annotations

from typing import Any

from companion.cards import CLASSIC, DARK, LIGHT, parse_card
from companion.decks import classic_deck, flip_deck
from companion.engine.actions import action_from_json
from companion.replay import start_game

from .scene import Placement, Scene
from .script import ANY_TIME, Beat, TableScript, _landing

__all__ = ["PileScript"]

_FACE_SETS = {"classic": CLASSIC, "light": LIGHT, "dark": DARK}


class PileScript(TableScript):
    """A Flip (``game="flip"``) or classic (``game="classic"``) game of at least ``actions``
    scripted actions. ``illegal_rate`` of the turns put down a card that does not match (the
    referee calls it, the card goes back, 2 cards penalty); ``uno_forget_rate`` of the UNO calls
    are forgotten and caught (2 cards penalty)."""

    def __init__(self, actions: int = 300, *, game: str = "flip", seats=("ann", "ben", "cai"),
                 uno_forget_rate: float = 0.3, challenge_rate: float = 0.4, **kw):
        if game not in ("flip", "classic"):
            raise ValueError("PileScript plays flip or classic")
        self.game = game
        self.uno_forget_rate = uno_forget_rate
        self.challenge_rate = challenge_rate
        kw.setdefault("distractor_rate", 0.4)
        super().__init__(actions, seats=seats, **kw)

    # --- the physical cards ----------------------------------------------------------------------

    def _face(self, card, side: str | None = None) -> str:
        """The name of the face a physical card shows on ``side`` (default: the side in play)."""
        if self.game == "classic":
            return card
        return card[0] if (side or self.side) == "light" else card[1]

    def _other_side(self) -> str:
        return "dark" if self.side == "light" else "light"

    def _placement(self, name: str, side: str | None = None, mm: float = 2.0,
                   below: Placement | None = None) -> Placement:
        p = _landing(self.rng, name, below, *self._spread(mm, 6))
        fs = "classic" if self.game == "classic" else (side or self.side)
        return Placement(p.label, p.dx, p.dy, p.angle, fs)

    def _new_deck(self) -> list:
        if self.game == "classic":
            deck = [c.name for c in classic_deck()]
        else:
            deck = [(c.light.name, c.dark.name) for c in flip_deck()]
        self.rng.shuffle(deck)
        return deck

    def _deal(self, deck: list) -> str:
        """Deal 7 each and turn an opening card (a plain number, so no redraw is needed)."""
        self.side = "classic" if self.game == "classic" else "light"
        self.hands = {s: [deck.pop() for _ in range(7)] for s in self.seats}
        for i in range(len(deck) - 1, -1, -1):
            if self._face(deck[i])[-1].isdigit():
                first = deck.pop(i)
                break
        self.discard = [first]
        self.discard_places = [self._placement(self._face(first))]
        self.pile = deck
        return self._face(first)

    def _scene(self) -> Scene:
        top = self.pile[-1] if self.pile else None
        if top is None:
            draw_top = Placement("back")
        elif self.game == "classic":
            draw_top = Placement("back", *self._pile_nudge)
        else:  # a Flip draw pile shows the other side's faces
            draw_top = Placement(self._face(top, self._other_side()), *self._pile_nudge,
                                 face_set=self._other_side())
        return Scene(discard=tuple(self.discard_places[-3:]), draw_count=len(self.pile),
                     draw_top=draw_top)

    def _follow(self, outcome, action: dict[str, Any]) -> None:
        """The physical consequences of an outcome's events: draws and reshuffles."""
        for e in outcome.events:
            j = e.to_json()
            if j["type"] == "reshuffle":
                keep_card, keep_place = self.discard[-1], self.discard_places[-1]
                self.pile = self.discard[:-1] + self.pile
                self.rng.shuffle(self.pile)
                self.discard, self.discard_places = [keep_card], [keep_place]
            elif j["type"] == "flipped":
                self._flip_due = True  # the player turns the pile over in a beat of its own
            elif j["type"] == "drew" and self._drawn_in_its_beat(action, j["seat"]):
                for _ in range(j["count"]):
                    self.hands[j["seat"]].append(self.pile.pop())
                self._pile_nudge = (self.rng.uniform(-2, 2), self.rng.uniform(-2, 2),
                                    self.rng.uniform(-4, 4))
            elif j["type"] == "drew":
                self._owe(j["seat"], j["count"])  # taken by hand, a reach a card (_take_card)

    def _drawn_in_its_beat(self, action: dict[str, Any], seat: str) -> bool:
        """Whether ``seat``'s drawn card leaves the pile in the beat of ``action`` itself: a
        player's own one-card draw tapped on the phone, whose beat shows the arm at the pile.
        Every other card drawn (a penalty for another seat's play, a foul or a caught UNO, a
        count drawn until the colour, every draw nobody taps) is taken by hand afterwards, one
        reach a card by the seat that drew: cards never leave the pile without an arm."""
        return (self.phone_draws and action.get("do") == "draw" and action.get("by") == seat
                and "count" not in action)

    def _take_card(self, seat: str) -> bool:
        if not self.pile:
            return False
        self.hands[seat].append(self.pile.pop())
        self._pile_nudge = (self.rng.uniform(-2, 2), self.rng.uniform(-2, 2), self.rng.uniform(-4, 4))
        return True

    # --- the game ------------------------------------------------------------------------------

    def _build(self) -> None:
        self._pile_nudge = (0.0, 0.0, 0.0)
        self._flip_due = False
        start = self._deal(self._new_deck())
        self._setup_scene = self._scene()
        self.setup = {"setup": {"game": self.game, "seats": list(self.seats),
                                "dealer": self.seats[-1], "start": start,
                                "options": {"turn_seconds": 0, "target": 100000}}}
        self.engine, self.state = start_game(self.setup)
        count = 0
        while count < self.n_actions or self._in_an_open_count():
            count += self._step()

    def _in_an_open_count(self) -> bool:
        """Whether the game so far ends in a draw-until-the-colour count taken by hand: no camera
        can tell such a count is over until the next seat acts, so a game is not left there."""
        if self.phone_draws:
            return False
        for beat in reversed(self.beats):
            action = beat.action
            if action is None or action.get("do") in ANY_TIME:
                continue      # a phone's call shows nothing at the table
            return action.get("do") == "draw" and "count" in action
        return False

    def _apply(self, action: dict[str, Any], *, ok: bool = True):
        out = self.engine.apply(self.state, action_from_json(action))
        assert out.ok == ok, (action, out.error)
        self.state = out.state
        self._follow(out, action)
        return out

    def _phone(self, action: dict[str, Any]) -> int:
        """An action only a phone can send (no arm over the table)."""
        self._apply(action)
        self._add(Beat(action, False, self._scene(), None))
        return 1

    def _step(self) -> int:
        sj = self.engine.to_json(self.state)
        pending = sj.get("pending") or {}
        what = pending.get("what")
        rng = self.rng
        self._new_turn(sj["turn"])
        if self._flip_due and what != "reveal":  # went out on a flip: the pile turns all the same
            seat = (sj.get("winners") or [sj["turn"]])[0]
            self._turn_over()
            self._add(Beat(None, False, self._scene(), self._arm(seat, self.layout.discard_pile)))
        if what == "show":
            n = 0
            for seat in pending.get("seats") or [pending["seat"]]:
                if self.engine.to_json(self.state)["pending"].get("what") != "show":
                    break
                n += self._phone({"by": seat, "do": "show",
                                  "cards": [self._face(c) for c in self.hands[seat]]})
            return n
        if what == "round":
            seat = pending["seat"]
            deck = self._new_deck()
            start = self._deal(deck)
            action = {"by": seat, "do": "round", "start": start, "dealer": seat}
            self._apply(action)
            self._add(Beat(action, False, self._scene(), self._arm(seat, self.layout.discard_pile)))
            return 1
        if what == "declare":
            colors = _FACE_SETS[self.side].colors
            return self._phone({"by": pending["seat"], "do": "declare", "color": rng.choice(colors)})
        if what == "challenge":
            return self._phone({"by": pending["seat"], "do": "challenge", "verdict": "innocent"}
                               if rng.random() < self.challenge_rate else
                               {"by": pending["seat"], "do": "accept"})
        if what == "draw":  # draw until the colour: count what the physical pile gives
            color = pending.get("color")
            n = 0
            for card in reversed(self.pile):
                n += 1
                if parse_card(self._face(card)).color == color:
                    break
            most = max(a.count for a in self.engine.legal_actions(self.state) if a.do == "draw")
            action = {"by": pending["seat"], "do": "draw", "count": min(n, most)}
            if self.phone_draws:
                return self._phone(action)
            return self._draw_by_hand(action)
        if what == "reveal":
            return self._reveal(pending)
        seat = sj["turn"]
        if what == "play-or-pass":
            drawn = self.hands[seat][-1]
            if self._playable(drawn, sj) and rng.random() < 0.8:
                return self._play(seat, drawn, sj)
            if self.phone_draws:
                return self._phone({"by": seat, "do": "pass"})
            action = {"by": seat, "do": "pass"}  # nothing to see: the referee infers it
            self._apply(action)
            self._add(Beat(action, True, self._scene(), None))
            return 1
        self._reach_back(seat)
        if rng.random() < self.illegal_rate and self._illegal(seat, sj):
            return 1
        if rng.random() < 0.02:  # a player points out a foul by hand: a phone penalty
            target = rng.choice([s for s in self.seats if s != seat])
            return self._phone({"by": seat, "do": "penalty", "target": target, "count": 2})
        playable = [c for c in self.hands[seat] if self._playable(c, sj)]
        if playable and rng.random() < 0.88:
            return self._play(seat, rng.choice(playable), sj)
        # no card (or not wanting to play): the player takes one from the draw pile
        action = {"by": seat, "do": "draw"}
        if not self.phone_draws:
            return self._draw_by_hand(action)
        self._apply(action)
        self._add(Beat(action, False, self._scene(), self._arm(seat, self.layout.draw_pile),
                       distractor=self._distractor(seat)))
        return 1

    def _draw_by_hand(self, action: dict[str, Any]) -> int:
        """A draw nobody taps: the seat's arm takes the first card (the camera sees it), one
        more reach for each further card."""
        seat = action["by"]
        self._apply(action)
        owed = self._owed
        first = next((i for i, (s, _) in enumerate(owed) if s == seat), None)
        if first is None or not self._take_card(seat):  # the engine drew nothing: no card to take
            self._add(Beat(action, True, self._scene(), self._arm(seat, self.layout.draw_pile)))
            return 1
        s, n = owed[first]
        owed[first:first + 1] = [(s, n - 1)] if n > 1 else []
        self._add(Beat(action, True, self._scene(), self._arm(seat, self.layout.draw_pile),
                       distractor=self._distractor(seat, to_pile=False), lifted=1))
        return 1

    def _playable(self, card, sj) -> bool:
        face = parse_card(self._face(card))
        if face.is_wild:
            if face.face == "wild":
                return True
            # a wild draw only when the hand holds no card of the colour: a challenge is lost
            return not any(parse_card(self._face(c)).color == sj["color"]
                           for c in self.hands[sj["turn"]] if c is not card)
        top = parse_card(sj["top"])
        return face.color == sj["color"] or (face.face == top.face)

    def _play(self, seat: str, card, sj) -> int:
        n = 0
        name = self._face(card)
        hand = self.hands[seat]
        if len(hand) == 2 and sj["uno"]["window"] is None:
            if self.rng.random() >= self.uno_forget_rate:
                n += self._phone({"by": seat, "do": "uno"})
        action: dict[str, Any] = {"by": seat, "do": "play", "card": name}
        if parse_card(name).is_wild:
            action["color"] = self.rng.choice(_FACE_SETS[self.side].colors)
        hand.remove(card)
        self.discard.append(card)
        below = self.discard_places[-1] if self.discard_places else None
        self.discard_places.append(self._placement(name, below=below))
        self._apply(action)
        self._add(Beat(action, True, self._scene(), self._arm(seat, self.layout.discard_pile, None),
                       distractor=self._distractor(seat), tapped="color" in action))
        n += 1
        after = self.engine.to_json(self.state)
        window = after["uno"]["window"]
        if window == seat and not after["over"]:
            catcher = self.rng.choice([s for s in self.seats if s != seat])
            n += self._phone({"by": catcher, "do": "catch", "target": seat})
        return n

    def _reveal(self, pending) -> int:
        """The flip's player turns the discard pile over; the camera reads the new top."""
        seat = pending.get("seat") or self.seats[0]
        self._turn_over()
        top = self._face(self.discard[-1])
        action: dict[str, Any] = {"by": seat, "do": "reveal", "card": top}
        if parse_card(top).is_wild and pending.get("reason") == "flip":
            action["color"] = self.rng.choice(_FACE_SETS[self.side].colors)
        self._apply(action)
        # (a second arm never goes to the draw pile as it is turned over: that looks like a draw)
        # (a wild turned up: its colour comes from the flipper's phone, as a wild played does)
        self._add(Beat(action, True, self._scene(), self._arm(seat, self.layout.discard_pile),
                       distractor=self._distractor(seat, to_pile=False), tapped="color" in action))
        return 1

    def _turn_over(self) -> None:
        """Turn the discard pile and the draw pile over (hands follow): the other side is up."""
        self._flip_due = False
        self.side = self._other_side()
        self.discard.reverse()
        self.pile.reverse()
        self.discard_places = [self._placement(self._face(c)) for c in self.discard[-3:]]

    def _illegal(self, seat: str, sj) -> bool:
        """A card that does not match is put down; the referee calls it; it goes back."""
        wrong = [c for c in self.hands[seat] if not parse_card(self._face(c)).is_wild
                 and not self._playable(c, sj)]
        if not wrong or sj["top"] is None:
            return False
        card = self.rng.choice(wrong)
        name = self._face(card)
        action = {"by": seat, "do": "play", "card": name}
        places = list(self.discard_places)
        below = self.discard_places[-1] if self.discard_places else None
        self.discard_places.append(self._placement(name, below=below))
        scene = self._scene()
        self.discard_places = places
        self._apply(action, ok=False)  # the card goes back, 2 cards penalty, the turn passes
        self._add(Beat(action, True, scene, self._arm(seat, self.layout.discard_pile, None),
                       expect_refusal=True), settle=False)
        # the card taken back (another player reaching meanwhile, without phone taps); then the
        # penalty cards drawn
        other = None if self.phone_draws else self._distractor(seat)
        self._add(Beat(None, False, self._scene(), self._arm(seat, self.layout.discard_pile),
                       distractor=other))
        return True
