"""The batched collector's fallback (``agents.training.engine_slots``): a pool member without a
batched form is played by its Python agent on an engine game loaded into its slots and kept in
lockstep with the batch; the slots' other seats stay batched. Lockstep, the agent's decisions,
reproducibility, exact resume, clear failures, and a training run resumed bit for bit."""

from __future__ import annotations

import json

import numpy as np
import pytest

import agents.training.batched as batched
from agents.training.batched import PYTHON, BatchedCollector
from agents.training.engine_slots import EngineSlots, LockstepEnv
from agents.training.pool import OpponentPool
from tests.training.test_batched import TINY
from tests.training.test_resume_exact import full_and_resumed, same_weights

PLAYERS = {"kozel": {}, "kiauliaganys": {"num_players": 4}, "pig": {"num_players": 4}}

#: per game a pool with members that have no batched form (Kiauliaganys: its heuristic, with
#: the compiled one taken away, as in a game that has none) beside batched ones
POOLS = {
    "kozel": {"mix": {"heuristic:worth_plain=3": 1, "pimc:worlds=2,rollouts=1": 1, "random": 1}},
    "kiauliaganys": {"mix": {"heuristic": 1.0, "random": 1.0}},
    "pig": {
        "lineups": {
            "heuristic:ties=random random heuristic": 1.0,
            "heuristic heuristic heuristic": 1.0,
        }
    },
}


@pytest.fixture
def no_compiled_kiauliaganys_heuristic(monkeypatch):
    """Kiauliaganys' heuristic without its compiled counterpart: played by the Python agent."""
    real = batched._heuristic_for

    def heuristic_for(venv):
        return None if venv.game.name == "kiauliaganys" else real(venv)

    monkeypatch.setattr(batched, "_heuristic_for", heuristic_for)


def collector(game: str, slots: int = 12, seed: int = 3) -> BatchedCollector:
    pool = OpponentPool(game, POOLS[game].get("mix"), lineups=POOLS[game].get("lineups"))
    return BatchedCollector(game, PLAYERS[game], pool, slots, seed=seed)


