"""Regenerate the README's observation, action and state tables from the encoders.

Each table sits between ``<!-- BEGIN GENERATED: <game> <kind> -->`` and ``<!-- END GENERATED -->``
markers; ``python -m experiments.docs`` rewrites them in place, and ``tests/test_docs.py`` fails
when the README has drifted from the code.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from kiaule_env import GAMES

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCK = re.compile(
    r"(<!-- BEGIN GENERATED: (?P<game>\w+) (?P<kind>observation|action|state) -->\n)"
    r"(?P<body>.*?)"
    r"(<!-- END GENERATED -->)",
    re.DOTALL,
)


def generated_table(game: str, kind: str) -> str:
    """The current Markdown table of ``game``'s default observation, action or state encoding."""
    if kind == "state":
        return GAMES[game].state_table().strip() + "\n"
    module = GAMES[game].load()
    table = module.observation_table() if kind == "observation" else module.action_table()
    return table.strip() + "\n"


def render(text: str) -> str:
    """``text`` with every generated block replaced by the current table."""

    def substitute(match: re.Match) -> str:
        return match.group(1) + generated_table(match["game"], match["kind"]) + match.group(5)

    return BLOCK.sub(substitute, text)


def blocks(text: str) -> list[tuple[str, str, str]]:
    """``(game, kind, body)`` of every generated block in ``text``."""
    return [(m["game"], m["kind"], m["body"]) for m in BLOCK.finditer(text)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report drift (exit 1)")
    args = parser.parse_args(argv)
    current = README.read_text()
    updated = render(current)
    if args.check:
        if updated != current:
            print("README.md generated tables are out of date: run python -m experiments.docs")
            return 1
        return 0
    README.write_text(updated)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
