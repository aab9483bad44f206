"""Bad options give clear errors in every game: unknown reset options, malformed stacked
decks, and unknown or ill-typed constructor keywords (all ``ValueError`` naming the option)."""

from __future__ import annotations

import pytest

from tests.conformance.conftest import variants


@variants(default_only=True)
def test_unknown_reset_options_are_refused_by_name(game, options):
    env = game.native_env()
    with pytest.raises(ValueError, match=r"unknown reset option.*'shuffle'"):
        env.reset(seed=0, options={"shuffle": True})


@variants(default_only=True)
def test_a_stacked_deal_with_a_card_twice_is_refused(game, options):
    engine = game.make_engine()
    deal = engine.random_deal(__import__("numpy").random.default_rng(0))
    key = next(iter(deal))
    first = deal[key][0]
    broken = list(first) if isinstance(first, list) else list(deal[key])
    broken[1] = broken[0]
    bad = {key: [broken, *deal[key][1:]]} if isinstance(first, list) else {key: broken}
    with pytest.raises(ValueError):
        game.native_env().reset(seed=0, options=bad)


@variants(default_only=True)
def test_unknown_constructor_keywords_are_refused_listing_the_allowed(game, options):
    with pytest.raises(ValueError, match=r"colour.*allowed.*num_players"):
        game.native_env(colour="red")
    with pytest.raises(ValueError, match="num_players"):
        game.native_env(num_players="four")


def _integer_keywords(game) -> dict[str, int]:
    """Every integer constructor keyword of ``game``'s native env with a valid value (its
    default, or 3 where the default is None: a cap or match length of 3 is valid in every game)."""
    import inspect

    cls = type(game.native_env().unwrapped)
    found = {}
    for name, param in inspect.signature(cls.__init__).parameters.items():
        if param.annotation in ("int", "int | None"):
            default = param.default
            found[name] = 3 if default is None else default
    return found


@variants(default_only=True)
def test_numpy_integers_are_accepted_for_every_integer_option(game, options):
    import numpy as np

    from kiaule_env.core.records import play_recorded

    keywords = _integer_keywords(game)
    assert "num_players" in keywords and "max_cycles" in keywords

    def first_legal(agent, obs, env):
        return int(np.flatnonzero(obs["action_mask"])[0])

    as_numpy = {k: np.int64(v) for k, v in keywords.items()}
    plain = play_recorded(game.native_env, game.env_id, keywords, first_legal, seed=4)
    numpy = play_recorded(game.native_env, game.env_id, as_numpy, first_legal, np.int64(4))
    assert numpy.moves == plain.moves and numpy.result == plain.result
    assert numpy.to_json()  # the record stays JSON-able
    for name in keywords:  # a numpy bool is no integer, like a Python bool
        with pytest.raises(ValueError, match=name):
            game.native_env(**{name: np.True_})
