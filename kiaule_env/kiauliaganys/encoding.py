"""Observation encoder and action codec of Kiauliaganys (RULES §2).

The observation encodes a :class:`~kiaule_env.kiauliaganys.rules.View` (never the state), with
the other players relative to the observer: relative seat ``r`` is the player ``r`` places to the
observer's left (0 = the observer himself). Cards use the deck's compact positions
(``Deck.position``), so the size is fixed for a player count and deck. Counts are divided by the
deck size (turns by ``max_turns``, match years by the match target, the G10a repetition count by
``repetition``) so every entry lies in [0, 1].
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from kiaule_env.cards import CARD_TEXTS, NUM_SUITED, Deck
from kiaule_env.core.layout import ObservationLayout, Slice, action_table
from kiaule_env.core.state import HiddenSlice, StateEncoder, order_slice, order_values
from kiaule_env.kiauliaganys.counting import expected_search, match_chances, unseen_counts
from kiaule_env.kiauliaganys.rules import (
    ANY,
    BLIND_MOVE,
    DRAG,
    DRAG_CARD,
    MATCH,
    PLAY,
    SEARCH_MOVE,
    TAKE_MOVE,
    Config,
    Move,
    Options,
    View,
)


def observation_layout(num_players: int, deck: Deck) -> ObservationLayout:
    """The named slices of the observation for ``num_players`` and ``deck``."""
    n, d = num_players, deck.size
    per_seat = "by relative seat"
    return ObservationLayout(
        [
            Slice("hand", d, "my cards (one per deck position)"),
            Slice("fund_top", d, "top card of the open fund (G3)"),
            Slice("fund", d, "every card in the open fund, all seen face up"),
            Slice("required_suit", 5, "required suit C D H S, or any (G3)"),
            Slice("phase", 2, "the player to act is matching / dragging (G4–G6)"),
            Slice("last_turn", 1, "the player to act makes the G8 last turn"),
            Slice("face_down", 1, "face-down cards left / deck size"),
            Slice("fund_size", 1, "cards in the open fund / deck size"),
            Slice("turns", 1, "turns made this deal / max_turns (G10)"),
            Slice(
                "repetition",
                1,
                "times this turn's starting position has occurred / repetition (G10a)",
            ),
            Slice("to_act", n, f"who decides now, {per_seat}"),
            Slice("hand_sizes", n, f"cards held / deck size, {per_seat}"),
            Slice("out", n, f"out of the deal, safe (G7), {per_seat}"),
            Slice("had_turn", n, f"has had a turn this deal (G7), {per_seat}"),
            Slice(
                "face_up",
                n * d,
                f"cards taken face up from the fund, still held (G5), {per_seat}",
            ),
            Slice(
                "not_suit",
                n * 4,
                f"cards known not of suit C D H S (G4) / deck size, {per_seat}",
            ),
            Slice("match_years", n, f"match years / match_years target (G11), {per_seat}"),
            Slice(
                "match_chance",
                n * 4,
                f"chance he holds suit C D H S or a joker, {per_seat}",
            ),
            Slice(
                "next_chance",
                4,
                "match_chance of the player my drag sets the suit for (G6)",
            ),
            Slice("unseen", 5, "cards of suit C D H S, and jokers, I have not seen / deck size"),
            Slice(
                "search_length",
                4,
                "expected cards a search for C D H S picks up (G4) / deck size",
            ),
        ]
    )


class ObservationEncoder:
    """Builds the observation vector of a view (see :func:`observation_layout`).

    Index tables per slice (card id -> vector index) are precomputed, so encoding is a few
    ``map`` calls and one fancy assignment: it runs on every env step.
    """

    def __init__(self, config: Config):
        self.config = config
        self.deck = config.the_deck
        self.n = n = config.num_players
        self.layout = observation_layout(n, self.deck)
        off = {name: sl.start for name, sl in self.layout.offsets.items()}
        d = self.deck.size
        pos = [int(p) for p in self.deck.position]

        def card_index(base: int) -> list[int]:
            return [base + p if p >= 0 else -1 for p in pos]

        self._hand = card_index(off["hand"])
        self._fund_top = card_index(off["fund_top"])
        self._fund = card_index(off["fund"])
        self._face_up = [card_index(off["face_up"] + r * d) for r in range(n)]
        self._required = off["required_suit"]
        self._phase = off["phase"]
        self._last_turn = off["last_turn"]
        self._face_down = off["face_down"]
        self._fund_size = off["fund_size"]
        self._turns = off["turns"]
        self._repetition = off["repetition"]
        self._to_act = off["to_act"]
        self._sizes = off["hand_sizes"]
        self._out = off["out"]
        self._had_turn = off["had_turn"]
        self._not_suit = off["not_suit"]
        self._years = off["match_years"]
        self._chance = off["match_chance"]
        self._next_chance = off["next_chance"]
        self._unseen = off["unseen"]
        self._search_length = off["search_length"]
        self._scale = 1.0 / d
        self._turn_scale = 1.0 / config.max_turns
        self._years_scale = 1.0 / config.match_years if config.match_years else 0.0
        self._repetition_scale = 1.0 / config.repetition if config.repetition else 0.0

    def encode(self, view: View) -> np.ndarray:
        """The observation of ``view.seat``."""
        obs = np.zeros(self.layout.size, dtype=np.float32)
        n = self.n
        me = view.seat
        scale = self._scale
        ones = list(map(self._hand.__getitem__, view.hand))
        fund = view.fund
        if fund:
            ones.append(self._fund_top[fund[-1]])
            ones.extend(map(self._fund.__getitem__, fund))
        req = view.required_suit
        ones.append(self._required + (4 if req == ANY else req))
        if view.phase == MATCH:
            ones.append(self._phase)
        elif view.phase == DRAG:
            ones.append(self._phase + 1)
        if view.last_turn:
            ones.append(self._last_turn)
        if view.to_act >= 0:
            ones.append(self._to_act + (view.to_act - me) % n)
        sizes, not_suit, years = self._sizes, self._not_suit, self._years
        for s in range(n):
            rel = (s - me) % n
            if view.out[s]:
                ones.append(self._out + rel)
            if view.had_turn[s]:
                ones.append(self._had_turn + rel)
            if view.face_up[s]:
                ones.extend(map(self._face_up[rel].__getitem__, view.face_up[s]))
            obs[sizes + rel] = view.hand_sizes[s] * scale
            counts = view.not_suit[s]
            if any(counts):
                for t in range(4):
                    obs[not_suit + rel * 4 + t] = counts[t] * scale
            if view.match_years[s]:
                obs[years + rel] = min(1.0, view.match_years[s] * self._years_scale)
        obs[ones] = 1.0
        obs[self._face_down] = view.face_down * scale
        obs[self._fund_size] = len(fund) * scale
        obs[self._turns] = view.turns * self._turn_scale
        if view.repetitions:
            obs[self._repetition] = view.repetitions * self._repetition_scale
        self._encode_counting(view, obs)
        return obs

    def _encode_counting(self, view: View, obs: np.ndarray) -> None:
        """The ``counting`` slices: the public card counting of :mod:`.counting`."""
        n, me, scale = self.n, view.seat, self._scale
        unseen = unseen_counts(view)
        per_suit, _, jokers = unseen
        base = self._unseen
        obs[base : base + 4] = np.asarray(per_suit, dtype=np.float32) * scale
        obs[base + 4] = jokers * scale
        held = [False] * 4
        joker = False
        for c in view.hand:
            if c >= NUM_SUITED:
                joker = True
            else:
                held[c // 13] = True
        chance = self._chance
        obs[chance : chance + 4] = [1.0 if joker or h else 0.0 for h in held]
        nxt = -1
        for step in range(1, n):
            seat = (me + step) % n
            if not view.out[seat]:
                if nxt < 0:
                    nxt = seat
                if view.hand_sizes[seat]:
                    at = chance + step * 4
                    obs[at : at + 4] = match_chances(view, seat, unseen)
        if nxt >= 0:
            at = chance + ((nxt - me) % n) * 4
            obs[self._next_chance : self._next_chance + 4] = obs[at : at + 4]
        if view.face_down:
            at = self._search_length
            obs[at : at + 4] = [expected_search(view, t, unseen) * scale for t in range(4)]


class ActionCodec:
    """``Discrete(n)`` index ↔ :class:`Move` ↔ move text for a deck.

    Indices: ``play C`` for every card of the deck (deck positions), then ``drag C`` for every
    suited card, then ``drag J S`` for each joker and named suit, then ``search``, ``take``,
    ``drag blind``.
    """

    def __init__(self, config: Config):
        deck = config.the_deck
        self.deck = deck
        suited = [c for c in deck.cards if c < NUM_SUITED]
        jokers = [c for c in deck.cards if c >= NUM_SUITED]
        moves: list[Move] = [Move(PLAY, c) for c in deck.cards]
        moves += [Move(DRAG_CARD, c) for c in suited]
        moves += [Move(DRAG_CARD, j, s) for j in jokers for s in range(4)]
        moves += [SEARCH_MOVE, TAKE_MOVE, BLIND_MOVE]
        self.moves: tuple[Move, ...] = tuple(moves)
        self.texts: tuple[str, ...] = tuple(m.text for m in moves)
        self.index_of: dict[Move, int] = {m: i for i, m in enumerate(moves)}
        self.num_actions = len(moves)
        self.play_base = 0
        self.drag_base = len(deck.cards)
        self.joker_base = self.drag_base + len(suited)
        self.search = self.index_of[SEARCH_MOVE]
        self.take = self.index_of[TAKE_MOVE]
        self.blind = self.index_of[BLIND_MOVE]
        self._num_jokers = len(jokers)

        pos = [int(p) for p in deck.position]
        #: card id -> action index of ``play C`` / ``drag C`` (first of the 4 for a joker)
        self._play_index = pos
        self._drag_index = [-1] * len(pos)
        for c in suited:
            self._drag_index[c] = self.index_of[Move(DRAG_CARD, c)]
        for j in jokers:
            self._drag_index[j] = self.index_of[Move(DRAG_CARD, j, 0)]

    def legal_indices(self, options: Options) -> list[int]:
        """Action indices of :func:`~kiaule_env.kiauliaganys.rules.legal_options`, ascending
        (the env's hot path: no move objects are built)."""
        if options.phase == MATCH:
            indices = sorted(map(self._play_index.__getitem__, options.cards))
            if options.search:
                indices.append(self.search)
            if options.take:
                indices.append(self.take)
            return indices
        if options.phase != DRAG:
            return []
        drag = self._drag_index
        indices = []
        for c in options.cards:
            if c >= NUM_SUITED:
                indices.extend(range(drag[c], drag[c] + 4))
            else:
                indices.append(drag[c])
        indices.sort()
        if options.blind:
            indices.append(self.blind)
        return indices

    def index(self, move: Move) -> int:
        return self.index_of[move]

    def move(self, index: int) -> Move:
        return self.moves[index]

    def text(self, index: int) -> str:
        return self.texts[index]

    def indices(self, moves: list[Move]) -> list[int]:
        """Action indices of ``moves``, ascending."""
        index_of = self.index_of
        return sorted(index_of[m] for m in moves)

    def mask(self, actions: list[int]) -> np.ndarray:
        """``int8`` mask of the action indices ``actions``."""
        mask = np.zeros(self.num_actions, dtype=np.int8)
        mask[list(actions)] = 1
        return mask

    def table_rows(self) -> list[tuple[str, str]]:
        """``(indices, meaning)`` rows of the action table."""
        d = len(self.deck.cards)
        first, last = CARD_TEXTS[self.deck.cards[0]], CARD_TEXTS[self.deck.cards[-1]]
        jokers = ", jokers last" if self._num_jokers else ""
        suited_last = CARD_TEXTS[[c for c in self.deck.cards if c < NUM_SUITED][-1]]
        rows = [
            (
                f"0–{d - 1}",
                f"`play C` by deck position ({first} … {last}{jokers}; G4, G5)",
            ),
            (
                f"{self.drag_base}–{self.joker_base - 1}",
                f"`drag C`: drag suited card C ({first} … {suited_last}; G6)",
            ),
        ]
        if self._num_jokers:
            rows.append(
                (
                    f"{self.joker_base}–{self.search - 1}",
                    "`drag RJ C` … `drag BJ S`: drag a joker naming suit C D H S (G6)",
                )
            )
        rows += [
            (str(self.search), "`search`: draw face-down cards until a match (G4)"),
            (str(self.take), "`take`: take the fund's top card, the turn ends (G5, G7)"),
            (str(self.blind), "`drag blind`: drag the top face-down card (G6)"),
        ]
        return rows

    def markdown_table(self) -> str:
        return action_table(self.table_rows())


def state_encoder(config: Config) -> StateEncoder:
    """The global state encoder (:mod:`kiaule_env.core.state`): every seat's observation, then
    the order of the face-down table (G2), the next card to be drawn first."""
    deck = config.the_deck
    return StateEncoder(
        config.num_players,
        observation_layout(config.num_players, deck),
        [
            HiddenSlice(
                order_slice(
                    "face_down_order", deck, "the face-down table, next to draw first (G2)"
                ),
                partial(_face_down_order, deck=deck),
            )
        ],
    )


def _face_down_order(state: Any, deck: Deck) -> np.ndarray:
    """The face-down table, next to draw first (picklable, unlike a lambda)."""
    return order_values(reversed(state.face_down), deck)
