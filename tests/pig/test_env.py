"""The Pig environments: PettingZoo API tests, seeding, random play, information sets, records."""

from __future__ import annotations

import contextlib
import io
import warnings
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.utils.conversions import parallel_to_aec

from agents.arena import play_aec, play_parallel
from agents.random_agent import RandomAgent
from kiaule_env import pig_v0
from kiaule_env.cards import CARD_TEXTS
from kiaule_env.core.records import GameRecord, play_recorded, replay
from kiaule_env.pig import rules
from tests.pig.util import deck_for, make

DATA = Path(__file__).parent / "data"

VARIANTS = {
    "round": {},
    "full": {"game": "full"},
    "stock": {"stock": True},
    "letters": {"game": "full", "letters": True},
    "tokens": {"tokens": True},
    "false_nose": {"false_nose": "pig"},
    "all": {"game": "full", "stock": True, "letters": True, "tokens": True, "false_nose": "pig"},
}


def quietly(fn, *args, **kwargs):
    """Run a PettingZoo test without its prints and style warnings."""
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def same(a, b) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and np.array_equal(a, b)
    return a == b


def test_reset_without_seed_continues_the_generator():
    env = make()
    env.reset(seed=3)
    first = [h[:] for h in env.game_state.hands]
    env.reset()
    assert env.game_state.hands != first
    env.reset(seed=3)
    assert env.game_state.hands == first


def test_aec_version_is_pettingzoos_parallel_to_aec_conversion():
    """Our AEC class plays exactly like PettingZoo's own conversion of the parallel env (in a
    round game, where nobody leaves before the end; full games: the next test)."""
    for kwargs in ({"num_players": 5}, {"tokens": True, "false_nose": "pig"}):
        ours, theirs = pig_v0.raw_env(**kwargs), parallel_to_aec(pig_v0.parallel_env(**kwargs))
        for env in (ours, theirs):
            env.reset(seed=9)
        rng_a, rng_b = np.random.default_rng(1), np.random.default_rng(1)
        for agent_a, agent_b in zip(ours.agent_iter(), theirs.agent_iter(), strict=True):
            assert agent_a == agent_b
            last_a, last_b = ours.last(), theirs.last()
            assert same(list(last_a), list(last_b))
            assert same(ours.rewards, theirs.rewards) and ours.agents == theirs.agents
            if last_a[2] or last_a[3]:
                ours.step(None)
                theirs.step(None)
                continue
            mask = last_a[0]["action_mask"]
            ours.step(int(rng_a.choice(np.flatnonzero(mask))))
            theirs.step(int(rng_b.choice(np.flatnonzero(mask))))


def live_trace(env, seed: int) -> tuple[list, dict[str, float], list[str]]:
    """Random play through ``agent_iter``: the live decisions (agent, observation), every
    agent's total of ``env.rewards`` after each step, and the agents stepped with None."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    decisions, totals, dead = [], dict.fromkeys(env.possible_agents, 0.0), []
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            dead.append(agent)
            env.step(None)
        else:
            decisions.append((agent, obs["observation"].tobytes()))
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        for a, r in env.rewards.items():
            totals[a] += r
    return decisions, totals, dead


def test_full_game_aec_keeps_leaving_players_until_the_end():
    """D13: in the AEC version a player who leaves stays in ``agents``, terminated, never
    selected until the episode is over; the live decisions are those of PettingZoo's
    conversion (which steps him with None at once), and so is every agent's total reward."""
    kwargs = {"game": "full", "num_players": 5}
    for seed in (9, 10):
        ours = live_trace(pig_v0.raw_env(**kwargs), seed)
        theirs = live_trace(parallel_to_aec(pig_v0.parallel_env(**kwargs)), seed)
        assert ours[0] == theirs[0]
        assert ours[1] == pytest.approx(theirs[1]) and sum(ours[1].values()) == pytest.approx(0)
        assert sorted(ours[2]) == [f"player_{i}" for i in range(5)]  # each once, at the end
    env = pig_v0.raw_env(**kwargs)
    env.reset(seed=9)
    rng = np.random.default_rng(9)  # random play touches noses: a game ends (D12)
    left = None
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        gone = [a for a in env.agents if env.terminations[a]]
        if term:  # a player who left is selected only once nobody plays any more
            assert all(env.terminations[a] or env.truncations[a] for a in env.agents), agent
        elif gone:  # someone left; the game goes on without selecting him
            left = left or gone[0]
            assert env.rewards[gone[0]] in (0.0, -0.25) and env.legal_moves(gone[0]) == {}
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert left is not None


