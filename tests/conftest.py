"""Fixtures shared across the test folders, and the fixture game's registration.

The test suite registers a fifth game, High card (``tests/fixture_game/``), the way a
contributor registers one: through ``kiaule_env.GAME_MODULES``, here by naming its public module
in the ``KIAULE_GAME_MODULES`` environment variable before ``kiaule_env`` is imported. The
variable (and ``PYTHONPATH`` holding the repository root, so that ``tests`` is importable) is set
in the environment, so the ``kiaule`` CLI and worker processes that tests start inherit it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

#: the fixture game's public module (it declares ``GAME = GameDescriptor(...)``)
FIXTURE_GAME_MODULE = "tests.fixture_game.highcard_v0"
#: the variable ``kiaule_env`` reads (``kiaule_env.GAME_MODULES_VARIABLE``; not imported from
#: there, since importing ``kiaule_env`` now would read it before it is set)
GAME_MODULES_VARIABLE = "KIAULE_GAME_MODULES"
ROOT = Path(__file__).resolve().parent.parent


def _register_fixture_game() -> None:
    """Add the fixture game to ``KIAULE_GAME_MODULES`` and the repository root to
    ``PYTHONPATH``; refuse to go on if ``kiaule_env`` was imported without it."""
    names = [n for n in os.environ.get(GAME_MODULES_VARIABLE, "").split(",") if n.strip()]
    if FIXTURE_GAME_MODULE not in names:
        os.environ[GAME_MODULES_VARIABLE] = ",".join([*names, FIXTURE_GAME_MODULE])
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if str(ROOT) not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), *paths])
    kiaule_env = sys.modules.get("kiaule_env")
    if kiaule_env is not None and FIXTURE_GAME_MODULE not in kiaule_env.GAME_MODULES:
        raise pytest.UsageError(
            f"kiaule_env was imported before tests/conftest.py could name {FIXTURE_GAME_MODULE} "
            f"in {GAME_MODULES_VARIABLE}; set {GAME_MODULES_VARIABLE}={FIXTURE_GAME_MODULE}"
        )


_register_fixture_game()


@pytest.fixture(scope="module")
def local_ray():
    """A local Ray with two CPUs (started here unless one is running), shut down afterwards;
    the test is skipped where Ray is not installed. Nothing outside the machine is touched."""
    ray = pytest.importorskip("ray")
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    if started:
        ray.shutdown()


@pytest.fixture(scope="module")
def chromium():
    """A headless chromium driven by Selenium (:func:`tests.browser.chromium_driver`); mark the
    module with ``tests.browser.needs_chromium`` so it is skipped where chromium is absent."""
    from tests.browser import chromium_driver

    with chromium_driver() as driver:
        yield driver
