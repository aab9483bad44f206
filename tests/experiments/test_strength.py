"""``kiaule strength``'s seconds per move: the first decision (which loads the compiled twin) is
not timed, so the figure does not depend on whether tournaments ran in this process."""

from __future__ import annotations

import time

import agents.registry as registry
from experiments import strength


class SlowFirstMove:
    """Random legal moves; the first decision with a choice takes 1 s (a one-off load)."""

    def __init__(self, seed: int | None = 0):
        self.inner = registry.make("pig/random", seed=seed)
        self.first = True

    def reset(self) -> None:
        self.inner.reset()

    def act(self, decision) -> int:
        if self.first and len(decision.legal_moves) > 1:
            self.first = False
            time.sleep(1.0)
        return self.inner.act(decision)


def test_the_first_decision_is_not_timed(monkeypatch):
    real = registry.make

    def make(name, seed=0, **kwargs):
        return SlowFirstMove(seed) if name == "pig/slow-first" else real(name, seed=seed, **kwargs)

    monkeypatch.setattr(registry, "make", make)
    assert strength.seconds_per_move("pig", "pig/slow-first") < 0.01


def test_out_holding_other_files_or_settings_is_refused_unless_forced(tmp_path):
    import json

    import pytest

    from experiments import strength

    earlier = tmp_path / "earlier"
    earlier.mkdir()
    row = {"game": "kozel", "agent": "kozel/pimc:worlds=2", "opponent": "kozel/heuristic"}
    row |= {"games": 10, "mean_reward": 0.1, "ci95": [-0.1, 0.3], "win_rate": 0.5}
    rows = [{**row, "seconds": 1.0, "kind": "pimc", "budget": 2}]
    text = json.dumps({"commands": ["kiaule strength"], "rows": rows})
    (earlier / "results.json").write_text(text)
    out = tmp_path / "out"
    out.mkdir()
    (out / "README.md").write_text("mine")
    merge = ["--merge", str(earlier), "--out", str(out), "--work", str(tmp_path / "work")]
    with pytest.raises(ValueError, match=r"not written by kiaule strength \(README\.md\)"):
        strength.main(merge)
    assert (out / "README.md").read_text() == "mine"
    assert strength.main([*merge, "--force"]) == 0
    assert json.loads((out / "results.json").read_text())["rows"] == rows
    assert strength.main(merge) == 0  # the same merge again: its own output
    other = [*merge[:2], str(earlier), *merge[2:]]
    with pytest.raises(ValueError, match="kiaule strength output for other settings"):
        strength.main(other)