def test_tianshou_sees_every_reward_of_a_full_game():
    """Tianshou's ``PettingZooEnv`` ends an episode when the selected agent is done and sums
    ``env.rewards`` after each step: a full game's returns sum to 0, the winner's +1 included
    (it ended at the first elimination: ``[0, 0, -0.333, 0]``)."""
    tianshou_env = pytest.importorskip("tianshou.env")
    env = tianshou_env.PettingZooEnv(pig_v0.env(game="full"))
    rng = np.random.default_rng(0)
    for seed in range(3):
        obs, _ = env.reset(seed=seed)
        returns, done = np.zeros(4), False
        while not done:
            action = int(rng.choice(np.flatnonzero(obs["mask"])))
            obs, reward, term, trunc, info = env.step(action)
            returns += np.array(reward)
            done = term or trunc
        assert sorted(np.round(returns, 6)) == pytest.approx([-1 / 3] * 3 + [1])
        winner = int(info["result"]["winner"].removeprefix("player_"))
        assert returns[winner] == pytest.approx(1)


def test_arena_plays_the_same_game_through_aec_and_parallel():
    seats = [RandomAgent("pig", seed=s) for s in range(5)]
    by_aec = play_aec(pig_v0.env(game="full", num_players=5), seats, seed=4)
    seats = [RandomAgent("pig", seed=s) for s in range(5)]
    by_parallel = play_parallel(pig_v0.parallel_env(game="full", num_players=5), seats, seed=4)
    assert by_aec.result == by_parallel.result
    assert by_aec.rewards == pytest.approx(by_parallel.rewards)
    assert sum(by_aec.rewards.values()) == pytest.approx(0.0)


def test_illegal_actions_raise_in_raw_envs_and_follow_the_classic_convention_in_env():
    deck = ["KC", "AC", "KD", "KH", "QC", "AD", "QD", "KS", "JC", "AH", "JH", "QS"]
    deck += ["JD", "AS", "QH", "JS"]  # player_1 holds four aces
    par = make()
    par.reset(seed=0, options={"deck": deck})
    with pytest.raises(ValueError, match=r"player_0: action 4 \(nose\) is illegal now; legal"):
        par.step(dict.fromkeys(par.agents, 4))
    with pytest.raises(ValueError, match="no action for player_3"):
        par.step({"player_0": 0, "player_1": 3, "player_2": 0})
    with pytest.raises(ValueError, match="outside Discrete"):
        par.step({"player_0": 9, "player_1": 3, "player_2": 0, "player_3": 0})
    raw = pig_v0.raw_env()
    raw.reset(seed=0, options={"deck": deck})
    with pytest.raises(ValueError, match=r"player_0: action 3 \(pass A\) is illegal now"):
        raw.step(3)  # raised at once, before the other agents choose
    wrapped = pig_v0.env()
    wrapped.reset(seed=0, options={"deck": deck})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wrapped.step(0)
        wrapped.step(0)  # player_1 has no J: illegal
    assert wrapped.rewards["player_1"] == -1.0 and wrapped.rewards["player_0"] == 0.0
    assert all(wrapped.terminations.values())


def test_max_cycles_truncates_the_episode():
    env = make(game="full", max_cycles=5, max_passes=1000)
    obs, _ = env.reset(seed=0)
    for k in range(5):
        assert env.agents, f"ended after {k} steps"
        actions = {a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in env.agents}
        obs, _, terms, truncs, infos = env.step(actions)
    assert all(truncs.values()) and not any(terms.values()) and env.agents == []
    assert all("result" not in info for info in infos.values())
    with pytest.raises(ValueError, match="max_cycles"):
        make(max_cycles=0)


