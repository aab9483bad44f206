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

from kiaule_env import game_of_env
from kiaule_env.core.jsonable import normalise, to_plain
from kiaule_env.core.play import Episode, play_episode


@dataclass
class GameRecord:
    """One episode of an AEC env, replayable."""

    env_id: str
    env_kwargs: dict[str, Any]
    seed: int | None
    options: dict[str, Any]
    moves: list[list[Any]] = field(default_factory=list)  # [agent, action, text]
    result: dict[str, Any] | None = None
    #: optional, per move: the acting agent's probabilities ``{action: p}`` (agents with
    #: ``act_with_policy``), or None; absent from records of agents without them
    policies: list[dict[str, float] | None] | None = None

    def to_json(self) -> str:
        data = asdict(self)
        if data["policies"] is None:
            del data["policies"]  # the same file as before the field existed
        return json.dumps(data, indent=1, default=to_plain)

    @classmethod
    def from_json(cls, text: str, where: str = "game record") -> GameRecord:
        """Parse and check a record; ``ValueError`` naming ``where`` and what is wrong."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{where}: not JSON ({exc})") from None
        return cls.from_dict(data, where)

    @classmethod
    def from_dict(cls, data: Any, where: str = "game record") -> GameRecord:
        """A record from its JSON object, every field checked (``ValueError`` naming it)."""
        if not isinstance(data, dict):
            raise ValueError(f"{where}: a game record is a JSON object, got {type(data).__name__}")
        problem = _record_problem(data)
        if problem:
            raise ValueError(f"{where}: not a game record: {problem}")
        return cls(**data)

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.to_json())

    @classmethod
    def load(cls, path: str | Path) -> GameRecord:
        try:
            text = Path(path).read_text()
        except (OSError, UnicodeDecodeError) as exc:
            raise ValueError(f"{path}: cannot read a game record ({exc})") from None
        return cls.from_json(text, where=str(path))


_FIELDS = {"env_id", "env_kwargs", "seed", "options", "moves", "result", "policies"}
_OPTIONAL = {"result", "policies"}


def _record_problem(data: dict[str, Any]) -> str | None:
    """What is wrong with a record's JSON object, or None."""
    missing = _FIELDS - _OPTIONAL - set(data)
    if missing:
        return f"missing {', '.join(sorted(missing))}"
    extra = set(data) - _FIELDS
    if extra:
        known = ", ".join(sorted(_FIELDS))
        return f"unknown field(s) {', '.join(sorted(extra))}; a record has {known}"
    checks = (
        (isinstance(data["env_id"], str), "'env_id' must be a string"),
        (isinstance(data["env_kwargs"], dict), "'env_kwargs' must be an object"),
        (data["seed"] is None or _is_int(data["seed"]), "'seed' must be an integer or null"),
        (isinstance(data["options"], dict), "'options' must be an object"),
        (isinstance(data["moves"], list), "'moves' must be a list of [agent, action, text]"),
        (
            data.get("result") is None or isinstance(data["result"], dict),
            "'result' must be an object or null",
        ),
    )
    for ok, message in checks:
        if not ok:
            return message
    for i, move in enumerate(data["moves"]):
        if not (
            isinstance(move, list)
            and len(move) == 3
            and isinstance(move[0], str)
            and _is_int(move[1])
            and isinstance(move[2], str)
        ):
            return f"move {i} is {move!r}, not [agent, action, text]"
    return _policies_problem(data.get("policies"), len(data["moves"]))


def _policies_problem(policies: Any, moves: int) -> str | None:
    """What is wrong with a record's optional ``policies``, or None: one entry per move,
    each null or an object of action (an integer, as JSON text) to probability in [0, 1]."""
    if policies is None:
        return None
    if not isinstance(policies, list) or len(policies) != moves:
        return f"'policies' must be a list with one entry per move ({moves}), or null"
    for i, policy in enumerate(policies):
        if policy is None:
            continue
        if not isinstance(policy, dict) or not all(
            str(k).lstrip("-").isdigit()
            and isinstance(p, (int, float))
            and not isinstance(p, bool)
            and 0.0 <= p <= 1.0
            for k, p in policy.items()
        ):
            return f"policies[{i}] is {policy!r}, not null or {{action: probability in [0, 1]}}"
    return None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def play_recorded(
    make_env: Callable[..., Any],
    env_id: str,
    env_kwargs: dict[str, Any],
    choose: Callable[[str, dict[str, Any], Any], int],
    seed: int | None = None,
    options: dict[str, Any] | None = None,
) -> GameRecord:
    """Play one episode on ``make_env(**env_kwargs)`` choosing with ``choose(agent, obs, env)``
    (``obs``: the ``{"observation", "action_mask"}`` dict); return its record.

    ``env`` is the env being played, stepped through its public API, so it is in step at
    every call: ``env.unwrapped.legal_moves(agent)``, ``view(agent)``, ``render()`` and the
    rest describe the decision being asked for. (The play loop's fast path drives the engine
    and leaves the env's own bookkeeping behind, so it is not used here.) An illegal choice
    follows ``env``'s convention: ``raw_env`` raises ``ValueError``, ``env()`` ends the
    episode with −1 for the offender.
    """
    env = make_env(**env_kwargs)
    players = [_Chooser(choose, env)] * len(env.possible_agents)
    episode = play_episode(env, players, seed, options, record=True, api=True)
    seed = None if seed is None else int(seed)  # a numpy seed the env accepted, JSON-able
    return GameRecord(
        env_id,
        dict(env_kwargs),
        seed,
        dict(options or {}),
        episode.moves,
        episode.result,
        normalise(episode.policies),
    )


