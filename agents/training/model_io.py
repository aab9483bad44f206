"""Model files: an SB3 ``MaskablePPO`` zip plus a ``kiaule.json`` entry saying what it is for.

The metadata (game, env keywords, player count, observation size, number of actions, team play,
the training config and command) travels inside the model zip, so a model can be checked before
it plays: one trained for another game or player count is refused with a clear error instead of
misreading observations. Reading the metadata needs only the standard library.
"""

from __future__ import annotations

import json
import zipfile
import zlib
from pathlib import Path
from typing import Any

META_ENTRY = "kiaule.json"
FORMAT_VERSION = 1


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
) -> None:
    """Refuse (``ValueError``) a model trained for another game, player count or encoding."""
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
            "retrain the model"
        )
    if num_actions is not None and meta.get("num_actions") != num_actions:
        raise ValueError(
            f"{where} was {trained} with {meta.get('num_actions')} actions, but this env has "
            f"{num_actions}: retrain the model"
        )


def load_policy_arrays(path: str | Path) -> dict[str, Any]:
    """The saved policy's state dict (torch tensors) without building the SB3 model.

    ``ValueError`` naming the file if it has no readable ``policy.pth``.
    """
    import io
    import pickle

    import torch

    try:
        with zipfile.ZipFile(path) as zf:
            data = zf.read("policy.pth")
    except KeyError:
        raise ValueError(f"{path} has no policy.pth: it is not a saved MaskablePPO model") from None
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError) as exc:
        raise ValueError(f"{path} is not a model zip file, or it is damaged: {exc}") from None
    try:
        state = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except (pickle.UnpicklingError, RuntimeError, EOFError, ValueError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ValueError(f"{path}: its policy.pth is not a torch state dict ({first})") from None
    if not isinstance(state, dict):
        raise ValueError(f"{path}: its policy.pth holds {type(state).__name__}, not a state dict")
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
