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
A game kept outside the package joins them when its public module is named in the
``KIAULE_GAME_MODULES`` environment variable (the test suite's fixture game does).
"""

from __future__ import annotations

import os

import pettingzoo

from kiaule_env.core.game import GameDescriptor, game_from_module
from kiaule_env.core.layout import ObservationLayout

__version__ = "0.1.0"

#: the environment variable naming more public game modules (comma-separated), appended to
#: :data:`GAME_MODULES` when the package is imported: a game kept outside the package, such as the
#: test suite's fixture game (``docs/ARCHITECTURE.md``, "Adding a game")
GAME_MODULES_VARIABLE = "KIAULE_GAME_MODULES"


def _extra_game_modules() -> tuple[str, ...]:
    """The modules :data:`GAME_MODULES_VARIABLE` names, in order (none when it is unset)."""
    text = os.environ.get(GAME_MODULES_VARIABLE, "")
    return tuple(name.strip() for name in text.split(",") if name.strip())


#: The one list of games: each module declares ``GAME = GameDescriptor(...)``.
GAME_MODULES: tuple[str, ...] = (
    "kiaule_env.kozel_v0",
    "kiaule_env.kiauliaganys_v0",
    "kiaule_env.pig_v0",
    "kiaule_env.elgeta_v0",
    *_extra_game_modules(),
)


def _load_games(modules: tuple[str, ...]) -> dict[str, GameDescriptor]:
    """Game name -> descriptor of every module; an ``ImportError`` naming a module of
    :data:`GAME_MODULES_VARIABLE` that cannot be imported, a ``ValueError`` naming a game
    declared twice."""
    games: dict[str, GameDescriptor] = {}
    for module in modules:
        try:
            game = game_from_module(module)
        except ModuleNotFoundError as exc:
            if exc.name is None or not (module + ".").startswith(exc.name + "."):
                raise  # an import error inside the module itself
            raise ImportError(
                f"{GAME_MODULES_VARIABLE} names {module!r}, which cannot be imported ({exc}); "
                "give importable public game modules, comma-separated"
            ) from exc
        if game.name in games:
            raise ValueError(
                f"game {game.name!r} is declared twice ({games[game.name].module} and {module}); "
                f"check {GAME_MODULES_VARIABLE}"
            )
        games[game.name] = game
    return games


#: game name -> descriptor, in the order of :data:`GAME_MODULES`
GAMES: dict[str, GameDescriptor] = _load_games(GAME_MODULES)

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
