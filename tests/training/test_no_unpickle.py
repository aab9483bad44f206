"""Nothing the project loads is unpickled: a pickle payload planted in any file a loading path
reads (a model zip's ``data`` entry or ``policy.pth``, a checkpoint's optimizer moments or
training state, an old pickled state, warm-start labels, a tournament's games) never runs. Each
path either loads the data it needs and ignores the rest, or refuses the file with a
``ValueError`` (exit code 2 in the CLI) naming it.

The payload writes a marker file when unpickled; the first test shows that it does.
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import pathlib
import pickle
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

from agents.training.callbacks import StopRequest
from experiments import train as train_mod

TINY = {
    "game": "kozel",
    "total_timesteps": 256,
    "n_envs": 1,
    "opponents": {"mix": {"random": 1.0, "self": 1.0}, "snapshot_every": 64},
    "ppo": {"n_steps": 64, "batch_size": 64, "n_epochs": 1},
    "policy": {"net_arch": [8]},
    "eval": {"every": 0, "deals": 1, "opponent": "random"},
    "checkpoint": {"every": 128},
    "tensorboard": False,
}


class Payload:
    """Unpickling this writes ``marker`` (what a real payload would do with ``os.system``)."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (pathlib.Path.write_text, (self.marker, "the payload ran"))


@pytest.fixture
def marker(tmp_path) -> Path:
    return tmp_path / "payload-ran"


def payload(marker: Path) -> bytes:
    return pickle.dumps(Payload(marker))


def torch_payload(marker: Path) -> bytes:
    """A torch file (what ``policy.pth`` is) whose pickle is the payload."""
    import torch

    buffer = io.BytesIO()
    torch.save({"weight": Payload(marker)}, buffer)
    return buffer.getvalue()


def object_array_payload(marker: Path) -> np.ndarray:
    """An object array: numpy stores it as a pickle inside the ``.npz``."""
    array = np.empty(1, dtype=object)
    array[0] = Payload(marker)
    return array


def replace_entry(src: Path, dst: Path, entry: str, data: bytes) -> Path:
    """A copy of the zip ``src`` at ``dst`` with ``entry`` replaced by ``data``."""
    with zipfile.ZipFile(src) as zf:
        entries = [(i.filename, zf.read(i.filename)) for i in zf.infolist()]
    with zipfile.ZipFile(dst, "w") as zf:
        for name, content in entries:
            zf.writestr(name, data if name == entry else content)
    return dst


def poison_data_entry(src: Path, dst: Path, marker: Path) -> Path:
    """SB3's ``data`` entry with its ``policy_class`` replaced by the payload (SB3's loader
    unpickles ``:serialized:`` values with cloudpickle)."""
    with zipfile.ZipFile(src) as zf:
        data = json.loads(zf.read("data"))
    data["policy_class"][":serialized:"] = base64.b64encode(payload(marker)).decode()
    return replace_entry(src, dst, "data", json.dumps(data).encode())


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    """A tiny finished run with checkpoints at 128 steps (its final model: 256 steps)."""
    out = tmp_path_factory.mktemp("run")
    train_mod.train(train_mod.resolve_config({**TINY, "output": str(out)}), progress=False)
    return out


def checkpoint_copy(run: Path, folder: Path) -> Path:
    """The 128-step checkpoint with its pool and training state, copied into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for path in (run / "checkpoints").glob("step_128*"):
        shutil.copy(path, folder / path.name)
    return folder / "step_128.zip"


def resume_config(out: Path) -> dict:
    return train_mod.resolve_config({**TINY, "output": str(out)})


def test_the_payload_runs_when_unpickled(run, marker):
    """The planted payloads are live: a plain unpickler, and SB3's own loader, run them."""
    pickle.loads(payload(marker))
    assert marker.read_text() == "the payload ran"
    marker.unlink()
    from sb3_contrib import MaskablePPO

    poisoned = poison_data_entry(run / "final.zip", marker.with_name("poisoned.zip"), marker)
    with contextlib.suppress(Exception):
        MaskablePPO.load(poisoned, device="cpu")
    assert marker.exists()


