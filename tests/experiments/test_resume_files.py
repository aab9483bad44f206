"""What a tournament reads back is checked: every ``games.jsonl`` line has the right shape, is a
game of this tournament with its seating, and agrees with its replayed record; a bad line or a
garbage ``tournament.json`` is a ``ValueError`` naming the file (and the line). The schedule is
streamed, never listed."""

from __future__ import annotations

import itertools
import json

import pytest

from experiments.tournament import TournamentConfig, run_tournament
from experiments.tournament.schedule import GameKey, make_schedule
from kiaule_env import GAMES
from tests.experiments import toy  # noqa: F401  (registers the toy games and agents)

AGENTS = ["toy/random", "toy/smart", "toy/keep"]


def config(games: int = 30, **kw) -> TournamentConfig:
    return TournamentConfig(game="toy", agents=AGENTS, games=games, seed=3, **kw)


def edit_line(path, index: int, change) -> None:
    lines = path.read_text().splitlines()
    data = json.loads(lines[index])
    change(data)
    lines[index] = json.dumps(data)
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (lambda d: d.update(key="ab"), "'key' must be three integers"),
        (lambda d: d.pop("rewards"), "'rewards' must be"),
        (lambda d: d.update(rewards=[1, 2]), "'rewards' must be"),
        (lambda d: d.update(seats=list(reversed(d["seats"]))), "not the seating"),
        (lambda d: d.update(key=[0, 0, 7]), "not a game of this tournament"),
        (lambda d: d.update(steps=-1), "'steps'"),
        (lambda d: d["rewards"].__setitem__(0, d["rewards"][0] + 1), "differ from its record"),
        (lambda d: d["record"]["moves"].pop(), "does not replay"),
    ],
)
def test_a_bad_line_names_the_file_and_line(tmp_path, change, why):
    run_tournament(config(), workers=1, out=tmp_path, plots=False)
    games = tmp_path / "games.jsonl"
    edit_line(games, 4, change)
    for _ in range(2):  # the same clear error on every rerun
        with pytest.raises(ValueError, match=why) as info:
            run_tournament(config(), workers=1, out=tmp_path, plots=False)
        assert f"{games}: line 5 " in str(info.value)


def test_lines_without_records_are_checked_for_shape(tmp_path):
    run_tournament(config(records=False), workers=1, out=tmp_path, plots=False)
    edit_line(tmp_path / "games.jsonl", 0, lambda d: d.update(rewards="many"))
    with pytest.raises(ValueError, match=r"line 1 .*'rewards'"):
        run_tournament(config(records=False), workers=1, out=tmp_path, plots=False)


def test_a_garbage_tournament_json_names_the_file(tmp_path):
    run_tournament(config(), workers=1, out=tmp_path, plots=False, max_new_games=5)
    for garbage in ("not json", "[1]"):
        (tmp_path / "tournament.json").write_text(garbage)
        with pytest.raises(ValueError, match=r"tournament\.json is not a tournament file") as info:
            run_tournament(config(), workers=1, out=tmp_path, plots=False)
        # deleting it is not the advice: the folder's games could no longer be checked
        assert "delete" not in str(info.value) and "--force" in str(info.value)


@pytest.mark.parametrize("game", list(GAMES))
def test_real_games_pass_their_own_checks_on_resume(tmp_path, game):
    agents = [f"{game}/random", f"{game}/heuristic"]
    env_kwargs = dict(GAMES[game].small_options)
    cfg = TournamentConfig(game=game, agents=agents, games=6, seed=1, env_kwargs=env_kwargs)
    first = run_tournament(cfg, workers=1, out=tmp_path, plots=False)
    again = run_tournament(cfg, workers=1, out=tmp_path, plots=False)
    assert again.outcome.resumed == len(first.games) and again.outcome.played == 0
    assert again.summary == first.summary
    edit_line(tmp_path / "games.jsonl", 0, lambda d: d["rewards"].__setitem__(0, 99.0))
    with pytest.raises(ValueError, match="differ from its record"):
        run_tournament(cfg, workers=1, out=tmp_path, plots=False)


def test_the_schedule_is_streamed():
    schedule = make_schedule(AGENTS, 3, 10**12)
    assert schedule.total_games >= 10**12
    first = list(itertools.islice(schedule.iter_keys(), 4))
    assert first[0] == GameKey(0, 0, 0) and len(first) == 4
    assert schedule.contains(GameKey(10**11, 0, 2)) and not schedule.contains(GameKey(0, 0, 3))


def test_a_huge_tournament_starts_at_once(tmp_path):
    result = run_tournament(config(10**12), workers=1, out=tmp_path, plots=False, max_new_games=5)
    assert result.outcome.played == 5 and not result.outcome.complete
    again = run_tournament(config(10**12), workers=1, out=tmp_path, plots=False, max_new_games=3)
    assert again.outcome.resumed == 5 and again.outcome.played == 3
