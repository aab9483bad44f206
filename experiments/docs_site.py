"""MkDocs hook of the documentation site (``mkdocs.yml``): the repository's own documents join it.

The site's pages live in ``docs/``, but the rules of each game (``kiaule_env/**/RULES.md``), the
published results (``experiments/results/``, with their plots), the zoo's and the training
wrapper's notes and the tournament methods live beside the code they describe, and
``CHANGELOG.md`` at the top. Copying them into ``docs/`` would make two versions that drift, so
this hook adds them to the site's files at build time under their path in the repository: a
page links ``kiaule_env/kozel/RULES.md`` (or ``../kiaule_env/...`` from a folder) and MkDocs
checks the link like any other, which ``mkdocs build --strict`` turns into an error when a target
is missing.

Docstrings are written with reStructuredText roles (``:class:`~a.b.C```) and ``::`` literal
blocks, as ``help()`` shows them; :class:`ReadableDocstrings`, a Griffe
extension of the API reference, turns those into Markdown (code spans, indented code) so the
pages show names, not markup.

The navigation's "Games" section lists a page per game of :data:`kiaule_env.GAMES` that has one
(``docs/games/<game>.md``), in that order, so a new game's page needs no edit of ``mkdocs.yml``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import griffe
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent

#: repository files published with the site, as glob patterns relative to the repository root
MIRRORED: tuple[str, ...] = (
    "CHANGELOG.md",
    "kiaule_env/RULES.md",
    "kiaule_env/*/RULES.md",
    "agents/zoo/README.md",
    "agents/training/README.md",
    "experiments/tournament/METHODS.md",
    "experiments/results/**/*.md",
    "experiments/results/**/*.png",
    "experiments/results/**/*.csv",
    "experiments/results/**/*.json",
)


#: a reStructuredText role: ``:class:`~a.b.C``` or ``:func:`a.b```
ROLE = re.compile(r":(?:class|func|data|meth|attr|mod|exc|obj|const):`(~?)([^`]+)`")


def markdown_docstring(text: str) -> str:
    """``text`` with reStructuredText roles as code spans (``~`` keeps the last name, as Sphinx
    shows it) and a paragraph's closing ``::`` (a literal block follows) as ``:``."""

    def role(match: re.Match) -> str:
        target = match[2].split(".")[-1] if match[1] else match[2]
        return f"`{target}`"

    text = ROLE.sub(role, text)
    return re.sub(r"(\S)::$", r"\1:", text, flags=re.MULTILINE)


class ReadableDocstrings(griffe.Extension):
    """Griffe extension: every docstring of the API reference through :func:`markdown_docstring`."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown_docstring(obj.docstring.value)


def mirrored_paths(root: Path = ROOT) -> list[str]:
    """The repository-relative paths of every file :data:`MIRRORED` names, sorted."""
    found = {path for pattern in MIRRORED for path in root.glob(pattern) if path.is_file()}
    return sorted(path.relative_to(root).as_posix() for path in found)


def game_pages(docs_dir: Path) -> list[str]:
    """``games/<game>.md`` of every game of :data:`kiaule_env.GAMES` whose page exists."""
    from kiaule_env import GAMES

    return [f"games/{name}.md" for name in GAMES if (docs_dir / "games" / f"{name}.md").is_file()]


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Append each game's page to the navigation's "Games" section, in the order of GAMES."""
    for item in config.nav or []:
        if isinstance(item, dict) and isinstance(item.get("Games"), list):
            section = item["Games"]
            listed = {e if isinstance(e, str) else next(iter(e.values())) for e in section}
            section += [p for p in game_pages(Path(config.docs_dir)) if p not in listed]
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the mirrored repository files to the site, each under its repository path."""
    for rel in mirrored_paths():
        if files.get_file_from_path(rel) is None:
            files.append(File.generated(config, rel, abs_src_path=str(ROOT / rel)))
    return files
