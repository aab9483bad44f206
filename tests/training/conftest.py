"""Shared helpers for the training tests: stacked decks and expected rewards from results."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from kiaule_env.cards import card_text, get_deck, make_card


def require_env(game: str) -> None:
    """Skip a test whose game's env has not landed in this checkout (its descriptor names the
    module: ``kiaule_env.<game>_v0``, or a fixture game's own)."""
    from kiaule_env import GAMES

    module = GAMES[game].module if game in GAMES else f"kiaule_env.{game}_v0"
    try:
        importlib.import_module(module)
    except ModuleNotFoundError:
        pytest.skip(f"{module} is not available")


def require_agent(name: str) -> None:
    from agents import registry

    if name not in registry.list_agents(name.split("/")[0]):
        pytest.skip(f"{name} is not registered")


def tiny_kozel_run(timesteps: int, checkpoint_every: int) -> list[str]:
    """``kiaule train`` arguments of a tiny, quick Kozel run (no output folder given)."""
    argv = ["kozel", "--timesteps", str(timesteps), "--no-progress", "--n-envs", "2"]
    for setting in (
        "ppo.n_steps=64",
        "ppo.batch_size=64",
        "policy.net_arch=[8]",
        "eval.every=0",
        f"checkpoint.every={checkpoint_every}",
        "tensorboard=false",
    ):
        argv += ["--set", setting]
    return argv


def shuffled_texts(deck_name: str, seed: int) -> list[str]:
    deck = get_deck(deck_name)
    return [card_text(c) for c in deck.shuffled(np.random.default_rng(seed))]


def pig_deck(seed: int, ranks: str = "AKQJ") -> list[str]:
    cards = [make_card(r, s) for r in ranks for s in "CDHS"]
    order = np.random.default_rng(seed).permutation(len(cards))
    return [card_text(cards[i]) for i in order]


def expected_return(game: str, result: dict, seat: int, num_players: int) -> float:
    """The seat's total env reward derived from the outcome alone (K15, G12, P9 defaults)."""
    if game == "kozel":  # K15, summed over a series (K14) when there is one
        team = seat % 2
        loss = result.get("series_loss_points", result["loss_points"])
        return float(loss[1 - team] - loss[team])
    if game == "kiauliaganys":  # G12
        loser = result["loser"]
        if loser is None:
            return 0.0
        return -1.0 if loser == f"player_{seat}" else 1.0 / (num_players - 1)
    if game == "pig":  # P9, one round
        pig = result["pig"]
        if pig is None:
            return 0.0
        return -1.0 if pig == f"player_{seat}" else 1.0 / (num_players - 1)
    raise ValueError(game)
