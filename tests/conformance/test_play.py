"""The one play loop on every game and variant: the fast path plays exactly the games of the
public API, seeds fix the game, invariants hold after every step, records replay, and
``max_cycles`` truncates alike on both paths."""

from __future__ import annotations

import numpy as np
import pytest

from agents import make
from agents.random_agent import RandomAgent
from kiaule_env.core.play import GameLoop, LazyDecision, play_episode, suite_env
from kiaule_env.core.records import GameRecord, ReplayMismatch, play_recorded, replay
from tests.conformance.conftest import variants


def _lineup(game, env, seed: int) -> list:
    """Random and rule-based agents alternating, seeded."""
    names = [f"{game.name}/random", f"{game.name}/heuristic"]
    return [make(names[i % 2], seed=seed * 10 + i) for i in range(len(env.possible_agents))]


def _deal(game, options, seed: int) -> dict:
    return game.make_engine(**options).random_deal(np.random.default_rng(seed))


@variants()
def test_the_fast_path_plays_the_games_of_the_public_api(game, options):
    for seed in range(3):
        deal = _deal(game, options, seed)
        fast_env = game.native_env(**options)
        fast = play_episode(fast_env, _lineup(game, fast_env, seed), seed, deal, record=True)
        public_env = game.env(**options)
        public = play_episode(
            public_env, _lineup(game, public_env, seed), seed, deal, record=True, api=True
        )
        assert fast.moves == public.moves
        assert fast.rewards == pytest.approx(public.rewards)
        assert fast.result == public.result and not fast.truncated
        assert fast.steps == public.steps == len(fast.moves)
        if game.parallel:
            par_env = game.load().parallel_env(**options)
            par = play_episode(par_env, _lineup(game, par_env, seed), seed, deal, api=True)
            assert (par.rewards, par.result) == (pytest.approx(fast.rewards), fast.result)


@variants()
def test_a_seed_fixes_the_game_and_other_seeds_differ(game, options):
    env = game.native_env(**options)

    def game_of(seed: int) -> tuple:
        players = [RandomAgent(game.name, 7)] * len(env.possible_agents)
        episode = play_episode(env, players, seed=seed, record=True)
        return repr((episode.moves, episode.result, episode.rewards))

    assert game_of(3) == game_of(3)
    assert len({game_of(seed) for seed in range(6)}) > 1


@variants()
def test_a_seat_played_from_outside_the_loop_plays_the_same_game(game, options):
    """The training wrapper's way through the loop: ``run(stop={0})`` returns whenever seat 0
    must decide and the next ``run`` takes its action as ``given``. Choosing as its agent would,
    the game is exactly :func:`play_episode`'s; ``rewarded`` sees every step's deltas that are
    not all zero, which add up to the rewards. In a simultaneous game ``run`` also returns once
    seat 0 has left; the rest is played without it."""
    seed = 4
    env = game.native_env(**options)
    inside = play_episode(env, _lineup(game, env, seed), seed, record=True)
    players = _lineup(game, env, seed)
    outside, players[0] = players[0], None
    env.reset(seed=seed)
    for player in [outside, *players[1:]]:
        player.reset()
    deltas = []
    loop = GameLoop.on_env(suite_env(env), players, record=True, rewarded=deltas.append)
    engine, state = loop.engine, loop.state
    seats, decisions = loop.run({0}), 0
    while seats:
        if 0 not in seats:
            assert engine.simultaneous  # seat 0 has left the game
            seats = loop.run()
            continue
        decision = LazyDecision(engine, state, 0, engine.legal_actions(state, 0))
        seats, decisions = loop.run({0}, {0: outside.act(decision)}), decisions + 1
    episode = loop.episode()
    assert decisions == sum(1 for agent, _, _ in inside.moves if agent == "player_0") > 0
    assert (episode.moves, episode.result, episode.steps) == (
        inside.moves,
        inside.result,
        inside.steps,
    )
    assert episode.rewards == inside.rewards
    assert all(any(step) for step in deltas)
    totals = [0.0] * len(episode.rewards)
    for step in deltas:
        for seat, delta in enumerate(step):
            totals[seat] += delta
    assert totals == episode.rewards


class _Invariants:
    def start(self, env) -> None:
        self.steps = 0

    def before(self, env, seats, actions) -> None:
        assert seats == env.engine.to_act(env.game_state)
        for seat, action in zip(seats, actions, strict=True):
            assert action in env.engine.legal_actions(env.game_state, seat)

    def after(self, env, seats, actions, info) -> None:
        env.engine.check_invariants(env.game_state)
        self.steps += 1


@variants()
def test_invariants_hold_after_every_step_of_seeded_random_games(game, options):
    env = game.native_env(**options)
    check = _Invariants()
    low, high = game.reward_range
    for seed in range(12):
        players = [RandomAgent(game.name, seed)] * len(env.possible_agents)
        episode = play_episode(env, players, seed=seed, observer=check)
        assert episode.result is not None and not episode.truncated
        assert check.steps > 0
        if not options:  # the default rewards lie in the declared range
            assert all(low - 1e-9 <= r <= high + 1e-9 for r in episode.rewards)


@variants(default_only=True)
@pytest.mark.parametrize("maker", ["raw_env", "env"])
def test_the_chooser_gets_the_env_in_step(game, options, maker):
    """``choose(agent, obs, env)``: the env describes the decision asked for, so a chooser may
    read its legal moves, view and render and pick by move text."""
    calls = []

    def choose(agent, obs, env):
        raw = env.unwrapped
        legal = raw.legal_moves(agent)
        assert sorted(legal) == np.flatnonzero(obs["action_mask"]).tolist()
        assert agent in env.agents and raw.view(agent).seat == int(agent.split("_")[1])
        assert np.array_equal(env.observe(agent)["observation"], obs["observation"])
        calls.append(agent)
        return min(legal, key=legal.__getitem__)  # the alphabetically first move text

    make = getattr(game, maker)
    record = play_recorded(make, game.env_id, {}, choose, seed=3)
    assert len(calls) == len(record.moves) > 0
    assert replay(game.raw_env, record) == record.result


@variants()
def test_records_replay_and_a_changed_record_is_refused(game, options):
    rng = np.random.default_rng(5)

    def choose(agent, obs, env):
        return int(rng.choice(np.flatnonzero(obs["action_mask"])))

    deal = _deal(game, options, 9)
    record = play_recorded(game.raw_env, game.env_id, options, choose, seed=9, options=deal)
    again = GameRecord.from_json(record.to_json())
    assert replay(game.raw_env, again) == record.result
    if game.parallel:
        assert replay(game.load().parallel_env, again) == record.result
    edited = GameRecord.from_json(record.to_json())
    agent, action, text = edited.moves[-1]
    edited.moves[-1] = [agent, action, text + "x"]
    with pytest.raises(ReplayMismatch, match=f"move {len(edited.moves) - 1}"):
        replay(game.raw_env, edited)
    edited.moves = edited.moves[:-1]
    with pytest.raises(ReplayMismatch, match="record ended"):
        replay(game.raw_env, edited)


@variants(default_only=True)
def test_max_cycles_truncates_alike_on_both_paths(game, options):
    fast_env = game.native_env(max_cycles=2)
    fast = play_episode(fast_env, [RandomAgent(game.name, 1)] * fast_env.num_players, seed=1)
    public_env = game.env(max_cycles=2)
    players = [RandomAgent(game.name, 1)] * len(public_env.possible_agents)
    public = play_episode(public_env, players, seed=1, api=True)
    assert fast.truncated and public.truncated
    assert fast.result is None and public.result is None
    assert fast.steps == public.steps
