"""A batched env's kernels recompile when the files they call into change (numba's own cache
checks only the kernel's file): the mechanism, in fresh processes, and every game's kernels."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numba
import pytest

from kiaule_env import GAMES
from kiaule_env.vector import rng
from kiaule_env.vector.kernels import stamped_with

CALLEE = "from numba import njit\n\n@njit(cache=True)\ndef value():\n    return {value}\n"
CALLER = textwrap.dedent(
    """
    import callee
    from kiaule_env.vector.kernels import kernel_decorator

    kernel = kernel_decorator({modules})

    @kernel
    def answer():
        return callee.value()
    """
)


def _answer(folder: Path, cache: Path) -> int:
    env = {
        **os.environ,
        "NUMBA_CACHE_DIR": str(cache),
        "PYTHONPATH": os.pathsep.join([str(folder), *sys.path]),
    }
    out = subprocess.run(
        [sys.executable, "-c", "import caller; print(caller.answer())"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=folder,
    )
    return int(out.stdout.strip())


@pytest.mark.parametrize("stamped", [True, False], ids=["stamped", "plain"])
def test_an_edit_of_a_called_file_recompiles_only_a_stamped_kernel(
    tmp_path: Path, stamped: bool
) -> None:
    """The control (``plain``, no dependency declared) shows numba's stale cache is real: the
    caller keeps the old callee's answer; declared, the edit is seen."""
    (tmp_path / "callee.py").write_text(CALLEE.format(value=1))
    (tmp_path / "caller.py").write_text(CALLER.format(modules="callee" if stamped else ""))
    cache = tmp_path / "cache"
    assert _answer(tmp_path, cache) == 1
    (tmp_path / "callee.py").write_text(CALLEE.format(value=22))
    assert _answer(tmp_path, cache) == (22 if stamped else 1)


@pytest.mark.parametrize("game", [g for g in GAMES.values() if g.vector], ids=lambda g: g.name)
def test_every_kernel_of_a_batched_env_carries_the_twin_and_generator_stamps(game) -> None:
    module = importlib.import_module(game.vector.partition(":")[0])
    twin = importlib.import_module(module.__name__.rsplit(".", 1)[0] + ".compiled")
    kernels = [f for f in vars(module).values() if isinstance(f, numba.core.dispatcher.Dispatcher)]
    assert kernels, f"{game.name}: no numba kernels found"
    for kernel in kernels:
        for path in (twin.__file__, rng.__file__):
            assert stamped_with(kernel, path), (game.name, kernel.__name__, path)
