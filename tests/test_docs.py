"""The documentation's generated tables come from the encoders and the results files and must match
(each game's page holds its facts, options, observation, action and state tables; the pages of
published results hold every results table), and the README is a landing page whose links work."""

from __future__ import annotations

import re

import pytest

from experiments import docs
from kiaule_env import GAMES

#: the games of the package itself (a test fixture game registered from tests/ has no page)
PACKAGED = [name for name, game in GAMES.items() if game.module.startswith("kiaule_env.")]


def test_every_game_of_the_package_has_a_page_with_a_block_per_kind():
    assert PACKAGED
    for game in PACKAGED:
        page = docs.game_page(game)
        assert page.is_file(), f"{game} has no documentation page {page}"
        found = {(subject, kind) for subject, kind, _ in docs.blocks(page.read_text())}
        assert {(game, kind) for kind in docs.GAME_KINDS} <= found, page


def test_every_results_table_is_shown_somewhere():
    found = {
        kind
        for path in docs.documents()
        for subject, kind, _ in docs.blocks(path.read_text())
        if subject == "results"
    }
    assert set(docs.RESULTS) <= found


def test_every_generated_block_matches_the_code_and_the_results():
    checked = 0
    for path in docs.documents():
        for subject, kind, body in docs.blocks(path.read_text()):
            assert body == docs.block_body(subject, kind), (
                f"{path.name}: {subject} {kind} drifted; run python -m experiments.docs"
            )
            checked += 1
    assert checked >= len(PACKAGED) * len(docs.GAME_KINDS) + len(docs.RESULTS)


def test_a_drifted_table_is_found_and_rewritten():
    page = docs.game_page(PACKAGED[0]).read_text()
    body = docs.blocks(page)[0][2]
    tampered = page.replace(body, body.replace("|", "| stale", 1), 1)
    assert tampered != page and docs.render(tampered) == page


def test_the_results_tables_read_the_published_files():
    assert "kozel/ppo" in docs.block_body("results", "benchmark")
    assert "worlds=16" in docs.block_body("results", "strength")
    assert ".zip" in docs.block_body("results", "zoo")


@pytest.mark.parametrize(
    ("subject", "kind", "message"),
    [
        ("results", "nope", "unknown results table 'nope'"),
        ("chess", "observation", "unknown game 'chess'"),
        (PACKAGED[0], "nope", "unknown table 'nope'"),
    ],
)
def test_an_unknown_block_is_a_clear_error(subject, kind, message):
    with pytest.raises(ValueError, match=message):
        docs.block_body(subject, kind)


def _quick_start(text: str) -> list[str]:
    """The commands of the README's Quick start code block."""
    section = text.split("## Quick start", 1)[1]
    block = section.split("```bash\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.strip()]


def test_the_readme_is_a_landing_page_with_the_two_quick_start_commands():
    text = docs.README.read_text()
    assert len(text.splitlines()) <= 300
    first, second = _quick_start(text)
    assert first.endswith("&& kiaule benchmark")
    assert second.endswith("&& python -m pytest -n 2") and ",docs]" in second
    ci = (docs.ROOT / ".ci" / "run").read_text()
    # .ci/run installs through pip_install (.ci/lib.sh: pip install, tried again on a dropped
    # connection), with the README's arguments unchanged
    ci_commands = [line.replace("pip_install ", "pip install ", 1) for line in ci.splitlines()]
    assert second in ci_commands, "the README's test command is not the one .ci/run runs"


def test_the_readmes_links_reach_files_of_the_repository():
    text = docs.README.read_text()
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    local = [t for t in targets if "://" not in t]
    assert local
    missing = [t for t in local if not (docs.ROOT / t).exists()]
    assert not missing, missing


@pytest.mark.parametrize("game", list(GAMES))
def test_every_game_gets_its_tables_from_its_descriptor_and_encoders(game):
    """A new game (the test fixture too) needs no code in the generator: its page's blocks fill."""
    for kind in docs.GAME_KINDS:
        table = docs.block_body(game, kind)
        rows = table.splitlines()
        assert len(rows) >= 3 and all(row.startswith("|") for row in rows), (game, kind)


def test_the_readmes_ten_line_example_plays_a_whole_game(capsys):
    section = docs.README.read_text().split("## In ten lines", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    assert len([line for line in code.splitlines() if line.strip()]) <= 10
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    assert namespace["env"].agents == [] and "result" in namespace["info"]
    assert "team 0" in capsys.readouterr().out
