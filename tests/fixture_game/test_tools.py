"""The tools pick the fixture game up from its descriptor with no edits: the agent registry
(random, the rule-based agent its descriptor names, the search agents), a tournament through
the ``kiaule`` CLI in a fresh process with worker processes and its research metrics,
``kiaule train`` with no config file, and the replay viewer's generic display. The
conformance suite, the viewer's page and browser tests, the OpenSpiel bridge, search and
training cover it through their tests over ``kiaule_env.GAMES``."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import agents
from agents.random_agent import RandomAgent
from kiaule_env import GAMES
from kiaule_env.core.play import play_episode

GAME = GAMES["highcard"]


def test_the_registry_has_random_heuristic_and_search_agents():
    names = agents.list_agents("highcard")
    for kind in ("random", "heuristic", "pimc", "ismcts", "ppo"):
        assert f"highcard/{kind}" in names
    assert GAME.agents_provider == "tests.fixture_game.agents"  # named by the descriptor


def test_the_viewer_shows_it_with_the_generic_display():
    """No ``experiments/viewer/displays/highcard.py``: the generic display, every view field as
    it is (``tests/viewer`` replays its games against the page)."""
    from experiments.viewer.games import display_for, generic_display

    shown, generic = display_for(GAME.env_id), generic_display("highcard")
    assert (shown.title, shown.unit_name, shown.card_fields, shown.extras) == (
        generic.title,
        generic.unit_name,
        generic.card_fields,
        generic.extras,
    )


def test_a_tournament_fingerprints_its_code():
    """A resumed tournament must match the code that played it: the fixture's own files count,
    found through its descriptor although they live outside ``kiaule_env`` and ``agents``."""
    from experiments.tournament.fingerprint import code_files
    from tests.conftest import ROOT

    files = code_files("highcard")
    here = ROOT / "tests" / "fixture_game"
    for own in ("highcard/rules.py", "highcard/engine.py", "highcard_v0.py", "agents.py"):
        assert here / own in files
    assert ROOT / "kiaule_env" / "core" / "play.py" in files


def test_soak_and_demo_play_it(capsys):
    from experiments.cli import main

    assert main(["soak", "highcard", "--games", "40", "--no-progress"]) == 0
    assert "highcard: 40 games" in capsys.readouterr().out  # invariants after every step
    assert main(["soak", "all", "--games", "2", "--no-progress"]) == 0
    assert "highcard: 2 games" in capsys.readouterr().out
    assert main(["demo", "highcard", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "High card, 4 cards each" in out and "result: {'tricks': [" in out


def test_the_heuristic_beats_random_agents():
    """Seat-alternated games on seeded deals: it takes more than it gives."""
    env = GAME.raw_env()
    rewards = []
    for g in range(120):
        seat = g % 2
        players = [RandomAgent("highcard", 10 * g + s) for s in range(2)]
        players[seat] = agents.make("highcard/heuristic")
        rewards.append(play_episode(env, players, seed=g // 2).rewards[seat])
    assert np.mean(rewards) > 0.1


def test_kiaule_train_runs_it_with_no_config_file(tmp_path, capsys):
    """No ``experiments/configs/highcard.yaml``: the run comes from the defaults and the
    descriptor; the model it saves plays the game as ``highcard/ppo``."""
    pytest.importorskip("sb3_contrib")  # the train extra
    from experiments.cli import main
    from experiments.train.config import CONFIG_DIR

    assert not list(CONFIG_DIR.glob("highcard*"))
    out = tmp_path / "run"
    argv = ["train", "highcard", "--timesteps", "128", "--n-envs", "1", "--output", str(out)]
    argv += ["--no-progress", "--set", "ppo.n_steps=64", "--set", "ppo.batch_size=64"]
    argv += ["--set", "eval.every=128", "--set", "eval.deals=2", "--set", "tensorboard=false"]
    assert main(argv) == 0
    assert "trained highcard to 128 steps" in capsys.readouterr().out
    agent = agents.make("highcard/ppo", path=out / "final.zip")
    episode = play_episode(GAME.raw_env(), [agent, RandomAgent("highcard", 1)], seed=0)
    assert sorted(episode.rewards) in ([-1.0, 1.0], [0.0, 0.0])  # H6


def test_a_tournament_through_the_cli_in_a_fresh_process(tmp_path):
    """``kiaule tournament highcard`` run from another folder, with two worker processes: the
    game comes from the inherited ``KIAULE_GAME_MODULES`` (and ``PYTHONPATH``), not from this
    process."""
    out = tmp_path / "t"
    argv = ["tournament", "highcard", "--agents", "random", "heuristic", "pimc:worlds=2"]
    argv += ["--games", "12", "--workers", "2", "--out", str(out), "--no-plots", "--no-progress"]
    done = subprocess.run(
        [sys.executable, "-m", "experiments.cli", *argv],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=dict(os.environ),
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["env_id"] == GAME.env_id and summary["games"] == 12 and summary["complete"]
    names = ["highcard/random", "highcard/heuristic", "highcard/pimc:worlds=2"]
    assert sorted(summary["agents"]) == sorted(names)
    assert summary["endings"]["total"]["play"] == 12  # H6: every game ends by play
    tricks = [summary["agents"][n]["metrics"]["tricks_taken"] for n in names]
    assert sum(tricks) == GAME.default_options["hand_size"] * 3 / 2  # every agent as often
    assert [m["name"] for m in summary["metrics"]] == ["tricks_taken", "voids_shown"]
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert len(records) == 12 and all(r["record"]["env_id"] == GAME.env_id for r in records)
