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
