"""The search agents (``agents/search.py``): seeded, blind to hidden cards, better than chance.

Every game with decisions has ``<game>/pimc``; the turn-based ones ``<game>/ismcts``.
"""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.random_agent import RandomAgent
from agents.search import ISMCTSAgent, PIMCAgent
from kiaule_env import GAMES, get_game
from kiaule_env.core.play import LazyDecision, play_episode
from kiaule_env.core.simulate import CompiledSimulator, PythonSimulator, compiled_module

SEARCH = [
    (game, kind)
    for game, d in GAMES.items()
    if d.has_decisions
    for kind in ("pimc", "ismcts")
    if kind == "pimc" or not d.engine_class().simultaneous
]
#: small budgets: the tests check behaviour, not strength
BUDGET = {"pimc": "worlds=3", "ismcts": "iterations=24"}
#: small configurations so that Python-engine playouts stay quick (each descriptor's own)
SMALL = {name: dict(game.small_options) for name, game in GAMES.items()}


def _spec(game: str, kind: str) -> str:
    return f"{game}/{kind}:{BUDGET[kind]}"


def first_kozel_choice(seed: int):
    """The first decision of a seeded Kozel deal with more than one legal move."""
    env = get_game("kozel").raw_env()
    env.reset(seed=seed)
    while True:
        decision = agents.decision_from_env(env, env.agent_selection)
        if len(decision.legal_moves) > 1:
            return decision
        env.step(next(iter(decision.legal_moves)))


def test_registered_for_every_game_with_decisions():
    for game, d in GAMES.items():
        names = agents.list_agents(game)
        assert (f"{game}/pimc" in names) == d.has_decisions
        turn_based = d.has_decisions and not d.engine_class().simultaneous
        assert (f"{game}/ismcts" in names) == turn_based
    assert "pig/ismcts" not in agents.list_agents("pig")  # simultaneous moves: PIMC only


def _game(game: str, kind: str, seed: int):
    env = get_game(game).raw_env(**SMALL[game])
    n = len(env.possible_agents)
    players = [agents.make(_spec(game, kind), seed=seed)] + [
        RandomAgent(game, seed + i) for i in range(1, n)
    ]
    return play_episode(env, players, seed=seed, record=True)


@pytest.mark.parametrize(("game", "kind"), SEARCH)
def test_deterministic_for_a_seed(game, kind):
    first, again = _game(game, kind, 3), _game(game, kind, 3)
    assert first.moves == again.moves and first.rewards == again.rewards


class _BlindCheck:
    """At the search seat's decisions, the agent's move must not depend on the hidden cards:
    the same agent state in a state with the seat's hidden cards redealt plays the same."""

    def __init__(self, spec: str, seat: int, limit: int = 6):
        self.spec, self.seat, self.limit = spec, seat, limit
        self.rng = np.random.default_rng(1)
        self.checked = 0

    def start(self, env) -> None:
        pass

    def before(self, env, seats, actions) -> None:
        if self.seat not in seats or self.checked >= self.limit:
            return
        engine, state = env.engine, env.game_state
        legal = engine.legal_actions(state, self.seat)
        if len(legal) < 2:
            return
        other = engine.resample_hidden(state, self.seat, self.rng)
        choices = []
        for s in (state, other):
            agent = agents.make(self.spec, seed=11)
            choices.append(agent.act(LazyDecision(engine, s, self.seat, legal)))
        assert choices[0] == choices[1], "the search looked at hidden cards"
        self.checked += 1

    def after(self, env, seats, actions, info) -> None:
        pass


@pytest.mark.parametrize(("game", "kind"), SEARCH)
def test_a_move_does_not_depend_on_hidden_cards(game, kind):
    env = get_game(game).raw_env(**SMALL[game])
    check = _BlindCheck(_spec(game, kind), 0)
    for seed in range(6):
        players = [RandomAgent(game, seed)] * len(env.possible_agents)
        play_episode(env, players, seed=seed, observer=check)
        if check.checked >= 6:
            break
    assert check.checked >= 3


class _Clairvoyant(PIMCAgent):
    """A PIMC that searches the true state (what the blind check must catch)."""

    def _worlds(self, decision):
        sim = self._sim
        while True:
            yield sim.load(decision._state)


