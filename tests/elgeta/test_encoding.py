"""The Elgeta observation encoder and action codec: documented layout, exact contents of every
slice in a stacked position, relative seats, bounds."""

from __future__ import annotations

import re

import numpy as np
import pytest

from kiaule_env import elgeta_v0
from kiaule_env.cards import DECKS, parse_card
from kiaule_env.elgeta import encoding, rules
from tests.elgeta.helpers import new_env, stacked, step_env


def test_docstring_tables_are_the_generated_ones():
    doc = elgeta_v0.__doc__
    assert elgeta_v0.observation_table() in doc
    assert elgeta_v0.action_table() in doc
    table = elgeta_v0.observation_table(num_players=2, deck="32")
    assert "| `unseen` | 8–71 | 64 | player-major 2×32" in table
    assert re.search(r"\*\*total\*\* \| \| \*\*234\*\*", table)


def test_table_functions_accept_env_keywords_and_check_them():
    assert elgeta_v0.observation_table(render_mode="ansi", max_cycles=3, num_players=3)
    with pytest.raises(ValueError, match="num_players=5"):
        elgeta_v0.observation_table(num_players=5)


def test_action_codec():
    assert encoding.move_text(0) == "play"
    with pytest.raises(ValueError, match=r"outside Discrete\(1\)"):
        encoding.move_text(1)


def _decoded(env, agent):
    return env.layout.decode(env.observe(agent)["observation"])


def _cards(deck: str, texts: str) -> list[int]:
    """Deck positions of ``texts``."""
    return [int(DECKS[deck].position[parse_card(t)]) for t in texts.split()]


def test_every_slice_in_a_stacked_position():
    # seed example c: after the tie and two cards of the second round
    env = new_env(stacked(["JS 6S", "AD 7D", "AH 9H", "4C QC"]))
    step_env(env, 6)
    d = _decoded(env, "player_1")  # player_1 observes: relative order 1, 2, 3, 0
    assert d["pile_sizes"].tolist() == pytest.approx([11 / 52, 12 / 52, 12 / 52, 11 / 52])
    assert d["still_in"].tolist() == [1, 1, 1, 1]
    assert d["to_act"].tolist() == [0, 1, 0, 0]  # player_2 plays next
    assert d["leader"].tolist() == [0, 0, 0, 1]  # player_0 led
    unseen = d["unseen"].reshape(4, 52)
    assert unseen.sum(axis=1).tolist() == [11, 12, 12, 11]  # nothing has gone under a pile
    assert unseen[1, _cards("52", "9H")].tolist() == [1]  # player_2's next card, order unknown
    assert unseen[0, _cards("52", "AD 7D")].tolist() == [0, 0]  # already played
    assert not d["known_depth"].any()
    trick = d["trick"].reshape(4, 52)
    assert np.flatnonzero(trick[3]).tolist() == sorted(_cards("52", "JS 6S"))  # player_0's
    assert np.flatnonzero(trick[0]).tolist() == sorted(_cards("52", "AD 7D"))  # mine
    assert trick.sum() == 6
    assert np.flatnonzero(d["newest_round"]).tolist() == sorted(_cards("52", "6S 7D"))
    assert d["tie_rounds"].tolist() == pytest.approx([1 / 52])
    assert d["tricks"].tolist() == [0]


def test_known_depth_locates_seen_cards_in_a_pile():
    env = new_env(stacked(["JS 6S", "AD 7D", "AH 9H", "4C QC"]))
    step_env(env, 8)  # player_3 takes the 8 cards: they lie under his 11 unseen cards
    d = _decoded(env, "player_3")  # relative order 3, 0, 1, 2
    depth = d["known_depth"].reshape(4, 52)
    taken = "JS AD AH 4C 6S 7D 9H QC"
    positions = _cards("52", taken)
    assert depth[0, positions].tolist() == pytest.approx([(12 + i) / 52 for i in range(8)])
    assert np.count_nonzero(depth) == 8
    assert d["pile_sizes"][0] == pytest.approx(19 / 52)
    assert d["tricks"].tolist() == pytest.approx([1 / 10_000])
    assert d["leader"].tolist() == [1, 0, 0, 0] and d["to_act"].tolist() == [1, 0, 0, 0]
    assert not d["trick"].any() and not d["newest_round"].any()
    assert d["tie_rounds"].tolist() == [0]


def test_beggars_and_the_end_of_the_game():
    env = new_env(stacked(["KS", "2D", "QC", "3H"], fill=(0, 1, 2)))
    step_env(env, 4)
    d = _decoded(env, "player_0")
    assert d["still_in"].tolist() == [1, 1, 1, 0]
    assert d["pile_sizes"][3] == 0
    env = new_env(stacked(["QS", "10D", "4H", "AC"], fill=(3,)))
    step_env(env, 4)
    d = _decoded(env, "player_3")
    assert d["to_act"].tolist() == [0, 0, 0, 0] and d["still_in"].tolist() == [1, 0, 0, 0]
    assert d["pile_sizes"].tolist() == [1, 0, 0, 0]


@pytest.mark.parametrize(("num_players", "deck"), [(2, "32"), (3, "36"), (4, "52")])
def test_observations_stay_in_bounds_and_rotate_with_the_observer(num_players, deck):
    env = elgeta_v0.raw_env(num_players=num_players, deck=deck)
    space = env.observation_space("player_0")["observation"]
    env.reset(seed=4)
    for _ in range(60):
        if env.game_state.over:
            break
        obs = [env.observe(a)["observation"] for a in env.possible_agents]
        for o in obs:
            assert space.contains(o)
        # everything is public: observer k sees observer 0's vector rotated by k seats
        size = env.config.deck_cards.size
        base = env.layout.decode(obs[0])
        for k in range(1, num_players):
            mine = env.layout.decode(obs[k])
            for name in ("pile_sizes", "still_in", "to_act", "leader"):
                assert np.array_equal(mine[name], np.roll(base[name], -k))
            for name in ("unseen", "known_depth", "trick"):
                rolled = np.roll(base[name].reshape(num_players, size), -k, axis=0)
                assert np.array_equal(mine[name].reshape(num_players, size), rolled)
        env.step(0)


def test_encoder_reads_views_not_states():
    config = rules.Config(num_players=2, deck="32")
    state = rules.new_deal(config, np.random.default_rng(0))
    encoder = encoding.ObservationEncoder(config)
    view = rules.view(state, 0)
    assert np.array_equal(encoder.encode(view), encoder.encode(rules.view(rules.clone(state), 0)))
    assert encoder.layout.size == 234
