"""The OpenSpiel bridge (``kiaule_env.openspiel``, extra ``openspiel``): every sequential game
of ``kiaule_env.GAMES`` registered with pyspiel (Pig as a simultaneous game), explicit chance
for the deal, ``random_sim_test``, and the same game as the env."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import kiaule_env.openspiel  # noqa: E402 - registers the games
from kiaule_env import kozel_v0  # noqa: E402
from kiaule_env.cards import CARD_TEXTS  # noqa: E402
from kiaule_env.kozel.rules import DECK  # noqa: E402

KOZEL_PARAMS = [
    {},
    {"trump_card": "bottom"},
    {"molodka": "trumps", "reward": "win_loss"},
    {"molodka": "none", "beat_partner": False, "reward": "card_points"},
]


def test_kozel_is_registered():
    assert "kiaule_kozel" in pyspiel.registered_names()
    game = pyspiel.load_game("kiaule_kozel")
    kind = game.get_type()
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert game.num_players() == 4 and game.num_distinct_actions() == 47
    assert game.max_chance_outcomes() == 36


@pytest.mark.parametrize("params", KOZEL_PARAMS, ids=lambda p: ",".join(p) or "default")
def test_kozel_random_sim_test(params):
    game = pyspiel.load_game("kiaule_kozel", params)
    pyspiel.random_sim_test(game, num_sims=3, serialize=not params, verbose=False)


def test_kozel_the_deal_is_36_uniform_chance_nodes():
    state = pyspiel.load_game("kiaule_kozel").new_initial_state()
    for k in range(36):
        assert state.is_chance_node()
        outcomes = state.chance_outcomes()
        assert len(outcomes) == 36 - k
        assert sum(p for _, p in outcomes) == pytest.approx(1.0)
        assert len({p for _, p in outcomes}) == 1
        state.apply_action(outcomes[-1][0])
    assert not state.is_chance_node() and state.current_player() >= 0
    with pytest.raises(ValueError, match="at a decision node"):
        state.chance_outcomes()


def _play_bridge(seed: int, params: dict):
    """A random game through pyspiel: the deck, the moves, every step's observations and
    rewards."""
    rng = np.random.default_rng(seed)
    state = pyspiel.load_game("kiaule_kozel", params).new_initial_state()
    while state.is_chance_node():
        actions, probs = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(int(rng.choice(actions, p=probs)))
    deck = [CARD_TEXTS[DECK.cards[i]] for i in state.history()]
    trace = []
    while not state.is_terminal():
        player = state.current_player()
        obs = [np.asarray(state.observation_tensor(p), np.float32) for p in range(4)]
        action = int(rng.choice(state.legal_actions()))
        state.apply_action(action)
        trace.append((player, action, obs, state.rewards()))
    return deck, trace, state.returns()


@pytest.mark.parametrize("params", KOZEL_PARAMS[:2], ids=["default", "bottom"])
def test_kozel_bridge_plays_the_env_game(params):
    """The same deck and moves through ``kozel_v0.raw_env``: the same seats to act, legal moves
    accepted, the same observations of every seat, rewards and returns."""
    for seed in (0, 1):
        deck, trace, returns = _play_bridge(seed, params)
        env = kozel_v0.raw_env(**params)
        env.reset(seed=seed, options={"deck": deck})
        totals = dict.fromkeys(env.possible_agents, 0.0)
        for player, action, obs, rewards in trace:
            assert env.agent_selection == f"player_{player}"
            for p in range(4):
                np.testing.assert_array_equal(obs[p], env.observe(f"player_{p}")["observation"])
            env.step(action)
            assert [env.rewards[a] for a in env.possible_agents] == rewards
            for a in env.possible_agents:
                totals[a] += env.rewards[a]
        assert all(env.terminations.values())
        assert list(totals.values()) == returns
        assert sum(returns) == pytest.approx(0.0)


def test_kozel_after_the_deal_the_engine_draws_nothing():
    """Why the deal is the only chance: a stacked single game plays the same under any generator."""
    engine = kozel_v0.GAME.make_engine()
    deck = [CARD_TEXTS[c] for c in DECK.shuffled(np.random.default_rng(3))]
    a = engine.new_episode(np.random.default_rng(1), {"deck": deck})
    b = engine.new_episode(np.random.default_rng(2), {"deck": deck})
    rng = np.random.default_rng(0)
    while not engine.is_over(a):
        seat = engine.to_act(a)[0]
        assert engine.to_act(b) == (seat,)
        assert list(engine.legal_actions(a, seat)) == list(engine.legal_actions(b, seat))
        action = int(rng.choice(engine.legal_actions(a, seat)))
        assert list(engine.apply(a, (action,))) == list(engine.apply(b, (action,)))
    assert engine.result(a) == engine.result(b)


def test_kozel_observation_string_is_the_view_and_hides_the_deal():
    game = pyspiel.load_game("kiaule_kozel")
    state = game.new_initial_state()
    state.apply_action(5)
    assert state.observation_string(0) == "dealing 1/36"
    assert not np.asarray(state.observation_tensor(0)).any()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    view = kozel_v0.GAME.make_engine().view
    raw = state.game_state
    for p in range(4):
        assert state.observation_string(p) == repr(view(raw, p))
    assert state.observation_string(0) != state.observation_string(1)


def test_kozel_bad_parameters_and_observation_types():
    with pytest.raises(ValueError, match="trump_card='top' is not allowed"):
        pyspiel.load_game("kiaule_kozel", {"trump_card": "top"})
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter"):
        pyspiel.load_game("kiaule_kozel", {"series": True})
    game = pyspiel.load_game("kiaule_kozel")
    for recall in (False, True):
        with pytest.raises(ValueError, match="the seat's private and the public information"):
            game.make_py_observer(
                pyspiel.IIGObservationType(
                    perfect_recall=recall, private_info=pyspiel.PrivateInfoType.ALL_PLAYERS
                )
            )
        with pytest.raises(ValueError, match="not supported"):
            game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=recall), {"x": 1})
    with pytest.raises(ValueError, match="not supported"):
        game.make_py_observer(None, {"x": 1})


#: the sequential games of :data:`kiaule_env.GAMES` the bridge offers (Pig, simultaneous, apart)
SEQUENTIAL = [
    f"kiaule_{name}"
    for name, game in kiaule_env.GAMES.items()
    if game.openspiel is not None and not game.engine_class().simultaneous
]
#: the parameters the generic tests cover where a game needs its own (several configurations,
#: small caps that keep Python-speed games short); every other game is covered with its defaults
CONFIGS = {
    "kiaule_kiauliaganys": [
        {"num_players": 2, "deck": 36, "max_turns": 40, "pips": "face"},
        {"num_players": 3, "repetition": 0, "max_turns": 60},
    ],
    "kiaule_elgeta": [
        {"num_players": 3, "deck": 32, "max_tricks": 60},
        {"num_players": 2, "deck": 32, "max_tricks": 200},
        {"num_players": 4, "deck": 52, "max_tricks": 40},
    ],
}
#: (short name, parameters) the generic tests cover
BRIDGED = [(name, params) for name in SEQUENTIAL for params in CONFIGS.get(name, [{}])]
BRIDGED_IDS = [f"{n}-{','.join(f'{k}={v}' for k, v in p.items()) or 'default'}" for n, p in BRIDGED]


def test_every_bridged_game_is_registered():
    names = set(pyspiel.registered_names())
    assert set(SEQUENTIAL) <= names
    assert {"kiaule_kozel", "kiaule_kiauliaganys"} <= set(SEQUENTIAL)  # the bridge is no no-op


@pytest.mark.parametrize(("name", "params"), BRIDGED, ids=BRIDGED_IDS)
def test_bridged_random_sim_test(name, params):
    pyspiel.random_sim_test(
        pyspiel.load_game(name, params), num_sims=2, serialize=True, verbose=False
    )


def _random_bridge_game(name: str, params: dict, seed: int):
    """A random game through pyspiel: its deal's reset options, the decisions (seat, action,
    observation of every seat before it, rewards after it), the returns."""
    game = pyspiel.load_game(name, params)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while state.is_chance_node():
        actions, probs = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(int(rng.choice(actions, p=probs)))
    options = game.deal.options(state.drawn)
    n = game.num_players()
    trace = []
    while not state.is_terminal():
        player = state.current_player()
        obs = [np.asarray(state.observation_tensor(p), np.float32) for p in range(n)]
        action = int(rng.choice(state.legal_actions()))
        state.apply_action(action)
        trace.append((player, action, obs, state.rewards()))
    return game, options, trace, state.returns()


@pytest.mark.parametrize(("name", "params"), BRIDGED, ids=BRIDGED_IDS)
def test_bridged_game_is_the_env_game(name, params):
    """The deal's options and the decisions replayed in the game's raw env: the same seats to
    act, the same observations of every seat, rewards and returns (zero-sum)."""
    game_name = name.removeprefix("kiaule_")
    for seed in (0, 1):
        game, options, trace, returns = _random_bridge_game(name, params, seed)
        env_options = {k: v for k, v in kiaule_env.openspiel._options(game.spec, params).items()}
        env = kiaule_env.GAMES[game_name].raw_env(**env_options)
        env.reset(seed=seed, options=options)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        for player, action, obs, rewards in trace:
            assert env.agent_selection == f"player_{player}"
            for p, agent in enumerate(env.possible_agents):
                np.testing.assert_array_equal(obs[p], env.observe(agent)["observation"])
            env.step(action)
            assert [env.rewards[a] for a in env.possible_agents] == rewards
            for a in env.possible_agents:
                totals[a] += env.rewards[a]
        assert all(env.terminations.values())
        assert list(totals.values()) == pytest.approx(returns)
        assert sum(returns) == pytest.approx(0.0)


@pytest.mark.parametrize(("name", "params"), BRIDGED, ids=BRIDGED_IDS)
def test_bridged_engine_draws_nothing_after_the_deal(name, params):
    """Why the deal is the only chance: after it, the episode plays the same under any
    generator."""
    game = pyspiel.load_game(name, params)
    engine = game.engine
    state = game.new_initial_state()
    rng = np.random.default_rng(5)
    while state.is_chance_node():
        state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
    options = game.deal.options(state.drawn)
    a = engine.new_episode(np.random.default_rng(1), options)
    b = engine.new_episode(np.random.default_rng(2), options)
    while not engine.is_over(a):
        seat = engine.to_act(a)[0]
        assert engine.to_act(b) == (seat,)
        legal = list(engine.legal_actions(a, seat))
        assert list(engine.legal_actions(b, seat)) == legal
        action = int(rng.choice(legal))
        assert list(engine.apply(a, (action,))) == list(engine.apply(b, (action,)))
    assert engine.is_over(b) and engine.result(a) == engine.result(b)


def test_elgeta_deal_has_the_distribution_of_deal_piles():
    """Three players: the suit left out is uniform over four, each pile holds its seat's suit
    (E2) and every card of it is equally likely on top."""
    game = pyspiel.load_game("kiaule_elgeta", {"num_players": 3, "deck": 32})
    state = game.new_initial_state()
    assert [p for _, p in state.chance_outcomes()] == [0.25] * 4
    state.apply_action(1)  # leave out SEAT_SUITS[1] = clubs
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 8 and all(p == pytest.approx(1 / 8) for _, p in outcomes)
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    piles = game.deal.options(state.drawn)["piles"]
    assert [{c[-1] for c in pile} for pile in piles] == [{"S"}, {"D"}, {"H"}]
    assert all(len(pile) == 8 for pile in piles)


PIG_PARAMS = [{}, {"num_players": 3}, {"false_nose": "pig", "max_race_steps": 3}, {"tokens": True}]


def test_pig_is_a_simultaneous_game():
    game = pyspiel.load_game("kiaule_pig")
    assert game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert game.num_players() == 4 and game.num_distinct_actions() == 6


@pytest.mark.parametrize("params", PIG_PARAMS, ids=lambda p: ",".join(p) or "default")
def test_pig_random_sim_test(params):
    game = pyspiel.load_game("kiaule_pig", params)
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def _deal(state, rng) -> None:
    while state.is_chance_node() and state.game_state is None:
        state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))


def test_pig_reaction_order_is_explicit_chance():
    """Two players touching in one step (P3): chance picks their order one at a time, uniformly,
    and the engine's order is the one picked."""
    from kiaule_env.pig.rules import NOSE

    game = pyspiel.load_game("kiaule_pig", {"false_nose": "pig"})  # a nose is always legal
    state = game.new_initial_state()
    _deal(state, np.random.default_rng(0))
    nose = game.engine.codec.to_action(NOSE)
    passes = [min(a for a in state.legal_actions(p) if a != nose) for p in range(4)]
    state.apply_actions([nose, passes[1], nose, passes[3]])  # player_0 and player_2 touch
    assert state.is_chance_node()
    outcomes = state.chance_outcomes()
    assert [a for a, _ in outcomes] == [0, 1] and all(p == 0.5 for _, p in outcomes)
    state.apply_action(1)  # the second toucher (player_2) first; the last pick is forced
    assert not state.is_chance_node()
    assert state.game_state.touched[:2] == [2, 0]


