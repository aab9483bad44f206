"""The Kiauliaganys PettingZoo AEC env: thin glue between the engine and the encoders.

See :mod:`kiaule_env.kiauliaganys_v0` for the documentation page.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from kiaule_env.cards import SUITS, card_symbol
from kiaule_env.core.aec import TurnBasedCardEnv
from kiaule_env.core.options import stacked_decks
from kiaule_env.kiauliaganys import rules
from kiaule_env.kiauliaganys.encoding import ActionCodec, Encoder
from kiaule_env.kiauliaganys.rules import ANY, DRAG, OVER, Config, State


class KiauliaganysEnv(TurnBasedCardEnv):
    """Kiauliaganys (Swineherd) for 2–6 players, RULES §2. Every decision is one agent step
    (G7a): a turn is a match step (``play``/``search``/``take``) and, after a match, a drag step.
    Players who are out stay in ``agents`` until the episode ends."""

    metadata: ClassVar[dict[str, Any]] = {**TurnBasedCardEnv.metadata, "name": "kiauliaganys_v0"}
    #: reset options (§0 stacked decks; the base ignores api_test's ``{"options": 1}`` probe)
    option_keys = frozenset({"deck", "decks"})

    def __init__(
        self,
        num_players: int = 4,
        deck: str = "52",
        pips: str = "points",
        max_turns: int = 1000,
        match_years: int | None = None,
        reward: str = "win_loss",
        must_play_from_hand: bool = False,
        blind_drag_only_when_empty_hand: bool = False,
        repetition: int | None = rules.DEFAULT_REPETITION,
        render_mode: str | None = None,
        max_cycles: int | None = None,
    ):
        self.config = Config(
            num_players=num_players,
            deck=deck,
            pips=pips,
            max_turns=max_turns,
            match_years=match_years,
            reward=reward,
            must_play_from_hand=must_play_from_hand,
            blind_drag_only_when_empty_hand=blind_drag_only_when_empty_hand,
            repetition=repetition,
        )
        self.encoder = Encoder(self.config)
        self.codec = ActionCodec(self.config.the_deck)
        super().__init__(
            self.config.num_players,
            self.encoder.layout,
            self.codec.num_actions,
            render_mode=render_mode,
            max_cycles=max_cycles,
        )
        self.state: State | None = None
        self._decks: list[list[int]] = []
        self._deal_result: dict[str, Any] | None = None
        self._last_moves: list[tuple[int, rules.Move, int, int, int]] = []

    # ------------------------------------------------------------------ hooks
    def _start_episode(self, rng: np.random.Generator, options: dict[str, Any]) -> None:
        multi = self.config.match_years is not None
        self._decks = stacked_decks(options, self.config.the_deck, multi_deal=multi)
        self.state = rules.new_deal(self.config, rng, self._deck_for(0))
        self._deal_result = None
        self._last_moves = []

    def _deck_for(self, deal: int) -> list[int] | None:
        return self._decks[deal] if deal < len(self._decks) else None

    def _seat_to_act(self) -> int:
        return self.state.to_act

    def _legal_actions(self) -> Sequence[int]:
        return self.codec.legal_indices(rules.legal_options(self.state))

    def _apply(self, action: int) -> Sequence[float] | None:
        state = self.state
        seat = state.to_act
        move = self.codec.moves[action]
        rules.apply(state, move, check=False)
        self._note(seat, move, state)
        self._deal_result = None
        if state.phase != OVER:
            return None
        deltas = rules.deal_rewards(state)
        self._deal_result = rules.result(state)
        if not state.match_over:  # G11: the next deal of the match
            self.state = rules.next_deal(state, self.np_random, self._deck_for(state.deals))
        return deltas

    def _note(self, seat: int, move: rules.Move, state: State) -> None:
        """Keep the last few moves for rendering (formatted only when rendered)."""
        top = state.fund[-1] if state.fund else -1
        self._last_moves.append((seat, move, state.last_picked, top, state.phase))
        if len(self._last_moves) > 8:
            del self._last_moves[:4]

    @staticmethod
    def _move_note(seat: int, move: rules.Move, picked: int, top: int, phase: int) -> str:
        """A move as text; a search says what it picked up and found, a blind drag the card."""
        text = f"player_{seat}: {move.text}"
        if move.kind == rules.SEARCH:
            found = " and found " + card_symbol(top) if phase == DRAG else ""
            text += f" (picked up {picked}{found})"
        elif move.kind == rules.DRAG_BLIND:
            text += f" ({card_symbol(top)})"
        return text

    def _step_info(self) -> dict[str, Any] | None:
        if self._deal_result is not None and self.config.match_years is not None:
            return {"deal_result": self._deal_result}
        return None

    def _encode(self, seat: int) -> np.ndarray:
        return self.encoder.encode(rules.view(self.state, seat))

    def _move_text(self, action: int) -> str:
        return self.codec.texts[action]

    def _result(self) -> dict[str, Any]:
        return rules.result(self.state)

    def check_invariants(self) -> None:
        rules.check_invariants(self.state)

    # ------------------------------------------------------------------ public extras
    def view(self, agent: str) -> rules.View:
        """The information set of ``agent`` (what an agent may read)."""
        return rules.view(self.state, self.agent_name_mapping[agent])

    def load_state(self, state: State) -> None:
        """Replace the engine state (tests, search agents) and recompute who acts."""
        self.state = state
        self._refresh()

    def _render_table(self) -> str:
        return self._table(None)

    def render_view(self, agent: str) -> str:
        """The table as ``agent`` sees it: the table from above plus his own hand."""
        return self._table(self.agent_name_mapping[agent])

    def _table(self, seat: int | None) -> str:
        state = self.state
        if state is None:
            return "(not reset)"
        req = rules.required_suit(state)
        top = card_symbol(state.fund[-1]) if state.fund else "(empty)"
        suit = "any" if req == ANY else SUITS[req]
        seen = f", position seen {state.repeats}×" if state.repeats > 1 else ""  # G10a
        lines = [
            f"Kiauliaganys — turn {state.turns}, dealer player_{state.dealer}"
            + (f", deal {state.deals + 1}" if self.config.match_years else "")
            + seen,
            f"open fund: {len(state.fund)} card(s), top {top}; required suit {suit}; "
            f"face-down: {len(state.face_down)}",
        ]
        for s in range(self.num_players):
            marks = []
            if s == state.to_act:
                phase = rules.PHASE_NAMES[state.phase]
                marks.append(f"to {phase}" + (" (last turn)" if state.last_turn else ""))
            if state.out[s]:
                marks.append("out")
            if s == state.loser:
                marks.append("SWINEHERD" + (" (repetition)" if state.repeated else ""))
            if s == state.caught_by_tail:
                marks.append("caught the pig by the tail")
            if self.config.match_years:
                marks.append(f"{state.match_years[s]} years")
            face_up = " ".join(card_symbol(c) for c in sorted(state.face_up[s]))
            shown = f", face up: {face_up}" if face_up else ""
            lines.append(
                f"  player_{s}: {len(state.hands[s])} card(s){shown}"
                + (f"  [{', '.join(marks)}]" if marks else "")
            )
        if seat is not None:
            hand = " ".join(card_symbol(c) for c in sorted(state.hands[seat])) or "(empty)"
            lines.append(f"your hand (player_{seat}): {hand}")
        if self._last_moves:
            notes = [self._move_note(*note) for note in self._last_moves[-4:]]
            lines.append("last moves: " + "; ".join(notes))
        return "\n".join(lines)
