"""The Elgeta AEC env: thin glue between the rules engine and the encoders (DESIGN.md).

One agent step is one player putting one card on the table (``play``, E3); a trick with n
players still in takes n steps, plus n per tie-break round (E4).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from kiaule_env.cards import card_symbol
from kiaule_env.core.aec import TurnBasedCardEnv
from kiaule_env.elgeta import rules
from kiaule_env.elgeta.encoding import NUM_ACTIONS, PLAY_ACTION, Encoder, move_text
from kiaule_env.elgeta.rules import NOBODY, Config, State, View

#: the legal actions whenever someone is to act: only ``play`` (E3)
_LEGAL: tuple[int, ...] = (PLAY_ACTION,)


class ElgetaEnv(TurnBasedCardEnv):
    """Elgeta (Beggar), RULES §4. See :mod:`kiaule_env.elgeta_v0` for the documentation."""

    metadata: ClassVar[dict[str, Any]] = {**TurnBasedCardEnv.metadata, "name": "elgeta_v0"}
    #: reset options: ``piles`` (stacked deal, RULES §0, E2). ``"options"`` is accepted and
    #: ignored, as in Pig and Kiauliaganys: PettingZoo's API test probes
    #: ``reset(options={"options": 1})``.
    option_keys = frozenset({"piles", "options"})

    def __init__(
        self,
        num_players: int = 4,
        deck: str = "52",
        max_tricks: int = 10_000,
        stop_on_all_aces: bool = False,
        render_mode: str | None = None,
        max_cycles: int | None = None,
    ):
        self.config = Config(
            num_players=num_players,
            deck=deck,
            max_tricks=max_tricks,
            stop_on_all_aces=stop_on_all_aces,
        )
        self.encoder = Encoder(self.config)
        super().__init__(
            self.config.num_players, self.encoder.layout, NUM_ACTIONS, render_mode, max_cycles
        )
        self.state: State | None = None

    # ------------------------------------------------------------------ hooks
    def _start_episode(self, rng: np.random.Generator, options: dict[str, Any]) -> None:
        self.state = rules.new_deal(self.config, rng, options.get("piles"))

    def _seat_to_act(self) -> int:
        return rules.to_act(self.state)

    def _legal_actions(self) -> Sequence[int]:
        return _LEGAL

    def _apply(self, action: int) -> Sequence[float] | None:
        rules.apply(self.state)
        return rules.rewards(self.state) if self.state.over else None

    def _encode(self, seat: int) -> np.ndarray:
        return self.encoder.encode(rules.view(self.state, seat))

    def _move_text(self, action: int) -> str:
        return move_text(action)

    def _result(self) -> dict[str, Any]:
        outcome = rules.result(self.state)
        names = self.possible_agents
        return {
            "winner": names[outcome.winner] if outcome.winner != NOBODY else None,
            "tricks": outcome.tricks,
            "cycle": outcome.cycle,
            "capped": outcome.capped,
            "beggars": [names[s] for s in outcome.beggars],
            "all_aces": outcome.all_aces,
            "cards": list(outcome.cards),
        }

    def check_invariants(self) -> None:
        rules.check_invariants(self.state)

    # ------------------------------------------------------------------ public helpers
    def view(self, agent: str) -> View:
        """What ``agent`` knows (:func:`kiaule_env.elgeta.rules.view`)."""
        return rules.view(self.state, self.agent_name_mapping[agent])

    def render_view(self, agent: str) -> str:
        """The table as ``agent`` sees it: as from above (all is public), his seat marked."""
        return self._render_table(mark=self.agent_name_mapping[agent])

    def _render_table(self, mark: int | None = None) -> str:
        state = self.state
        names = self.possible_agents
        cfg = self.config
        lines = [
            f"Elgeta, {cfg.num_players} players, {cfg.deck}-card deck: trick {state.tricks + 1}"
            + (f", tie-break round {state.rounds - 1}" if state.rounds > 1 else "")
            + (", game over" if state.over else "")
        ]
        for seat, name in enumerate(names):
            pile = state.piles[seat]
            status = "" if state.still_in[seat] else "  beggar"
            you = "  (you)" if seat == mark else ""
            lead = "  leads" if seat == state.leader and not state.over else ""
            lines.append(
                f"  {name}: {len(pile):>2} cards ({state.unseen[seat]} never seen)"
                f"{lead}{status}{you}"
            )
        if state.trick_cards:
            start = state.round_start
            table = self._trick_text(state.trick_seats[:start], state.trick_cards[:start])
            newest = self._trick_text(state.trick_seats[start:], state.trick_cards[start:])
            lines.append(
                "  on the table: " + (f"{table} | newest round: " if start else "") + newest
            )
        if state.last_taker != NOBODY:
            lines.append(
                f"  last trick, taken by {names[state.last_taker]}: "
                + self._trick_text(state.last_trick_seats, state.last_trick_cards)
            )
        seat = rules.to_act(state)
        if seat != NOBODY:
            lines.append(f"  to play: {names[seat]}")
        else:
            outcome = rules.result(state)
            winner = names[outcome.winner] if outcome.winner != NOBODY else "nobody (a draw)"
            how = " (cycle)" if outcome.cycle else " (capped)" if outcome.capped else ""
            lines.append(f"  winner: {winner}{how}")
        return "\n".join(lines)

    def _trick_text(self, seats: Sequence[int], cards: Sequence[int]) -> str:
        return " ".join(f"{card_symbol(c)}({s})" for s, c in zip(seats, cards, strict=True))