class _Chooser:
    """A player that asks ``choose(agent, obs, env)``."""

    def __init__(self, choose: Callable[[str, dict[str, Any], Any], int], env: Any):
        self.choose, self.env = choose, env

    def reset(self) -> None:
        pass

    def act(self, decision: Any) -> int:
        obs = {"observation": decision.observation, "action_mask": decision.action_mask}
        return int(self.choose(decision.agent, obs, self.env))


class ReplayMismatch(ValueError):
    """A record does not replay: the env disagrees with a recorded move or the result.

    ``move`` is the index of the recorded move at fault (None when the fault is not one move's),
    ``problem`` what is wrong with it; the message is ``"move <i>: <problem>"``.
    """

    def __init__(self, problem: str, move: int | None = None):
        super().__init__(problem if move is None else f"move {move}: {problem}")
        self.problem = problem
        self.move = move


class _RecordedMoves:
    """Plays the moves of a record in order, checking who moves and each move's text."""

    def __init__(self, moves: list[list[Any]]):
        self.moves = moves
        self.index = 0

    def reset(self) -> None:
        pass

    def act(self, decision: Any) -> int:
        if self.index >= len(self.moves):
            raise ReplayMismatch(f"replay needs a move after {self.index} moves; record ended")
        rec_agent, action, text = self.moves[self.index]
        if rec_agent != decision.agent:
            raise ReplayMismatch(f"recorded {rec_agent} but {decision.agent} is to act", self.index)
        legal = decision.legal_moves
        actual = legal.get(action) if action in legal else None
        if actual != text:
            raise ReplayMismatch(f"recorded {action} = {text!r}, env has {actual!r}", self.index)
        self.index += 1
        return action


def replay(
    make_env: Callable[..., Any], record: GameRecord, observer: Any = None
) -> dict[str, Any] | None:
    """Replay ``record`` and check every move text and the result; return the result.

    Raises :class:`ReplayMismatch` (a ``ValueError``) at the first difference, naming the
    move. ``observer`` (a :class:`~kiaule_env.core.play.StepObserver`) sees every step.
    """
    return replay_episode(make_env, record, observer).result


def replay_episode(
    make_env: Callable[..., Any], record: GameRecord, observer: Any = None, *, api: bool = False
) -> Episode:
    """:func:`replay`, returning the whole :class:`~kiaule_env.core.play.Episode` (rewards)."""
    episode = replay_moves(make_env(**record.env_kwargs), record, observer, api=api)
    if episode.result != record.result:
        raise ReplayMismatch(f"result differs: {episode.result} vs recorded {record.result}")
    return episode


def replay_moves(
    env: Any, record: GameRecord, observer: Any = None, *, api: bool = False
) -> Episode:
    """Play ``record``'s moves on ``env`` (made with the record's ``env_kwargs``) through the
    play loop, ``observer`` seeing every step; ``api=True`` steps the env through its public API
    (:func:`~kiaule_env.core.play.play_episode`), so that it is in step at every move.

    Checks the env id, who moves and every move's text, and that the episode uses every move
    (:class:`ReplayMismatch`); the result is not compared (:func:`replay_episode` does).
    """
    game = game_of_env(env)
    if game is not None and game.env_id != record.env_id:
        raise ReplayMismatch(f"the record is of {record.env_id!r}, this env is {game.env_id!r}")
    moves = _RecordedMoves(record.moves)
    players = [moves] * len(env.possible_agents)
    options = record.options or None
    episode = play_episode(env, players, record.seed, options, observer=observer, api=api)
    if moves.index != len(record.moves):
        raise ReplayMismatch(f"record has moves left after {moves.index} moves")
    return episode