def test_the_blind_check_catches_a_clairvoyant_search(monkeypatch):
    monkeypatch.setitem(
        agents.registry._FACTORIES, "kozel/peek", lambda seed=0, **o: _Clairvoyant("kozel", seed)
    )
    env = get_game("kozel").raw_env()
    check = _BlindCheck("kozel/peek", 0, limit=200)
    with pytest.raises(AssertionError, match="hidden cards"):
        for seed in range(20):
            play_episode(env, [RandomAgent("kozel", seed)] * 4, seed=seed, observer=check)


#: the turn-based games: with simultaneous moves (Pig) a handful of games does not separate
#: a search on these small budgets from chance
TURN_BASED = [s for s in SEARCH if not GAMES[s[0]].engine_class().simultaneous]


@pytest.mark.parametrize(("game", "kind"), TURN_BASED)
def test_better_than_random(game, kind):
    """Seat-rotated games against random agents (the search's partners search too, K1): the
    search's mean reward is positive."""
    total = 0.0
    descriptor = get_game(game)
    env = descriptor.raw_env(**SMALL[game])
    n = len(env.possible_agents)
    games = max(6, 2 * n)  # every seat at least twice
    for g in range(games):
        seat = g % n
        players = [RandomAgent(game, 100 + g * n + i) for i in range(n)]
        for k, s in enumerate(descriptor.team_of(seat)):
            players[s] = agents.make(_spec(game, kind), seed=g + 50 * k)
        total += play_episode(env, players, seed=g).rewards[seat]
    assert total / games > 0


def test_decision_without_engine_is_refused():
    env = get_game("kozel").raw_env()
    env.reset(seed=0)
    agent = env.agent_selection
    decision = agents.decision_from_env(env, agent)
    decision.engine = None
    with pytest.raises(ValueError, match="needs the game's engine"):
        agents.make("kozel/pimc").act(decision)


def test_seconds_budget_stops_in_time():
    import time

    decision = first_kozel_choice(seed=1)
    agent = PIMCAgent("kozel", seed=0, seconds=0.05)
    start = time.perf_counter()
    agent.act(decision)
    assert time.perf_counter() - start < 2.0


def test_a_time_budget_stops_at_the_iteration_cap(monkeypatch):
    from agents import search

    decision = first_kozel_choice(seed=2)
    agent = ISMCTSAgent("kozel", seed=0, iterations=10, seconds=30.0)
    monkeypatch.setitem(search.MAX_BUDGETS, "iterations", 40)
    root = agent.search(decision, agent._simulator(decision))
    assert sum(c.visits for c in root.children.values()) == 40  # not 30 seconds of iterations


def test_ismcts_tree_visits_add_up():
    decision = first_kozel_choice(seed=2)
    agent = ISMCTSAgent("kozel", seed=0, iterations=50)
    root = agent.search(decision, agent._simulator(decision))
    seat = int(decision.agent[-1])
    assert sum(c.visits for c in root.children.values()) == 50
    assert {a for s, a in root.children} <= set(decision.legal_moves)
    assert all(s == seat for s, _ in root.children)


@pytest.mark.parametrize("game", [g for g, d in GAMES.items() if d.has_decisions])
def test_compiled_and_python_simulators_agree_step_by_step(game):
    """Where a compiled twin exists, the simulator API gives the same moves and rewards."""
    pytest.importorskip("numba")
    engine = get_game(game).make_engine(**SMALL[game])
    module = compiled_module(engine)
    if module is None:
        pytest.skip(f"no compiled twin for {game}")
    rng = np.random.default_rng(0)
    for seed in range(5):
        state = engine.new_episode(np.random.default_rng(seed), {})
        py, co = PythonSimulator(engine), CompiledSimulator(engine, module)
        a, b = py.load(state), co.load(state)
        while not py.over(a):
            assert not co.over(b)
            seats = py.to_act(a)
            assert co.to_act(b) == seats
            joint = []
            for s in seats:
                legal = list(py.legal(a, s))
                assert list(co.legal(b, s)) == legal
                joint.append(legal[int(rng.integers(len(legal)))])
            assert np.array_equal(py.apply(a, joint), co.apply(b, joint))
        assert co.over(b)