def test_pig_observations_and_rewards_are_the_engines():
    game = pyspiel.load_game("kiaule_pig", {"num_players": 3})
    engine = game.engine
    rng = np.random.default_rng(3)
    for _ in range(3):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
                continue
            for p in range(3):
                np.testing.assert_array_equal(
                    np.asarray(state.observation_tensor(p), np.float32),
                    engine.observe(state.game_state, p),
                )
                assert state.legal_actions(p) == list(engine.legal_actions(state.game_state, p))
            state.apply_actions([int(rng.choice(state.legal_actions(p))) for p in range(3)])
        result = engine.result(state.game_state)
        assert sum(state.returns()) == pytest.approx(0.0)
        if result["pig"] is None:  # a capped round: no pig, no rewards (P4)
            assert state.returns() == [0.0, 0.0, 0.0]
        else:  # P9: the pig −1, the others +1/(n−1)
            pig = int(result["pig"].removeprefix("player_"))
            assert state.returns() == [-1.0 if s == pig else 0.5 for s in range(3)]


def test_pig_refuses_unknown_parameters():
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter"):
        pyspiel.load_game("kiaule_pig", {"game": "full"})


@pytest.mark.parametrize(("name", "params"), BRIDGED[:2], ids=BRIDGED_IDS[:2])
def test_shimmy_plays_a_bridged_game_with_masks_in_info(name, params):
    """Shimmy's OpenSpiel → PettingZoo conversion runs on a bridged game; its masks sit in
    ``info["action_mask"]``, the layout of ``kiaule_env.wrappers.mask_in_info``."""
    shimmy = pytest.importorskip("shimmy")
    from kiaule_env.wrappers import mask_in_info

    env = shimmy.OpenSpielCompatibilityV0(env=pyspiel.load_game(name, params))
    ours = mask_in_info(kiaule_env.GAMES[name.removeprefix("kiaule_")].raw_env())
    ours.reset(seed=0)
    env.reset(seed=0)
    decisions = 0
    for _agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        ref_obs, _, _, _, ref_info = ours.last()
        assert obs.shape == ref_obs.shape  # Shimmy hands out float64 observations
        mask = info["action_mask"]
        assert (
            mask.dtype == ref_info["action_mask"].dtype
            and mask.shape == ref_info["action_mask"].shape
        )
        if term or trunc:
            env.step(None)
            continue
        decisions += 1
        env.step(int(np.flatnonzero(mask)[0]))
    assert decisions > 0


