"""The viewer page without a browser: its embedded data against an independent replay, the
per-game extras, sample games of a report, and the errors on bad input."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from experiments.cli import main as cli_main
from experiments.viewer import extract_data, load_game, viewer_html, write_viewer
from experiments.viewer.samples import pick_samples
from kiaule_env.cards import CARD_SYMBOLS, SUIT_SYMBOLS, SUITS
from kiaule_env.core.records import GameRecord
from tests.viewer.support import GAMES, lines, steps


def symbols(cards) -> list[str]:
    return [CARD_SYMBOLS[c] for c in cards]


def page_and_record(path: Path, game: int) -> tuple[dict, GameRecord, dict]:
    data = extract_data(viewer_html(path, game))
    line = lines(path)[game]
    return data, GameRecord(**line["record"]), line


def seat_view(frame: dict, seat: int) -> dict:
    return {**frame["public"], **frame["private"][seat]}


def seen_by(frame: dict, seat: int) -> list:
    rows = frame["seen"]
    return rows[seat] if len(rows) > 1 else rows[0]


@pytest.mark.parametrize("game", GAMES)
def test_embedded_frames_match_a_replay_of_the_record(records, game):
    path = records[game]
    data, record, line = page_and_record(path, 1)
    assert data["env_id"] == record.env_id
    assert data["moves"] == record.moves
    assert data["seats"] == line["seats"]
    assert len(data["frames"]) == len(record.moves) + 1
    checked = 0
    for k, env in steps(record):
        frame = data["frames"][k]
        raw = env.unwrapped
        assert frame["table"] == env.render(), f"move {k}: table text"
        to_act = record.moves[k][0] if k < len(record.moves) else None
        assert frame["to_act"] == to_act
        if to_act is not None:
            assert frame["legal"] == sorted(raw.legal_moves(to_act).values())
            assert record.moves[k][2] in frame["legal"]
        for seat, agent in enumerate(raw.possible_agents):
            view = raw.view(agent)
            mine = seat_view(frame, seat)
            names = [f.name for f in dataclasses.fields(view)]
            assert sorted(mine) == sorted(names), f"move {k}: {agent}'s view fields"
            assert mine["seat"] == seat
            for name in names:
                value = getattr(view, name)
                if isinstance(value, (bool, str)) or value is None:
                    assert mine[name] == value, f"move {k}: {agent}.{name}"
            if hasattr(view, "hand"):
                assert mine["hand"] == symbols(view.hand)
                assert frame["hands"][seat] == symbols(view.hand)  # the omniscient union
                seen = seen_by(frame, seat)
                assert seen[seat] == symbols(view.hand)
                for other in range(len(raw.possible_agents)):
                    if other != seat:  # face down: only the number of cards
                        assert seen[other] == [None] * len(frame["hands"][other])
            else:  # Elgeta: piles, order of the never-seen top unknown to everybody
                for s in range(view.num_players):
                    pile = frame["hands"][s]
                    assert len(pile) == view.pile_sizes[s]
                    assert sorted(pile[: len(view.unseen[s])]) == sorted(symbols(view.unseen[s]))
                    assert pile[len(view.unseen[s]) :] == symbols(view.known[s])
                    seen = seen_by(frame, seat)[s]
                    assert seen == [None] * len(view.unseen[s]) + symbols(view.known[s])
        checked += 1
    assert checked == len(record.moves) + 1
    assert data["result"] == record.result == line["result"]
    assert data["rewards"] == pytest.approx(line["rewards"])
    assert data["frames"][-1]["rewards"] == pytest.approx(line["rewards"])


def test_kozel_trump_team_scores_and_hidden_discards(records):
    data, record, _ = page_and_record(records["kozel"], 0)
    result = record.result
    rows = {r["label"]: r for r in data["frames"][-1]["extras"]["omni"]}
    trump = result["trump"]
    assert rows["trump"]["text"] == f"{SUIT_SYMBOLS[trump]} ({trump})"
    points = result["team_points"]
    assert rows["team points"]["text"] == f"team 0: {points[0]} · team 1: {points[1]}"
    assert rows["tricks"]["text"].startswith(f"team 0: {result['tricks'][0]} (")
    discards_seen = 0
    for k, env in steps(record):
        frame = data["frames"][k]
        raw = env.unwrapped
        views = [raw.view(a) for a in raw.possible_agents]
        omni = [r for r in frame["extras"]["omni"] if r["label"].startswith("player_")]
        assert len(omni) == len(views[0].trick)
        for i, (s, kind, _) in enumerate(views[0].trick):
            assert omni[i]["label"] == f"player_{s} {('lead', 'beat', 'discard')[kind]}"
            assert omni[i]["cards"] == symbols(views[s].trick[i][2])  # the onlooker sees all
            for seat in range(4):
                rows = frame["extras"]["seats"][seat] or frame["extras"]["omni"]
                shown = [r for r in rows if r["label"].startswith("player_")][i]["cards"]
                if kind == 2 and s != seat:
                    assert set(shown) == {"▒"}  # another's face-down discard stays hidden
                    discards_seen += 1
                else:
                    assert shown == symbols(views[s].trick[i][2])
    assert discards_seen > 0


#: the moves whose text names cards only the mover sees (K6 face-down discards, P2 passed cards)
HIDING_MOVES = {"kozel": "discard", "pig": "pass"}


@pytest.mark.parametrize("game, word", list(HIDING_MOVES.items()))
def test_moves_that_hide_cards_are_masked_for_the_other_seats(records, game, word):
    data, record, _ = page_and_record(records[game], 0)
    hidden = {int(i): text for i, text in data["hidden"].items()}
    assert hidden and set(hidden) == {
        i for i, (_, _, text) in enumerate(record.moves) if text.startswith(word + " ")
    }
    for i, masked in hidden.items():
        n = len(record.moves[i][2].split()) - 1
        assert masked == f"{word} " + " ".join(["▒"] * n)


@pytest.mark.parametrize("game", [g for g in GAMES if g not in HIDING_MOVES])
def test_games_whose_moves_are_all_public_mask_nothing(records, game):
    data, record, _ = page_and_record(records[game], 0)
    assert record.moves and data["hidden"] == {}


def test_kiauliaganys_shows_the_suit_the_next_player_must_find(records):
    data, record, _ = page_and_record(records["kiauliaganys"], 0)
    kinds = set()
    for k, env in steps(record):
        view = env.unwrapped.view("player_0")
        row = next(r for r in data["frames"][k]["extras"]["omni"] if r["label"] == "must find")
        req = view.required_suit
        want = "any suit" if req < 0 else f"{SUIT_SYMBOLS[SUITS[req]]} ({SUITS[req]})"
        assert row["text"].startswith(want + ","), f"move {k}"
        kinds.add(req)
    assert len(kinds) >= 3  # the required suit changed during the game


def test_units_step_by_trick_or_turn(records):
    data, record, _ = page_and_record(records["kozel"], 0)
    units = [f["unit"] for f in data["frames"]]
    prev = None
    for k, env in steps(record):
        tricks = sum(env.unwrapped.view("player_0").tricks)
        if k:
            assert (units[k] != units[k - 1]) == (tricks != prev), f"move {k}"
        prev = tricks
    assert len(set(units)) == 10  # nine tricks and the end


def test_page_is_self_contained(records):
    page = viewer_html(records["pig"], 0)
    assert page.startswith("<!DOCTYPE html>")
    low = page.lower()
    for bad in ("http://", "https://", " src=", "<link", "@import", "url("):
        assert bad not in low
    assert "</script" not in low.split('id="replay-data">', 1)[1].split("</script>", 1)[0]


def test_a_saved_record_and_a_results_folder_load(records, tmp_path):
    line = lines(records["elgeta"])[2]
    record = GameRecord(**line["record"])
    record.save(tmp_path / "one.json")
    data = extract_data(viewer_html(tmp_path / "one.json"))
    assert data["moves"] == record.moves and data["count"] == 1 and data["seats"] is None
    folder = load_game(records["elgeta"].parent, 2)
    assert folder.record == record and folder.seats == line["seats"]


def test_report_links_sample_games(records):
    out = records["kiauliaganys"].parent
    board = (out / "leaderboard.txt").read_text()
    assert "samples/largest-win.html" in board and "samples/longest.html" in board
    all_lines = lines(records["kiauliaganys"])
    moves = [len(x["record"]["moves"]) for x in all_lines]
    longest = extract_data((out / "samples" / "longest.html").read_text())
    assert len(longest["moves"]) == max(moves)
    assert longest["index"] == moves.index(max(moves))


def test_pick_samples_prefers_the_widest_win_and_a_repetition():
    games = [
        {"key": [0, 0, 0], "rewards": [1, -1], "result": {}},
        {"key": [0, 0, 1], "rewards": [2, -2], "result": {"repetition": False}},
        {"key": [1, 0, 0], "rewards": [0, 0], "result": {"repetition": True}},
        {"key": [1, 0, 1], "rewards": [-2, 2], "result": {}},
    ]
    picked = {s.name: s for s in pick_samples(games, [10, 30, 50, 20])}
    assert picked["largest-win"].index == 1  # ties go to the first
    assert picked["repetition"].index == 2 and picked["repetition"].key == [1, 0, 0]
    assert picked["longest"].index == 2
    assert "repetition" not in {s.name for s in pick_samples(games[:2], [1, 2])}


# ---------------------------------------------------------------------------- bad input
def test_a_file_without_records_is_refused_naming_it(records, tmp_path):
    summary = records["kozel"].parent / "summary.json"
    with pytest.raises(ValueError, match=r"summary\.json holds no game records") as err:
        load_game(summary)
    assert "games.jsonl" in str(err.value)
    (tmp_path / "empty.jsonl").write_text("")
    with pytest.raises(ValueError, match=r"empty\.jsonl holds no game records"):
        load_game(tmp_path / "empty.jsonl")
    with pytest.raises(ValueError, match=r"folder without games\.jsonl"):
        load_game(tmp_path)
    with pytest.raises(ValueError, match="does not exist"):
        load_game(tmp_path / "nope.jsonl")


@pytest.mark.parametrize("index", [4, -1])
def test_a_game_index_out_of_range_is_refused(records, index):
    with pytest.raises(ValueError) as err:
        load_game(records["kozel"], index)
    message = str(err.value)
    assert f"game index {index} is out of range" in message
    assert str(records["kozel"]) in message and "(allowed: 0–3)" in message


def test_an_unknown_env_id_is_refused(records, tmp_path):
    line = lines(records["kozel"])[0]
    line["record"]["env_id"] = "kiaule/chess-v0"
    bad = tmp_path / "games.jsonl"
    bad.write_text(json.dumps(line) + "\n")
    with pytest.raises(ValueError) as err:
        write_viewer(bad, tmp_path / "x.html")
    message = str(err.value)
    assert str(bad) in message and "'kiaule/chess-v0'" in message
    assert "kiaule/kozel-v0" in message and "kiaule/elgeta-v0" in message
    assert not (tmp_path / "x.html").exists()


def test_a_record_that_does_not_replay_is_refused(records, tmp_path):
    line = lines(records["kozel"])[0]
    line["record"]["moves"][3][2] = "lead AS AH"
    bad = tmp_path / "games.jsonl"
    bad.write_text(json.dumps(line) + "\n")
    with pytest.raises(ValueError, match=r"does not replay at move 3: recorded"):
        viewer_html(bad)


def test_recorded_probabilities_of_an_illegal_action_are_refused_naming_the_move():
    from agents import make
    from experiments.viewer import build_replay
    from kiaule_env import pig_v0
    from kiaule_env.core.play import play_episode

    players = [make("pig/heuristic", seed=s) for s in range(4)]
    episode = play_episode(pig_v0.raw_env(), players, seed=2, record=True)
    record = GameRecord("kiaule/pig-v0", {}, 2, {}, episode.moves, episode.result)
    record.policies = [None] * len(record.moves)
    assert build_replay(record)["policies"] is None
    record.policies[1] = {"999": 1.0}
    with pytest.raises(ValueError, match=r"game 0 does not replay at move 1: .* action 999, not"):
        build_replay(record)


def test_cli_writes_the_page(records, tmp_path, capsys):
    out = tmp_path / "sub" / "g.html"
    assert cli_main(["view", str(records["pig"]), "--game", "3", "--out", str(out)]) == 0
    assert str(out) in capsys.readouterr().out
    assert extract_data(out.read_text(encoding="utf-8"))["index"] == 3


@pytest.mark.parametrize(
    "args, words",
    [
        (["{summary}"], "holds no game records"),
        (["{games}", "--game", "9"], "game index 9 is out of range"),
        (["{chess}"], "unknown env id 'kiaule/chess-v0'"),
    ],
)
def test_cli_bad_input_is_one_line_on_stderr_and_exit_2(records, tmp_path, capsys, args, words):
    line = lines(records["kozel"])[0]
    line["record"]["env_id"] = "kiaule/chess-v0"
    (tmp_path / "chess.jsonl").write_text(json.dumps(line) + "\n")
    where = {
        "summary": records["kozel"].parent / "summary.json",
        "games": records["kozel"],
        "chess": tmp_path / "chess.jsonl",
    }
    argv = ["view", *(a.format(**where) for a in args), "--out", str(tmp_path / "x.html")]
    assert cli_main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and captured.err.startswith("kiaule view: ")
    assert words in captured.err and "Traceback" not in captured.err


def test_cli_exit_code_in_a_real_process(records, tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "experiments.cli", "view", str(records["kozel"]), "--game", "7",
         "--out", str(tmp_path / "x.html")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        f"kiaule view: game index 7 is out of range: {records['kozel']} holds 4 game records "
        "(allowed: 0–3)"
    ]


def _elgeta_record(tmp_path: Path, seed: int) -> Path:
    """An Elgeta game played by always taking the first legal move, saved as a record."""
    import numpy as np

    from kiaule_env import elgeta_v0
    from kiaule_env.core.records import play_recorded

    record = play_recorded(
        elgeta_v0.raw_env,
        "kiaule/elgeta-v0",
        {},
        lambda agent, obs, env: int(np.flatnonzero(obs["action_mask"])[0]),
        seed=seed,
    )
    path = tmp_path / f"elgeta-{seed}.json"
    record.save(path)
    return path


def test_a_400_move_game_makes_a_page_of_at_most_300_kb(tmp_path):
    from experiments.viewer import build_replay

    path = _elgeta_record(tmp_path, 10)  # 428 moves
    loaded = load_game(path)
    assert 380 <= len(loaded.record.moves) <= 450
    page = viewer_html(loaded)
    assert len(page.encode("utf-8")) <= 300_000
    # the page's delta-encoded frames decode to the replay's, frame for frame
    assert extract_data(page)["frames"] == build_replay(loaded)["frames"]


def test_frame_patches_round_trip():
    from experiments.viewer.page import apply_patch, diff

    old = {"a": [1, 2, 3], "t": "trick: 6♣(1)", "p": [[1, 2], [3]], "gone": 1, "same": [0]}
    new = {"a": [2, 3], "t": "trick: 6♣(1) 7♦(2)", "p": [[1, 2, 5], [3]], "new": {"x": None}}
    new["same"] = [0]
    patch = diff(old, new)
    assert "same" not in patch and patch["gone"] == []
    assert apply_patch(old, patch) == new
    assert old["a"] == [1, 2, 3]  # the base is not changed
    assert diff(new, new) is None
    assert apply_patch(old, diff(old, [1])) == [1]


def test_probabilities_of_a_record_are_in_the_page(records):
    data, record, line = page_and_record(records["pig"], 0)
    policies = line["record"]["policies"]
    assert data["policies"] is not None
    for i, (_, action, text) in enumerate(record.moves):
        if policies[i] is None:
            assert data["policies"][i] is None
            continue
        shown = dict(data["policies"][i])
        assert shown[text] == pytest.approx(policies[i][str(action)])
        assert sum(shown.values()) == pytest.approx(1.0)
    # a record without them still replays, without probabilities
    bare = {k: v for k, v in line["record"].items() if k != "policies"}
    from experiments.viewer import build_replay, render_html

    page = render_html(build_replay(GameRecord.from_dict(bare)))
    assert extract_data(page)["policies"] is None
