"""The four games as the tournament plays them (:class:`~experiments.tournament.specs.GameSpec`).

Each deal is a stacked deck drawn from the deal's own generator, in the format of RULES §0 and the
game's section; the engines validate it. Episodes of several deals (Kozel series, Kiauliaganys
match, Pig full game) get a list of decks; further deals, if an episode outlasts the list, are
shuffled by the env from the deal's reset seed (identical across the deal's games for Kozel and
Kiauliaganys, whose engines draw nothing else; Pig's list is long enough for any full game).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from experiments.tournament.specs import GameSpec, decks_option, register_game, shuffled_texts
from kiaule_env.cards import CARD_TEXTS, get_deck

#: stacked decks given to an episode of several deals (more are shuffled from the seed)
SERIES_DECKS = 16


def kozel_deal(env: Any, kwargs: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """K3 deck (36 cards, top first); K14 one deck per game of a series."""
    deals = SERIES_DECKS if env.config.series else 1
    return decks_option(get_deck("36"), rng, deals)


def kiauliaganys_deal(env: Any, kwargs: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """G2 deck (position 0 the starting card); G11 one deck per deal of a match."""
    deals = SERIES_DECKS if env.config.match_years is not None else 1
    return decks_option(env.config.the_deck, rng, deals)


def pig_deal(env: Any, kwargs: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """P1 deck (the top n ranks, or 52 cards with a stock); P5 one per round of a full game.

    A full game has at most ``(n − 1) × lives`` deciding rounds; capped rounds (P4) add more, so
    the list is twice that. Pig draws reaction orders from the env's generator during play, so
    rounds beyond the list would not repeat across a deal's games: the list must cover them.
    """
    from kiaule_env.pig.rules import starting_deck

    config = env.config
    deck = starting_deck(config)
    if not config.full:
        return {"deck": shuffled_texts(deck, rng)}
    lives = 3 if config.letters else 1
    rounds = 2 * (config.num_players - 1) * lives + 4
    return {"decks": [shuffled_texts(deck, rng) for _ in range(rounds)]}


def elgeta_deal(env: Any, kwargs: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """E2 piles: one suit (or colour) per seat, each shuffled; three players leave out a suit."""
    from kiaule_env.elgeta import rules

    piles = rules.deal_piles(env.config, rng)
    return {"piles": [[CARD_TEXTS[c] for c in pile] for pile in piles]}


register_game(
    GameSpec(
        name="kozel",
        env_id="kiaule/kozel-v0",
        make_env="kiaule_env.kozel_v0:raw_env",
        teams=((0, 2), (1, 3)),  # K1
        deal_options=kozel_deal,
        metrics="experiments.metrics.kozel",
        ending="kiaule_env.kozel.rules:ending",
    )
)
register_game(
    GameSpec(
        name="kiauliaganys",
        env_id="kiaule/kiauliaganys-v0",
        make_env="kiaule_env.kiauliaganys_v0:raw_env",
        deal_options=kiauliaganys_deal,
        metrics="experiments.metrics.kiauliaganys",
        ending="kiaule_env.kiauliaganys.rules:ending",
    )
)
register_game(
    GameSpec(
        name="pig",
        env_id="kiaule/pig-v0",
        make_env="kiaule_env.pig_v0:parallel_env",
        parallel=True,
        replay_env="kiaule_env.pig_v0:raw_env",
        deal_options=pig_deal,
        metrics="experiments.metrics.pig",
        ending="kiaule_env.pig.rules:ending",
    )
)
register_game(
    GameSpec(
        name="elgeta",
        env_id="kiaule/elgeta-v0",
        make_env="kiaule_env.elgeta_v0:raw_env",
        deal_options=elgeta_deal,
        metrics="experiments.metrics.elgeta",
        ending="kiaule_env.elgeta.rules:ending",
    )
)
