"""The tournament's Ray backend (``--backend ray``): the same results as the local pool.

Every test starts (or reuses) a local Ray with two CPUs (``ray.init(num_cpus=2)``) and touches
nothing outside this machine; without Ray installed they skip, except the ones that check the
one-line error a missing Ray gives.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from experiments.tournament import BackendUnavailable, TournamentConfig, run_tournament
from experiments.tournament import runner as runner_mod
from tests.experiments import toy  # noqa: F401  (registers the toy games and agents)

ROOT = Path(__file__).resolve().parents[2]
AGENTS = ["toy/random", "toy/smart", "toy/keep"]


@pytest.fixture(scope="module")
def ray(local_ray):
    """The shared local Ray (``tests/conftest.py``) under the name these tests use."""
    return local_ray


def config(games: int = 90, **kw) -> TournamentConfig:
    return TournamentConfig(game="toy", agents=AGENTS, games=games, seed=11, **kw)


def _files(folder: Path) -> dict[str, bytes]:
    return {n: (folder / n).read_bytes() for n in ("summary.json", "games.jsonl", "games.csv")}


def test_ray_backend_writes_the_same_files_bit_for_bit_as_the_local_pool(ray, tmp_path):
    local = run_tournament(config(), workers=1, out=tmp_path / "local", plots=False)
    remote = run_tournament(config(), workers=2, out=tmp_path / "ray", plots=False, backend="ray")
    assert remote.outcome.workers == 2 and remote.outcome.played == local.outcome.played == 90
    assert _files(tmp_path / "ray") == _files(tmp_path / "local")
    assert remote.summary == local.summary


def test_ray_team_game_with_mixed_partners_matches_local(ray):
    cfg = TournamentConfig(
        game="toyteam",
        agents=["toyteam/smart", "toyteam/keep", "toyteam/random"],
        games=48,
        seed=5,
        env_kwargs={"teams": True, "num_players": 4},
        mixed_partners=True,
    )
    local = run_tournament(cfg, workers=1)
    remote = run_tournament(cfg, workers=2, backend="ray")
    assert json.dumps(remote.summary) == json.dumps(local.summary)
    assert remote.games == local.games


def test_a_partial_ray_run_resumes_with_either_backend(ray, tmp_path):
    run_tournament(config(), workers=1, out=tmp_path / "whole", plots=False)
    out = tmp_path / "part"
    part = run_tournament(
        config(), workers=2, out=out, plots=False, max_new_games=40, backend="ray"
    )
    assert not part.outcome.complete and part.outcome.played == 40
    assert len((out / "games.jsonl").read_text().splitlines()) == 40  # streamed as played
    rest = run_tournament(config(), workers=1, out=out, plots=False)
    assert rest.outcome.resumed == 40 and rest.outcome.played == 50
    assert _files(out) == _files(tmp_path / "whole")


def test_an_interrupted_ray_driver_keeps_the_finished_chunks_and_resumes(
    ray, tmp_path, monkeypatch
):
    """The driver dies after two chunks: their games are on disk, the rerun plays the rest."""
    from experiments.tournament import ray_backend

    whole = run_tournament(config(), workers=1, out=tmp_path / "whole", plots=False)
    real = ray_backend.play_chunks

    def dies_after_two(*args, **kwargs):
        chunks = real(*args, **kwargs)
        try:
            for _ in range(2):
                yield next(chunks)
            raise KeyboardInterrupt
        finally:
            chunks.close()  # what the interpreter does to the generator when the driver dies

    monkeypatch.setattr(ray_backend, "play_chunks", dies_after_two)
    out = tmp_path / "killed"
    with pytest.raises(KeyboardInterrupt):
        run_tournament(config(), workers=2, out=out, plots=False, backend="ray")
    written = (out / "games.jsonl").read_text().splitlines()
    assert 0 < len(written) < 90
    monkeypatch.setattr(ray_backend, "play_chunks", real)
    resumed = run_tournament(config(), workers=2, out=out, plots=False, backend="ray")
    assert resumed.outcome.resumed == len(written)
    assert resumed.outcome.played == 90 - len(written)
    assert _files(out) == _files(tmp_path / "whole")
    assert whole.summary == resumed.summary


def test_a_model_file_registered_in_the_driver_is_shipped_to_the_workers(ray, tmp_path):
    """A model registered by path in this process is unknown to the Ray workers' registries:
    the backend sends its file through the object store and registers it there."""
    from agents.learned import ZOO_DIR, register_model

    model = tmp_path / "elsewhere" / "mine.zip"
    model.parent.mkdir()
    shutil.copyfile(ZOO_DIR / "kozel.zip", model)
    name = register_model(model, "kozel/ppo-shipped")

    @ray.remote(num_cpus=1)
    def worker_knows(agent: str) -> bool:
        from agents.registry import list_agents

        return agent in list_agents("kozel")

    assert not ray.get(worker_knows.remote(name))  # so only shipping can make it play there
    cfg = TournamentConfig(game="kozel", agents=[name, "kozel/random"], games=8, seed=2)
    local = run_tournament(cfg, workers=1)
    remote = run_tournament(cfg, workers=2, backend="ray")
    assert remote.games == local.games
    assert {s for g in remote.games for s in g["seats"]} == {name, "kozel/random"}


def test_shipped_agents_send_files_but_not_zoo_models_or_package_agents(ray, tmp_path):
    from agents.learned import ZOO_DIR, register_model
    from experiments.tournament.ray_backend import shipped_agents

    model = tmp_path / "m.zip"
    shutil.copyfile(ZOO_DIR / "kozel.zip", model)
    name = register_model(model, "kozel/ppo-file")
    shipped = {s.name: s for s in shipped_agents(ray, [name, "kozel/ppo", "kozel/heuristic"])}
    assert set(shipped) == {name}  # the zoo's kozel/ppo and the heuristic come by name
    assert ray.get(shipped[name].blob) == model.read_bytes()


def test_an_agent_error_in_a_ray_worker_is_raised_as_its_own_type(ray):
    from agents.random_agent import RandomAgent
    from agents.registry import register

    class Illegal(RandomAgent):
        def act(self, decision) -> int:
            return 99  # never a legal action of the toy game

    register("toy/illegal-ray", lambda seed=0, **kw: Illegal("toy", seed=seed))
    cfg = TournamentConfig(game="toy", agents=["toy/illegal-ray", "toy/keep"], games=4)
    with pytest.raises(ValueError, match="99"):
        run_tournament(cfg, workers=2, backend="ray")


def test_bad_backend_and_address_arguments_are_refused():
    with pytest.raises(ValueError, match="backend must be one of local, ray"):
        run_tournament(config(4), backend="dask")
    with pytest.raises(TypeError, match="address"):
        run_tournament(config(4), backend="ray", address=6379)
    with pytest.raises(ValueError, match="for the ray backend"):
        run_tournament(config(4), backend="local", address="host:6379")


def test_chunk_size_stays_within_bounds():
    from experiments.tournament.ray_backend import MAX_CHUNK, MIN_CHUNK, chunk_size

    assert chunk_size(10, 2) == 10  # never more than there are games
    assert chunk_size(1000, 2) == 63  # about eight chunks per actor
    assert chunk_size(1000, 100) == MIN_CHUNK  # a task's overhead stays small
    assert chunk_size(10**7, 2) == MAX_CHUNK  # results still stream back


def _cli(args: list[str], code: str = "") -> subprocess.CompletedProcess:
    script = (
        f"import sys; {code}\nfrom experiments.tournament import main\n"
        f"raise SystemExit(main({args!r}))"
    )
    return subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )


def test_cli_without_ray_installed_says_so_in_one_line_with_status_2(tmp_path):
    out = tmp_path / "t"
    proc = _cli(
        ["kozel", "--games", "8", "--backend", "ray", "--out", str(out), "--no-progress"],
        code="sys.modules['ray'] = None",  # as if Ray were not installed
    )
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "needs Ray, which is not installed" in lines[0]
    # what docs/ray.md says: the ray extra in its own virtualenv (RLlib pins gymnasium)
    assert "own virtualenv" in lines[0] and "-m venv .venv-ray" in lines[0]
    assert "'.[train,search,dev,ray]'" in lines[0] and "kiaule-env[ray]" not in lines[0]
    assert not out.exists()  # nothing written before the backend is known to work


def test_cli_with_an_unreachable_cluster_says_so_in_one_line_with_status_2(tmp_path):
    pytest.importorskip("ray")
    import socket

    with socket.socket() as s:  # a local port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = _cli(["kozel", "--games", "8", "--backend", "ray", "--address", f"127.0.0.1:{port}"])
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert (
        len(lines) == 1
        and f"cannot reach the Ray cluster at --address 127.0.0.1:{port}" in (lines[0])
    )


def test_cli_address_needs_the_ray_backend():
    proc = _cli(["kozel", "--games", "8", "--address", "127.0.0.1:6379"])
    assert proc.returncode == 2
    assert proc.stderr.strip() == "kiaule tournament: error: --address needs --backend ray"


def test_backend_unavailable_is_not_a_value_error():
    """The CLIs catch it on its own: it must not pass for a bad argument."""
    assert issubclass(BackendUnavailable, RuntimeError)
    assert not issubclass(BackendUnavailable, ValueError)
    assert runner_mod.BACKENDS == ("local", "ray")


def test_train_evaluate_on_ray_gives_the_local_figures(ray):
    """``kiaule train --evaluate MODEL --backend ray``: one Ray task per opponent, the model
    file through the object store, the same seat-rotated figures as on this machine."""
    from agents.learned import ZOO_DIR
    from experiments.train import evaluate_model

    model = ZOO_DIR / "kozel.zip"
    local = evaluate_model(model, ["random", "heuristic"], deals=6, seed=7)
    remote = evaluate_model(model, ["random", "heuristic"], deals=6, seed=7, backend="ray")
    for a, b in zip(local, remote, strict=True):
        a.pop("seconds"), b.pop("seconds")
        assert a == b
    assert [r["opponent"] for r in remote] == ["kozel/random", "kozel/heuristic"]
