"""``pig/heuristic``: better than random (paired 95% CI), always legal, deterministic, its rules."""

from __future__ import annotations

import numpy as np
import pytest

from agents.arena import play_parallel
from agents.base import Decision
from agents.pig import PigHeuristic
from agents.registry import list_agents, make
from kiaule_env import pig_v0
from kiaule_env.pig.rules import RACE, has_four
from tests.pig.util import deck_for, step

ROTATIONS = ("HHRR", "RHHR", "RRHH", "HRRH", "HRHR", "RHRH")


def seats_for(pattern: str, game: int) -> list:
    return [
        make("pig/heuristic", seed=game) if c == "H" else make("pig/random", seed=10 * game + i)
        for i, c in enumerate(pattern)
    ]


def test_heuristic_beats_random_with_a_95_percent_paired_confidence_interval():
    env = pig_v0.parallel_env(num_players=4)
    differences = []
    for game in range(300):
        pattern = ROTATIONS[game % len(ROTATIONS)]
        outcome = play_parallel(env, seats_for(pattern, game), seed=game)
        rewards = [outcome.rewards[f"player_{i}"] for i in range(4)]
        mine = np.mean([r for r, c in zip(rewards, pattern, strict=True) if c == "H"])
        theirs = np.mean([r for r, c in zip(rewards, pattern, strict=True) if c == "R"])
        differences.append(mine - theirs)  # paired: the same game, heuristic minus random
    d = np.asarray(differences)
    half_width = 1.96 * d.std(ddof=1) / np.sqrt(len(d))
    assert d.mean() - half_width > 0, f"mean difference {d.mean():.3f} ± {half_width:.3f}"


class CheckedHeuristic(PigHeuristic):
    """The heuristic, asserting that every answer is one of the decision's legal moves."""

    decisions = 0

    def act(self, decision: Decision) -> int:
        action = super().act(decision)
        assert action in decision.legal_moves
        assert decision.action_mask[action] == 1
        view = decision.view
        if decision.legal_moves[action] == view.nose_word and view.phase != RACE:
            assert has_four(view.hand), "a false touch"
        CheckedHeuristic.decisions += 1
        return action


@pytest.mark.parametrize(
    "kwargs",
    [
        {"num_players": 4, "tokens": True, "false_nose": "pig"},
        {"num_players": 6, "stock": True},
        {"num_players": 5, "game": "full", "letters": True},
        {"num_players": 13},
        {"num_players": 3, "game": "full", "stock": True, "max_passes": 40},
    ],
)
def test_heuristic_only_plays_legal_moves_and_never_touches_falsely(kwargs):
    env = pig_v0.parallel_env(**kwargs)
    n = kwargs["num_players"]
    CheckedHeuristic.decisions = 0
    for game in range(6):
        seats = [CheckedHeuristic() if i % 2 == 0 else make("pig/random", seed=i) for i in range(n)]
        outcome = play_parallel(env, seats, seed=game)
        assert outcome.result is not None
        assert sum(outcome.rewards.values()) == pytest.approx(0.0)
    assert CheckedHeuristic.decisions >= 6  # (false touches by random players end rounds fast)


def test_heuristic_is_deterministic_for_a_seed():
    def moves(seed):
        env = pig_v0.parallel_env(num_players=5, game="full")
        seats = [make("pig/heuristic", seed=seed) for _ in range(5)]
        return play_parallel(env, seats, seed=seed, record_moves=True).moves

    assert moves(3) == moves(3)
    assert moves(3) != moves(4)


def test_registered_with_random():
    assert {"pig/heuristic", "pig/random"} <= set(list_agents("pig"))
    assert make("pig/heuristic", seed=1).name == "pig/heuristic"


def decision(env, agent: str) -> Decision:
    obs = env.observe(agent)
    return Decision(
        agent, obs["observation"], obs["action_mask"], env.view(agent), env.legal_moves(agent)
    )


def test_rules_keep_the_rank_held_most_and_nose_at_once():
    hands = [["KC", "QC", "QD", "JD"], ["AC", "AD", "AH", "AS"]]
    hands += [["KD", "JC", "JH", "QH"], ["KH", "KS", "QS", "JS"]]
    env = pig_v0.parallel_env(false_nose="pig")
    env.reset(seed=0, options={"deck": deck_for(hands)})
    agent = PigHeuristic()
    texts = {a: env.legal_moves(a)[agent.act(decision(env, a))] for a in env.agents}
    assert texts["player_1"] == "nose"  # four aces: touch at once
    assert texts["player_0"] == "pass J"  # keeps the pair of queens, passes the lower single
    assert texts["player_2"] == "pass Q"  # keeps the pair of jacks
    assert texts["player_3"] == "pass J"  # keeps the kings; never a false touch
    step(env, ["pass K", "nose", "pass K", "pass J"])
    assert env.legal_moves("player_0")[agent.act(decision(env, "player_0"))] == "nose"
    assert env.legal_moves("player_1")[agent.act(decision(env, "player_1"))] == "wait"


