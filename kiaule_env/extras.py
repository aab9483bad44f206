"""The optional extras of the install, and one clear error when a part needs one that is missing.

``pip install -e .`` installs only the environments; training, tournaments and the learned
agents need the ``train`` extra, the compiled search engines ``search``, and so on
(``pyproject.toml``). :func:`require` imports a module of an extra or raises
:class:`MissingExtra`, whose one-line message names the extra and the command that installs
it; the ``kiaule`` command line prints that line and exits with status 2. :func:`missing_extra`
turns a ``ModuleNotFoundError`` raised anywhere in a command into the same error when the
missing module belongs to an extra, so a command never ends in a traceback for an install
that lacks one.
"""

from __future__ import annotations

import importlib
from types import ModuleType

#: top-level import name -> (distribution, extra): the modules the extras bring
EXTRA_MODULES: dict[str, tuple[str, str]] = {
    "torch": ("torch", "train"),
    "stable_baselines3": ("stable-baselines3", "train"),
    "sb3_contrib": ("sb3-contrib", "train"),
    "tensorboard": ("tensorboard", "train"),
    "tqdm": ("tqdm", "train"),
    "rich": ("rich", "train"),
    "matplotlib": ("matplotlib", "train"),
    "openskill": ("openskill", "train"),
    "scipy": ("scipy", "train"),
    "yaml": ("PyYAML", "train"),
    "pydantic": ("pydantic", "train"),
    "filelock": ("filelock", "train"),
    "numba": ("numba", "search"),
    "supersuit": ("SuperSuit", "interop"),
    "shimmy": ("Shimmy", "interop"),
    "pyspiel": ("open_spiel", "openspiel"),
    "tianshou": ("tianshou", "examples"),
    "ray": ("ray[rllib]", "ray"),
    "PIL": ("pillow", "render"),
}

#: how to install an extra, as docs/ray.md says (Ray in its own virtualenv: RLlib pins gymnasium)
INSTALL: dict[str, str] = {
    "train": "install the 'train' extra: pip install torch==2.13.0 -e '.[train]' (CPU torch)",
    "ray": (
        "install the 'ray' extra in its own virtualenv, as RLlib pins gymnasium 1.2.2 "
        "(docs/ray.md): python3.11 -m venv .venv-ray && . .venv-ray/bin/activate && "
        "pip install torch==2.13.0 -e '.[train,search,dev,ray]'"
    ),
}


class MissingExtra(ModuleNotFoundError):
    """A part of the project needs a module of an extra that is not installed.

    A ``ModuleNotFoundError`` (so an ``except ImportError`` still catches it) whose message is
    one line: what needs it, the missing distribution and how to install its extra.
    """

    def __init__(self, module: str, what: str | None = None):
        distribution, extra = EXTRA_MODULES.get(module.split(".")[0], (module, None))
        need = f"{what} needs {distribution}, which is" if what else f"{distribution} is"
        hint = install_hint(extra) if extra else f"pip install {distribution}"
        super().__init__(f"{need} not installed; {hint}", name=module)
        self.extra = extra
        self._args = (module, what)

    def __reduce__(self) -> tuple[type, tuple[str, str | None]]:
        # rebuilt from its own arguments, so it crosses to and from worker processes intact
        return MissingExtra, self._args


def install_hint(extra: str) -> str:
    """The command that installs ``extra`` (from a clone of the repository)."""
    return INSTALL.get(extra, f"install the '{extra}' extra: pip install -e '.[{extra}]'")


def require(module: str, what: str | None = None) -> ModuleType:
    """``import module``, or :class:`MissingExtra` naming the extra that brings it.

    ``what`` names the part that needs it (``"kiaule train"``, ``"kozel/ppo"``) for the message.
    Only a missing ``module`` itself is turned into ``MissingExtra``; a module that is installed
    but fails to import raises its own error.
    """
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name is None or module.split(".")[0] != exc.name.split(".")[0]:
            raise
        raise MissingExtra(module, what) from None


def require_all(modules: tuple[str, ...], what: str | None = None) -> None:
    """:func:`require` every module of ``modules``: the first missing one is the error."""
    for module in modules:
        require(module, what)


def missing_extra(exc: ModuleNotFoundError, what: str | None = None) -> MissingExtra | None:
    """``exc`` as :class:`MissingExtra` when its module belongs to an extra, else None (a
    module of no extra missing is a broken install or a bug: its traceback is worth seeing)."""
    if isinstance(exc, MissingExtra):
        return exc
    name = (exc.name or "").split(".")[0]
    return MissingExtra(name, what) if name in EXTRA_MODULES else None