@pytest.mark.parametrize("name", SEQUENTIAL)
def test_shimmys_pettingzoo_wrapper_of_a_registered_game_passes_api_test(name):
    """Shimmy's OpenSpiel → PettingZoo conversion of our registered game passes PettingZoo's
    own ``api_test`` (the sequential games; Shimmy has no simultaneous-move conversion)."""
    import warnings

    from pettingzoo.test import api_test

    shimmy = pytest.importorskip("shimmy")
    env = shimmy.OpenSpielCompatibilityV0(env=pyspiel.load_game(name))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env, num_cycles=100)


# --- perfect-recall information states and resampling (IS-MCTS) ---------------------------


def _dealt(name: str, params: dict, seed: int):
    """A bridged state just after the deal, and the generator that dealt it."""
    rng = np.random.default_rng(seed)
    state = pyspiel.load_game(name, params).new_initial_state()
    while state.is_chance_node():
        state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
    return state, rng


#: the first configuration of every sequential game with decisions (private cards, decisions)
RECALL_GAMES = [
    (name, CONFIGS.get(name, [{}])[0])
    for name in SEQUENTIAL
    if kiaule_env.GAMES[name.removeprefix("kiaule_")].has_decisions
]


@pytest.mark.parametrize(("name", "params"), RECALL_GAMES, ids=[n for n, _ in RECALL_GAMES])
def test_information_state_is_the_sequence_of_the_seats_views(name, params):
    state, rng = _dealt(name, params, 3)
    n = state.get_game().num_players()
    assert state.get_game().get_type().provides_information_state_string
    before = [state.information_state_string(p) for p in range(n)]
    steps = 0
    while not state.is_terminal() and steps < 12:
        state.apply_action(int(rng.choice(state.legal_actions())))
        steps += 1
        for p in range(n):
            now = state.information_state_string(p)
            # perfect recall: what the seat knew stays, one new line (its view now) per step
            assert now.startswith(before[p] + "\n")
            assert now.endswith(repr(state.engine.view(state.game_state, p)))
            assert len(now.splitlines()) == steps + 1
            before[p] = now
    assert len(set(before)) == n  # private cards: every seat's information differs


