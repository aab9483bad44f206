"""The Kozel AEC environment: thin glue between the engine (``rules``) and the encoders."""

from __future__ import annotations

from typing import Any, ClassVar

from kiaule_env.cards import CARD_SYMBOLS, SUIT_SYMBOLS, SUITS
from kiaule_env.core.aec import TurnBasedCardEnv
from kiaule_env.kozel import rules
from kiaule_env.kozel.engine import Engine
from kiaule_env.kozel.rules import State


class KozelEnv(TurnBasedCardEnv):
    """Kozel (Goat), RULES §1: see :mod:`kiaule_env.kozel_v0` for the documentation."""

    metadata: ClassVar[dict[str, Any]] = {**TurnBasedCardEnv.metadata, "name": "kozel_v0"}

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
        engine = Engine(
            num_players=num_players,
            deck=deck,
            trump_card=trump_card,
            molodka=molodka,
            beat_partner=beat_partner,
            eggs=eggs,
            series=series,
            reward=reward,
        )
        super().__init__(engine, render_mode, max_cycles)

    # ------------------------------------------------------------------ extras
    def render_view(self, agent: str) -> str:
        """The table as ``agent`` sees it: the view from above plus his hand and memory."""
        seat = self.agent_name_mapping[agent]
        v = rules.view(self.game_state, seat)
        lines = [render_table(self.game_state), f"You are {agent} (team {seat % 2})."]
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
