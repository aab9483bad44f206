"""Replay a game record into the frames the viewer page shows, through the public env API only.

A record (:class:`kiaule_env.core.records.GameRecord`) is replayed on a fresh ``raw_env`` of its
env id by the play loop, through the env's public API
(:func:`kiaule_env.core.records.replay_moves`), with a step observer that takes the frames.
Before every move and after the last one it takes a *frame*:

* ``table``: ``render()`` in ``"ansi"`` mode, the table as a person standing above it sees it;
* every seat's ``env.unwrapped.view(agent)``, serialised generically (:func:`serialize`: the
  dataclass fields, cards as symbols), split into ``public`` (the fields every seat's view holds
  alike) and ``private`` (per seat, the fields that differ, such as the hand). A seat's view is
  ``{**public, **private[seat]}``, exactly the data the agent got; the omniscient view is the
  union of all of them;
* ``hands``: every seat's hand as the omniscient onlooker sees it, ``to_act``, its ``legal``
  move texts, the cumulative ``rewards`` per seat, the ``unit`` (trick or turn number) for
  stepping by trick, and small per-game display ``extras`` (:mod:`experiments.viewer.games`).

The engine state is never read: everything comes from ``view``, ``legal_moves``, ``render``,
``rewards`` and ``infos``; other seats' moves are masked by the engine's ``masked_text`` (the
same rule human play and the demo use, :func:`kiaule_env.core.engine.text_seen_by`).
"""

from __future__ import annotations

import dataclasses
import importlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kiaule_env import ENV_MODULES
from kiaule_env.cards import CARD_SYMBOLS, RANKS, SUIT_SYMBOLS, SUITS, parse_card
from kiaule_env.core.records import GameRecord, ReplayMismatch, replay_moves

#: the name of a tournament's records file inside its results folder
GAMES_FILE = "games.jsonl"
_SYMBOLS = frozenset(CARD_SYMBOLS)


@dataclasses.dataclass
class LoadedGame:
    """One record from a records file, with what the file says about it besides the record."""

    record: GameRecord
    source: str
    index: int
    count: int
    #: agent name per seat (from a tournament line), or None
    seats: list[str] | None = None
    #: the tournament key ``[deal, lineup, rotation]``, or None
    key: list[int] | None = None


# ---------------------------------------------------------------------------- loading
def _record_from(data: Any) -> GameRecord | None:
    """The record in one JSON value: a tournament line (``{"record": …}``) or a bare record."""
    if not isinstance(data, dict):
        return None
    if isinstance(data.get("record"), dict):
        data = data["record"]
    try:
        return GameRecord.from_dict(data)  # checked like from_json, without a second parse
    except ValueError:
        return None


def records_path(path: str | Path) -> Path:
    """``path``, or the ``games.jsonl`` inside it when it is a tournament results folder."""
    path = Path(path)
    if path.is_dir():
        inner = path / GAMES_FILE
        if not inner.is_file():
            raise ValueError(
                f"{path} is a folder without {GAMES_FILE}; give a tournament results folder, "
                "a games.jsonl file or a saved game record"
            )
        return inner
    return path


def read_records(path: str | Path) -> list[tuple[GameRecord, dict[str, Any]]]:
    """Every game record in ``path`` with its tournament line (``{}`` for a bare record).

    ``path`` may be a tournament results folder (its ``games.jsonl`` is read), a JSON-lines file
    of tournament lines or bare records, or one record saved by :meth:`GameRecord.save`.
    Raises ``ValueError`` naming the file when it is missing or holds no records.
    """
    path = records_path(path)
    if not path.is_file():
        raise ValueError(f"{path} does not exist; give a games.jsonl file or a saved game record")
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path} cannot be read as text: {exc}") from None
    found: list[tuple[GameRecord, dict[str, Any]]] = []
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        whole = None
    if whole is not None:
        record = _record_from(whole)
        if record is not None:
            found.append((record, whole if "record" in whole else {}))
    else:
        for line in text.splitlines():
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError:
                continue
            record = _record_from(data)
            if record is not None:
                found.append((record, data if "record" in data else {}))
    if not found:
        raise ValueError(
            f"{path} holds no game records; expected a tournament's {GAMES_FILE} (lines with "
            "a 'record') or a record saved by GameRecord.save (env_id, env_kwargs, seed, "
            "options, moves)"
        )
    return found