@pytest.mark.parametrize(("name", "params"), RECALL_GAMES, ids=[n for n, _ in RECALL_GAMES])
def test_resample_keeps_the_information_state_and_redeals_the_rest(name, params):
    state, rng = _dealt(name, params, 7)
    for _ in range(6):
        state.apply_action(int(rng.choice(state.legal_actions())))
    player = state.current_player()
    other = (player + 1) % state.get_game().num_players()
    key = state.information_state_string(player)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    worlds = [state.resample_from_infostate(player, sampler) for _ in range(6)]
    for world in worlds:
        assert isinstance(world, kiaule_env.openspiel.KiauleState)
        assert world.information_state_string(player) == key
        assert world.observation_string(player) == state.observation_string(player)
        assert world.legal_actions() == state.legal_actions()
    # the hidden cards differ between worlds (the default sampler repeats its number: the
    # bridge's resample counter still varies the worlds)
    assert len({w.observation_string(other) for w in worlds}) > 1
    # a sampled world is a full state of the game: it plays to the end, zero-sum, and the
    # original is untouched
    world = worlds[0]
    while not world.is_terminal():
        world.apply_action(int(rng.choice(world.legal_actions())))
    assert sum(world.returns()) == pytest.approx(0.0)
    assert state.information_state_string(player) == key and not state.is_terminal()


