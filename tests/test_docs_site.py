"""The documentation site builds with ``mkdocs build --strict``: no broken link, no missing page,
no docstring the API reference cannot render; and the repository's own documents join it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

#: the site needs the 'docs' extra; without it these tests skip, saying so
for _module in ("mkdocs", "material", "mkdocstrings_handlers.python", "griffe"):
    pytest.importorskip(_module, reason="the site needs the 'docs' extra: pip install '.[docs]'")
docs_site = pytest.importorskip("experiments.docs_site")

ROOT = Path(__file__).resolve().parent.parent


def test_the_mirrored_documents_include_every_games_rules_and_the_published_results():
    paths = docs_site.mirrored_paths()
    assert "CHANGELOG.md" in paths and "kiaule_env/RULES.md" in paths
    rules = {p for p in paths if p.startswith("kiaule_env/") and p.endswith("/RULES.md")}
    assert len(rules) == len(list(ROOT.glob("kiaule_env/*/RULES.md"))) + 1
    assert "experiments/results/benchmark/README.md" in paths
    assert "experiments/results/strength/strength.png" in paths
    assert not any(p.endswith((".py", ".zip", ".lock")) for p in paths)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site built by ``mkdocs build --strict`` into a temporary folder."""
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert build.returncode == 0, build.stdout + build.stderr
    return out


def test_docstring_markup_becomes_markdown():
    text = "See :class:`~kiaule_env.core.game.GameDescriptor`, :func:`agents.make`::\n\n    x = 1"
    assert docs_site.markdown_docstring(text) == (
        "See `GameDescriptor`, `agents.make`:\n\n    x = 1"
    )
    assert docs_site.markdown_docstring("a ``literal`` stays") == "a ``literal`` stays"


def test_the_site_builds_strictly_with_every_page_of_the_navigation(site):
    for page in ("index.html", "getting-started/index.html", "games/kozel/index.html"):
        assert (site / page).is_file(), page
    assert (site / "kiaule_env/kozel/RULES/index.html").is_file()
    assert (site / "experiments/results/strength/strength.png").is_file()


def test_the_api_reference_renders_the_docstrings(site):
    envs = (site / "api/envs/index.html").read_text()
    assert "Options (constructor keywords)" in envs and "kiaule_env.kozel_v0" in envs
    core = (site / "api/core/index.html").read_text()
    assert "kiaule_env.core.engine" in core and "play_episode" in core
    assert ":class:" not in core and ":func:" not in core


def test_each_game_page_is_in_the_navigation_in_the_order_of_games(site):
    from kiaule_env import GAMES

    home = (site / "index.html").read_text()
    pages = [
        f'href="games/{name}/"' for name in GAMES if (ROOT / f"docs/games/{name}.md").is_file()
    ]
    assert pages and all(page in home for page in pages)
    assert [home.index(page) for page in pages] == sorted(home.index(page) for page in pages)
