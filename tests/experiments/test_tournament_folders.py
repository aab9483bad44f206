"""A tournament's ``--out`` folder is never silently wrong or lost: resume checks the folder's
fingerprint and every line against the schedule, one run at a time holds the folder, other files
are not overwritten without ``--force``, workers are capped at the chunks of games, and a full
disk names the file and leaves no temporary file."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from experiments import outdir
from experiments.tournament import TournamentConfig, main, run_tournament
from experiments.tournament.runner import ResumeMismatch, worker_count
from experiments.tournament.schedule import deal_seed
from tests.experiments import toy  # noqa: F401  (registers the toy game and agents)

AGENTS = ["toy/random", "toy/smart", "toy/keep"]
ROOT = Path(__file__).resolve().parents[2]


def config(seed: int = 5, games: int = 30, **kw) -> TournamentConfig:
    return TournamentConfig(game="toy", agents=AGENTS, games=games, seed=seed, **kw)


def lines(folder: Path) -> list[dict]:
    return [json.loads(x) for x in (folder / "games.jsonl").read_text().splitlines()]


def write_lines(folder: Path, data: list[dict]) -> None:
    (folder / "games.jsonl").write_text("".join(json.dumps(d) + "\n" for d in data))


# ------------------------------------------------------------------ resume: the fingerprint


def test_the_folder_records_the_fingerprint_and_every_line_its_digest(tmp_path):
    run_tournament(config(), workers=1, out=tmp_path, plots=False)
    stored = json.loads((tmp_path / "tournament.json").read_text())
    fingerprint = stored["fingerprint"]
    assert fingerprint["seed"] == 5 and fingerprint["agents"] == AGENTS
    assert fingerprint["lineups"] and len(fingerprint["code"]) == 40
    digests = {line["run"] for line in lines(tmp_path)}
    assert len(digests) == 1 and len(digests.pop()) == 16


@pytest.mark.parametrize("records", [True, False])
def test_resume_refuses_another_seed_saying_what_differs(tmp_path, records):
    run_tournament(config(5, records=records), workers=1, out=tmp_path, max_new_games=4)
    with pytest.raises(ResumeMismatch, match=r"seed: 5 there, 6 here") as info:
        run_tournament(config(6, records=records), workers=1, out=tmp_path, plots=False)
    assert "--force" in str(info.value)


@pytest.mark.parametrize("records", [True, False])
def test_lines_of_another_seed_copied_in_are_refused(tmp_path, records):
    six, five = tmp_path / "six", tmp_path / "five"
    run_tournament(config(6, records=records), workers=1, out=six, plots=False)
    run_tournament(config(5, records=records), workers=1, out=five, max_new_games=3)
    write_lines(five, lines(five) + lines(six)[3:10])
    with pytest.raises(ValueError, match=r"line 4 .*played by another tournament"):
        run_tournament(config(5, records=records), workers=1, out=five, plots=False)


@pytest.mark.parametrize("records", [True, False])
def test_a_copied_line_with_a_forged_digest_is_refused_by_its_deal(tmp_path, records):
    six, five = tmp_path / "six", tmp_path / "five"
    run_tournament(config(6, records=records), workers=1, out=six, plots=False)
    run_tournament(config(5, records=records), workers=1, out=five, max_new_games=3)
    mine = lines(five)
    stolen = lines(six)[3]
    stolen["run"] = mine[0]["run"]
    write_lines(five, [*mine, stolen])
    with pytest.raises(ValueError, match=r"line 4 .*'deal_seed' \d+ is not deal 1's seed"):
        run_tournament(config(5, records=records), workers=1, out=five, plots=False)
    if records:  # the record's own deal is checked too
        stolen["deal_seed"] = deal_seed(5, 1)
        write_lines(five, [*mine, stolen])
        with pytest.raises(ValueError, match=r"line 4 .*its record's seed \d+ is not deal 1's"):
            run_tournament(config(5, records=records), workers=1, out=five, plots=False)


KOZEL = ["kozel/random", "kozel/heuristic"]


@pytest.mark.parametrize("records", [True, False])
def test_lines_played_with_other_env_options_are_refused(tmp_path, records):
    def kozel(env_kwargs: dict) -> TournamentConfig:
        return TournamentConfig(
            game="kozel", agents=KOZEL, games=4, seed=1, env_kwargs=env_kwargs, records=records
        )

    cards, loss = tmp_path / "cards", tmp_path / "loss"
    run_tournament(kozel({"reward": "card_points"}), workers=1, out=cards, plots=False)
    with pytest.raises(ResumeMismatch, match=r"env_kwargs: .*card_points.* there, \{\} here"):
        run_tournament(kozel({}), workers=1, out=cards, plots=False)
    run_tournament(kozel({}), workers=1, out=loss, max_new_games=1)
    write_lines(loss, lines(loss) + lines(cards)[1:])
    with pytest.raises(ValueError, match=r"line 2 .*played by another tournament"):
        run_tournament(kozel({}), workers=1, out=loss, plots=False)
    if records:  # a forged digest still meets the record's env options
        mine, theirs = lines(loss), lines(cards)[1]
        theirs["run"] = mine[0]["run"]
        write_lines(loss, [mine[0], theirs])
        with pytest.raises(ValueError, match=r"line 2 .*env options .*card_points"):
            run_tournament(kozel({}), workers=1, out=loss, plots=False)


def test_a_tampered_seating_is_refused(tmp_path):
    run_tournament(config(records=False), workers=1, out=tmp_path, max_new_games=6)
    data = lines(tmp_path)
    data[2]["seats"] = list(reversed(data[2]["seats"]))
    write_lines(tmp_path, data)
    with pytest.raises(ValueError, match=r"line 3 .*not the seating of game"):
        run_tournament(config(records=False), workers=1, out=tmp_path, plots=False)


def test_a_changed_code_digest_refuses_the_resume(tmp_path, monkeypatch):
    from experiments.tournament import fingerprint

    run_tournament(config(), workers=1, out=tmp_path, max_new_games=4)
    monkeypatch.setattr(fingerprint, "code_fingerprint", lambda game: "0" * 40)
    with pytest.raises(ResumeMismatch, match=r"code: "):
        run_tournament(config(), workers=1, out=tmp_path, plots=False)


def test_the_same_tournament_resumes_and_more_games_add_deals(tmp_path):
    first = run_tournament(config(games=12), workers=1, out=tmp_path, max_new_games=5)
    assert first.outcome.played == 5
    again = run_tournament(config(games=30), workers=1, out=tmp_path, plots=False)
    assert again.outcome.resumed == 5 and again.outcome.complete


# ------------------------------------------------------------------ overwriting, --force


def test_a_folder_with_other_files_is_refused_and_force_overwrites_it(tmp_path, capsys):
    (tmp_path / "summary.json").write_text('{"mine": true}')
    (tmp_path / "notes.txt").write_text("keep me")
    argv = ["toy", "--games", "6", "--no-progress", "--no-plots", "--workers", "1"]
    argv += ["--out", str(tmp_path), "--agents", *AGENTS]
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "not written by kiaule tournament (notes.txt, summary.json)" in err and "--force" in err
    assert json.loads((tmp_path / "summary.json").read_text()) == {"mine": True}
    assert main([*argv, "--force"]) == 0
    assert "mine" not in json.loads((tmp_path / "summary.json").read_text())
    assert main(argv) == 0  # now its own output: a rerun resumes without --force


def test_force_starts_another_tournament_afresh(tmp_path):
    run_tournament(config(6), workers=1, out=tmp_path, max_new_games=4)
    result = run_tournament(config(5), workers=1, out=tmp_path, plots=False, force=True)
    assert result.outcome.resumed == 0 and result.outcome.complete
    assert json.loads((tmp_path / "tournament.json").read_text())["identity"]["seed"] == 5
    assert {line["run"] for line in lines(tmp_path)} == {lines(tmp_path)[0]["run"]}
    assert len(lines(tmp_path)) == len(result.games)


def test_another_commands_output_is_refused(tmp_path):
    (tmp_path / "README.md").write_text("report")
    (tmp_path / outdir.MARKER_FILE).write_text('{"command": "kiaule benchmark", "settings": {}}')
    with pytest.raises(ValueError, match="holds the output of kiaule benchmark"):
        run_tournament(config(), workers=1, out=tmp_path, plots=False)
    assert (tmp_path / "README.md").read_text() == "report"


# ------------------------------------------------------------------ one run per folder

HOLDER = textwrap.dedent(
    """
    import sys, time
    from experiments.outdir import claim_output
    with claim_output(sys.argv[1], "kiaule tournament", None):
        print("held", flush=True)
        time.sleep(60)
    """
)


def test_a_second_run_on_a_held_folder_exits_2_naming_the_holder(tmp_path, capsys):
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(tmp_path)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        argv = ["toy", "--games", "6", "--no-progress", "--workers", "1", "--out", str(tmp_path)]
        with pytest.raises(SystemExit) as info:
            main([*argv, "--agents", *AGENTS])
        assert info.value.code == 2
        err = capsys.readouterr().err
        assert f"in use by another run (pid {holder.pid} on " in err
        assert not (tmp_path / "games.jsonl").exists()
    finally:
        holder.kill()
        holder.wait()
    assert main([*argv, "--agents", *AGENTS, "--no-plots"]) == 0  # the lock went with it


# ------------------------------------------------------------------ workers, full disk


def test_workers_are_capped_at_the_chunks_of_games(tmp_path, capsys):
    assert worker_count(100_000, 4) == 4
    assert worker_count(100_000, 1) == 1
    assert worker_count(3, 10_000) == 3
    argv = ["toy", "--games", "3", "--workers", "100000", "--no-progress", "--no-plots"]
    assert main([*argv, "--agents", *AGENTS, "--out", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert "--workers 100000: used 3, one per chunk of the 3 games to play" in captured.err
    assert json.loads((tmp_path / "run.json").read_text())["workers"] == 3


@pytest.mark.parametrize("name", ["games.jsonl", "tournament.json", "summary.json"])
def test_a_full_disk_names_the_file_and_leaves_no_temporary_file(tmp_path, monkeypatch, name):
    run_tournament(config(), workers=1, out=tmp_path, max_new_games=7)
    before = (tmp_path / "games.jsonl").read_bytes()
    fsync = os.fsync

    def full(fd: int) -> None:  # the disk fills up as the file is written
        if os.readlink(f"/proc/self/fd/{fd}").endswith(f"{name}.tmp"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        fsync(fd)

    monkeypatch.setattr(outdir.os, "fsync", full)
    pattern = rf"No space left on device: '.*{name.replace('.', '[.]')}'"
    with pytest.raises(OSError, match=pattern) as info:
        run_tournament(config(), workers=1, out=tmp_path, plots=False)
    assert info.value.errno == errno.ENOSPC
    assert not list(tmp_path.glob("*.tmp"))
    assert (tmp_path / "games.jsonl").read_bytes().startswith(before)
    monkeypatch.undo()
    again = run_tournament(config(), workers=1, out=tmp_path, plots=False)
    assert again.outcome.complete and (tmp_path / "summary.json").is_file()
    assert again.outcome.played == (30 - 7 if name == "tournament.json" else 0)  # nothing lost


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs Linux's /dev/full")
def test_a_full_disk_while_games_stream_names_games_jsonl(tmp_path, monkeypatch):
    run_tournament(config(), workers=1, out=tmp_path, max_new_games=7)
    real_open = Path.open

    def full_disk(self, mode="r", *args, **kwargs):  # appends go to a device that is full
        if self.name == "games.jsonl" and mode == "a":
            return open("/dev/full", "a")  # closed by the caller
        return real_open(self, mode, *args, **kwargs)

    monkeypatch.setattr(Path, "open", full_disk)
    with pytest.raises(OSError, match=r"No space left on device: '.*games\.jsonl'") as info:
        run_tournament(config(), workers=1, out=tmp_path, plots=False)
    assert info.value.errno == errno.ENOSPC