def test_resample_refuses_the_deal_and_bad_seats():
    state = pyspiel.load_game("kiaule_kozel").new_initial_state()
    with pytest.raises(ValueError, match="decision node"):
        state.resample_from_infostate(0, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    state, _ = _dealt("kiaule_kozel", {}, 1)
    with pytest.raises(ValueError, match=r"player must be a seat 0\.\.3"):
        state.resample(4, np.random.default_rng(0))


def test_clone_is_independent_and_cheap_to_make():
    state, rng = _dealt("kiaule_kozel", {}, 2)
    clone = state.clone()
    assert clone.engine is state.engine  # the engine is shared, not copied per clone
    clone.apply_action(int(rng.choice(clone.legal_actions())))
    assert clone.game_state is not state.game_state
    assert len(clone.information_state_string(0)) > len(state.information_state_string(0))
    assert str(state) != str(clone)


_CPP_ISMCTS = """
import numpy as np, pyspiel
import kiaule_env.openspiel
state = pyspiel.load_game("kiaule_kozel").new_initial_state()
rng = np.random.default_rng(0)
while state.is_chance_node():
    state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
while len(state.legal_actions()) == 1:
    state.apply_action(state.legal_actions()[0])
bot = pyspiel.ISMCTSBot(1, pyspiel.RandomRolloutEvaluator(1, 1), 2.0, 4)
bot.step(state)
print("the C++ bot played")
"""


def test_cpp_ismcts_bot_crashes_on_a_python_game():
    """Documented limit (docs/interop.md): pyspiel's Python-game state does not forward
    ResampleFromInfostate, and the C++ ``pyspiel.ISMCTSBot`` kills the interpreter with a
    segmentation fault on these games (open_spiel 2.0.2), hence the separate process. The
    Python ``ISMCTSBot`` (wrapped in ``StatelessBot`` for ``evaluate_bots``) plays them."""
    import signal
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _CPP_ISMCTS], capture_output=True, text=True, timeout=120
    )
    assert "the C++ bot played" not in done.stdout
    assert done.returncode == -signal.SIGSEGV, (done.returncode, done.stderr[-2000:])


