"""``kiaule train`` claims its run folder: a run of other settings (another seed) or a folder of
other files is refused before anything is written, unless ``--force``; the resume the command
itself suggests goes on in its own folder; two runs never share a folder."""

from __future__ import annotations

import json
import shlex

import pytest

from agents.training.callbacks import StopRequest
from experiments import outdir
from experiments import train as train_mod
from experiments.train import cli as train_cli
from tests.training.conftest import tiny_kozel_run

ARGV = tiny_kozel_run(timesteps=256, checkpoint_every=128)


def refused(capsys, argv: list[str]) -> str:
    with pytest.raises(SystemExit) as info:
        train_mod.main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    return err


def test_another_seed_is_refused_and_the_suggested_resume_goes_on(tmp_path, capsys, monkeypatch):
    import agents.training.callbacks as cb

    out = tmp_path / "run"
    argv = [*ARGV, "--output", str(out)]
    with monkeypatch.context() as patch:
        patch.setattr(cb, "StopRequest", lambda: StopRequest(at_step=1))
        assert train_mod.main(argv) == 130  # stopped at the first checkpoint, as by Ctrl-C
    hint = capsys.readouterr().err.split("resume with: ")[1].strip()
    files = sorted(p.name for p in (out / "checkpoints").iterdir())
    err = refused(capsys, [*argv, "--seed", "1"])
    assert "holds kiaule train output for other settings (seed: 0 there, 1 here)" in err
    assert "--force" in err and not (out / "final.zip").exists()
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == files
    assert train_mod.main([*shlex.split(hint)[2:], "--no-progress"]) == 0
    assert (out / "final.zip").is_file()
    marker = json.loads((out / outdir.MARKER_FILE).read_text())
    assert marker["command"] == "kiaule train" and marker["settings"]["seed"] == 0


def test_a_folder_of_other_files_is_refused_unless_forced(tmp_path, capsys, monkeypatch):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "final.zip").write_bytes(b"someone's model")
    argv = [*ARGV, "--output", str(out)]
    err = refused(capsys, argv)
    assert "--output" in err and "not written by kiaule train (final.zip)" in err
    assert (out / "final.zip").read_bytes() == b"someone's model"
    seen = []

    def fake_train(config, **kw):  # the claim is what is tested here, not training
        seen.append(config.output)
        raise ValueError("stop here")

    monkeypatch.setattr(train_cli, "train", fake_train)
    assert "stop here" in refused(capsys, [*argv, "--force"])
    assert seen == [str(out)]


def test_run_settings_leave_out_only_the_length_and_the_execution():
    config = train_mod.resolve_config("kozel")
    settings = train_mod.run_settings(config)
    assert set(config.as_dict()) - set(settings) == set(train_mod.RUN_FOLDER_FREE)
    assert settings["seed"] == config.seed and settings["ppo"] == config.ppo.model_dump()
    longer = config.model_copy(update={"total_timesteps": 10**7, "output": "x"})
    assert train_mod.run_settings(longer) == settings
    seeded = config.model_copy(update={"seed": 1})
    assert train_mod.run_settings(seeded) != settings


def test_an_rllib_run_claims_its_folder_too(tmp_path, capsys, monkeypatch):
    """``--trainer rllib`` is refused a folder of other files before Ray is needed, and an
    sb3 run's folder is not taken for an RLlib run's (their settings differ)."""
    import agents.training.rllib_train as rllib_train

    out = tmp_path / "rl"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    argv = ["kozel", "--trainer", "rllib", "--output", str(out), "--no-progress"]
    assert "not written by kiaule train (notes.txt)" in refused(capsys, argv)
    assert (out / "notes.txt").read_text() == "mine"
    seen = []

    def fake_train_rllib(config, **kw):  # the claim is what is tested here, not training
        seen.append(config["output"])
        raise ValueError("stop here")

    monkeypatch.setattr(rllib_train, "train_rllib", fake_train_rllib)
    assert "stop here" in refused(capsys, [*argv, "--force"])
    assert seen == [str(out)]
    marker = json.loads((out / outdir.MARKER_FILE).read_text())
    assert marker["settings"]["trainer"] == "rllib"
    sb3 = [*ARGV, "--output", str(out)]
    assert "for other settings" in refused(capsys, sb3)
