"""numba kernels whose on-disk cache also goes stale when the files they call into change.

``numba.njit(cache=True)`` checks only the stamp (modification time and size) of the file that
holds the function. A batched env's kernels call the game's compiled twin
(``kiaule_env/<game>/compiled.py``) and :mod:`kiaule_env.vector.rng`, and read constants of
the rules' tables, all compiled into the kernel: after an edit there, a plain cached kernel
would load machine code built against the old text. :func:`kernel_decorator` folds the stamps of
those files into the kernel's cache stamp, so an edit of any of them recompiles it. (The stamp
is numba's ``IndexDataCacheFile._source_stamp``; should a numba release rename it, the kernels
still compile and cache as plain ``cache=True``.)
"""

from __future__ import annotations

import os
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numba


def source_stamp(path: str) -> tuple[float, int]:
    """numba's freshness stamp of a source file: its modification time and size."""
    st = os.stat(path)
    return st.st_mtime, st.st_size


def kernel_decorator(*depends: ModuleType) -> Callable[[Callable[..., Any]], Any]:
    """A decorator: ``numba.njit(cache=True)`` whose cache is also stale after an edit of any
    module in ``depends`` (the files whose compiled functions or constants the kernel uses)."""
    paths = tuple(str(module.__file__) for module in depends)

    def kernel(func: Callable[..., Any]) -> Any:
        dispatcher = numba.njit(cache=True)(func)
        cache_file = getattr(getattr(dispatcher, "_cache", None), "_cache_file", None)
        if cache_file is not None and hasattr(cache_file, "_source_stamp"):
            own = cache_file._source_stamp
            cache_file._source_stamp = (own, *(source_stamp(path) for path in paths))
        return dispatcher

    return kernel


def stamped_with(dispatcher: Any, path: str) -> bool:
    """Whether a kernel's cache stamp covers the file ``path`` (tests)."""
    cache_file = getattr(getattr(dispatcher, "_cache", None), "_cache_file", None)
    stamp = getattr(cache_file, "_source_stamp", ())
    return source_stamp(path) in stamp
