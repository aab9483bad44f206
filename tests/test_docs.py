"""The README's observation, action and state tables come from the encoders and must match."""

from __future__ import annotations

from experiments import docs
from kiaule_env import GAMES


def test_readme_has_a_table_block_per_game_and_kind():
    found = {(game, kind) for game, kind, _ in docs.blocks(docs.README.read_text())}
    expected = {(g, k) for g in GAMES for k in ("observation", "action", "state")}
    assert expected <= found


def test_readme_tables_match_the_encoders():
    for game, kind, body in docs.blocks(docs.README.read_text()):
        assert body == docs.generated_table(game, kind), (
            f"README {game} {kind} table drifted; run python -m experiments.docs"
        )
