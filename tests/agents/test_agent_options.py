"""Agent options in names (``kozel/pimc:worlds=64``): parsing, checking, and every command."""

from __future__ import annotations

import json

import pytest

import agents
from agents.registry import agent_options, parse_spec, qualified


def test_options_reach_the_agent():
    agent = agents.make("kozel/pimc:worlds=3,rollouts=2,compiled=false", seed=1)
    assert (agent.worlds, agent.rollouts, agent.compiled) == (3, 2, False)
    assert agent.name == "kozel/pimc:worlds=3,rollouts=2,compiled=false"
    assert agents.make("kozel/heuristic:worth_plain=5").worth_plain == 5
    assert agents.make("kozel/ismcts:c=1,seconds=0.5").c == 1.0  # an int where a float goes


def test_parse_spec_types_and_none():
    assert parse_spec("kozel/pimc") == ("kozel/pimc", {})
    assert parse_spec("kozel/pimc:seconds=none") == ("kozel/pimc", {"seconds": None})
    assert parse_spec("kozel/pimc: worlds = 8 ") == ("kozel/pimc", {"worlds": 8})
    assert agent_options("kozel/pimc")["worlds"] is int


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("kozel/pimc:wolds=8", "unknown option 'wolds'; kozel/pimc takes: worlds (an integer)"),
        ("kozel/pimc:worlds=many", "option worlds='many' must be an integer"),
        ("kozel/pimc:worlds=1.5", "must be an integer"),
        ("kozel/pimc:worlds=true", "must be an integer"),
        ("kozel/pimc:compiled=3", "must be true or false"),
        ("kozel/pimc:worlds", "options are KEY=VALUE separated by commas"),
        ("kozel/pimc:worlds=2,worlds=3", "given twice"),
        ("kozel/random:worlds=2", "kozel/random takes: none"),
        ("kozel/pimc:worlds=0", "worlds must be > 0"),
        ("kozel/ismcts:seconds=-1", "seconds must be > 0"),
        # budgets are capped (a billion worlds pre-sampled states until memory ran out)
        ("kozel/ismcts:worlds=1000000000,iterations=64", "worlds must be at most 10,000"),
        ("kozel/ismcts:iterations=1000001", "iterations must be at most 1,000,000"),
        ("kozel/pimc:rollouts=1001", "rollouts must be at most 1,000"),
        ("kozel/pimc:seconds=601", "seconds must be at most 600"),
        ("kozel/nope:x=1", "unknown agent 'kozel/nope'"),
    ],
)
def test_bad_options_are_refused_with_what_is_allowed(spec, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        agents.make(spec)


def test_the_caps_allow_every_budget_the_project_plays():
    from agents.search import BENCHMARK_BUDGETS, MAX_BUDGETS
    from experiments import strength

    largest = max(*strength.BUDGETS, strength.DEFAULT_BUDGET)
    for kind in ("pimc", "ismcts"):
        agents.make(strength.spec("kozel", kind, largest))
        agents.make(f"kozel/{kind}:{BENCHMARK_BUDGETS[kind]}")
    at_cap = agents.make("kozel/ismcts:worlds=10000,iterations=1000000,seconds=600")
    assert (at_cap.worlds, at_cap.iterations, at_cap.seconds) == (10_000, 1_000_000, 600.0)
    assert MAX_BUDGETS["rollouts"] == 1_000
    agents.make("kozel/pimc:rollouts=1000")


def test_tournament_cli_passes_options_and_refuses_bad_ones(tmp_path, capsys):
    from experiments.tournament import main

    out = tmp_path / "t"
    status = main(
        [
            "kozel",
            "--agents",
            "kozel/heuristic:worth_plain=4",
            "random",
            "--games",
            "4",
            "--workers",
            "1",
            "--out",
            str(out),
            "--no-plots",
            "--no-progress",
        ]
    )
    assert status == 0
    summary = json.loads((out / "summary.json").read_text())
    assert "kozel/heuristic:worth_plain=4" in json.dumps(summary)
    with pytest.raises(SystemExit) as exc:
        main(["kozel", "--agents", "kozel/pimc:worlds=zero", "random", "--games", "2"])
    assert exc.value.code == 2
    assert "option worlds='zero' must be an integer" in capsys.readouterr().err


def test_play_and_evaluate_cli_refuse_bad_options(capsys):
    from experiments.play import main as play_main
    from experiments.train import main as train_main

    with pytest.raises(SystemExit) as exc:
        play_main(["kozel", "--opponents", "kozel/pimc:nope=1"])
    assert exc.value.code == 2
    assert "unknown option 'nope'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        train_main(["--evaluate", "kozel/pimc:worlds=-2", "--deals", "1"])
    assert exc.value.code == 2
    assert "worlds must be > 0" in capsys.readouterr().err


def test_a_bare_kind_is_qualified_with_the_game_and_a_full_name_is_kept():
    assert qualified("pig", "heuristic") == "pig/heuristic"
    assert qualified("kozel", "pimc:worlds=8") == "kozel/pimc:worlds=8"
    assert qualified("pig", "kozel/ppo") == "kozel/ppo"  # another game's name is not rewritten
    # a "/" inside an option (a file path) does not make a bare kind a full name
    assert (
        qualified("kozel", "ppo:path=agents/zoo/kozel.zip") == "kozel/ppo:path=agents/zoo/kozel.zip"
    )
    assert qualified("pig", "kozel/ppo:path=a/b.zip") == "kozel/ppo:path=a/b.zip"
