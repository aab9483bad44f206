"""Model files: an SB3 ``MaskablePPO`` zip plus a ``kiaule.json`` entry saying what it is for.

The metadata (game, env keywords, player count, observation size, number of actions, team play,
the training config and command) travels inside the model zip, so a model can be checked before
it plays: one trained for another game or player count is refused with a clear error instead of
misreading observations. Reading the metadata needs only the standard library.

Format 2 adds the observation layout the model was trained on (``observation_layout``: the
layout's fingerprint and its ``[[name, size], ...]`` slices, :mod:`kiaule_env.core.layout`).
Loading compares it with the layout the game's encoder builds today for the model's recorded env
keywords, so a model trained for an older encoding is refused, naming the slices that changed,
even when the observation size happens to be the same. Format-1 files (no layout) are refused
too: retrain them, or, for a file whose encoding is known to be the current one, record the
current layout with :func:`stamp_layout`.
"""

from __future__ import annotations

import json
import zipfile
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kiaule_env.core.layout import ObservationLayout

META_ENTRY = "kiaule.json"
#: 2: ``observation_layout`` recorded (and checked on loading); 1: without it
FORMAT_VERSION = 2
#: the metadata key of the observation layout (format 2)
LAYOUT_KEY = "observation_layout"


def write_metadata(path: str | Path, meta: dict[str, Any]) -> None:
    """Add (or replace) the ``kiaule.json`` entry of a saved model zip."""
    path = Path(path)
    payload = json.dumps({"format": FORMAT_VERSION, **meta}, indent=2, sort_keys=True, default=str)
    with zipfile.ZipFile(path) as zf:
        entries = [(i, zf.read(i.filename)) for i in zf.infolist() if i.filename != META_ENTRY]
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for info, data in entries:
            zf.writestr(info, data)
        zf.writestr(META_ENTRY, payload)


#: entries every kiaule.json must have, with their types
REQUIRED_META: dict[str, type] = {"game": str, "num_players": int}


