"""The batched Kiauliaganys env's row layout (``kiaule_env/kiauliaganys/vector_layout.py``): read
as ``vector.…`` as before the env was split into modules, and every kernel that compiles its
constants in (the env's, the G10a pool's, the observation's, the batched opponent's) recompiles
after an edit of it, or of the pool's and the observation's modules the env's steps call."""

from __future__ import annotations

import pytest

pytest.importorskip("numba")

import numba

from kiaule_env.kiauliaganys import (
    vector,
    vector_history,
    vector_layout,
    vector_observation,
    vector_policy,
)
from kiaule_env.vector.kernels import stamped_with


def _own_kernels(module) -> list:
    """The numba kernels defined in ``module`` (not those it imports)."""
    return [
        f
        for f in vars(module).values()
        if isinstance(f, numba.core.dispatcher.Dispatcher)
        and f.py_func.__module__ == module.__name__
    ]


def test_the_env_module_re_exports_the_whole_layout() -> None:
    names = [n for n in vars(vector_layout) if n.isupper() and len(n) > 1 and n[0] != "_"]
    assert {"EXTRA_WORDS", "X_MARK", "X_NEWEST", "KEY", "R_TALLY", "R_NEXT"} <= set(names)
    for name in names:
        assert getattr(vector, name) == getattr(vector_layout, name), name


@pytest.mark.parametrize(
    ("module", "depends"),
    [
        (vector, (vector_layout, vector_history, vector_observation)),
        (vector_history, (vector_layout,)),
        (vector_observation, (vector_layout,)),
        (vector_policy, (vector_layout, vector)),
    ],
    ids=["vector", "vector_history", "vector_observation", "vector_policy"],
)
def test_every_kernel_is_stamped_with_the_modules_it_compiles_in(module, depends) -> None:
    kernels = _own_kernels(module)
    assert kernels, f"{module.__name__}: no numba kernels found"
    for kernel in kernels:
        for dependency in depends:
            assert stamped_with(kernel, dependency.__file__), (kernel.__name__, dependency)
