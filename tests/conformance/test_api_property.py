"""A property test over every env's public API (hypothesis): random sequences of ``reset``,
``step``, ``observe``, ``last`` and ``legal_moves`` with random, partly invalid arguments.

Every call either works or raises one of the documented error types with a message
(``ValueError`` for bad arguments, :class:`~kiaule_env.core.options.NotResetError` before the
first reset), and after a refused call the env is as usable as before: a legal move still plays.
"""

from __future__ import annotations

import warnings

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kiaule_env import GAMES
from kiaule_env.core.options import NotResetError

DOCUMENTED = (ValueError, NotResetError)

agents = st.sampled_from(["player_0", "player_1", "player_9", "", None, 3])
actions = st.one_of(
    st.integers(-3, 60), st.booleans(), st.none(), st.floats(allow_nan=True), st.text(max_size=2)
)
seeds = st.one_of(st.none(), st.integers(0, 2**31), st.integers(-5, -1), st.booleans())
options = st.one_of(st.none(), st.just({}), st.just({"bogus": 1}), st.just({"deck": ["AS"]}))
calls = st.one_of(
    st.tuples(st.just("reset"), seeds, options),
    st.tuples(st.just("step"), actions),
    st.tuples(st.just("step_legal")),
    st.tuples(st.just("observe"), agents),
    st.tuples(st.just("legal_moves"), agents),
    st.tuples(st.just("last")),
)


def _call(env, call) -> None:
    name, *args = call
    if name == "reset":
        env.reset(seed=args[0], options=args[1])
    elif name == "step":
        env.step(args[0])
    elif name == "step_legal":
        _step_legal(env)
    elif name == "last":
        env.last()
    else:
        getattr(env, name)(args[0])


def _step_legal(env) -> None:
    if env.game_state is None or not env.agents:
        return
    _, _, term, trunc, _ = env.last()
    if term or trunc:
        env.step(None)
        return
    legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
    env.step(int(legal[0]))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=st.sampled_from(list(GAMES)), sequence=st.lists(calls, max_size=25))
def test_every_call_works_or_raises_a_documented_error(game, sequence):
    env = GAMES[game].raw_env()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for call in sequence:
            before = None if env.game_state is None else repr(env.game_state)
            try:
                _call(env, call)
            except DOCUMENTED as exc:
                assert str(exc), f"{call}: an error without a message"
                after = None if env.game_state is None else repr(env.game_state)
                assert after == before, f"{call}: a refused call changed the game"
                _step_legal(env)  # still usable