def read_metadata(path: str | Path) -> dict[str, Any]:
    """The ``kiaule.json`` of a model zip.

    ``FileNotFoundError`` if there is no file; ``ValueError`` naming the file and what is wrong if
    it is not a zip, is damaged, has no ``kiaule.json``, or that entry is not a JSON object with
    the game and player count.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no model file at {path}")
    try:
        with zipfile.ZipFile(path) as zf:
            if META_ENTRY not in zf.namelist():
                raise ValueError(
                    f"{path} has no {META_ENTRY}: it was not saved by experiments.train "
                    "(kiaule_env learned agents need to know their game and player count)"
                )
            raw = zf.read(META_ENTRY)
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError) as exc:
        raise ValueError(f"{path} is not a model zip file, or it is damaged: {exc}") from None
    try:
        meta = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: its {META_ENTRY} is not valid JSON ({exc})") from None
    return check_metadata(meta, path)


def check_metadata(meta: Any, path: str | Path) -> dict[str, Any]:
    """``meta`` if it is a JSON object with a string ``game`` and an integer ``num_players``."""
    if not isinstance(meta, dict):
        raise ValueError(
            f"{path}: its {META_ENTRY} must be a JSON object, got {type(meta).__name__}"
        )
    for key, kind in REQUIRED_META.items():
        value = meta.get(key)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise ValueError(
                f"{path}: its {META_ENTRY} needs {key!r} as {kind.__name__}, got {value!r}"
            )
    return meta


def check_compatible(
    meta: dict[str, Any],
    game: str | None = None,
    num_players: int | None = None,
    obs_size: int | None = None,
    num_actions: int | None = None,
    where: str = "model",
    layout: ObservationLayout | None = None,
) -> None:
    """Refuse (``ValueError``) a model trained for another game, player count or encoding.

    With ``layout`` (the observation layout of the env it is to play), the model's recorded layout
    must be that one (:func:`check_layout`); a model without a recorded layout is refused.
    """
    trained = f"trained for {meta.get('game')} with num_players={meta.get('num_players')}"
    if game is not None and meta.get("game") != game:
        raise ValueError(f"{where} was {trained}; it cannot play {game}")
    if num_players is not None and meta.get("num_players") != num_players:
        raise ValueError(
            f"{where} was {trained}; it cannot play {game or meta.get('game')} with "
            f"num_players={num_players} (train one for that player count)"
        )
    if obs_size is not None and meta.get("obs_size") != obs_size:
        raise ValueError(
            f"{where} was {trained} with observation size {meta.get('obs_size')}, but this env's "
            f"observation has size {obs_size}: the env's encoding changed or the options differ; "
            "retrain the model" + _slice_changes(meta, layout)
        )
    if num_actions is not None and meta.get("num_actions") != num_actions:
        raise ValueError(
            f"{where} was {trained} with {meta.get('num_actions')} actions, but this env has "
            f"{num_actions}: retrain the model"
        )
    if layout is not None:
        check_layout(meta, layout, where)


def _slice_changes(meta: dict[str, Any], layout: ObservationLayout | None) -> str:
    """`` (added 'x' (size 1), ...)`` when the model records a layout to compare, else ``""``."""
    from kiaule_env.core.layout import layout_differences

    entry = meta.get(LAYOUT_KEY)
    if layout is None or not isinstance(entry, dict) or not isinstance(entry.get("slices"), list):
        return ""
    try:
        changes = layout_differences(entry["slices"], layout.describe())
    except (TypeError, ValueError):
        return ""
    return f" ({', '.join(changes)})" if changes else ""


def layout_metadata(layout: ObservationLayout) -> dict[str, Any]:
    """What a model file records of its observation layout: fingerprint and slice list."""
    return {"fingerprint": layout.fingerprint(), "slices": layout.describe()}


def recorded_layout(meta: dict[str, Any], where: str = "model") -> dict[str, Any]:
    """The model's recorded observation layout; ``ValueError`` if it has none or it is malformed.

    A file without one was written before layouts were recorded (format 1): nothing says which
    encoding its network reads, so it is refused rather than guessed at.
    """
    entry = meta.get(LAYOUT_KEY)
    if entry is None:
        version = meta.get("format", 1)
        why = (
            f"model file format {version}, written before format 2 recorded it"
            if isinstance(version, int) and version < 2
            else f"its {META_ENTRY} has no {LAYOUT_KEY!r}"
        )
        raise ValueError(
            f"{where} records no observation layout ({why}), so it cannot be checked "
            f"against the current {meta.get('game')} encoding: retrain it "
            "with experiments.train for the current encoding (or, only if its encoding is known "
            "to be the current one, record it with agents.training.model_io.stamp_layout(path))"
        )
    slices = entry.get("slices") if isinstance(entry, dict) else None
    well_formed = (
        isinstance(entry, dict)
        and isinstance(entry.get("fingerprint"), str)
        and isinstance(slices, list)
        and all(
            isinstance(s, list)
            and len(s) == 2
            and isinstance(s[0], str)
            and isinstance(s[1], int)
            and not isinstance(s[1], bool)
            for s in slices
        )
    )
    if not well_formed:
        raise ValueError(
            f"{where}: its {META_ENTRY} {LAYOUT_KEY!r} must be an object with a string "
            f"'fingerprint' and 'slices' as [[name, size], ...], got {entry!r}"
        )
    return entry


def check_layout(meta: dict[str, Any], layout: ObservationLayout, where: str = "model") -> None:
    """Refuse (``ValueError``) a model whose recorded observation layout is not ``layout``.

    The message names the slices added, removed or resized since the model was trained.
    """
    from kiaule_env.core.layout import layout_differences

    recorded = recorded_layout(meta, where)
    if recorded["fingerprint"] == layout.fingerprint():
        return
    changes = layout_differences(recorded["slices"], layout.describe())
    what = ", ".join(changes) if changes else "the slices' value bounds (low/high) changed"
    raise ValueError(
        f"{where} was trained for another observation layout of {meta.get('game')} than the "
        f"current encoding's (fingerprint {recorded['fingerprint']}, now "
        f"{layout.fingerprint()}): {what}; the model must be retrained for the current encoding"
    )


def current_layout(meta: dict[str, Any], where: str = "model") -> ObservationLayout:
    """The layout the model's game observes today with its recorded env keywords and count.

    Only the engine is built (no env, no episode). ``ValueError`` naming ``where`` if the game is
    unknown or the recorded keywords are no longer valid options of it.
    """
    return _current_engine(meta, where).encoder.layout


def _current_engine(meta: dict[str, Any], where: str) -> Any:
    """The game's engine for the model's recorded env keywords and player count."""
    from kiaule_env import GAMES

    game = GAMES.get(meta.get("game"))
    if game is None:
        raise ValueError(
            f"{where} was trained for {meta.get('game')!r}, which is not a game of this "
            f"version (games: {', '.join(GAMES)})"
        )
    options = dict(meta.get("env_kwargs") or {})
    if meta.get("num_players") is not None:
        options["num_players"] = meta["num_players"]
    try:
        return game.make_engine(**options)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"{where}: its recorded env keywords {options} are not valid for {game.name} "
            f"any more ({exc}); retrain the model"
        ) from None


def stamp_layout(path: str | Path) -> dict[str, Any]:
    """Record the current observation layout in a model file that has none (format 1).

    For model files whose network is known to read today's encoding, such as zoo models trained
    before layouts were recorded on an encoding that has not changed since. Refuses
    (``ValueError``) a file whose observation size or number of actions differs from what the
    game's env has today with the file's env keywords, or that already records another layout:
    such a file needs retraining, not a stamp. A file that records the current layout is left
    as it is. Otherwise rewrites the file's metadata as format :data:`FORMAT_VERSION`
    (``layout_stamped`` true: the layout was added after training); returns the metadata.
    """
    path = Path(path)
    meta = read_metadata(path)
    engine = _current_engine(meta, str(path))
    layout = engine.encoder.layout
    if meta.get(LAYOUT_KEY) is not None:
        check_layout(meta, layout, str(path))  # refuses another layout, naming the slices
        return meta
    if meta.get("obs_size") != layout.size or meta.get("num_actions") != engine.num_actions:
        raise ValueError(
            f"{path} has observation size {meta.get('obs_size')} and "
            f"{meta.get('num_actions')} actions, but {meta['game']} with its env keywords has "
            f"{layout.size} and {engine.num_actions} today: its encoding changed; retrain the "
            "model instead of stamping it"
        )
    meta = {k: v for k, v in meta.items() if k != "format"}
    meta[LAYOUT_KEY] = layout_metadata(layout)
    meta["layout_stamped"] = True
    write_metadata(path, meta)
    return read_metadata(path)


def load_policy_arrays(path: str | Path) -> dict[str, Any]:
    """The saved policy's state dict (torch tensors) without building the SB3 model.

    ``ValueError`` naming the file if it has no readable ``policy.pth``.
    """
    return load_state_entry(path, "policy.pth")


def load_state_entry(path: str | Path, entry: str) -> dict[str, Any]:
    """A torch state dict stored as ``entry`` of a model zip (``policy.pth``, or the optimizer's
    ``policy.optimizer.pth``), read with ``weights_only=True``: tensors and plain containers
    only, so the entry cannot run code. ``ValueError`` naming the file and the entry if it is
    missing, damaged, or not a state dict.
    """
    import io

    import torch

    try:
        with zipfile.ZipFile(path) as zf:
            data = zf.read(entry)
    except KeyError:
        raise ValueError(f"{path} has no {entry}: it is not a saved MaskablePPO model") from None
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError) as exc:
        raise ValueError(f"{path} is not a model zip file, or it is damaged: {exc}") from None
    try:
        state = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as exc:
        # damaged bytes fail anywhere in torch's unpickler (UnpicklingError, RuntimeError, but
        # also IndexError, KeyError, struct.error...); a refused global is an UnpicklingError.
        # All mean the same: not a state dict of tensors.
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ValueError(f"{path}: its {entry} is not a torch state dict ({first})") from None
    if not isinstance(state, dict):
        raise ValueError(f"{path}: its {entry} holds {type(state).__name__}, not a state dict")
    return state


def export_for_play(src: str | Path, dst: str | Path) -> Path:
    """Copy a model zip without its optimizer's running moments (a third of the file).

    The optimizer state is replaced by an empty one (same parameter groups), so the copy still
    loads with ``MaskablePPO.load`` and could be trained further (Adam restarts its moment
    estimates); use the run's checkpoints for an exact resume. The zoo ships such copies.
    """
    import io

    import torch

    src, dst = Path(src), Path(dst)
    dst.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(src) as zf:
        entries = [(i, zf.read(i.filename)) for i in zf.infolist()]
    with zipfile.ZipFile(dst, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for info, data in entries:
            if info.filename == "policy.optimizer.pth":
                state = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
                buffer = io.BytesIO()
                torch.save({"state": {}, "param_groups": state["param_groups"]}, buffer)
                data = buffer.getvalue()
            elif info.filename == META_ENTRY:
                meta = json.loads(data)
                meta["exported_for_play"] = True
                data = json.dumps(meta, indent=2, sort_keys=True).encode()
            zf.writestr(info.filename, data, compress_type=zipfile.ZIP_DEFLATED)
    return dst