def load_game(path: str | Path, index: int = 0) -> LoadedGame:
    """Game number ``index`` (0-based, in file order) of the records in ``path``.

    Raises ``ValueError`` naming the file for a file without records, an index out of range or
    a record of an env id that is not one of this suite's.
    """
    path = records_path(path)
    records = read_records(path)
    count = len(records)
    if not 0 <= index < count:
        allowed = "0" if count == 1 else f"0–{count - 1}"
        raise ValueError(
            f"game index {index} is out of range: {path} holds {count} game record"
            f"{'s' if count != 1 else ''} (allowed: {allowed})"
        )
    record, line = records[index]
    check_env_id(record.env_id, path)
    return LoadedGame(
        record=record,
        source=str(path),
        index=index,
        count=count,
        seats=list(line["seats"]) if isinstance(line.get("seats"), list) else None,
        key=list(line["key"]) if isinstance(line.get("key"), list) else None,
    )


def check_env_id(env_id: Any, source: str | Path = "the record") -> str:
    """``env_id`` if it is one of the suite's env ids, else ``ValueError`` naming them."""
    if env_id not in ENV_MODULES:
        raise ValueError(
            f"{source}: unknown env id {env_id!r} in the game record; known env ids: "
            + ", ".join(ENV_MODULES)
        )
    return env_id


def make_raw_env(env_id: str, env_kwargs: dict[str, Any]) -> Any:
    """``<game>_v0.raw_env(**env_kwargs, render_mode="ansi")`` for a suite env id."""
    module = importlib.import_module(ENV_MODULES[check_env_id(env_id)])
    kwargs = {**env_kwargs, "render_mode": "ansi"}
    return module.raw_env(**kwargs)


# ---------------------------------------------------------------------------- serialising
def card_symbol(card: int) -> str | None:
    """The symbol of a card id (``10♥``), None for -1 (no card)."""
    return None if card < 0 else CARD_SYMBOLS[card]


def suit_symbol(suit: int) -> str:
    """The symbol of a suit index, ``any`` for -1."""
    return "any" if suit < 0 else SUIT_SYMBOLS[SUITS[suit]]


