"""Output folders that are never shared, never silently overwritten, and never left half-written.

Every command that writes a results folder (``kiaule tournament``, ``benchmark``, ``train``,
``strength``) claims it first with :func:`claim_output`:

* an exclusive lock (:mod:`filelock`, the file ``.kiaule.lock`` inside the folder, which holds
  the pid, host and command of the run holding it), so a second run on the same folder stops at
  once, naming the holder, instead of interleaving its files with the first run's;
* a marker (``.kiaule-output.json``: the command and the settings that decide the folder's
  content), so a command only writes into an empty folder or into its own output for the same
  settings (a resume, or a rerun that rewrites the same files). Anything else (a user's files,
  another command's output, this command's output for other settings) is refused with a
  ``ValueError`` saying what differs, unless ``force`` is given.

Files are written whole (:func:`write_atomic`: a temporary file in the same folder, then an
atomic rename); a failed write (a full disk) removes the temporary file and raises an ``OSError``
that names the file (:func:`naming_errors`).
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import socket
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: the lock file inside a claimed folder (also holds who holds the lock, as JSON)
LOCK_FILE = ".kiaule.lock"
#: the marker inside a claimed folder: ``{"command": ..., "settings": ...}``
MARKER_FILE = ".kiaule-output.json"
#: the files of the mechanism itself (a folder holding only these counts as empty)
OWN_FILES = (LOCK_FILE, MARKER_FILE)

#: longest value shown when settings differ (code digests, long agent lists)
_SHOWN = 60


class OutputInUse(ValueError):
    """The output folder is locked by another run."""


class OutputNotOurs(ValueError):
    """The output folder holds files this command did not write for these settings.

    ``changed`` says what differs when the folder holds the command's output for other
    settings (``None`` for a user's files or another command's output).
    """

    def __init__(self, message: str, changed: str | None = None):
        super().__init__(message)
        self.changed = changed


@dataclass(frozen=True)
class Claim:
    """A claimed output folder; ``fresh`` when it held no output of this command and settings
    (a new or empty folder, or one taken over with ``force``): the command starts afresh."""

    path: Path
    fresh: bool


@contextlib.contextmanager
def claim_output(
    path: str | Path,
    owner: str,
    settings: Any,
    force: bool = False,
    option: str = "--out",
    any_settings: bool = False,
) -> Iterator[Claim]:
    """Hold ``path`` exclusively for the ``with`` block, after checking it may be written.

    ``owner`` is the command (``"kiaule tournament"``); ``settings`` (JSON data) decide the
    folder's content: the folder must be empty, or hold ``owner``'s output for equal
    ``settings`` (for any settings with ``any_settings``: folders the command rewrites whatever
    it is asked, like the published results). ``force`` takes over any folder. ``option`` names
    the argument in messages. Raises :class:`OutputInUse` or :class:`OutputNotOurs`
    (``ValueError``\\ s) before anything is written but the lock file.
    """
    from filelock import FileLock, Timeout

    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"{option} {folder} is a file, not a folder")
    folder.mkdir(parents=True, exist_ok=True)
    lock = FileLock(folder / LOCK_FILE, timeout=0, thread_local=False)
    try:
        lock.acquire()
    except Timeout:
        raise OutputInUse(
            f"{option} {folder} is in use by another run ({_holder(folder)}); wait for it to "
            f"end, or use another {option} folder"
        ) from None
    try:
        _write_holder(folder)
        fresh = _check_folder(folder, owner, None if any_settings else settings, force, option)
        marker = {"command": owner, "settings": settings}
        write_atomic(folder / MARKER_FILE, json.dumps(marker, indent=1) + "\n")
        yield Claim(folder, fresh)
    finally:
        lock.release()


def read_marker(folder: str | Path) -> dict[str, Any] | None:
    """The marker of ``folder`` (``None`` if it has none or it is not a marker)."""
    try:
        data = json.loads((Path(folder) / MARKER_FILE).read_text())
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("command"), str):
        return None
    return data


def _check_folder(folder: Path, owner: str, settings: Any, force: bool, option: str) -> bool:
    """Whether the command starts afresh in ``folder``; ``OutputNotOurs`` if it may not write."""
    others = sorted(p.name for p in folder.iterdir() if p.name not in OWN_FILES)
    if not others:
        return True
    marker = read_marker(folder)
    changed = None
    if marker is None:
        why = f"holds files not written by {owner} ({_names(others)})"
    elif marker["command"] != owner:
        why = f"holds the output of {marker['command']}, not {owner}"
    elif settings is None or _normal(marker.get("settings")) == _normal(settings):
        return False
    else:
        changed = differences(marker.get("settings"), settings)
        why = f"holds {owner} output for other settings ({changed})"
    if force:
        return True
    raise OutputNotOurs(
        f"{option} {folder} {why}; use another {option} folder, or --force to overwrite it",
        changed,
    )


def differences(old: Any, new: Any) -> str:
    """What differs between two settings dicts, as ``key: old there, new here`` items."""
    old, new = _normal(old), _normal(new)
    if not isinstance(old, dict) or not isinstance(new, dict):
        return f"{_short(old)} there, {_short(new)} here"
    keys = [k for k in dict.fromkeys([*new, *old]) if old.get(k) != new.get(k)]
    return "; ".join(
        f"{k}: {_short(old.get(k, '(none)'))} there, {_short(new.get(k, '(none)'))} here"
        for k in keys
    )


def _normal(data: Any) -> Any:
    """``data`` as JSON would give it back (tuples as lists), so equal settings compare equal."""
    return json.loads(json.dumps(data, sort_keys=True))


def _short(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, str) else value
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


def _names(names: list[str]) -> str:
    return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def _write_holder(folder: Path) -> None:
    """Write who holds the lock into the lock file (we hold it: nobody else writes it)."""
    holder = {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]) if sys.argv else "",
        "since": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    }
    with naming_errors(folder / LOCK_FILE), (folder / LOCK_FILE).open("w") as f:
        f.write(json.dumps(holder) + "\n")


def _holder(folder: Path) -> str:
    """Who holds the lock of ``folder``, as far as its lock file says."""
    try:
        data = json.loads((folder / LOCK_FILE).read_text())
        return (
            f"pid {data['pid']} on {data['host']} since {data['since']}: "
            f"{data['command'] or 'a library call'}"
        )
    except (OSError, ValueError, KeyError, TypeError):
        return "its lock file does not say which"


@contextlib.contextmanager
def naming_errors(path: str | Path) -> Iterator[None]:
    """Re-raise an ``OSError`` without a file name (a failed write) as one naming ``path``."""
    try:
        yield
    except OSError as exc:
        if exc.filename is not None:
            raise
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from exc


def write_atomic(path: str | Path, text: str | Iterable[str]) -> None:
    """Write ``text`` (or its pieces) to ``path`` whole: a temporary file, then a rename.

    On failure (a full disk) the temporary file is removed, ``path`` is left as it was, and the
    ``OSError`` names ``path``.
    """
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    pieces = [text] if isinstance(text, str) else text
    try:
        with naming_errors(path):
            with tmp.open("w", encoding="utf-8") as f:
                for piece in pieces:
                    f.write(piece)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_text(path: str | Path, text: str) -> None:
    """``Path.write_text`` whose errors name the file."""
    with naming_errors(path):
        Path(path).write_text(text, encoding="utf-8")
