"""Clear errors at the agents' boundaries: names and seeds, corrupt model files, agents on another
game's env, bad ``KIAULE_MODELS`` entries; and the Pig learned agent on Pig's own AEC env."""

from __future__ import annotations

import dataclasses
import json
import zipfile
from pathlib import Path

import pytest

import agents
from agents import learned
from agents.arena import play_aec
from agents.training import model_io
from agents.training.model_io import LAYOUT_KEY, META_ENTRY, layout_metadata
from kiaule_env import GAMES

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


def _another_game(name: str) -> str:
    """The game after ``name`` in :data:`kiaule_env.GAMES` (the first after the last)."""
    names = list(GAMES)
    return names[(names.index(name) + 1) % len(names)]


@pytest.mark.parametrize("game", list(GAMES))
def test_heuristic_on_another_games_env(game):
    agent, other = f"{game}/heuristic", _another_game(game)
    env = GAMES[other].env()
    n = len(env.possible_agents)
    lineup = [agents.make(agent)] + [agents.make(f"{other}/random", seed=s) for s in range(1, n)]
    with pytest.raises(ValueError, match=f"{agent} plays {game} only"):
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


# ---------------------------------------------------------------- observation layouts
def _pig_meta() -> dict:
    return json.loads(zipfile.ZipFile(ZOO_PIG).read(META_ENTRY))


def _pig_layout(**resize: int):
    """Pig's current 4-player layout, with the named slices given other sizes."""
    from kiaule_env import GAMES
    from kiaule_env.core.layout import ObservationLayout

    current = GAMES["pig"].observation_layout(num_players=4)
    return ObservationLayout(
        dataclasses.replace(s, size=resize.get(s.name, s.size)) for s in current.slices
    )


def _with_meta(tmp_path: Path, name: str, meta: dict) -> Path:
    return rewrite_zip(ZOO_PIG, tmp_path / name, {META_ENTRY: json.dumps(meta).encode()})


def test_model_of_an_older_layout_is_refused_naming_the_slice(pig_model, tmp_path):
    """A recorded layout that differs by one slice, with everything else (game, count, sizes)
    as now: refused on loading, by path and by registered name, naming the slice."""
    current = _pig_layout()
    first = current.slices[0].name
    older = _pig_layout(**{first: current.slices[0].size + 1})
    meta = {**_pig_meta(), LAYOUT_KEY: layout_metadata(older)}
    bad = _with_meta(tmp_path, "old_layout.zip", meta)
    pattern = rf"resized '{first}' {current.slices[0].size + 1} → {current.slices[0].size}"
    with pytest.raises(ValueError, match=pattern) as info:
        agents.make("pig/ppo", path=bad)
    assert str(bad) in str(info.value) and "retrained for the current encoding" in str(info.value)
    name = learned.register_model(bad, "pig/ppo-old-layout")
    with pytest.raises(ValueError, match=f"resized '{first}'"):
        agents.make(name)


def test_model_with_a_slice_fewer_is_refused_naming_it(pig_model, tmp_path):
    current = _pig_layout()
    dropped = current.slices[-1]
    from kiaule_env.core.layout import ObservationLayout

    older = ObservationLayout(current.slices[:-1])
    bad = _with_meta(tmp_path, "fewer.zip", {**_pig_meta(), LAYOUT_KEY: layout_metadata(older)})
    with pytest.raises(ValueError, match=f"added '{dropped.name}' \\(size {dropped.size}\\)"):
        learned.load_learned(bad, game="pig")


def test_same_slices_with_other_bounds_are_refused(pig_model, tmp_path):
    """Same names and sizes, but the network was trained on another value range."""
    current = _pig_layout()
    meta = {**_pig_meta(), LAYOUT_KEY: layout_metadata(current)}
    meta[LAYOUT_KEY]["fingerprint"] = "0" * 16  # what a layout with other bounds hashes to
    bad = _with_meta(tmp_path, "bounds.zip", meta)
    with pytest.raises(ValueError, match=r"value bounds \(low/high\) changed"):
        agents.make("pig/ppo", path=bad)


