"""``kiaule demo``: omniscient by default and saying so; ``--seat N`` shows only what that seat
may know (K6 face-down discards, P2 passed cards)."""

from __future__ import annotations

import pytest

from agents.random_agent import RandomAgent
from experiments import demo
from kiaule_env import GAMES
from kiaule_env.cards import CARD_TEXTS
from kiaule_env.core.play import play_episode
from tests.test_play import named_cards


def transcript(game: str, seed: int, seat: int | None) -> str:
    lines: list[str] = []
    demo.run(game, seed, seat, say=lines.append)
    return "\n".join(lines)


def kozel_discards(seed: int, watcher: int) -> set[str]:
    """The cards other seats than ``watcher`` discard in the demo's game of ``seed`` (it is
    played again: random agents of one seed), the public indicator left out."""
    env = GAMES["kozel"].native_env()
    players = [RandomAgent("kozel", seed)] * 4
    episode = play_episode(env, players, seed=seed, record=True)
    indicator = env.game_state.indicator  # one game: the deal's indicator card
    return {
        card
        for agent, _, text in episode.moves
        if agent != f"player_{watcher}" and text.startswith("discard ")
        for card in text.split()[1:]
        if card != CARD_TEXTS[indicator]
    }


@pytest.mark.parametrize("seed", [0, 2])
def test_a_seats_demo_never_names_a_card_it_may_not_see(seed):
    hidden = kozel_discards(seed, watcher=1)
    assert hidden, "nobody else discarded: the test would prove nothing"
    seen = transcript("kozel", seed, seat=1)
    assert seen.startswith("Watching as player_1")
    assert not hidden & named_cards(seen)
    assert "discard ▒" in seen and "You are player_1" in seen


def test_the_omniscient_demo_says_so_and_shows_every_move():
    hidden = kozel_discards(2, watcher=1)
    shown = transcript("kozel", 2, seat=None)
    assert shown.splitlines()[0].startswith("Omniscient demo")
    assert hidden <= named_cards(shown)


def test_a_pig_seat_sees_its_own_pass_and_not_the_others():
    seen = transcript("pig", 0, seat=0)
    first = next(line for line in seen.splitlines() if line.startswith("moves: "))
    moves = dict(part.split(": ") for part in first.removeprefix("moves: ").split(", "))
    assert moves["player_0"].startswith("pass ") and moves["player_0"] != "pass ▒"
    assert all(moves[f"player_{s}"] == "pass ▒" for s in (1, 2, 3))


def test_a_seat_the_game_lacks_is_one_line_and_status_2(capsys):
    with pytest.raises(SystemExit) as info:
        demo.main(["elgeta", "--seat", "4"])
    err = capsys.readouterr().err
    assert (
        info.value.code == 2 and err.strip() == "kiaule demo: --seat must be 0..3 for elgeta, got 4"
    )
