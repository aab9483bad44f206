"""Argument checking shared by every ``kiaule`` subcommand.

Arguments are validated by argparse (types and choices) before any work starts, and a bad one
ends the command with one line on stderr and exit status 2 (:class:`Parser`). ``KEY=VALUE``
options (``tournament --env``, ``play --set``) are read by one parser, :func:`parse_key_values`.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from kiaule_env.core.options import parse_value

#: reStructuredText markup in docstrings: a role with its target, a ``literal``, a `text`
_RST_MARKUP = re.compile(r"(?::[a-z]+:)?`{1,2}~?([^`]+?)`{1,2}")


def describe(doc: str | None, paragraphs: int = 1) -> str:
    """A module docstring's first ``paragraphs`` paragraphs as plain help text for ``--help``.

    Docstrings are written for the API reference, in reStructuredText; a terminal shows the
    markup as it is, so roles and backticks are dropped and the text inside them kept.
    """
    text = "\n\n".join((doc or "").strip().split("\n\n")[:paragraphs])
    return _RST_MARKUP.sub(r"\1", " ".join(text.split()))


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line on stderr (no usage block), status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def _number(kind: Callable[[str], Any], text: str) -> Any:
    try:
        return kind(text)
    except ValueError:
        word = "an integer" if kind is int else "a number"
        raise argparse.ArgumentTypeError(f"{text!r} is not {word}") from None


def positive_int(text: str) -> int:
    """An integer >= 1 (game counts, deals, workers, environments)."""
    value = _number(int, text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def non_negative_int(text: str) -> int:
    """An integer >= 0 (seeds, seats)."""
    value = _number(int, text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def positive_float(text: str) -> float:
    """A finite number > 0 (seconds, scales)."""
    value = _number(float, text)
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a finite number above 0, got {text}")
    return value


def choice_of(choices: list[str], what: str) -> Callable[[str], str]:
    """A type accepting one of ``choices`` (for ``nargs="*"`` positionals argparse mishandles)."""

    def check(text: str) -> str:
        if text not in choices:
            raise argparse.ArgumentTypeError(
                f"unknown {what} {text!r}; choose from {', '.join(choices)}"
            )
        return text

    return check


def parse_key_values(items: list[str], option: str) -> dict[str, Any]:
    """``KEY=VALUE`` items as a dict; ``ValueError`` naming ``option`` for a malformed item or
    a key given twice (``--env reward=a reward=b`` kept the last one without a word)."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise ValueError(f"{option} expects KEY=VALUE with a keyword name, got {item!r}")
        if key in out:
            raise ValueError(f"{option}: {key} is given twice; give each key once")
        out[key] = parse_value(value)
    return out


def check_output_dir(path: Path, option: str = "--out") -> None:
    """Refuse (``ValueError``) an output folder that is a file or cannot be written."""
    if path.exists() and not path.is_dir():
        raise ValueError(f"{option} {path} is a file, not a folder")
    existing = path
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise ValueError(f"{option} {path}: {existing} is a file, not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ValueError(f"{option} {path}: {existing} is not writable")


def fail(prog: str, message: str, status: int = 2) -> NoReturn:
    """End a command with one line on stderr."""
    first = str(message).strip().splitlines()[0] if str(message).strip() else "failed"
    print(f"{prog}: {first}", file=sys.stderr)
    raise SystemExit(status)
