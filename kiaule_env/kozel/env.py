"""The Kozel AEC environment: thin glue between the engine (``rules``) and the encoders."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from kiaule_env.cards import CARD_SYMBOLS, SUIT_SYMBOLS, SUITS
from kiaule_env.core.aec import TurnBasedCardEnv
from kiaule_env.core.options import stacked_decks
from kiaule_env.kozel import rules
from kiaule_env.kozel.encoding import CODEC, ENCODER
from kiaule_env.kozel.rules import DECK, Config, State, View


class KozelEnv(TurnBasedCardEnv):
    """Kozel (Goat), RULES §1: see :mod:`kiaule_env.kozel_v0` for the documentation."""

    metadata: ClassVar[dict[str, Any]] = {**TurnBasedCardEnv.metadata, "name": "kozel_v0"}
    option_keys = frozenset({"deck", "decks"})

    def __init__(
        self,
        num_players: int = 4,
        deck: str = "36",
        trump_card: str = "middle",
        molodka: str | None = "any",
        beat_partner: bool = True,
        eggs: str | None = None,
        series: bool = False,
        reward: str = "loss_points",
        render_mode: str | None = None,
        max_cycles: int | None = None,
    ):
        self.config = Config(
            num_players=num_players,
            deck=deck,
            trump_card=trump_card,
            molodka=molodka,
            beat_partner=beat_partner,
            eggs=eggs,
            series=series,
            reward=reward,
        )
        super().__init__(
            rules.NUM_PLAYERS, ENCODER.layout, CODEC.num_actions, render_mode, max_cycles
        )
        self.state: State | None = None
        self._games_done = 0

    # ------------------------------------------------------------------ hooks
    def _start_episode(self, rng: np.random.Generator, options: dict[str, Any]) -> None:
        decks = stacked_decks(options, DECK, multi_deal=self.config.series)  # K3, K14
        self.state = rules.new_deal(self.config, rng, decks)
        self._games_done = 0

    def _seat_to_act(self) -> int:
        return self.state.to_act

    def _legal_actions(self) -> Sequence[int]:
        return rules.legal_moves(self.state)

    def _apply(self, action: int) -> Sequence[float] | None:
        return rules.apply(self.state, action)

    def _encode(self, seat: int) -> np.ndarray:
        return ENCODER.encode(rules.view(self.state, seat))

    def _move_text(self, action: int) -> str:
        return rules.move_text(self.state, action)

    def _result(self) -> dict[str, Any]:
        return rules.result(self.state)

    def _step_info(self) -> dict[str, Any] | None:
        """``game_result``: the K16 outcome of a game, in the step that finished it."""
        games = self.state.finished_games
        if len(games) == self._games_done:
            return None
        self._games_done = len(games)
        return {"game_result": games[-1]}

    def check_invariants(self) -> None:
        rules.check_invariants(self.state)
        seat = self.state.to_act
        if seat >= 0:
            assert self.agent_selection == self.possible_agents[seat], "agent_selection is stale"
            assert list(self._legal), "the agent to act has no legal move"

    # ------------------------------------------------------------------ extras
    def view(self, agent: str) -> View:
        """The information set of ``agent`` (:class:`~kiaule_env.kozel.rules.View`)."""
        return rules.view(self.state, self.agent_name_mapping[agent])

    def _render_table(self) -> str:
        return render_table(self.state)

    def render_view(self, agent: str) -> str:
        """The table as ``agent`` sees it: the view from above plus his hand and memory."""
        seat = self.agent_name_mapping[agent]
        v = rules.view(self.state, seat)
        lines = [render_table(self.state), f"You are {agent} (team {seat % 2})."]
        lines.append("Your hand: " + (_cards(v.hand) or "(empty)"))
        if v.my_discards:
            lines.append("Your face-down discards this game: " + _cards(v.my_discards))
        for s in range(4):
            if s != seat and (v.known[s] or v.maybe[s]):
                parts = []
                if v.known[s]:
                    parts.append(f"holds {_cards(v.known[s])}")
                if v.maybe[s]:
                    parts.append(f"holds or discarded {_cards(v.maybe[s])}")
                lines.append(f"Known: player_{s} " + "; ".join(parts))
        return "\n".join(lines)


def _cards(cards) -> str:
    return " ".join(CARD_SYMBOLS[c] for c in cards)


def render_table(state: State) -> str:
    """The table from above: hands and the stock face down, face-up cards shown, K16 scores."""
    config = state.config
    trump = SUITS[state.trump]
    lines = []
    head = f"Kozel  game {state.game_index + 1}" if config.series else "Kozel"
    head += f"  dealer player_{state.dealer}  trump {SUIT_SYMBOLS[trump]} ({trump})"
    lines.append(head)
    at = state.indicator_index - state.stock_pos
    where = (
        f"in the stock at position {at + 1} from the top"
        if at >= 0
        else "drawn"
        if state.indicator not in state.seen
        else "played"
    )
    lines.append(
        f"indicator {CARD_SYMBOLS[state.indicator]} {where}   stock: {state.stock_size} cards"
    )
    for seat in range(4):
        team = seat % 2
        mark = " <" if seat == state.to_act else ""
        lines.append(
            f"  player_{seat} (team {team}): {'▒' * len(state.hands[seat]) or '-':<4}{mark}"
        )
    for team in (0, 1):
        lines.append(
            f"  team {team} pile: {state.tricks[team]} trick(s), {len(state.piles[team])} cards"
            + (f"   series loss points {state.series_loss[team]}" if config.series else "")
        )
    if state.trick:
        plays = []
        for seat, kind, cards in state.trick:
            shown = "▒" * len(cards) if kind == rules.DISCARD else _cards(cards)
            plays.append(f"player_{seat} {rules.KIND_WORDS[kind]} {shown}")
        lines.append("trick: " + "; ".join(plays))
        lines.append(f"winning: player_{state.winner} {_cards(state.winning)}")
    if state.declined:
        lines.append(
            "declined a molodka claim: " + ", ".join(f"player_{s}" for s in state.declined)
        )
    if state.phase == rules.PHASE_OVER:
        lines.append(f"over: {rules.result(state)}")
    else:
        lines.append(f"to act: player_{state.to_act} ({rules.PHASE_NAMES[state.phase]})")
    return "\n".join(lines)
