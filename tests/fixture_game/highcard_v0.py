"""High card, the test suite's fixture game (``highcard/RULES.md``, H1–H7), as a PettingZoo AEC
env: two players, a 12-card deck, highest card of the led suit takes the trick.

    from tests.fixture_game import highcard_v0
    env = highcard_v0.env(render_mode="ansi")

Options: ``num_players`` (only 2), ``deck`` (only ``"12"``), ``hand_size`` (1–6, default 4),
``render_mode``, ``max_cycles``. Stacked deck: ``reset(options={"deck": [12 card texts]})``.
Observation ``float32[42]`` (``observation_table()``), actions ``Discrete(12)``
(``action_table()``), rewards ±1 or 0 at the end (H6).
"""

from __future__ import annotations

from pettingzoo import AECEnv

from kiaule_env.core.aec import wrap_classic
from kiaule_env.core.game import GameDescriptor, OpenSpielBridge
from tests.fixture_game.highcard.env import HighCardEnv
from tests.fixture_game.highcard.rules import NUM_PLAYERS, Config


def _max_steps(config: Config) -> int:
    """H6: hand_size tricks, one play per player each."""
    return config.hand_size * NUM_PLAYERS


__all__ = ["GAME", "action_table", "env", "observation_table", "raw_env"]

GAME = GameDescriptor(
    name="highcard",
    env_id="kiaule/highcard-v0",
    version=0,
    module=__name__,
    engine="tests.fixture_game.highcard.engine:Engine",
    api="aec",
    player_counts=(2,),
    decks=("12",),
    teams=None,
    has_decisions=True,
    reward_range=(-1.0, 1.0),  # H6
    config=Config,
    max_steps=_max_steps,
    longest_game_reason="hand_size tricks of one play per player (H6)",
    summary="two players, a few cards, the highest card of the led suit takes the trick",
    variants=({}, {"hand_size": 2}, {"hand_size": 5}),
    bench_options={},
    benchmark_games=200,
    benchmark_note="the test suite's fixture game",
    openspiel=OpenSpielBridge(hidden=("num_players", "deck")),  # H1: one value each
    agents_module="tests.fixture_game.agents",
    metrics_module="tests.fixture_game.metrics",
)

raw_env = HighCardEnv


def env(**kwargs) -> AECEnv:
    """The High card AEC env with PettingZoo's classic wrappers."""
    return wrap_classic(raw_env(**kwargs))


def observation_table(**kwargs) -> str:
    """The observation layout as a Markdown table."""
    return GAME.observation_table(**kwargs)


def action_table(**kwargs) -> str:
    """The action space as a Markdown table (generated from the codec)."""
    return GAME.action_table(**kwargs)