# ------------------------------------------------------------------ learned agents
def test_agents_make_reads_no_data_entry(run, marker, tmp_path):
    import agents
    from kiaule_env import get_game

    poisoned = poison_data_entry(run / "final.zip", tmp_path / "model.zip", marker)
    agent = agents.make("kozel/ppo", path=str(poisoned))
    env = get_game("kozel").load().env()
    env.reset(seed=1)
    from agents.base import decision_from_env

    action = agent.act(decision_from_env(env, env.agent_selection))
    assert env.observe(env.agent_selection)["action_mask"][action]
    assert not marker.exists()


@pytest.mark.parametrize("entry", ["raw pickle", "torch file"])
def test_agents_make_refuses_a_pickle_in_policy_pth(run, marker, tmp_path, entry):
    import agents

    data = payload(marker) if entry == "raw pickle" else torch_payload(marker)
    bad = replace_entry(run / "final.zip", tmp_path / "model.zip", "policy.pth", data)
    with pytest.raises(ValueError, match=r"model\.zip: its policy\.pth is not a torch state dict"):
        agents.make("kozel/ppo", path=str(bad))
    assert not marker.exists()


def test_a_damaged_policy_pth_is_a_value_error_naming_the_file(run, tmp_path):
    """Damaged bytes fail in many ways inside torch's unpickler (IndexError, KeyError,
    UnicodeDecodeError...); every one is the documented ValueError naming the file."""
    from agents.learned import load_learned

    with zipfile.ZipFile(run / "final.zip") as zf:
        good = zf.read("policy.pth")
    failures = 0
    for position in range(0, 1200, 3):
        for value in (0x00, 0xFF):
            damaged = bytearray(good)
            damaged[position] = value
            path = replace_entry(run / "final.zip", tmp_path / "m.zip", "policy.pth", damaged)
            try:
                load_learned(path)
            except ValueError as exc:
                assert str(path) in str(exc)
                failures += 1
    assert failures > 100  # the damage was seen, not silently loaded


