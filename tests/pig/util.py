"""Helpers of the Pig tests: stacked decks from hands, and steps given as move texts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kiaule_env import pig_v0
from kiaule_env.cards import CARD_TEXTS
from kiaule_env.pig.env import PigParallelEnv


def deck_for(hands: Sequence[Sequence[str]], stock: Sequence[str] = ()) -> list[str]:
    """The stacked deck (top first) dealing ``hands`` (P1), given in dealing order.

    ``hands[k]`` goes to the k-th player still in counting clockwise from the dealer's left
    (``player_0`` first in the first round): position i goes to hand ``i mod m``.
    """
    m = len(hands)
    assert all(len(h) == 4 for h in hands)
    return [hands[i % m][i // m] for i in range(4 * m)] + list(stock)


def make(**kwargs: Any) -> PigParallelEnv:
    return pig_v0.parallel_env(**kwargs)


def step(env: PigParallelEnv, moves: Mapping[str, str] | Sequence[str]):
    """One step with move texts: a dict agent -> text, or a list in ``env.agents`` order."""
    if not isinstance(moves, Mapping):
        assert len(moves) == len(env.agents), f"{len(moves)} moves for {env.agents}"
        moves = dict(zip(env.agents, moves, strict=True))
    return env.step({a: env.actions.parse(t) for a, t in moves.items()})


def hand(env: PigParallelEnv, seat: int) -> list[str]:
    """The cards of ``seat`` as sorted texts (from the engine state)."""
    return sorted(CARD_TEXTS[c] for c in env.game_state.hands[seat])


def legal(env: PigParallelEnv, agent: str) -> list[str]:
    return sorted(env.legal_moves(agent).values())