def test_ties_keep_the_rank_others_are_least_likely_collecting():
    hands = [["JC", "QC", "QD", "KC"], ["AC", "AD", "KD", "JH"]]
    hands += [["AH", "AS", "KH", "QH"], ["JD", "QS", "KS", "JS"]]
    env = pig_v0.parallel_env(max_passes=10)
    env.reset(seed=0, options={"deck": deck_for(hands)})
    step(env, ["pass K", "pass J", "pass K", "pass J"])  # player_0 gives KC, gets JD
    view = env.view("player_0")
    assert view.hand_counts[9:11] == (2, 2)  # J J Q Q: a tie
    assert view.received_counts[9] == 1  # his right gave a J away: keep the Js
    agent = PigHeuristic()
    assert env.legal_moves("player_0")[agent.act(decision(env, "player_0"))] == "pass Q"
    fresh = pig_v0.parallel_env()  # without that memory the higher rank (Q) is kept
    again = [["JC", "JD", "QC", "QD"], *hands[1:3], ["KC", "QS", "KS", "JS"]]
    fresh.reset(seed=0, options={"deck": deck_for(again)})
    assert fresh.legal_moves("player_0")[agent.act(decision(fresh, "player_0"))] == "pass J"


def _shares_by_text(env, agent: str, heuristic: PigHeuristic) -> dict[str, float]:
    _, policy = heuristic.act_with_policy(decision(env, agent))
    return {env.legal_moves(agent)[a]: p for a, p in policy.items()}


def test_random_ties_share_out_exactly_the_tied_ranks():
    # player_0 holds J J Q Q with no memory: keep J or Q (1/2 each), then pass the other
    # player_2 holds A K Q J: keep any of four, then pass one of the other three (1/4 each)
    hands = [["JC", "JD", "QC", "QD"], ["AC", "AD", "AH", "KD"]]
    hands += [["AS", "KH", "QH", "JH"], ["KC", "KS", "QS", "JS"]]
    env = pig_v0.parallel_env()
    env.reset(seed=0, options={"deck": deck_for(hands)})
    rank_ties, random_ties = PigHeuristic(), PigHeuristic(seed=1, ties="random")
    assert _shares_by_text(env, "player_0", random_ties) == {"pass J": 0.5, "pass Q": 0.5}
    assert _shares_by_text(env, "player_0", rank_ties) == {"pass J": 1.0}  # keeps the higher Q
    spread = _shares_by_text(env, "player_2", random_ties)
    assert spread == pytest.approx({f"pass {r}": 0.25 for r in "AKQJ"})
    # no tie: the same single move either way (player_1 keeps the aces, passes the king)
    assert _shares_by_text(env, "player_1", random_ties) == {"pass K": 1.0}
    assert _shares_by_text(env, "player_3", random_ties) == {"pass J": 0.5, "pass Q": 0.5}
    # act draws from that distribution, reproducibly for a seed
    draws = [PigHeuristic(seed=s, ties="random").act(decision(env, "player_2")) for s in range(200)]
    texts = [env.legal_moves("player_2")[a] for a in draws]
    assert {t: texts.count(t) for t in set(texts)}.keys() == {f"pass {r}" for r in "AKQJ"}
    assert min(texts.count(f"pass {r}") for r in "AKQJ") > 25
    again = [PigHeuristic(seed=s, ties="random").act(decision(env, "player_2")) for s in range(200)]
    assert draws == again


def test_random_ties_keep_the_rank_rules_and_the_nose():
    # the score (received − passed) still decides before chance: J J Q Q after receiving a J
    hands = [["JC", "QC", "QD", "KC"], ["AC", "AD", "KD", "JH"]]
    hands += [["AH", "AS", "KH", "QH"], ["JD", "QS", "KS", "JS"]]
    env = pig_v0.parallel_env(max_passes=10)
    env.reset(seed=0, options={"deck": deck_for(hands)})
    step(env, ["pass K", "pass J", "pass K", "pass J"])
    assert _shares_by_text(env, "player_0", PigHeuristic(ties="random")) == {"pass Q": 1.0}
    four = [["AC", "AD", "AH", "AS"], ["KC", "KD", "KH", "QS"]]
    four += [["QC", "QD", "QH", "JS"], ["JC", "JD", "JH", "KS"]]
    env.reset(seed=0, options={"deck": deck_for(four)})
    assert _shares_by_text(env, "player_0", PigHeuristic(ties="random")) == {"nose": 1.0}


def test_ties_option_is_checked_and_named():
    assert make("pig/heuristic:ties=random", seed=3).ties == "random"
    with pytest.raises(ValueError, match="ties must be one of rank, random, got 'coin'"):
        make("pig/heuristic:ties=coin")