def test_render_shows_the_table_with_every_hand_face_down():
    env = make(render_mode="ansi", stock=True, game="full", letters=True)
    env.reset(seed=0)
    text = env.render()
    assert "player_3" in text and "dealer" in text and "stock 36" in text
    assert "??" in text
    assert not any(CARD_TEXTS[c] in text.split() for h in env.game_state.hands for c in h)
    with pytest.raises(ValueError, match="render_mode"):
        make(render_mode="video")


# ------------------------------------------------------------------------------- random play
def random_episodes(kwargs: dict, episodes: int, seed: int):
    """Seeded random play checking invariants after every step; yields per-episode facts.

    Uniformly random legal moves, except that ``nose`` (``token``) is taken with probability
    1/2 whenever legal, so that stock games do not drag on for thousands of capped passes.
    """
    env = make(**kwargs)
    rng = np.random.default_rng(seed)
    nose = env.actions.nose
    for episode in range(episodes):
        obs, _ = env.reset(seed=seed + episode)
        total, rounds = 0.0, []
        while env.agents:
            actions = {}
            for agent in env.agents:
                mask = obs[agent]["action_mask"]
                if mask[nose] and rng.random() < 0.5:
                    actions[agent] = nose
                else:
                    legal = np.flatnonzero(mask)
                    actions[agent] = int(legal[rng.integers(len(legal))])
            obs, rewards, _, _, infos = env.step(actions)
            env.check_invariants()  # cards conserved, hands of four, counters, …
            assert max(len(h) for h in env.game_state.hands) <= 4
            total += sum(rewards.values())
            ends = [i["round_result"] for i in infos.values() if "round_result" in i]
            assert all(r is ends[0] for r in ends)  # one round outcome, the same for all
            rounds += ends[:1]
            for ob in obs.values():
                vector = ob["observation"]
                assert vector.min() >= 0.0 and vector.max() <= 1.0  # every slice is in [0, 1]
        yield total, rounds, next(iter(infos.values()))["result"]


ROUND_CONFIGS = [  # (constructor keywords, episodes)
    ({"num_players": 4}, 300),
    ({"num_players": 3}, 200),
    ({"num_players": 8, "tokens": True}, 120),
    ({"num_players": 13}, 40),
    ({"num_players": 5, "false_nose": "pig"}, 120),
    ({"num_players": 6, "stock": True, "max_passes": 60}, 60),
    ({"num_players": 4, "tokens": True, "false_nose": "pig", "max_race_steps": 2}, 160),
]
FULL_CONFIGS = [
    ({"num_players": 4, "game": "full"}, 60),
    ({"num_players": 8, "game": "full"}, 15),
    ({"num_players": 6, "game": "full", "tokens": True}, 40),
    ({"num_players": 5, "game": "full", "letters": True}, 40),
    ({"num_players": 3, "game": "full", "false_nose": "pig"}, 45),
    ({"num_players": 4, "game": "full", "stock": True, "max_passes": 50}, 3),
]


def test_random_play_1000_rounds_conserve_cards_and_have_one_pig_each():
    count = capped = 0
    for i, (kwargs, episodes) in enumerate(ROUND_CONFIGS):
        for total, rounds, result in random_episodes(kwargs, episodes, 10_000 * i):
            assert abs(total) < 1e-9
            assert len(rounds) == 1  # one round per episode
            assert rounds[0]["capped"] == (rounds[0]["pig"] is None)  # one pig unless capped
            assert result["pig"] == rounds[0]["pig"]
            capped += result["capped"]
            count += 1
    assert count >= 1000 and capped < count // 4  # most rounds really end with a pig


def test_random_play_200_full_games_end_with_one_winner_and_zero_sum_rewards():
    count = 0
    for i, (kwargs, episodes) in enumerate(FULL_CONFIGS):
        n = kwargs["num_players"]
        for total, rounds, result in random_episodes(kwargs, episodes, 10_000 * i):
            assert abs(total) < 1e-9
            assert len(result["eliminated"]) == n - 1 and result["winner"] is not None
            assert {result["winner"], *result["eliminated"]} == {f"player_{s}" for s in range(n)}
            assert result["rounds"] == len(rounds)
            pigs = [r["pig"] for r in rounds if not r["capped"]]
            assert all(p is not None for p in pigs)
            if kwargs.get("letters"):  # P7: a player leaves as the pig of his third round
                thirds = [p for i, p in enumerate(pigs) if pigs[: i + 1].count(p) == 3]
                assert thirds == result["eliminated"]
                assert pigs.count(result["winner"]) <= 2
            else:
                assert pigs == result["eliminated"]
            count += 1
    assert count >= 200