def learner_moves(env: BatchedCollector, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal move of the learner in every slot."""
    masks = np.asarray(env.env_method("action_masks"))
    u = rng.random(len(masks))
    return np.array([np.flatnonzero(m)[int(x * m.sum())] for m, x in zip(masks, u, strict=True)])


def same_as_engine(env: BatchedCollector) -> int:
    """Assert every tracked slot's row (seat to act, observation, mask) is its engine game's;
    the number of slots compared."""
    slots, impl = env._engine_slots, env.venv.impl
    engine = slots.engine
    for slot, game in slots.games.items():
        seat = engine.to_act(game.state)[len(game.pending)]
        assert impl.agent[slot] == seat
        np.testing.assert_array_equal(impl.obs[slot], engine.observe(game.state, seat))
        legal = sorted(engine.legal_actions(game.state, seat))
        assert np.flatnonzero(impl.mask[slot]).tolist() == legal
    return len(slots.games)


def watch_decisions(env: BatchedCollector, seen: list) -> None:
    """Check each Python decision against the batch's row of its slot, and note it."""
    slots = env._engine_slots
    act = slots.act

    def checked(slot: int, seat: int) -> int:
        game, impl = slots.games[slot], env.venv.impl
        assert impl.agent[slot] == seat and env._plays[env.who[slot, seat]] == PYTHON
        observed = slots.engine.observe(game.state, seat)
        np.testing.assert_array_equal(observed, impl.obs[slot])  # what the seat may know
        action = act(slot, seat)
        seen.append((slot, seat, action))
        return action

    slots.act = checked


def play(env: BatchedCollector, steps: int, rng: np.random.Generator) -> list[bytes]:
    """``steps`` learner steps; each step's observations, rewards and ends as bytes."""
    trace = []
    for _ in range(steps):
        obs, reward, done, _ = env.step(learner_moves(env, rng))
        trace.append(obs.tobytes() + reward.tobytes() + done.tobytes() + env.who.tobytes())
    return trace


@pytest.mark.usefixtures("no_compiled_kiauliaganys_heuristic")
@pytest.mark.parametrize("game", ["kozel", "kiauliaganys", "pig"])
def test_python_members_play_their_slots_in_lockstep_with_the_batch(game):
    """Over many steps every tracked slot's row is its engine game's (the collector itself
    checks seats, legal actions, each seat's reward and the ends at every batch step), each
    Python decision is on the engine's decision of the seat the batch has to act, slots are
    dealt again and dropped as their lineups change, and the batched members keep playing."""
    env = collector(game)
    assert isinstance(env.learner.venv, LockstepEnv)
    seen: list = []
    watch_decisions(env, seen)
    env.reset()
    rng = np.random.default_rng(0)
    compared = ends = 0
    untracked = False
    for _ in range(150 if game != "kozel" else 100):
        _, _, done, _ = env.step(learner_moves(env, rng))
        compared += same_as_engine(env)
        ends += int(done.sum())
        untracked |= len(env._engine_slots.games) < env.num_envs
    assert len(seen) > 100 and compared > 500 and ends > 2 * env.num_envs
    assert untracked  # lineups without a Python member leave their slots to the batch
    kinds = {env._plays[c] for c in np.unique(env.who).tolist() if c >= 0}
    assert PYTHON in kinds and len(kinds) > 1


@pytest.mark.parametrize("game", ["kozel", "pig"])
def test_a_broken_lockstep_is_caught(game, monkeypatch):
    """An engine game that plays another move than the batch's, or a deal that is not loaded
    into the batch, is a RuntimeError naming the slot."""
    play_ = EngineSlots._play
    count = [0]

    def wrong(self, g, action):
        count[0] += 1
        legal = list(self.engine.legal_actions(g.state, self._next_seat(g)))
        if count[0] >= 30 and len(legal) > 1 and count[0] < 10**6:
            action, count[0] = legal[(legal.index(action) + 1) % len(legal)], 10**6
        return play_(self, g, action)

    monkeypatch.setattr(EngineSlots, "_play", wrong)
    env = collector(game)
    env.reset()
    rng = np.random.default_rng(0)
    with pytest.raises(RuntimeError, match=r"slot \d+: the batched game and its engine twin"):
        for _ in range(200):
            env.step(learner_moves(env, rng))
    monkeypatch.setattr(EngineSlots, "_play", play_)
    monkeypatch.setattr(type(env.venv.impl), "load_state", lambda *a: None)
    with pytest.raises(RuntimeError, match="diverged"):
        collector(game).reset()


def test_the_same_seed_deals_the_same_games():
    """The deals come from the collector's generator: one seed, one run; another, another."""
    first, again, other = (collector("pig", seed=s) for s in (3, 3, 4))
    runs = []
    for env in (first, again, other):
        env.reset()
        runs.append(play(env, 60, np.random.default_rng(1)))
    assert runs[0] == runs[1] and runs[0] != runs[2]


def test_all_batched_members_take_the_fast_path():
    """A pool whose members all have batched forms has no engine games and no lockstep."""
    pool = OpponentPool("pig", {"heuristic": 1.0, "random": 1.0, "self": 1.0})
    env = BatchedCollector("pig", PLAYERS["pig"], pool, 8, seed=0)
    assert env._engine_slots is None and env.learner.venv is env.venv


@pytest.mark.usefixtures("no_compiled_kiauliaganys_heuristic")
@pytest.mark.parametrize("game", ["kozel", "kiauliaganys", "pig"])
def test_resume_replays_the_python_members_exactly(game):
    """A collector restored from another's state (its data through JSON) continues with the
    same Python decisions, observations, rewards and ends as the one never interrupted."""
    rng = np.random.default_rng(5)
    first = collector(game)
    first.reset()
    play(first, 25, rng)
    state = first.get_state()
    state = {"data": json.loads(json.dumps(state["data"])), "arrays": state["arrays"]}
    assert state["data"]["python"]["games"]
    resumed = collector(game, seed=99)
    resumed.reset()
    resumed.set_state(state)
    seen: list[list] = [[], []]
    watch_decisions(first, seen[0])
    watch_decisions(resumed, seen[1])
    after = [np.random.default_rng(6), np.random.default_rng(6)]
    assert play(first, 40, after[0]) == play(resumed, 40, after[1])
    assert len(seen[0]) > 20 and seen[0] == seen[1]


def test_a_resume_fails_clearly_when_an_agent_would_play_otherwise(monkeypatch):
    """Replaying a saved episode asks its Python agents again: one that now picks another
    move (its code changed) is a ValueError naming the member and the slot."""
    first = collector("pig")
    first.reset()
    play(first, 25, np.random.default_rng(5))
    state = first.get_state()
    resumed = collector("pig", seed=99)
    resumed.reset()
    from agents import registry

    real = registry.make

    class Contrary:
        def __init__(self, agent):
            self.agent = agent
            generators = {
                k: v for k, v in vars(agent).items() if isinstance(v, np.random.Generator)
            }
            vars(self).update(generators)  # the agent's own: a checkpoint restores them

        def reset(self):
            self.agent.reset()

        def act(self, decision):
            legal = np.flatnonzero(decision.action_mask).tolist()
            return legal[(legal.index(self.agent.act(decision)) + 1) % len(legal)]

    monkeypatch.setattr(registry, "make", lambda *a, **k: Contrary(real(*a, **k)))
    resumed._engine_slots.agents.clear()
    with pytest.raises(ValueError, match=r"slot \d+: opponent 'pig/heuristic:ties=random' now"):
        resumed.set_state(state)


def test_pool_members_may_carry_options():
    """Registry names with options are pool members (played by the fallback); a bad option is
    refused naming the ones the agent takes."""
    pool = OpponentPool("kozel", {"pimc:worlds=4": 1.0}, lineups=None)
    assert pool.names == ["kozel/pimc:worlds=4"]
    with pytest.raises(ValueError, match=r"unknown option 'ties'; kozel/heuristic takes"):
        OpponentPool("kozel", {"heuristic:ties=random": 1.0})
    with pytest.raises(ValueError, match="unknown opponent 'kozel/wizard:x=1'"):
        OpponentPool("kozel", {"wizard:x=1": 1.0})


def test_a_training_run_with_a_python_opponent_resumes_bit_for_bit(tmp_path):
    """``kiaule train`` on the batched collector with a search agent in the mix: resumed from
    its checkpoint, the run ends with the uninterrupted run's model."""
    config = {
        **TINY,
        "game": "pig",
        "env_kwargs": {"num_players": 4},
        "total_timesteps": 1024,
        "n_envs": 16,
        "checkpoint": {"every": 512},
        "opponents": {
            "lineups": {"heuristic pimc:worlds=2,rollouts=1 heuristic:ties=random": 1.0},
            "snapshot_every": 512,
        },
    }
    full, resumed, _ = full_and_resumed(config, tmp_path, step=512)
    assert same_weights(resumed.final_model, full.final_model)


def test_learned_models_are_batched_and_play_their_most_probable_move():
    """A learned model in the pool (the zoo's ``kiauliaganys/ppo``) has a batched form: no
    engine games, one forward pass of its network over its rows, and in every row the move its
    agent would play (its most probable legal move)."""
    import agents
    from agents.training.batched import MODEL

    pool = OpponentPool("kiauliaganys", {"ppo": 1.0, "heuristic": 1.0})
    env = BatchedCollector("kiauliaganys", PLAYERS["kiauliaganys"], pool, 16, seed=0)
    assert env._engine_slots is None and env.learner.venv is env.venv
    env.reset()
    rng = np.random.default_rng(0)
    for _ in range(5):
        env.step(learner_moves(env, rng))
    code = env._codes["kiauliaganys/ppo"]
    assert env._plays[code] == MODEL and (env.who == code).any()
    impl = env.venv.impl
    obs, mask = impl.obs.copy(), impl.mask.copy()
    slots = np.arange(env.num_envs)
    moves = env._moves(code, obs, mask, slots, impl.agent.copy())
    policy = agents.make("kiauliaganys/ppo").policy
    expected = [policy.act(o, m, deterministic=True) for o, m in zip(obs, mask, strict=True)]
    assert moves.tolist() == expected


def test_a_learned_model_of_another_table_is_refused():
    """The model's own checks: a 4-player model in a 3-player batch is refused by name."""
    pool = OpponentPool("kiauliaganys", {"ppo:path=agents/zoo/kiauliaganys_4p.zip": 1.0})
    with pytest.raises(ValueError, match="num_players") as info:
        BatchedCollector("kiauliaganys", {"num_players": 3}, pool, 4, seed=0)
    # the model's file and what it was trained for, once each
    message = str(info.value)
    assert message.startswith(
        "kiauliaganys/ppo:path=agents/zoo/kiauliaganys_4p.zip was trained for kiauliaganys with "
        "num_players=4; it cannot play kiauliaganys with num_players=3"
    )
    assert message.count("trained for") == 1 and "num_players=3" in message
