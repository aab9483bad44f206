"""Hidden information stays hidden, in every game and variant: redealing what a seat cannot
see (``Engine.resample_hidden``) changes none of its observation, mask, view or legal moves.

The test must be able to fail: an encoder that reads more than the seat's view (the full
state, or the next seat's view) is caught.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents.random_agent import RandomAgent
from kiaule_env.core.play import play_episode
from tests.conformance.conftest import variants

EPISODES = 4
PROBABILITY = 0.25  # of checking a step (every seat is checked then)


class _InformationSetCheck:
    """Step observer: at random steps, for every seat, redeal its hidden cards and compare."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng
        self.checked = self.changed = 0

    def start(self, env) -> None:
        self.env = env

    def before(self, env, seats, actions) -> None:
        if self.rng.random() < PROBABILITY:
            self.check(env)

    def after(self, env, seats, actions, info) -> None:
        pass

    def check(self, env) -> None:
        engine, original = env.engine, env.game_state
        for seat in range(engine.num_players):
            before = _information(engine, original, seat)
            other = engine.resample_hidden(original, seat, self.rng)
            self.changed += repr(other) != repr(original)
            assert _same(_information(engine, other, seat), before), f"seat {seat} sees a change"
            self.checked += 1


def _information(engine, state, seat):
    legal = tuple(engine.legal_actions(state, seat))
    texts = tuple(engine.action_text(state, seat, a) for a in legal)
    return engine.observe(state, seat), legal, texts, engine.view(state, seat)


def _same(a, b) -> bool:
    return np.array_equal(a[0], b[0]) and a[1:] == b[1:]


def _run(game, options, checks: int = 40) -> _InformationSetCheck:
    """Seeded random episodes until ``checks`` seat checks were made (at most 60 episodes)."""
    env = game.native_env(**options)
    check = _InformationSetCheck(np.random.default_rng(0))
    for seed in range(60):
        players = [RandomAgent(game.name, seed)] * len(env.possible_agents)
        play_episode(env, players, seed=seed, observer=check)
        if check.checked >= checks:
            break
    return check


@variants()
def test_redealing_hidden_cards_changes_nothing_a_seat_sees(game, options):
    check = _run(game, options)
    assert check.checked >= 20
    assert check.changed > check.checked // 4  # the redeals really moved hidden cards


class _LeakyEngine:
    """The game's engine whose observation also encodes more than the seat's view."""

    def __init__(self, engine, leak):
        self._engine = engine
        self._leak = leak

    def __getattr__(self, name):
        return getattr(self._engine, name)

    def observe(self, state, seat):
        return np.append(self._engine.observe(state, seat), self._leak(self._engine, state, seat))


def _state_digest(engine, state, seat) -> float:
    return float(hash(repr(state)) % 9973)


def _next_seat(engine, state, seat) -> np.ndarray:
    return engine.observe(state, (seat + 1) % engine.num_players)


@pytest.mark.parametrize("leak", [_state_digest, _next_seat], ids=["full-state", "next-seat"])
@variants(default_only=True)
def test_a_leaking_encoder_is_caught(game, options, leak):
    if leak is _next_seat and not game.has_decisions:
        pytest.skip("every seat of a game without decisions sees the same")
    env = game.native_env(**options)
    env.engine = _LeakyEngine(env.engine, leak)
    check = _InformationSetCheck(np.random.default_rng(0))
    players = [RandomAgent(game.name, 0)] * len(env.possible_agents)
    with pytest.raises(AssertionError, match="sees a change"):
        for seed in range(EPISODES):
            play_episode(env, players, seed=seed, observer=check)


#: the moves whose text names cards only the mover sees: Kozel's face-down discards (K6),
#: Pig's passed card (P2); every other move of every game is made face up or names no card
HIDDEN_VERBS = {"kozel": {"discard"}, "pig": {"pass"}}


@variants(default_only=True)
def test_other_seats_see_a_move_text_without_the_cards_they_may_not_see(game, options):
    from kiaule_env.cards import CARD_TEXTS
    from kiaule_env.core.engine import HIDDEN_CARD, text_seen_by

    env = game.native_env()
    verbs: set[str] = set()
    for seed in range(3):
        episode = play_episode(
            env, [RandomAgent(game.name, seed)] * len(env.possible_agents), seed=seed, record=True
        )
        engine = env.engine if hasattr(env, "engine") else env.unwrapped.engine
        for agent, _, text in episode.moves:
            mover = int(agent.removeprefix("player_"))
            assert text_seen_by(engine, text, mover, mover) == text
            assert text_seen_by(engine, text, mover, None) == text  # the onlooker: everything
            other = text_seen_by(engine, text, mover, (mover + 1) % engine.num_players)
            verb = text.split()[0]
            if verb in HIDDEN_VERBS.get(game.name, ()):
                verbs.add(verb)
                assert other.split()[0] == verb and HIDDEN_CARD in other
                assert not set(other.split()) & set(CARD_TEXTS), other
            else:
                assert other == text
    assert verbs == HIDDEN_VERBS.get(game.name, set())  # every hidden kind was played