# ------------------------------------------------------------------------ information sets


def test_the_view_holds_only_the_observers_cards():
    env = make(stock=True)
    env.reset(seed=1)
    view = env.view("player_2")
    assert view.hand == tuple(sorted(env.game_state.hands[2]))
    fields = set(vars(view)) if hasattr(view, "__dict__") else set(view.__dataclass_fields__)
    assert not fields & {"hands", "stock", "discard"}


def test_clone_is_independent_and_plays_on_identically():
    env = make(game="full", stock=True, letters=True)
    env.reset(seed=3)
    for _ in range(5):
        env.step({a: min(env.legal_moves(a)) for a in env.agents})
    copy = rules.clone(env.game_state)
    moves = [rules.WAIT] * 4
    for seat in env.game_state.seats_in:
        moves[seat] = rules.legal_moves(env.game_state, seat)[0]
    rules.apply(copy, moves, np.random.default_rng(0))
    assert copy.passes == env.game_state.passes + 1
    assert copy.hands != env.game_state.hands and copy.stock != env.game_state.stock
    again = rules.clone(env.game_state)
    rules.apply(again, moves, np.random.default_rng(0))
    assert again == copy  # dataclass equality: every field
    rules.check_invariants(env.game_state)


# ------------------------------------------------------------------------ recorded game
RECORD = DATA / "full_letters_tokens_5p.json"
RECORD_KWARGS = {"num_players": 5, "game": "full", "letters": True, "tokens": True}


def make_record() -> GameRecord:
    """The recorded game (regenerate with ``python -m tests.pig.test_env`` after a rules change)."""
    config = rules.Config(**RECORD_KWARGS)
    shuffle = np.random.default_rng(2024)
    decks = [[CARD_TEXTS[c] for c in shuffle.permutation(config.start_deck)] for _ in range(3)]
    rng = np.random.default_rng(7)

    def choose(agent, obs, env):
        legal = np.flatnonzero(obs["action_mask"])
        nose = env.unwrapped.parallel.actions.nose
        return nose if nose in legal and rng.random() < 0.7 else int(rng.choice(legal))

    return play_recorded(
        pig_v0.raw_env, "kiaule/pig-v0", RECORD_KWARGS, choose, seed=11, options={"decks": decks}
    )


def test_recorded_full_game_replays_exactly():
    record = GameRecord.load(RECORD)
    assert record.env_kwargs == RECORD_KWARGS
    result = replay(pig_v0.raw_env, record)
    assert result["winner"] is not None and result["rounds"] >= 8
    assert len(record.moves) > 100
    assert make_record().to_json() == record.to_json()  # the generator still makes it


def test_stacked_deck_helper_matches_the_deal():
    hands = [["AC", "AD", "AH", "AS"], ["KC", "KD", "KH", "KS"], ["QC", "QD", "QH", "QS"]]
    hands.append(["JC", "JD", "JH", "JS"])
    env = make()
    env.reset(options={"deck": deck_for(hands)})
    assert [sorted(CARD_TEXTS[c] for c in env.game_state.hands[s]) for s in range(4)] == [
        sorted(h) for h in hands
    ]


if __name__ == "__main__":
    DATA.mkdir(exist_ok=True)
    make_record().save(RECORD)
    print(f"wrote {RECORD}")


def test_an_eliminated_agent_can_still_be_observed_with_nothing_to_do():
    """P5: in a full game a player out keeps his last observation, with an all-zero mask and no
    legal moves, in the AEC version (it was a KeyError)."""
    env = pig_v0.raw_env(game="full", num_players=4)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    out = set()
    for agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            out.add(agent)
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
        for gone in out:
            assert not env.observe(gone)["action_mask"].any()
            assert env.legal_moves(gone) == {}
    assert len(out) == 4
