"""Clear errors at the agents' boundaries: names and seeds, corrupt model files, agents on another
game's env, bad ``KIAULE_MODELS`` entries; and the Pig learned agent on Pig's own AEC env."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

import agents
from agents import learned
from agents.arena import play_aec
from agents.training.model_io import META_ENTRY

ZOO_PIG = learned.ZOO_DIR / "pig_4p.zip"


def rewrite_zip(src: Path, dst: Path, replace: dict[str, bytes | None]) -> Path:
    """A copy of ``src`` with entries replaced (``None``: removed)."""
    with zipfile.ZipFile(src) as zf:
        entries = {i.filename: zf.read(i.filename) for i in zf.infolist()}
    for name, data in replace.items():
        if data is None:
            entries.pop(name, None)
        else:
            entries[name] = data
    with zipfile.ZipFile(dst, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    return dst


@pytest.fixture
def pig_model(tmp_path):
    if not ZOO_PIG.is_file():
        pytest.skip("the Pig zoo model is not there")
    return ZOO_PIG


def test_pig_ppo_plays_pigs_own_aec_env(pig_model):
    from kiaule_env import pig_v0

    env = pig_v0.env()
    agent = agents.make("pig/ppo")
    agent.check_env(env)  # was: "it cannot play pig_v0"
    lineup = [agent] + [agents.make("pig/random", seed=s) for s in range(1, 4)]
    outcome = play_aec(env, lineup, seed=3)
    assert outcome.result is not None


@pytest.mark.parametrize(
    ("replace", "message"),
    [
        ({META_ENTRY: b"[1, 2]"}, "must be a JSON object"),
        ({META_ENTRY: b"{not json"}, "not valid JSON"),
        ({META_ENTRY: b'{"num_players": 4}'}, "needs 'game'"),
        ({"policy.pth": None}, "has no policy.pth"),
        ({"policy.pth": b"garbage" * 20}, "policy.pth is not a torch state dict"),
    ],
)
def test_corrupt_model_files_name_the_file(pig_model, tmp_path, replace, message):
    bad = rewrite_zip(pig_model, tmp_path / "bad.zip", replace)
    with pytest.raises(ValueError, match=message) as info:
        agents.make("pig/ppo", path=bad)
    assert str(bad) in str(info.value)


@pytest.mark.parametrize("compression", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
def test_damaged_zip_data_is_a_value_error_naming_the_file(pig_model, tmp_path, compression):
    """Stored: a CRC mismatch (BadZipFile); deflated: a zlib error. Both name the file."""
    with zipfile.ZipFile(pig_model) as zf:
        entries = {i.filename: zf.read(i.filename) for i in zf.infolist()}
    bad = tmp_path / "crc.zip"
    with zipfile.ZipFile(bad, "w", compression=compression) as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    data = bytearray(bad.read_bytes())
    with zipfile.ZipFile(bad) as zf:
        info = zf.getinfo("policy.pth")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra) + 200
    for i in range(start, start + 16):
        data[i] ^= 0xFF
    bad.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"crc\.zip"):
        agents.make("pig/ppo", path=bad)


def test_names_and_seeds_of_the_wrong_type():
    with pytest.raises(TypeError, match="agent name is a string"):
        agents.make(None)
    with pytest.raises(TypeError, match="seed of 'kozel/random' must be an integer"):
        agents.make("kozel/random", seed="x")
    with pytest.raises(ValueError, match="must be >= 0"):
        agents.make("kozel/random", seed=-1)


@pytest.mark.parametrize(
    ("agent", "module"),
    [
        ("kozel/heuristic", "pig_v0"),
        ("pig/heuristic", "kozel_v0"),
        ("kiauliaganys/heuristic", "pig_v0"),
        ("elgeta/heuristic", "kozel_v0"),
    ],
)
def test_heuristic_on_another_games_env(agent, module):
    import importlib

    env = importlib.import_module(f"kiaule_env.{module}").env()
    n = len(env.possible_agents)
    lineup = [agents.make(agent)] + [
        agents.make(f"{module.split('_')[0]}/random", seed=s) for s in range(1, n)
    ]
    with pytest.raises(ValueError, match=f"{agent} plays {agent.split('/')[0]} only"):
        play_aec(env, lineup, seed=0)


def test_bad_kiaule_models_entries_do_not_break_the_registry(tmp_path):
    from agents import registry

    named = learned.register_from_environment(f"kozel/ppo-gone={tmp_path / 'gone.zip'}")
    assert named == ["kozel/ppo-gone"]
    for _ in range(2):  # the entry stays, and keeps saying what is wrong
        assert "kozel/ppo-gone" in registry.list_agents("kozel")
        with pytest.raises(ValueError, match=r"KIAULE_MODELS entry .*no model file"):
            agents.make("kozel/ppo-gone")
    (tmp_path / "junk.zip").write_text("junk")
    with pytest.warns(UserWarning, match="not a model zip"):
        assert learned.register_from_environment(str(tmp_path / "junk.zip")) == []
    assert "kozel/heuristic" in registry.list_agents("kozel")


def test_tournament_without_the_broken_model_still_runs(tmp_path):
    from experiments.tournament import TournamentConfig, run_tournament, usable_agents

    learned.register_from_environment(f"elgeta/ppo-gone={tmp_path / 'gone.zip'}")
    _ok, skipped = usable_agents("elgeta", {"num_players": 2})
    assert "elgeta/ppo-gone" in skipped and "no model file" in skipped["elgeta/ppo-gone"]
    config = TournamentConfig(
        "elgeta", ["elgeta/random", "elgeta/heuristic"], games=2, env_kwargs={"num_players": 2}
    )
    assert len(run_tournament(config, workers=1).games) == 2


def test_metadata_json_is_an_object(pig_model, tmp_path):
    bad = rewrite_zip(pig_model, tmp_path / "list.zip", {META_ENTRY: json.dumps([]).encode()})
    with pytest.raises(ValueError, match=r"list\.zip"):
        learned.register_model(bad)