@pytest.mark.parametrize("label", ["kozel", "kiauliaganys"])
def test_ismcts_plays_full_games_against_our_random_agent(label):
    from experiments.examples.openspiel_ismcts_vs_heuristic import run_match

    results = run_match(label, games=2, simulations=6, seed=11, opponent="random")
    for result in results:
        assert sum(result.returns) == pytest.approx(0.0)
        assert result.bot_decisions > 0
    # seats swap: the bot sat on both sides
    assert results[0].bot_seats != results[1].bot_seats


TENSOR_GAMES = [
    *BRIDGED,
    ("kiaule_pig", {"num_players": 3, "max_passes": 30}),
]
TENSOR_IDS = [*BRIDGED_IDS, "kiaule_pig-3"]


def _random_step(state, rng, own: list[list[int]]) -> None:
    """One random step of any bridged game (chance, a turn, or Pig's joint action), noting
    each seat's own actions in ``own``."""
    if state.is_chance_node():
        state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
    elif state.is_simultaneous_node():
        joint = [int(rng.choice(state.legal_actions(p))) for p in range(len(own))]
        for seat in state.engine.to_act(state.game_state):
            own[seat].append(joint[seat])
        state.apply_actions(joint)
    else:
        action = int(rng.choice(state.legal_actions()))
        own[state.current_player()].append(action)
        state.apply_action(action)


@pytest.mark.parametrize(("name", "params"), TENSOR_GAMES, ids=TENSOR_IDS)
def test_information_state_tensor_is_the_observation_and_own_actions(name, params):
    """Fixed size (the observation, then one one-hot row per own decision up to the longest
    game), the observation part equal to the encoder's, the rows the seat's actions in order
    and nothing else; all zero during the deal."""
    game = pyspiel.load_game(name, params)
    assert game.get_type().provides_information_state_tensor
    n, width = game.num_players(), game.num_distinct_actions()
    obs_size = game.engine.encoder.layout.size
    size = obs_size + game.history_length * width
    assert game.information_state_tensor_shape() == [size]
    assert game.information_state_tensor_size() == size
    rng = np.random.default_rng(4)
    state = game.new_initial_state()
    assert not np.any(state.information_state_tensor(0))
    own: list[list[int]] = [[] for _ in range(n)]
    for _ in range(80):
        if state.is_terminal():
            break
        _random_step(state, rng, own)
        if state.game_state is None or state.is_chance_node():
            continue
        for seat in range(n):
            tensor = np.asarray(state.information_state_tensor(seat), np.float32)
            assert tensor.shape == (size,)
            np.testing.assert_array_equal(tensor[:obs_size], state.observation_tensor(seat))
            rows = tensor[obs_size:].reshape(game.history_length, width)
            expected = np.zeros_like(rows)
            expected[np.arange(len(own[seat])), own[seat]] = 1.0
            np.testing.assert_array_equal(rows, expected)
    assert any(own), "the test must see decisions"


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("kiaule_kozel", {}),
        ("kiaule_kiauliaganys", {"num_players": 2, "deck": 36, "max_turns": 4}),
        ("kiaule_elgeta", {"num_players": 2, "deck": 32, "max_tricks": 3}),
        ("kiaule_pig", {"num_players": 3, "max_passes": 3, "max_race_steps": 2}),
    ],
    ids=["kozel", "kiauliaganys-max_turns=4", "elgeta-max_tricks=3", "pig-max_passes=3"],
)
def test_information_state_tensor_holds_every_decision_of_a_whole_game(name, params):
    """The history rows come from the game's own bound (its longest game), and whole random
    games, here mostly cut by the caps (G10, E8, P-caps), never need more rows."""
    game = pyspiel.load_game(name, params)
    rows = game.history_length
    for seed in range(6):
        state, rng = game.new_initial_state(), np.random.default_rng(seed)
        own: list[list[int]] = [[] for _ in range(game.num_players())]
        while not state.is_terminal():
            _random_step(state, rng, own)
        assert max(map(len, own)) <= rows
        width = game.num_distinct_actions()
        obs_size = game.engine.encoder.layout.size
        for seat in range(game.num_players()):
            tail = np.asarray(state.information_state_tensor(seat))[obs_size:]
            assert tail.reshape(rows, width).sum() == len(own[seat])