def _cards(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return card_symbol(value)
    if isinstance(value, (list, tuple)):
        return [_cards(v) for v in value]
    return plain(value)


def plain(value: Any) -> Any:
    """A JSON-able copy of ``value``: dataclasses as dicts of their fields, tuples as lists."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if hasattr(value, "tolist"):
        return value.tolist()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def serialize(view: Any, display: Any) -> dict[str, Any]:
    """A view dataclass as a JSON-able dict, every field by name.

    Fields the game's display lists as card fields become card symbols (nested as they are),
    suit fields suit symbols, rank fields rank texts, and play fields (a trick: items whose first
    element is the seat and last the card or cards) ``{"seat", "kind", "cards"}`` dicts.
    """
    out: dict[str, Any] = {}
    for f in dataclasses.fields(view):
        value = getattr(view, f.name)
        name = f.name
        if name in display.card_fields:
            out[name] = _cards(value)
        elif name in display.suit_fields:
            out[name] = suit_symbol(int(value))
        elif name in display.rank_fields:
            out[name] = [RANKS[int(r)] for r in value]
        elif name in display.play_fields:
            out[name] = [_play(item, display) for item in value]
        else:
            out[name] = plain(value)
    return out


def _play(item: Sequence[Any], display: Any) -> dict[str, Any]:
    cards = item[-1]
    cards = [cards] if isinstance(cards, int) else list(cards)
    kind = None
    if len(item) > 2:
        kind = item[1]
        if display.play_kinds is not None and isinstance(kind, int):
            kind = display.play_kinds[kind]
    return {"seat": int(item[0]), "kind": kind, "cards": [card_symbol(c) for c in cards]}


def split_views(views: Sequence[dict[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """``(public, private)``: the fields equal in every view, and per view the others."""
    public: dict[str, Any] = {}
    private: list[dict[str, Any]] = [{} for _ in views]
    for name in views[0]:
        values = [v[name] for v in views]
        if name != "seat" and all(v == values[0] for v in values[1:]):
            public[name] = values[0]
        else:
            for i, v in enumerate(values):
                private[i][name] = v
    return public, private


# ---------------------------------------------------------------------------- replaying
def build_replay(game: LoadedGame | GameRecord) -> dict[str, Any]:
    """Replay a record and return the viewer's data: the game, its moves and one frame per move.

    ``frames[i]`` is the table before move ``i``; the last frame is the end. The record is
    replayed by the play loop through the env's public API (:func:`replay_moves`), a
    :class:`_Frames` observer taking the frames. Raises ``ValueError`` (naming the source) when
    the record does not replay: an unknown env id, bad constructor keywords or options, or a
    move whose text differs from the env's.
    """
    from experiments.viewer.games import display_for

    loaded = game if isinstance(game, LoadedGame) else LoadedGame(game, "the record", 0, 1)
    record = loaded.record
    where = f"{loaded.source}: game {loaded.index}"
    display = display_for(check_env_id(record.env_id, loaded.source))
    try:
        env = make_raw_env(record.env_id, record.env_kwargs)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{where} cannot be set up: {exc}") from None
    frames = _Frames(display, record)
    try:
        episode = replay_moves(env, record, frames, api=True)
    except ReplayMismatch as exc:
        at = "" if exc.move is None else f" at move {exc.move}"
        raise ValueError(f"{where} does not replay{at}: {exc.problem}") from None
    except (ValueError, TypeError) as exc:  # the env refused the seed or the options
        raise ValueError(f"{where} cannot be set up: {exc}") from None
    frames.take(None, {})  # the end
    return _replay_data(loaded, display, env, frames, episode.result)


class _Frames:
    """Step observer of the replay: the frame before every move (with the move's probabilities
    from the record), the move's note and the running rewards after it."""

    def __init__(self, display: Any, record: GameRecord):
        self.display, self.record = display, record
        self.env: Any = None
        self.agents: list[str] = []
        self.totals: dict[str, float] = {}
        self.frames: list[dict[str, Any]] = []
        self.notes: list[str | None] = []
        self.policies: list[list[list[Any]] | None] = []

    def start(self, env: Any) -> None:
        self.env = env
        self.agents = list(env.possible_agents)
        self.totals = dict.fromkeys(self.agents, 0.0)

    def take(self, agent: str | None, legal: dict[int, str]) -> None:
        """Take the frame of the table now, ``agent`` to act with ``legal`` (None: the end)."""
        frame = _frame(self.env, self.agents, self.display, self.record, self.totals, agent, legal)
        self.frames.append(frame)

    def before(self, env: Any, seats: tuple[int, ...], actions: tuple[int, ...]) -> None:
        agent = self.agents[seats[0]]
        legal = env.legal_moves(agent)
        self.take(agent, legal)
        self.policies.append(_policy(self.record, len(self.policies), legal))

    def after(self, env: Any, seats: tuple[int, ...], actions: tuple[int, ...], info: Any) -> None:
        views = [env.view(a) for a in self.agents]
        self.notes.append(self.display.move_note(views, seats[0]))
        for a, r in env.rewards.items():
            self.totals[a] += float(r)


def _replay_data(
    loaded: LoadedGame,
    display: Any,
    env: Any,
    frames: _Frames,
    result: dict[str, Any] | None,
) -> dict[str, Any]:
    """The viewer's data of a replayed record (:func:`build_replay`)."""
    record = loaded.record
    agents = frames.agents
    moves = list(record.moves)
    policies = frames.policies
    return {
        "env_id": record.env_id,
        "game": display.name,
        "title": display.title,
        "unit": display.unit_name,
        "source": loaded.source,
        "index": loaded.index,
        "count": loaded.count,
        "key": loaded.key,
        "env_kwargs": plain(record.env_kwargs),
        "seed": record.seed,
        "agents": agents,
        # the view's fields in the dataclass order (the page lists them so)
        "fields": [f.name for f in dataclasses.fields(env.unwrapped.view(agents[0]))],
        "seats": loaded.seats,
        "teams": display.teams,
        "moves": [[a, int(act), t] for a, act, t in moves],
        # move index -> its text as the other seats see it, for moves that hide something
        # (the engine's masked_text: Kozel's face-down discards, Pig's passed card)
        "hidden": {
            str(i): masked
            for i, (_, _, text) in enumerate(moves)
            if (masked := env.unwrapped.engine.masked_text(text)) is not None
        },
        # per move, what it showed that its text does not say (Elgeta: the card played), or None
        "notes": frames.notes,
        # per move, the cards its text names (Elgeta: the card its note names), for the last
        # trick or turn drawn as cards; another seat's hidden move shows its masked text's ▒
        "move_cards": [
            _text_cards(text) or _text_cards(note or "")
            for (_, _, text), note in zip(moves, frames.notes, strict=True)
        ],
        # per move, the agent's probabilities as ``[[move text, p], …]`` (most likely first), or
        # None: only records of agents with ``act_with_policy`` carry them
        "policies": policies if any(p is not None for p in policies) else None,
        "simultaneous": display.simultaneous,
        "seat_fields": sorted(display.seat_fields),
        "phase_names": list(display.phase_names) if display.phase_names else None,
        "result": record.result if result is None else result,
        "recorded_result": record.result,
        "rewards": [frames.totals[a] for a in agents],
        "frames": frames.frames,
    }


def _text_cards(text: str) -> list[str]:
    """The symbols of the cards a move text (or a move note, in symbols) names, in order
    (``lead JC 10H`` -> ``J♣ 10♥``; Pig's ``pass Q`` names a rank, no card)."""
    out = []
    for token in text.split():
        if token in _SYMBOLS:
            out.append(token)
            continue
        try:
            out.append(CARD_SYMBOLS[parse_card(token)])
        except (ValueError, KeyError, IndexError):
            continue
    return out


def _policy(record: GameRecord, index: int, legal: dict[int, str]) -> list[list[Any]] | None:
    """Move ``index``'s probabilities from the record as ``[[move text, p], …]``, the most
    likely first; None when the record has none for it. An action that is not legal there
    makes the record not replay (:class:`ReplayMismatch`)."""
    policies = record.policies
    if not policies or policies[index] is None:
        return None
    out = []
    for action, p in policies[index].items():
        text = legal.get(int(action))
        if text is None:
            raise ReplayMismatch(
                f"the recorded probabilities name action {action}, not legal there "
                f"(legal: {', '.join(map(str, sorted(legal)))})",
                index,
            )
        out.append([text, float(p)])
    out.sort(key=lambda item: (-item[1], item[0]))
    return out


def _frame(
    env: Any,
    agents: list[str],
    display: Any,
    record: GameRecord,
    totals: dict[str, float],
    to_act: str | None,
    legal: dict[int, str],
) -> dict[str, Any]:
    raw = env.unwrapped
    views = [raw.view(a) for a in agents]
    data = [serialize(v, display) for v in views]
    public, private = split_views(data)
    hands = display.hands(views, record)
    omni = display.extras(views, None, record)
    per_seat = [display.extras(views, s, record) for s in range(len(agents))]
    seen = [display.seen(views, s, hands) for s in range(len(agents))]
    return {
        "table": env.render() or "",
        "public": public,
        "private": private,
        "hands": [[card_symbol(c) for c in hand] for hand in hands],
        "to_act": to_act,
        "legal": sorted(legal.values()),
        "unit": display.unit(views[0]),
        "rewards": [totals[a] for a in agents],
        # per seat: that seat's picture of every hand (None: a card face down to him)
        "seen": seen if any(row != seen[0] for row in seen) else [seen[0]],
        "extras": {
            "omni": omni,
            # None where a seat knows just what the onlooker sees
            "seats": [None if rows == omni else rows for rows in per_seat],
        },
        "notes": display.notes(views),
    }
