"""Stacked-pile scenario helpers for the Elgeta tests."""

from __future__ import annotations

from typing import Any

from kiaule_env import elgeta_v0
from kiaule_env.cards import CARD_TEXTS, SUITS, get_deck, parse_card
from kiaule_env.elgeta import rules


def stacked(
    tops: list[str],
    num_players: int = 4,
    deck: str = "52",
    fill: tuple[int, ...] | None = None,
    left_out: str = "H",
) -> list[list[str]]:
    """Full piles: seat ``i`` starts with ``tops[i]`` (space-separated texts, top first); the
    other cards in play follow, dealt round-robin in canonical order to the seats of ``fill``
    (default: every seat). With three players the suit ``left_out`` is not in play (E2)."""
    piles = [t.upper().split() for t in tops]
    used = {parse_card(t) for pile in piles for t in pile}
    in_play = [
        c
        for c in get_deck(deck).cards
        if not (num_players == 3 and c // 13 == SUITS.index(left_out))
    ]
    rest = [CARD_TEXTS[c] for c in in_play if c not in used]
    seats = list(range(num_players)) if fill is None else list(fill)
    for i, text in enumerate(rest):
        piles[seats[i % len(seats)]].append(text)
    return piles


def new_env(piles: list[list[str]], **kwargs: Any) -> elgeta_v0.raw_env:
    """A raw env reset to the stacked piles."""
    env = elgeta_v0.raw_env(**kwargs)
    env.reset(seed=0, options={"piles": piles})
    return env


def step_env(env: Any, count: int) -> list[tuple[int, int]]:
    """Make ``count`` plays (fewer if the game ends); return ``(seat, card)`` of each."""
    played = []
    for _ in range(count):
        if env.game_state.over:
            break
        seat = env.agent_name_mapping[env.agent_selection]
        played.append((seat, env.game_state.piles[seat][0]))
        env.step(0)
    return played


def play_out(env: Any) -> list[tuple[int, int]]:
    """Play the episode to its end; return every ``(seat, card)`` played."""
    played = []
    while not env.game_state.over and not any(env.truncations.values()):
        played += step_env(env, 1)
    return played


def cards(texts: str) -> list[int]:
    return [parse_card(t) for t in texts.split()]


def both_paths(piles: list[list[str]], **kwargs: Any) -> tuple[Any, rules.Outcome]:
    """Play ``piles`` to the end through the raw env and through :func:`rules.simulate`;
    assert they play the same cards in the same order with the same outcome. Returns the env
    (finished) and the outcome."""
    env = new_env(piles, **kwargs)
    played = play_out(env)
    trace: list[tuple[int, int]] = []
    outcome = rules.simulate(env.config, [[parse_card(t) for t in p] for p in piles], trace)
    assert trace == played
    assert outcome == rules.result(env.game_state)
    return env, outcome
