"""The conformance suite: what every game of :data:`kiaule_env.GAMES` must do, in every one of
its option variants (``GameDescriptor.variants``). A new game gets all of it by being listed."""

from __future__ import annotations

from typing import Any

import pytest

from kiaule_env import GAMES
from kiaule_env.core.game import GameDescriptor

#: (game, variant) for every option variant of every game
VARIANTS: list[tuple[GameDescriptor, dict[str, Any]]] = [
    (game, dict(variant)) for game in GAMES.values() for variant in game.variants
]
VARIANT_IDS = [
    f"{g.name}-{'-'.join(f'{k}={v}' for k, v in o.items()) or 'default'}" for g, o in VARIANTS
]

#: every game with its default options
DEFAULTS = [(game, {}) for game in GAMES.values()]
DEFAULT_IDS = [game.name for game in GAMES.values()]


def variants(default_only: bool = False):
    """``pytest.mark.parametrize`` over (game, options) pairs."""
    if default_only:
        return pytest.mark.parametrize(("game", "options"), DEFAULTS, ids=DEFAULT_IDS)
    return pytest.mark.parametrize(("game", "options"), VARIANTS, ids=VARIANT_IDS)
