"""Game records: a JSON-able account of one episode that replays exactly (RULES §0 stacked decks).

A record holds the env id and constructor keywords, the reset seed and options (the stacked
decks), every decision as ``[agent, action, move text]`` in order, and the final ``result``.
Replaying feeds the same actions to a fresh env and checks that every move text and the result
are the same, so a record is a regression anchor and a tournament game can be inspected later.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pettingzoo import AECEnv


@dataclass
class GameRecord:
    """One episode of an AEC env, replayable."""

    env_id: str
    env_kwargs: dict[str, Any]
    seed: int | None
    options: dict[str, Any]
    moves: list[list[Any]] = field(default_factory=list)  # [agent, action, text]
    result: dict[str, Any] | None = None

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1, default=_jsonable)

    @classmethod
    def from_json(cls, text: str) -> GameRecord:
        data = json.loads(text)
        missing = {"env_id", "env_kwargs", "seed", "options", "moves"} - set(data)
        if missing:
            raise ValueError(f"not a game record: missing {', '.join(sorted(missing))}")
        return cls(**data)

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.to_json())

    @classmethod
    def load(cls, path: str | Path) -> GameRecord:
        return cls.from_json(Path(path).read_text())


def _jsonable(value: Any) -> Any:
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"cannot store {type(value).__name__} in a game record")


def normalise(value: Any) -> Any:
    """JSON round trip, so results compare equal however they were produced."""
    return json.loads(json.dumps(value, default=_jsonable))


def play_recorded(
    make_env: Callable[..., AECEnv],
    env_id: str,
    env_kwargs: dict[str, Any],
    choose: Callable[[str, dict[str, Any], AECEnv], int],
    seed: int | None = None,
    options: dict[str, Any] | None = None,
) -> GameRecord:
    """Play one episode on ``make_env(**env_kwargs)`` choosing with ``choose(agent, obs, env)``.

    Returns the record of the episode. ``make_env`` should build the raw env (errors on illegal).
    """
    env = make_env(**env_kwargs)
    env.reset(seed=seed, options=options)
    record = GameRecord(env_id, dict(env_kwargs), seed, dict(options or {}))
    for agent in env.agent_iter():
        obs, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            if record.result is None and "result" in info:
                record.result = normalise(info["result"])
            env.step(None)
            continue
        action = int(choose(agent, obs, env))
        text = env.unwrapped.legal_moves(agent)[action]
        record.moves.append([agent, action, text])
        env.step(action)
    return record


def replay(make_env: Callable[..., AECEnv], record: GameRecord) -> dict[str, Any] | None:
    """Replay ``record`` and check every move text and the result; return the result.

    Raises ``AssertionError`` at the first difference, naming the move.
    """
    env = make_env(**record.env_kwargs)
    env.reset(seed=record.seed, options=record.options or None)
    moves = iter(record.moves)
    result = None
    index = 0
    for agent in env.agent_iter():
        _, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            if result is None and "result" in info:
                result = normalise(info["result"])
            env.step(None)
            continue
        try:
            rec_agent, action, text = next(moves)
        except StopIteration:
            raise AssertionError(f"replay needs a move after {index} moves; record ended") from None
        legal = env.unwrapped.legal_moves(agent)
        assert rec_agent == agent, f"move {index}: recorded {rec_agent} but {agent} is to act"
        assert legal.get(action) == text, (
            f"move {index}: recorded {action} = {text!r}, env has {legal.get(action)!r}"
        )
        env.step(action)
        index += 1
    assert next(moves, None) is None, f"record has moves left after {index} moves"
    assert result == record.result, f"result differs: {result} vs recorded {record.result}"
    return result
