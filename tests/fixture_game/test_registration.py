"""The fixture game is registered the way a contributor registers a game: its public module is
listed in ``kiaule_env.GAME_MODULES`` (here through ``KIAULE_GAME_MODULES``, which
``tests/conftest.py`` sets), and ``kiaule_env.GAMES`` holds its descriptor."""

from __future__ import annotations

import os
import subprocess
import sys

import kiaule_env
from kiaule_env import GAME_MODULES, GAME_MODULES_VARIABLE, GAMES
from tests.conftest import FIXTURE_GAME_MODULE, ROOT


def _games_in_a_fresh_process(value: str | None) -> subprocess.CompletedProcess:
    """``list(kiaule_env.GAMES)`` printed by a new interpreter with the variable at ``value``."""
    env = dict(os.environ)
    env.pop(GAME_MODULES_VARIABLE, None)
    if value is not None:
        env[GAME_MODULES_VARIABLE] = value
    code = "import kiaule_env; print(','.join(kiaule_env.GAMES))"
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT
    )


def test_every_listed_module_gives_one_game_in_order():
    assert [game.module for game in GAMES.values()] == list(GAME_MODULES)
    assert GAME_MODULES[-1] == FIXTURE_GAME_MODULE  # appended after the package's own games
    fixture = GAMES["highcard"]
    assert fixture.load().GAME is fixture and kiaule_env.get_game("highcard") is fixture
    assert kiaule_env.game_of_env_id("kiaule/highcard-v0") is fixture
    assert kiaule_env.game_of_env(fixture.env()) is fixture


def test_the_variable_adds_games_and_unset_leaves_the_package_s_own():
    without = _games_in_a_fresh_process(None)
    assert without.returncode == 0, without.stderr
    assert without.stdout.split() == [",".join(n for n in GAMES if n != "highcard")]
    with_it = _games_in_a_fresh_process(f" {FIXTURE_GAME_MODULE} ,")
    assert with_it.stdout.split() == [",".join(GAMES)]


def test_a_module_that_cannot_be_imported_is_named():
    done = _games_in_a_fresh_process("tests.fixture_game.no_such_game_v0")
    assert done.returncode != 0
    assert (
        "ImportError: KIAULE_GAME_MODULES names 'tests.fixture_game.no_such_game_v0', "
        "which cannot be imported"
    ) in done.stderr


def test_a_game_declared_twice_is_refused():
    done = _games_in_a_fresh_process(f"{FIXTURE_GAME_MODULE},{FIXTURE_GAME_MODULE}")
    assert done.returncode != 0
    assert "ValueError: game 'highcard' is declared twice" in done.stderr


def test_pettingzoo_registry_makes_the_fixture_game():
    import pettingzoo

    if not kiaule_env.REGISTERED_WITH_PETTINGZOO:
        return  # a PettingZoo without a registry: the module style is all there is
    env = pettingzoo.make("aec", "kiaule/highcard-v0")
    env.reset(seed=0)
    assert env.unwrapped.engine.num_players == 2