def test_agent_option_path_in_the_tournament_cli(run, marker, tmp_path, capsys):
    from experiments import tournament

    bad = replace_entry(run / "final.zip", tmp_path / "m.zip", "policy.pth", payload(marker))
    argv = ["kozel", "--agents", f"kozel/ppo:path={bad}", "kozel/random", "--games", "2"]
    with pytest.raises(SystemExit) as exit_info:
        tournament.main([*argv, "--workers", "1"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "policy.pth" in err and str(bad) in err
    assert not marker.exists()


def test_kiaule_models_entries(run, marker, tmp_path, monkeypatch):
    from agents import learned, registry

    monkeypatch.setattr(registry, "_FACTORIES", dict(registry._FACTORIES))
    monkeypatch.setattr(registry, "_OPTIONS", dict(registry._OPTIONS))
    folder = tmp_path / "models"
    folder.mkdir()
    bad = replace_entry(run / "final.zip", folder / "bad.zip", "policy.pth", payload(marker))
    data = poison_data_entry(run / "final.zip", folder / "data.zip", marker)
    names = learned.register_from_environment(f"kozel/bad={bad}:kozel/data={data}")
    assert names == ["kozel/bad", "kozel/data"]
    with pytest.raises(ValueError, match=r"bad\.zip: its policy\.pth"):
        registry.make("kozel/bad", seed=0)
    assert registry.make("kozel/data", seed=0).name == "kozel/data"
    assert not marker.exists()


# ------------------------------------------------------------------ kiaule train --evaluate
def test_evaluate_reads_no_data_entry(run, marker, tmp_path, capsys):
    poisoned = poison_data_entry(run / "final.zip", tmp_path / "model.zip", marker)
    argv = ["--evaluate", str(poisoned), "--deals", "1", "--opponents", "random"]
    assert train_mod.main(argv) == 0
    assert "kozel/ppo (model.zip)" in capsys.readouterr().out
    assert not marker.exists()


def test_evaluate_refuses_a_pickle_in_policy_pth(run, marker, tmp_path, capsys):
    bad = replace_entry(run / "final.zip", tmp_path / "m.zip", "policy.pth", torch_payload(marker))
    with pytest.raises(SystemExit) as exit_info:
        train_mod.main(["--evaluate", str(bad), "--deals", "1", "--opponents", "random"])
    assert exit_info.value.code == 2
    assert "m.zip: its policy.pth is not a torch state dict" in capsys.readouterr().err
    assert not marker.exists()


# ------------------------------------------------------------------ kiaule train --resume
def test_resume_reads_no_data_entry_and_stays_exact(run, marker, tmp_path):
    """The model is rebuilt from the config and the checkpoint's tensors: a poisoned ``data``
    entry is never read, and the resumed run still ends with the uninterrupted run's model."""
    checkpoint = checkpoint_copy(run, tmp_path / "ckpt")
    poison_data_entry(run / "checkpoints" / "step_128.zip", checkpoint, marker)
    result = train_mod.train(resume_config(tmp_path / "out"), resume=checkpoint, progress=False)
    assert not marker.exists()
    assert result.timesteps == 256
    from tests.training.test_resume_exact import same_weights

    assert same_weights(result.final_model, run / "final.zip")


@pytest.mark.parametrize("entry", ["policy.pth", "policy.optimizer.pth"])
def test_resume_refuses_a_pickle_in_the_tensors(run, marker, tmp_path, entry):
    checkpoint = checkpoint_copy(run, tmp_path / "ckpt")
    replace_entry(run / "checkpoints" / "step_128.zip", checkpoint, entry, torch_payload(marker))
    with pytest.raises(ValueError, match=rf"step_128\.zip: its {entry} is not a torch state"):
        train_mod.train(resume_config(tmp_path / "out"), resume=checkpoint, progress=False)
    assert not marker.exists()


def test_resume_refuses_pickled_arrays_in_the_training_state(run, marker, tmp_path):
    checkpoint = checkpoint_copy(run, tmp_path / "ckpt")
    arrays_path = train_mod.state_arrays_path(checkpoint)
    with np.load(arrays_path) as data:
        arrays = {key: data[key] for key in data.files}
    arrays["last_obs"] = object_array_payload(marker)
    np.savez(arrays_path, **arrays)
    with pytest.raises(ValueError, match=r"step_128_state\.npz is not the arrays file"):
        train_mod.train(resume_config(tmp_path / "out"), resume=checkpoint, progress=False)
    assert not marker.exists()


def test_resume_refuses_an_old_pickled_state(run, marker, tmp_path, capsys):
    checkpoint = checkpoint_copy(run, tmp_path / "ckpt")
    train_mod.state_path(checkpoint).unlink()
    train_mod.state_arrays_path(checkpoint).unlink()
    train_mod.legacy_state_path(checkpoint).write_bytes(payload(marker))
    with pytest.raises(ValueError, match=r"step_128_state\.pkl is a training state of an older"):
        train_mod.train(resume_config(tmp_path / "out"), resume=checkpoint, progress=False)
    argv = ["kozel", "--resume", str(checkpoint), "--timesteps", "256", "--output"]
    with pytest.raises(SystemExit) as exit_info:
        train_mod.main([*argv, str(tmp_path / "cli"), "--no-progress"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "unpickling a file can run any code" in err
    assert not marker.exists()


def test_resume_refuses_a_state_whose_episode_does_not_replay(run, tmp_path):
    """The game in progress is rebuilt by replaying it; a state that does not replay to the
    position it recorded (edited, or of other rules) is refused, not half-restored."""
    checkpoint = checkpoint_copy(run, tmp_path / "ckpt")
    path = train_mod.state_path(checkpoint)
    state = json.loads(path.read_text())
    env = state["envs"][0]["env"]
    assert env["episode"]["actions"], "the checkpoint is inside an episode"
    env["check"] = "0" * 64
    path.write_text(json.dumps(state))
    with pytest.raises(ValueError, match=r"did not replay to the position it was saved at"):
        train_mod.train(resume_config(tmp_path / "out"), resume=checkpoint, progress=False)


def test_resume_from_weights_refuses_pickled_snapshots(run, marker, tmp_path):
    """Without a training state (an exported model) resume reads the pool file: arrays only."""
    checkpoint = checkpoint_copy(run, tmp_path / "ckpt")
    train_mod.state_path(checkpoint).unlink()
    train_mod.state_arrays_path(checkpoint).unlink()
    np.savez(tmp_path / "ckpt" / "step_128_pool.npz", s0__activation=object_array_payload(marker))
    with pytest.raises(ValueError, match=r"step_128_pool\.npz is not a file of self-play snap"):
        train_mod.train(resume_config(tmp_path / "out"), resume=checkpoint, progress=False)
    assert not marker.exists()


def test_resume_refuses_the_state_of_another_checkpoint(run, tmp_path):
    checkpoint = checkpoint_copy(run, tmp_path / "ckpt")
    shutil.copy(train_mod.state_path(run / "final.zip"), train_mod.state_path(checkpoint))
    shutil.copy(
        train_mod.state_arrays_path(run / "final.zip"), train_mod.state_arrays_path(checkpoint)
    )
    with pytest.raises(ValueError, match=r"written at step 256, but the checkpoint's model is"):
        train_mod.train(resume_config(tmp_path / "out"), resume=checkpoint, progress=False)


def test_resume_keeps_the_checkpoints_network(run, tmp_path):
    """The model is rebuilt from the config, so a config with another network is refused
    (naming both) rather than loaded into the wrong shape."""
    checkpoint = checkpoint_copy(run, tmp_path / "ckpt")
    config = train_mod.resolve_config(
        {**TINY, "policy": {"net_arch": [16], "activation": "relu"}, "output": str(tmp_path)}
    )
    with pytest.raises(ValueError, match=r"has the network .*'net_arch': \[8\].* asks for"):
        train_mod.train(config, resume=checkpoint, progress=False)


def test_training_state_files_are_json_and_plain_arrays(run):
    checkpoint = run / "checkpoints" / "step_128.zip"
    json.loads(train_mod.state_path(checkpoint).read_text())
    with np.load(train_mod.state_arrays_path(checkpoint), allow_pickle=False) as data:
        assert all(data[key].dtype != object for key in data.files)
    assert not train_mod.legacy_state_path(checkpoint).exists()


def test_a_stopped_runs_state_holds_its_episode_and_snapshots_as_data(tmp_path):
    """Stopped inside an episode: its actions and the pool's snapshot serials are in the JSON
    (the exact resume itself: test_resume_exact.py)."""
    config = resume_config(tmp_path)
    stopped = train_mod.train(config, progress=False, stop=StopRequest(at_step=100))
    state = json.loads(train_mod.state_path(stopped.checkpoint).read_text())
    assert state["envs"][0]["env"]["episode"]["actions"]
    assert state["envs"][0]["env"]["pool"]["serials"]  # self-play snapshots by serial


# ------------------------------------------------------------------ warm start, tournaments
def test_warm_start_labels_refuse_pickled_arrays(marker, tmp_path):
    from agents.training.distill import Labels

    path = tmp_path / "round_0.npz"
    np.savez(path, obs=object_array_payload(marker), mask=np.zeros(1), action=np.zeros(1))
    with pytest.raises(ValueError, match=r"round_0\.npz is not a round of warm-start labels"):
        Labels.load(path)
    path.write_bytes(payload(marker))  # a bare pickle under the labels' name
    with pytest.raises(ValueError, match=r"round_0\.npz is not a round of warm-start labels"):
        Labels.load(path)
    assert not marker.exists()


def test_tournament_resume_refuses_a_pickle_in_its_games(marker, tmp_path, capsys):
    from experiments import tournament

    out = tmp_path / "t"
    argv = ["kozel", "--agents", "kozel/random", "kozel/heuristic", "--workers", "1"]
    assert tournament.main([*argv, "--games", "2", "--out", str(out)]) == 0
    with (out / "games.jsonl").open("ab") as fh:
        fh.write(payload(marker) + b"\n")
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_info:
        tournament.main([*argv, "--games", "4", "--out", str(out)])
    assert exit_info.value.code == 2
    assert "games.jsonl" in capsys.readouterr().err
    assert not marker.exists()


# ------------------------------------------------------------------ no unpickling call at all
#: calls that unpickle a file or bytes; ``torch.load`` must say ``weights_only=True``
UNPICKLING = (
    "pickle.load(",
    "pickle.loads(",
    "cloudpickle.load",
    "PPO.load(",
    "allow_pickle=True",
    "weights_only=False",
    "pd.read_pickle",
)


def test_the_library_has_no_unpickling_call():
    """A guard for new code: the packages contain no unpickling call (RLlib checkpoints, pickles
    by design, are read by RLlib itself, and only from a path the user gives)."""
    root = Path(__file__).resolve().parents[2]
    offenders = []
    for package in ("agents", "experiments", "kiaule_env"):
        for path in sorted((root / package).rglob("*.py")):
            for number, line in enumerate(path.read_text().splitlines(), 1):
                code = line.split("#")[0]
                bad = any(call in code for call in UNPICKLING)
                bad = bad or ("torch.load(" in code and "weights_only=True" not in code)
                if bad:
                    offenders.append(f"{path.relative_to(root)}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)