def test_information_state_tensor_survives_clone_and_resample():
    state, rng = _dealt("kiaule_kozel", {}, 9)
    for _ in range(8):
        state.apply_action(int(rng.choice(state.legal_actions())))
    seat = state.current_player()
    clone = state.clone()
    np.testing.assert_array_equal(
        clone.information_state_tensor(seat), state.information_state_tensor(seat)
    )
    clone.apply_action(clone.legal_actions()[0])
    assert clone.information_state_tensor(seat) != state.information_state_tensor(seat)
    world = state.resample(seat, np.random.default_rng(1))
    np.testing.assert_array_equal(
        world.information_state_tensor(seat), state.information_state_tensor(seat)
    )


@pytest.mark.parametrize(
    ("name", "params"),
    [("kiaule_kozel", {}), ("kiaule_kiauliaganys", {"num_players": 3, "max_turns": 60})],
    ids=["kozel", "kiauliaganys"],
)
def test_terminal_rewards_pay_the_deals_result_only_at_the_end(name, params):
    """The same deal and moves: ``terminal_rewards`` declares OpenSpiel's TERMINAL reward
    model (which survives serialization) and pays zero until the end, then the returns, the
    same as the default game's."""
    step_game = pyspiel.load_game(name, params)
    end_game = pyspiel.load_game(name, {**params, "terminal_rewards": True})
    assert step_game.get_type().reward_model == pyspiel.GameType.RewardModel.REWARDS
    assert end_game.get_type().reward_model == pyspiel.GameType.RewardModel.TERMINAL
    rng = np.random.default_rng(2)
    a, b = step_game.new_initial_state(), end_game.new_initial_state()
    while not a.is_terminal():
        action = (
            int(rng.choice([o for o, _ in a.chance_outcomes()]))
            if a.is_chance_node()
            else int(rng.choice(a.legal_actions()))
        )
        a.apply_action(action)
        b.apply_action(action)
        if not a.is_terminal():
            assert b.rewards() == [0.0] * a.get_game().num_players()
    assert b.is_terminal() and b.returns() == a.returns() and b.rewards() == b.returns()
    assert any(b.returns()) and sum(b.returns()) == pytest.approx(0.0)
    restored = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(end_game, b))
    assert restored[0].get_type().reward_model == pyspiel.GameType.RewardModel.TERMINAL


def test_terminal_rewards_must_be_a_bool():
    from kiaule_env.openspiel import REGISTERED

    KozelGame = REGISTERED["kiaule_kozel"]
    with pytest.raises(ValueError, match="terminal_rewards must be true or false, got 1"):
        KozelGame({"terminal_rewards": 1})
    with pytest.raises(ValueError, match=r"allowed: .*terminal_rewards"):
        KozelGame({"rewards": True})


def test_python_mcts_bot_plays_the_terminal_reward_games():
    """OpenSpiel's Python ``MCTSBot`` refuses per-step rewards and plays whole deals with
    ``terminal_rewards`` (it searches the true state: an omniscient baseline)."""
    from open_spiel.python.algorithms import evaluate_bots, mcts

    def bots(game):
        return [
            mcts.MCTSBot(
                game,
                2.0,
                8,
                mcts.RandomRolloutEvaluator(1, np.random.RandomState(seat)),
                random_state=np.random.RandomState(seat),
            )
            for seat in range(game.num_players())
        ]

    with pytest.raises(ValueError, match="Game must have terminal rewards"):
        bots(pyspiel.load_game("kiaule_kozel"))
    for name, params in [
        ("kiaule_kozel", {}),
        ("kiaule_kiauliaganys", {"num_players": 2, "deck": 36, "max_turns": 30}),
    ]:
        game = pyspiel.load_game(name, {**params, "terminal_rewards": True})
        returns = evaluate_bots.evaluate_bots(
            game.new_initial_state(), bots(game), np.random.RandomState(0)
        )
        assert len(returns) == game.num_players() and sum(returns) == pytest.approx(0.0)


