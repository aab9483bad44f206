"""Kozel observation encoder and action codec (``docs/ARCHITECTURE.md``: encoders own a layout).

The observation encodes a :class:`~kiaule_env.kozel.rules.View` (never the state), with the other
players relative to the observer: ``me``, ``left`` (next clockwise, plays after me), ``partner``
(opposite) and ``right``. Card slices have 36 entries in the 36-card deck's canonical order
(``kiaule_env.cards.DECK``: clubs 6..A, diamonds, hearts, spades; within a suit 6 7 8 9 10 J Q K A
by card id).

Actions are the engine's move numbers (:mod:`kiaule_env.kozel.rules`): a card move picks a subset of
the mover's sorted hand (suit C D H S, then rank in the K2 order), bit ``i`` = the ``i``-th card.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from kiaule_env.cards import CARD_TEXTS
from kiaule_env.core.layout import ObservationLayout, Slice
from kiaule_env.core.layout import action_table as _action_table
from kiaule_env.core.state import HiddenSlice, StateEncoder, order_slice, order_values
from kiaule_env.kozel import rules
from kiaule_env.kozel.rules import DECK, NUM_MOVES, Config, View

RELATIVE = ("me", "left", "partner", "right")
_POS: list[int] = DECK.position.tolist()
_N = DECK.size  # 36


def _slices() -> list[Slice]:
    rel = "/".join(RELATIVE)
    return [
        Slice("hand", _N, "my cards (1 = in my hand)"),
        Slice("trump", 4, "trump suit, one-hot C D H S (K4)"),
        Slice("indicator", _N, "the trump indicator card, one-hot (K4)"),
        Slice(
            "indicator_where",
            6,
            "where the indicator is, one-hot: in the stock / with me (held or discarded by me) / "
            "publicly tied to left / partner / right (drew it, not yet seen played) / seen face up",
        ),
        Slice("indicator_depth", 1, "its index from the top of the stock / 20 (0 if not there)"),
        Slice("stock_size", 1, "cards left in the stock / 20"),
        Slice("hand_sizes", 4, f"cards in hand / 4, {rel}"),
        Slice("phase", 3, "one-hot: lead / respond (beat or discard) / molodka claim window (K8)"),
        Slice("cards_to_play", 4, "one-hot number of cards each player plays this trick (1–4)"),
        Slice("leader", 4, f"the trick's leader (the claimant after a claim), one-hot {rel}"),
        Slice("claimed", 1, "1 if a molodka was claimed this trick (K8)"),
        Slice("trick_me", _N, "face-up cards I put in the current trick (lead or beat)"),
        Slice("trick_left", _N, "face-up cards left put in the current trick"),
        Slice("trick_partner", _N, "face-up cards partner put in the current trick"),
        Slice("trick_right", _N, "face-up cards right put in the current trick"),
        Slice("trick_discarded", 4, f"1 if that player discarded face down this trick, {rel}"),
        Slice("trick_played", 4, f"1 if that player has played in this trick, {rel}"),
        Slice("winning_seat", 4, f"owner of the currently winning set (K6), one-hot {rel}"),
        Slice("to_beat", _N, "the currently winning set: the cards a beat must pair off (K6)"),
        Slice("declined", 4, f"1 if that player declined a molodka claim this trick, {rel}"),
        Slice("seen", _N, "cards seen face up this game that left the hands"),
        Slice(
            "known_left",
            _N,
            "cards public knowledge puts with left (K4 indicator, K8 returned lead): 1 = in his "
            "hand, 0.5 = in his hand or among his later face-down discards",
        ),
        Slice("known_partner", _N, "the same for partner"),
        Slice("known_right", _N, "the same for right"),
        Slice("my_discards", _N, "my own face-down discards this game"),
        Slice(
            "points_known",
            2,
            "card points known in tricks taken, my team / other team, / 120: face-up cards plus "
            "my own discards (K11)",
        ),
        Slice("tricks_taken", 2, "tricks taken, my team / other team, / 9"),
        Slice("cards_taken", 2, "cards in the tricks taken, my team / other team, / 36"),
        Slice("dealer", 4, f"this game's dealer, one-hot {rel}"),
        Slice(
            "series_loss",
            2,
            "series loss points (K14), my team / other team, / 12 (0 outside series)",
        ),
        Slice("eggs_streak", 1, "consecutive eggs games just before this one (K13), min(k, 4) / 4"),
        Slice("game_index", 1, "games finished before this one in the series, min(g, 20) / 20"),
    ]


class ObservationEncoder:
    """Encodes a Kozel :class:`View` into the flat ``float32`` vector of :attr:`layout`."""

    def __init__(self) -> None:
        self.layout = ObservationLayout(_slices())
        off = {name: sl.start for name, sl in self.layout.offsets.items()}
        self._off = off
        self._zeros = self.layout.new()

        def card_index(name: str) -> list[int]:
            """Observation index of every card id (54) in the card slice ``name``."""
            return [off[name] + p if p >= 0 else -1 for p in _POS]

        self._hand = card_index("hand")
        self._seen = card_index("seen")
        self._to_beat = card_index("to_beat")
        self._my_discards = card_index("my_discards")
        self._trick = [card_index(f"trick_{r}") for r in RELATIVE]
        self._known = [[], *(card_index(f"known_{r}") for r in RELATIVE[1:])]
        self._indicator = card_index("indicator")

    @property
    def size(self) -> int:
        return self.layout.size

    def encode(self, v: View) -> np.ndarray:
        """The observation vector of ``v.seat``."""
        off = self._off
        me = v.seat
        obs = self._zeros.copy()
        ones = list(map(self._hand.__getitem__, v.hand))
        ones += map(self._seen.__getitem__, v.seen)
        ones.append(off["trump"] + v.trump)
        ones.append(self._indicator[v.indicator])
        ones.append(off["indicator_where"] + self._indicator_where(v))
        if v.indicator_at >= 0:
            obs[off["indicator_depth"]] = v.indicator_at / 20
        o = off["hand_sizes"]
        for s in range(4):
            obs[o + ((s - me) & 3)] = v.hand_sizes[s] / 4
        if v.phase < rules.PHASE_OVER:
            ones.append(off["phase"] + v.phase)
        if v.trick:
            ones.append(off["cards_to_play"] + v.n_cards - 1)
            ones.append(off["leader"] + ((v.leader - me) & 3))
            ones.append(off["winning_seat"] + ((v.winner - me) & 3))
            ones += map(self._to_beat.__getitem__, v.winning)
            if v.claimed:
                ones.append(off["claimed"])
            played, discarded = off["trick_played"], off["trick_discarded"]
            for s, kind, cards in v.trick:
                r = (s - me) & 3
                ones.append(played + r)
                if kind == rules.DISCARD:
                    ones.append(discarded + r)
                else:
                    ones += map(self._trick[r].__getitem__, cards)
            for s in v.declined:
                ones.append(off["declined"] + ((s - me) & 3))
        for s in range(4):
            if s != me:
                index = self._known[(s - me) & 3]
                if v.known[s]:
                    ones += map(index.__getitem__, v.known[s])
                for c in v.maybe[s]:
                    obs[index[c]] = 0.5
        if v.my_discards:
            ones += map(self._my_discards.__getitem__, v.my_discards)
        ones.append(off["dealer"] + ((v.dealer - me) & 3))
        obs[ones] = 1.0
        mine, theirs = me & 1, 1 - (me & 1)
        o = off["stock_size"]
        obs[o] = v.stock_size / 20
        o = off["points_known"]
        obs[o] = (v.points_seen[mine] + v.my_discard_points[mine]) / 120
        obs[o + 1] = (v.points_seen[theirs] + v.my_discard_points[theirs]) / 120
        o = off["tricks_taken"]
        obs[o] = v.tricks[mine] / 9
        obs[o + 1] = v.tricks[theirs] / 9
        o = off["cards_taken"]
        obs[o] = v.cards_taken[mine] / 36
        obs[o + 1] = v.cards_taken[theirs] / 36
        if v.game_index:
            o = off["series_loss"]
            obs[o] = min(v.series_loss[mine] / 12, 1.0)
            obs[o + 1] = min(v.series_loss[theirs] / 12, 1.0)
            obs[off["eggs_streak"]] = min(v.eggs_streak, 4) / 4
            obs[off["game_index"]] = min(v.game_index, 20) / 20
        return obs

    @staticmethod
    def _indicator_where(v: View) -> int:
        card = v.indicator
        if v.indicator_at >= 0:
            return 0
        if card in v.hand or card in v.my_discards:
            return 1
        for s in range(4):
            if s != v.seat and (card in v.known[s] or card in v.maybe[s]):
                return ((s - v.seat) & 3) + 1
        return 5  # seen face up


class ActionCodec:
    """``Discrete(47)`` index <-> engine move <-> move text, and action masks.

    0–14 ``lead``, 15–29 ``beat``, 30–44 ``discard`` with subset ``index % 15 + 1`` of the sorted
    hand; 45 ``claim``, 46 ``decline``.
    """

    num_actions = NUM_MOVES
    #: no static move texts: a card move names cards of the mover's hand (:meth:`text`)
    texts = None

    @staticmethod
    def text(hand: tuple[int, ...] | list[int], action: int) -> str:
        """Move text of ``action`` for a player holding ``hand`` (sorted)."""
        if action == rules.CLAIM:
            return "claim"
        if action == rules.DECLINE:
            return "decline"
        kind = rules.KIND_WORDS[action // 15]
        return " ".join([kind, *(CARD_TEXTS[c] for c in rules.move_cards(hand, action))])

    def mask(self, legal: Iterable[int]) -> np.ndarray:
        mask = np.zeros(self.num_actions, dtype=np.int8)
        mask[list(legal)] = 1
        return mask

    @staticmethod
    def rows() -> list[tuple[str, str]]:
        return [
            (
                "0–14",
                "`lead C…`: lead the hand subset `a + 1` (bit i = i-th card of the sorted hand) "
                "(K5)",
            ),
            ("15–29", "`beat C…`: beat with the hand subset `a − 14` (K6)"),
            ("30–44", "`discard C…`: discard the hand subset `a − 29` face down (K6)"),
            ("45", "`claim`: claim the lead with a molodka (K8)"),
            ("46", "`decline`: let the molodka claim pass (K8)"),
        ]

    def markdown_table(self) -> str:
        return _action_table(self.rows())


ENCODER = ObservationEncoder()
CODEC = ActionCodec()


def state_encoder(config: Config | None = None) -> StateEncoder:
    """The global state encoder (:mod:`kiaule_env.core.state`): the four observations, then
    the order of the stock still to be drawn (K3, K4), top first."""
    del config  # every configuration has the same layout
    return StateEncoder(
        4,
        ENCODER.layout,
        [
            HiddenSlice(
                order_slice("stock_order", DECK, "the stock still to draw, top first (K3)"),
                _stock_order,
            )
        ],
    )


def _stock_order(state: rules.State) -> np.ndarray:
    """The stock still to draw, top first, as :func:`~kiaule_env.core.state.order_values`."""
    return order_values(state.stock[state.stock_pos :], DECK)