def test_format_1_model_without_a_layout_is_refused_saying_so(pig_model, tmp_path):
    meta = {k: v for k, v in _pig_meta().items() if k != LAYOUT_KEY}
    meta["format"] = 1
    old = _with_meta(tmp_path, "format1.zip", meta)
    with pytest.raises(ValueError, match="records no observation layout") as info:
        agents.make("pig/ppo", path=old)
    text = str(info.value)
    assert str(old) in text and "format 1" in text and "retrain" in text and "stamp_layout" in text


@pytest.mark.parametrize(
    "entry", ["abc", {"fingerprint": 3, "slices": []}, {"fingerprint": "x", "slices": [["a"]]}]
)
def test_malformed_layout_entry_is_refused(pig_model, tmp_path, entry):
    bad = _with_meta(tmp_path, "malformed.zip", {**_pig_meta(), LAYOUT_KEY: entry})
    with pytest.raises(ValueError, match=r"'observation_layout' must be an object") as info:
        agents.make("pig/ppo", path=bad)
    assert str(bad) in str(info.value)


def test_stamp_layout_records_the_current_layout_and_refuses_other_sizes(pig_model, tmp_path):
    meta = {k: v for k, v in _pig_meta().items() if k != LAYOUT_KEY}
    meta["format"] = 1
    old = _with_meta(tmp_path, "stamp.zip", meta)
    stamped = model_io.stamp_layout(old)
    assert stamped["format"] == model_io.FORMAT_VERSION == 2 and stamped["layout_stamped"]
    assert stamped[LAYOUT_KEY] == layout_metadata(_pig_layout())
    assert agents.make("pig/ppo", path=old).meta == stamped
    wrong = _with_meta(tmp_path, "wrong.zip", {**meta, "obs_size": meta["obs_size"] + 1})
    with pytest.raises(ValueError, match="retrain the model instead of stamping it"):
        model_io.stamp_layout(wrong)
    assert LAYOUT_KEY not in model_io.read_metadata(wrong)
    assert model_io.stamp_layout(old) == stamped  # already current: left as it is
    first = _pig_layout().slices[0].name
    other = {**stamped, LAYOUT_KEY: layout_metadata(_pig_layout(**{first: 1}))}
    trained_elsewhere = _with_meta(tmp_path, "other.zip", other)
    with pytest.raises(ValueError, match=f"resized '{first}' 1 →"):
        model_io.stamp_layout(trained_elsewhere)  # a recorded layout is never overwritten


def test_check_env_compares_the_envs_layout(pig_model):
    """An agent whose recorded layout is not the env's is refused by check_env (and the size
    error names the slices when the sizes differ too)."""
    from kiaule_env import pig_v0

    agent = agents.make("pig/ppo")
    agent.check_env(pig_v0.parallel_env(num_players=4))
    first = _pig_layout().slices[0].name
    agent.meta = {**agent.meta, LAYOUT_KEY: layout_metadata(_pig_layout(**{first: 99}))}
    with pytest.raises(ValueError, match=f"resized '{first}' 99 →"):
        agent.check_env(pig_v0.env())
    meta = {**agent.meta, "obs_size": agent.meta["obs_size"] + 98}
    with pytest.raises(ValueError, match=f"observation size .* \\(resized '{first}' 99 →"):
        model_io.check_compatible(meta, obs_size=agent.meta["obs_size"], layout=_pig_layout())


def test_rllib_checkpoint_layout_is_checked(tmp_path):
    """The RLlib agent refuses a checkpoint without a layout or with another one (no Ray needed
    to get that far)."""
    from agents.rllib_agent import META_FILE, RllibAgent

    folder = tmp_path / "ckpt"
    folder.mkdir()
    meta = {"game": "pig", "env_kwargs": {"num_players": 4}, "num_players": 4}
    (folder / META_FILE).write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="records no observation layout"):
        RllibAgent(folder, "pig")
    first = _pig_layout().slices[0].name
    meta[LAYOUT_KEY] = layout_metadata(_pig_layout(**{first: 7}))
    (folder / META_FILE).write_text(json.dumps(meta))
    with pytest.raises(ValueError, match=f"resized '{first}' 7 →"):
        RllibAgent(folder, "pig")
    meta[LAYOUT_KEY] = layout_metadata(_pig_layout())
    (folder / META_FILE).write_text(json.dumps(meta))
    assert RllibAgent(folder, "pig").meta[LAYOUT_KEY]["slices"] == _pig_layout().describe()
