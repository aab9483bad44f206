"""A bare install (``pip install -e .``): what needs an extra says which, in one line."""

from __future__ import annotations

import pytest

import agents
from kiaule_env.extras import MissingExtra, install_hint, missing_extra, require

TRAIN_HINT = "install the 'train' extra: pip install torch==2.13.0 -e '.[train]'"


def test_require_returns_the_module_or_names_the_extra(monkeypatch):
    import json

    assert require("json") is json
    monkeypatch.setitem(__import__("sys").modules, "yaml", None)  # as if PyYAML were missing
    with pytest.raises(MissingExtra) as err:
        require("yaml", "kiaule train")
    message = str(err.value)
    assert message.startswith("kiaule train needs PyYAML, which is not installed; ")
    assert TRAIN_HINT in message and "\n" not in message
    assert err.value.extra == "train" and isinstance(err.value, ImportError)


def test_require_does_not_hide_a_broken_module_inside_an_installed_one(monkeypatch, tmp_path):
    # the module is there but imports something missing: that is not a missing extra
    (tmp_path / "installed_but_broken.py").write_text("import no_such_dependency_anywhere\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModuleNotFoundError) as err:
        require("installed_but_broken")
    assert not isinstance(err.value, MissingExtra)
    assert err.value.name == "no_such_dependency_anywhere"


def test_missing_extra_survives_pickling_from_a_worker_process():
    import pickle

    err = MissingExtra("torch", "kozel/ppo")
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is MissingExtra and str(back) == str(err) and back.extra == "train"


def test_missing_extra_maps_only_modules_of_extras():
    assert missing_extra(ModuleNotFoundError("x", name="tqdm.auto")).extra == "train"
    assert missing_extra(ModuleNotFoundError("x", name="numba")).extra == "search"
    assert missing_extra(ModuleNotFoundError("x", name="no_such_thing")) is None


def test_the_ray_hint_says_what_the_readme_says():
    hint = install_hint("ray")
    assert "own virtualenv" in hint and "python3.11 -m venv .venv-ray" in hint
    assert "pip install torch==2.13.0 -e '.[train,search,dev,ray]'" in hint


def test_a_learned_agent_without_torch_names_the_train_extra(monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "torch", None)
    with pytest.raises(MissingExtra) as err:
        agents.make("kozel/ppo")
    assert str(err.value).startswith("kozel/ppo needs torch, which is not installed; ")
    assert TRAIN_HINT in str(err.value)
