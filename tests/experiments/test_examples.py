"""CI smokes of ``experiments/examples/`` (docs/interop.md): each example's ``--smoke`` mode
runs to the end and reports figures of the right kind."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kiaule_env import GAMES

ROOT = Path(__file__).resolve().parents[2]


def test_openspiel_ismcts_vs_heuristic_smoke(capsys):
    pytest.importorskip("pyspiel")
    from experiments.examples import openspiel_ismcts_vs_heuristic as example

    out = example.main(["--smoke"])
    assert set(out) == {"kozel", "kiauliaganys"}
    for results in out.values():
        (result,) = results
        assert sum(result.returns) == pytest.approx(0.0) and result.bot_decisions > 0
    assert "IS-MCTS vs heuristic" in capsys.readouterr().out


def test_openspiel_example_refuses_bad_input():
    pytest.importorskip("pyspiel")
    from experiments.examples import openspiel_ismcts_vs_heuristic as example

    with pytest.raises(ValueError, match="unknown match 'pig'"):
        example.run_match("pig", 1, 4, 0)
    with pytest.raises(ValueError, match="simulations must be a positive int"):
        example.run_match("kozel", 1, 0, 0)


def test_cleanrl_masked_ppo_kozel_smoke():
    pytest.importorskip("torch")
    from experiments.examples import cleanrl_masked_ppo_kozel as example

    figures = example.main(["--smoke"])
    # 2 iterations of 2 games: both learner seats decide in every game (K5: 9 tricks each)
    assert figures["decisions"] >= 4 * 2 * 5
    assert figures["entropy"] > 0


def test_cleanrl_masked_categorical_never_picks_an_illegal_action():
    torch = pytest.importorskip("torch")
    from experiments.examples.cleanrl_masked_ppo_kozel import Agent

    agent = Agent(8, 5, 16)
    mask = torch.tensor([[False, True, False, False, True]])
    dist = agent.dist(torch.randn(1, 8), mask)
    assert dist.probs[0, ~mask[0]].max() < 1e-12
    assert set(dist.sample((200,)).flatten().tolist()) <= {1, 4}


def test_cleanrl_gae_on_a_known_trajectory():
    pytest.importorskip("torch")
    from experiments.examples.cleanrl_masked_ppo_kozel import Trajectory, gae

    traj = Trajectory(values=[0.5, 1.0], rewards=[0.0, 2.0])
    adv, returns = gae(traj, gamma=1.0, lam=0.5)
    # delta_1 = 2 - 1 = 1; delta_0 = 0 + 1 - 0.5 = 0.5; adv_0 = 0.5 + 0.5 * 1
    assert adv.tolist() == pytest.approx([1.0, 1.0])
    assert returns.tolist() == pytest.approx([1.5, 2.0])


def test_supersuit_maskable_ppo_pig_smoke():
    pytest.importorskip("supersuit")
    pytest.importorskip("sb3_contrib")
    from experiments.examples import supersuit_maskable_ppo_pig as example

    figures = example.main(["--smoke"])
    assert figures["timesteps"] >= 256
    assert 0.0 <= figures["pig_rate"] <= 1.0


def test_tianshou_dqn_kozel_smoke():
    pytest.importorskip("tianshou")
    # a subprocess: Tianshou's replay-buffer helpers are numba functions that would compile
    # for a minute; the smoke runs them as Python (NUMBA_DISABLE_JIT) without touching the
    # numba of the tests in this process
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "experiments.examples.tianshou_dqn_kozel", "--smoke"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Tianshou DQN on Kozel: 100 steps, 10 updates" in done.stdout


def test_pettingzoo_compat_smoke_on_the_installed_pettingzoo():
    from experiments.examples import pettingzoo_compat_smoke as example

    steps = example.main([])
    assert set(steps) == {*GAMES, "pig-parallel"}
    assert all(n > 0 for n in steps.values())


def test_openspiel_nfsp_kiauliaganys_smoke(capsys):
    pytest.importorskip("pyspiel")
    pytest.importorskip("torch")
    from experiments.examples import openspiel_nfsp_kiauliaganys as example

    figures = example.main(["--smoke"])
    assert figures.episodes == 4 and figures.eval_games == 2
    assert figures.info_state_size == 9531  # 231 observation + 124 rows × 75 actions
    assert -1.0 <= figures.mean_return_vs_random <= 1.0
    assert "NFSP on 2-player Kiauliaganys" in capsys.readouterr().out
