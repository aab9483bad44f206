"""kiaule-env: PettingZoo environments for Kozel, Kiauliaganys, Pig and Elgeta.

Importing the package registers every environment in PettingZoo's registry, where the installed
PettingZoo has one (``pettingzoo.register``; the supported range is 1.24–1.27, see
``pyproject.toml``, and older releases have no registry)::

    import pettingzoo, kiaule_env
    env = pettingzoo.make("aec", "kiaule/kozel-v0")

and the versioned modules work in PettingZoo's module style on every supported release::

    from kiaule_env import kozel_v0
    env = kozel_v0.env(render_mode="ansi")

:data:`GAMES` maps each game's name to its :class:`~kiaule_env.core.game.GameDescriptor`, in a
fixed order; every tool derives what it knows about a game from it (``docs/ARCHITECTURE.md``).
"""

from __future__ import annotations

import pettingzoo

from kiaule_env.core.game import GameDescriptor, game_from_module
from kiaule_env.core.layout import ObservationLayout

__version__ = "0.1.0"

#: The one list of games: each module declares ``GAME = GameDescriptor(...)``.
GAME_MODULES: tuple[str, ...] = (
    "kiaule_env.kozel_v0",
    "kiaule_env.kiauliaganys_v0",
    "kiaule_env.pig_v0",
    "kiaule_env.elgeta_v0",
)

#: game name -> descriptor, in the order of :data:`GAME_MODULES`
GAMES: dict[str, GameDescriptor] = {game.name: game for game in map(game_from_module, GAME_MODULES)}

#: env id -> versioned module, for every game of the suite.
ENV_MODULES: dict[str, str] = {game.env_id: game.module for game in GAMES.values()}


def get_game(name: str) -> GameDescriptor:
    """The descriptor of ``name``; a ``ValueError`` naming the known games otherwise."""
    game = GAMES.get(name) if isinstance(name, str) else None
    if game is None:
        raise ValueError(f"unknown game {name!r}; choose one of {', '.join(GAMES)}")
    return game


def game_of_env_id(env_id: str) -> GameDescriptor:
    """The descriptor whose env id is ``env_id``; a ``ValueError`` naming the known ids."""
    for game in GAMES.values():
        if game.env_id == env_id:
            return game
    raise ValueError(f"unknown env id {env_id!r}; known: {', '.join(ENV_MODULES)}")


def game_of_env(env: object) -> GameDescriptor | None:
    """The descriptor of the game ``env`` plays (any API, wrapped or not), or None."""
    from kiaule_env.core.play import suite_env

    raw = suite_env(env)
    if raw is None:
        return None
    for game in GAMES.values():
        if isinstance(raw.engine, game.engine_class()):
            return game
    return None


def layout_of_env(env: object) -> ObservationLayout | None:
    """The observation layout of a suite env (any API, wrapped or not), or None for an env
    that is not built on the engine contract."""
    from kiaule_env.core.play import suite_env

    raw = suite_env(env)
    return None if raw is None else raw.engine.encoder.layout


def _register_with_pettingzoo() -> bool:
    """Register every env id with PettingZoo's registry; False (nothing done) on a PettingZoo
    without ``register`` (before the registry existed), where the module style still works."""
    register = getattr(pettingzoo, "register", None)
    if register is None:
        return False
    for game in GAMES.values():
        register("aec", game.env_id, f"{game.module}:env")
        if game.parallel:
            register("parallel", game.env_id, f"{game.module}:parallel_env")
    return True


#: whether :func:`_register_with_pettingzoo` found a registry on import
REGISTERED_WITH_PETTINGZOO: bool = _register_with_pettingzoo()