def test_python_ismcts_bot_plays_inside_evaluate_bots():
    """Bare, the Python ``ISMCTSBot`` fails in ``evaluate_bots`` (pyspiel's ``Bot`` has no
    ``RestartAt``); wrapped in ``StatelessBot`` it plays whole games."""
    from open_spiel.python.algorithms import evaluate_bots, ismcts, mcts

    from kiaule_env.openspiel import StatelessBot, resampler

    game = pyspiel.load_game("kiaule_kiauliaganys", {"num_players": 2, "deck": 36, "max_turns": 30})

    def bot(seed):
        evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed))
        made = ismcts.ISMCTSBot(game, evaluator, 2.0, 6, random_state=np.random.RandomState(seed))
        made.set_resampler(resampler(seed))
        return made

    with pytest.raises(pyspiel.SpielError, match="RestartAt"):
        evaluate_bots.evaluate_bots(
            game.new_initial_state(), [bot(0), bot(1)], np.random.RandomState(0)
        )
    for seed in (0, 1):
        state = game.new_initial_state()
        returns = evaluate_bots.evaluate_bots(
            state,
            [StatelessBot(bot(seed)), StatelessBot(bot(seed + 2))],
            np.random.RandomState(seed),
        )
        assert state.is_terminal() and returns == state.returns()
        assert sorted(returns) == [-1.0, 1.0]  # G12 win_loss, two players
    wrapped = StatelessBot(bot(0))
    assert wrapped.provides_policy()
    state, _ = _dealt(game.get_type().short_name, {"num_players": 2, "deck": 36}, 1)
    policy, action = wrapped.step_with_policy(state)
    assert action in state.legal_actions() and sum(p for _, p in policy) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="bot must have a step"):
        StatelessBot(object())


def test_nfsp_trains_on_small_kiauliaganys_from_the_information_state_tensor():
    """OpenSpiel's PyTorch NFSP runs a few episodes on 2-player Kiauliaganys (36 cards): its
    networks read the information-state tensor, both seats learn (their losses exist), and
    the average policy then plays legal moves to the end against random ones."""
    pytest.importorskip("torch")
    from experiments.examples import openspiel_nfsp_kiauliaganys as example

    game = pyspiel.load_game(example.GAME, example.PARAMS)
    figures = example.run(
        episodes=4, eval_games=2, seed=0, hidden=16, anticipatory=0.5, batch=8, capacity=500
    )
    assert figures.info_state_size == game.information_state_tensor_size()
    assert figures.info_state_size > game.observation_tensor_size()
    assert figures.steps > 4 * 10
    for sl_loss, rl_loss in figures.losses:
        assert sl_loss is not None and np.isfinite(sl_loss)
        assert rl_loss is not None and np.isfinite(float(rl_loss))
    assert -1.0 <= figures.mean_return_vs_random <= 1.0
    with pytest.raises(ValueError, match="episodes must be a positive int"):
        example.run(episodes=0, eval_games=1)
    with pytest.raises(ValueError, match=r"anticipatory must lie in \[0, 1\]"):
        example.run(episodes=1, eval_games=1, anticipatory=2.0)


def test_deep_cfr_solves_a_few_iterations_of_a_tiny_kiauliaganys():
    """OpenSpiel's PyTorch Deep CFR on 2-player Kiauliaganys (36 cards) cut to two turns (its
    traversal tries every action of the traverser at each of its nodes, so its cost grows
    exponentially with the game's length): the networks take the information-state tensor,
    the buffers fill, the losses are finite and the policy covers the legal moves."""
    pytest.importorskip("torch")
    from open_spiel.python.pytorch import deep_cfr

    deep_cfr.set_seed(0)
    game = pyspiel.load_game("kiaule_kiauliaganys", {"num_players": 2, "deck": 36, "max_turns": 2})
    solver = deep_cfr.DeepCFRSolver(
        game,
        policy_network_layers=(16,),
        advantage_network_layers=(16,),
        num_iterations=2,
        num_traversals=2,
        learning_rate=1e-3,
        batch_size_advantage=8,
        batch_size_strategy=8,
        memory_capacity=2000,
    )
    assert solver._embedding_size == game.information_state_tensor_size()
    _, advantage_losses, policy_loss = solver.solve()
    assert len(solver.strategy_buffer) > 0
    # the second iteration learns (the first may find fewer samples than a batch)
    assert all(np.isfinite(losses[-1]) for losses in advantage_losses.values())
    assert np.isfinite(float(policy_loss))
    state, _ = _dealt("kiaule_kiauliaganys", {"num_players": 2, "deck": 36, "max_turns": 2}, 0)
    probs = solver.action_probabilities(state)
    assert sorted(probs) == sorted(state.legal_actions())
    assert all(np.isfinite(p) and p >= 0 for p in probs.values())
