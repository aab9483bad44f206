"""Human play in the terminal, driven by scripted input."""

from __future__ import annotations

import re

import pytest

from experiments import play as play_mod
from experiments import seating
from experiments.play import parse_human_move
from kiaule_env import GAMES


class Script:
    """Feeds answers to the prompt and records everything said."""

    def __init__(self, answers):
        self.answers = list(answers)
        self.said: list[str] = []

    def ask(self, prompt: str) -> str:
        if not self.answers:
            raise EOFError
        return self.answers.pop(0)

    def say(self, text: str) -> None:
        self.said.append(text)

    @property
    def text(self) -> str:
        return "\n".join(self.said)


def test_parse_human_move_accepts_numbers_and_texts_in_any_order():
    legal = {3: "lead 7S AS", 9: "discard 6H 6C", 46: "decline"}
    assert parse_human_move("1", legal) == 3
    assert parse_human_move("  lead as 7s ", legal) == 3
    assert parse_human_move("DISCARD 6c 6h", legal) == 9
    for bad, fragment in [
        ("4", "no move number 4"),
        ("lead 8S", "not a legal move"),
        ("", "empty"),
    ]:
        with pytest.raises(ValueError, match=fragment):
            parse_human_move(bad, legal)


class FirstLegal:
    """Answers every prompt with move number 1, after some bad answers."""

    def __init__(self, bad_answers):
        self.bad = list(bad_answers)

    def ask(self, prompt: str) -> str:
        return self.bad.pop(0) if self.bad else "1"


def test_kozel_game_against_heuristics_with_bad_input_never_crashes():
    script = Script([])
    feeder = FirstLegal(["", "banana", "99", "lead ZZ"])
    result = play_mod.play(
        "kozel", seat=0, opponents=["kozel/heuristic"], seed=3, ask=feeder.ask, say=script.say
    )
    assert result is not None and sum(result["team_points"]) == 120
    text = script.text
    assert "Not understood: empty answer" in text
    assert "'banana' is not a legal move now" in text
    assert "no move number 99" in text
    assert "Your moves:" in text and "Game over. Result:" in text
    assert "player_1 plays:" in text


def test_end_of_input_abandons_the_game_cleanly():
    script = Script([])
    assert (
        play_mod.play("kozel", 2, ["kozel/random"], seed=0, ask=script.ask, say=script.say) is None
    )
    assert "Game abandoned." in script.text


def test_cli_refuses_unknown_opponents_and_seats(capsys):
    for argv, message in (
        (["kozel", "--opponents", "kozel/nonsense"], "unknown agent"),
        (["kozel", "--opponents", "pig/random"], "must be kozel agents"),
        (["kozel", "--seat", "7"], "--seat must be 0..3"),
    ):
        with pytest.raises(SystemExit) as info:
            play_mod.main(argv)
        err = capsys.readouterr().err
        assert info.value.code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_kiaule_agents_lists_random_and_heuristic_for_every_game(capsys):
    from experiments.cli import main

    assert main(["agents"]) == 0
    lines = capsys.readouterr().out.splitlines()
    headers = [line.rstrip(":") for line in lines if not line.startswith("  ")]
    assert headers == list(GAMES)
    for game in headers:
        names = [line.split(":")[0].strip() for line in lines if line.startswith(f"  {game}/")]
        assert f"{game}/random" in names and f"{game}/heuristic" in names
    assert "  kozel/pimc:worlds=<int>,rollouts=<int>,seconds=<float>" in "\n".join(lines)


def named_cards(text: str) -> set[str]:
    """Every card a transcript names, as card texts (``7C``), written as texts or symbols."""
    from kiaule_env.cards import CARD_SYMBOLS, CARD_TEXTS

    tokens = set(re.split(r"[\s,:;()\[\]{}'\"]+", text))
    return {t for t in CARD_TEXTS if t in tokens} | {
        CARD_TEXTS[c] for c, symbol in enumerate(CARD_SYMBOLS) if symbol in text
    }


def hidden_from_others(moves: list[tuple[str, int]]) -> set[str]:
    """The cards of the Kozel discards among ``moves`` (text, public indicator card): face
    down (K6), known to no other seat; the indicator is public and left out."""
    from kiaule_env.cards import CARD_TEXTS

    return {
        card
        for text, indicator in moves
        if text.startswith("discard ")
        for card in text.split()[1:]
        if card != CARD_TEXTS[indicator]
    }


class Recorder:
    """Wraps an agent and keeps each move it makes: its text and the public indicator."""

    def __init__(self, agent, moves):
        self.agent, self.name, self.moves = agent, agent.name, moves

    def reset(self):
        self.agent.reset()

    def act(self, decision):
        action = self.agent.act(decision)
        self.moves.append((decision.legal_moves[action], decision.view.indicator))
        return action


@pytest.mark.parametrize("seed", [1, 4])
def test_a_seats_transcript_never_names_a_card_it_may_not_see(monkeypatch, seed):
    """K6: nobody else learns a face-down discard, so the human's transcript names none of the
    cards the other seats discarded; it tells the discards face down."""
    others: list[tuple[str, int]] = []
    make = seating.agent_registry.make
    monkeypatch.setattr(
        seating.agent_registry, "make", lambda *a, **k: Recorder(make(*a, **k), others)
    )
    script = Script([])
    result = play_mod.play(
        "kozel", 0, ["kozel/random"], seed=seed, ask=FirstLegal([]).ask, say=script.say
    )
    assert result is not None
    hidden = hidden_from_others(others)
    assert hidden, "the opponents discarded nothing: the test would prove nothing"
    assert not hidden & named_cards(script.text)
    assert "plays: discard ▒" in script.text
