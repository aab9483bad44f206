"""``ClassicWrapper`` behaves exactly like PettingZoo's classic wrapper stack, in one layer."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.utils import wrappers

from kiaule_env import kozel_v0
from kiaule_env.core.aec import ClassicWrapper, wrap_classic


def pettingzoo_stack(raw):
    env = wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    return wrappers.OrderEnforcingWrapper(env)


def trace(env, illegal_at: int | None, seed: int = 5):
    """Play random legal moves (one illegal one at step ``illegal_at``); record everything."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out, step = [], 0
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        out.append((agent, reward, term, trunc, sorted(info), obs["action_mask"].tolist()))
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        if step == illegal_at:
            action = int(np.flatnonzero(obs["action_mask"] == 0)[0])
        else:
            action = int(legal[rng.integers(len(legal))])
        env.step(action)
        step += 1
    return out


@pytest.mark.parametrize("illegal_at", [None, 0, 7])
def test_same_trace_as_the_pettingzoo_stack(illegal_at):
    ours = trace(wrap_classic(kozel_v0.raw_env()), illegal_at)
    theirs = trace(pettingzoo_stack(kozel_v0.raw_env()), illegal_at)
    assert ours == theirs
    if illegal_at is not None:
        offender = ours[illegal_at][0]
        finals = {a: r for a, r, *_ in ours[illegal_at + 1 :]}
        assert finals[offender] == -1 and all(r == 0 for a, r in finals.items() if a != offender)


def test_order_and_bounds_are_enforced():
    env = ClassicWrapper(kozel_v0.raw_env())
    with pytest.raises(AttributeError, match="before reset"):
        _ = env.agent_selection
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"integer index into Discrete\(47\), got 10000"):
        env.step(10_000)  # PettingZoo's stack asserts; ours raises (and survives python -O)
    for flag in (True, False, np.True_):
        with pytest.raises(ValueError, match="integer index"):
            env.step(flag)
