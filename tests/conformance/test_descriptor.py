"""What every game's descriptor declares once holds: the defaults are the rules ``Config``'s
(env signature, ``default_options``, the engine), the longest game in steps bounds real
episodes, and the small configuration is small."""

from __future__ import annotations

import dataclasses
import inspect

import numpy as np
import pytest

from kiaule_env import GAMES
from kiaule_env.core.game import ENV_KEYWORDS, GameDescriptor, config_defaults
from tests.conformance.conftest import variants

#: (game, options) of every game's default and small configuration (each a single deal)
CONFIGURATIONS = [(game, {}) for game in GAMES.values()] + [
    (game, dict(game.small_options)) for game in GAMES.values() if game.small_options
]
CONFIGURATION_IDS = [f"{g.name}-{'small' if o else 'default'}" for g, o in CONFIGURATIONS]


@variants(default_only=True)
def test_defaults_are_written_once_in_the_config(game: GameDescriptor, options):
    """The env's keywords are the ``Config``'s fields with their defaults, then the env's own;
    the descriptor's ``default_options`` and the default engine's configuration are the same."""
    fields = dataclasses.fields(game.config)
    assert game.default_options == {f.name: f.default for f in fields}
    assert game.default_options == config_defaults(game.config)
    assert game.make_engine().config == game.config()
    env_class = type(game.native_env().unwrapped)
    params = list(inspect.signature(env_class.__init__).parameters.values())[1:]
    rules = [p for p in params if p.name not in ENV_KEYWORDS]
    assert [(p.name, p.default) for p in rules] == list(game.default_options.items())
    assert {p.name for p in params} - {p.name for p in rules} == ENV_KEYWORDS


@pytest.mark.parametrize(("game", "options"), CONFIGURATIONS, ids=CONFIGURATION_IDS)
def test_max_steps_bounds_every_episode(game: GameDescriptor, options):
    """Random episodes never take more engine steps than the descriptor's ``max_steps``."""
    engine = game.make_engine(**options)
    bound = game.max_steps(engine.config)
    assert isinstance(bound, int) and bound > 0, f"{game.name} {options}: a single deal's bound"
    assert game.longest_game(**options) == bound
    rng = np.random.default_rng(5)
    for seed in range(3):
        state = engine.new_episode(np.random.default_rng(seed), {})
        steps = 0
        while not engine.is_over(state):
            seats = engine.to_act(state)
            engine.apply(state, [int(rng.choice(engine.legal_actions(state, s))) for s in seats])
            steps += 1
            assert steps <= bound, f"{game.name} {options}: more than max_steps={bound} steps"


@variants()
def test_max_steps_is_none_only_for_several_deals(game: GameDescriptor, options):
    """An unbounded longest game is one of several deals (a series, a match, a full game): a
    single deal always has a bound."""
    engine = game.make_engine(**options)
    if game.max_steps(engine.config) is None:
        deal = engine.random_deal(np.random.default_rng(0))
        assert "decks" in deal, f"{game.name} {options}: a single deal without a longest game"


@variants(default_only=True)
def test_small_options_are_a_smaller_valid_game(game: GameDescriptor, options):
    small = game.make_engine(**game.small_options)
    default = game.make_engine()
    assert small.num_players <= default.num_players
    assert small.deck.size <= default.deck.size
    assert set(game.small_options) <= set(game.default_options)
