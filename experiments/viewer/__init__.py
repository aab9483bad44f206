"""Watch a game: a replay viewer in the browser.

    kiaule view runs/t1 --game 3 --out game3.html --open

writes one self-contained HTML file (no network, no server) that replays a recorded game of any
of the four games move by move: the table as a person standing above it sees it, a switch
between the omniscient view (every hand) and one seat's view (exactly the view data the agent
got), the move list, the last trick as cards, stepping by move (Pig: by simultaneous exchange)
and by trick or turn with the arrow keys, autoplay with a speed control, the agents' move
probabilities where the record carries them, and the outcome and rewards at the end.

``RECORDS`` is a tournament results folder, its ``games.jsonl``, or a record saved with
:meth:`kiaule_env.core.records.GameRecord.save`. Library use::

    from experiments.viewer import write_viewer
    write_viewer("runs/t1/games.jsonl", "game0.html", game=0)

Bad input (no records in the file, a game index out of range, an unknown env id, a record that
does not replay) raises ``ValueError`` naming the file and what is allowed; the command prints
it as one line on stderr and exits with status 2.

``--out`` never overwrites the records it reads, a folder, or a file that is not HTML; an
existing HTML page is overwritten only if the viewer wrote it, or with ``--force``
(:func:`check_page_target`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from experiments.outdir import write_atomic
from experiments.viewer.page import extract_data, render_html
from experiments.viewer.replay import LoadedGame, build_replay, load_game, read_records

__all__ = [
    "LoadedGame",
    "build_replay",
    "check_page_target",
    "extract_data",
    "load_game",
    "main",
    "read_records",
    "render_html",
    "viewer_html",
    "write_viewer",
]


def viewer_html(records: str | Path | LoadedGame, game: int = 0) -> str:
    """The viewer page of game ``game`` of ``records`` (or of an already loaded game)."""
    loaded = records if isinstance(records, LoadedGame) else load_game(records, game)
    return render_html(build_replay(loaded))


def write_viewer(
    records: str | Path | LoadedGame, out: str | Path, game: int = 0, force: bool = False
) -> Path:
    """Write the viewer page of game ``game`` of ``records`` to ``out``; return its path.

    ``out`` is checked first (:func:`check_page_target`; ``force`` overwrites an HTML page the
    viewer did not write); the page is written whole or not at all.
    """
    loaded = records if isinstance(records, LoadedGame) else load_game(records, game)
    path = Path(out)
    check_page_target(path, loaded.source, force)
    page = viewer_html(loaded)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, page)
    except OSError as exc:
        raise ValueError(f"cannot write {path}: {exc}") from None
    return path


#: what a page written by :func:`render_html` holds (and other HTML does not)
_PAGE_MARK = 'id="replay-data"'


def check_page_target(out: Path, source: str | Path, force: bool = False) -> None:
    """``ValueError`` unless ``out`` may receive a viewer page read from ``source``.

    Never the records file itself, a folder, or an existing file that is not HTML (``--force``
    or not: the viewer only writes HTML); an existing HTML page only if the viewer wrote it, or
    with ``force``.
    """
    if out.exists() and out.resolve() == Path(source).resolve():
        raise ValueError(f"--out {out} is the records file it reads; give an .html file to write")
    if out.is_dir():
        raise ValueError(f"--out {out} is a folder; give an .html file to write")
    if not out.exists():
        return
    try:
        text = out.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        text = ""
    head = text.lstrip().lower()
    if not head.startswith(("<!doctype html", "<html")):
        raise ValueError(
            f"--out {out} exists and is not an HTML file; it is never overwritten, give an "
            ".html file to write"
        )
    if _PAGE_MARK not in text and not force:
        raise ValueError(
            f"--out {out} is an HTML page not written by kiaule view; use another --out file, "
            "or --force to overwrite it"
        )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kiaule view",
        description="Write a self-contained HTML page that replays a recorded game move by move "
        "(omniscient or one seat's view; arrow keys step by move and by trick or turn, space "
        "plays it at a chosen speed).",
    )
    parser.add_argument(
        "records",
        type=Path,
        help="a tournament results folder, its games.jsonl, or a saved game record (JSON)",
    )
    parser.add_argument(
        "--game", type=int, default=0, metavar="N", help="which game of the file (0-based)"
    )
    parser.add_argument(
        "--out",
        type=Path,
        required=True,
        help="the HTML file to write (never the records, nor an existing file that is not HTML)",
    )
    parser.add_argument(
        "--force", action="store_true", help="overwrite an HTML page kiaule view did not write"
    )
    parser.add_argument(
        "--open", action="store_true", help="open the page in the default web browser"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """``kiaule view``: write (and optionally open) the replay page of one recorded game."""
    args = _parser().parse_args(argv)
    try:
        loaded = load_game(args.records, args.game)
        path = write_viewer(loaded, args.out, force=args.force)
    except ValueError as exc:
        message = " ".join(str(exc).split())
        print(f"kiaule view: {message}", file=sys.stderr)
        return 2
    print(
        f"wrote {path}: {loaded.record.env_id} game {loaded.index} of {loaded.count}, "
        f"{len(loaded.record.moves)} moves"
    )
    if args.open:
        import webbrowser

        if not webbrowser.open(path.resolve().as_uri()):
            print(f"kiaule view: no browser to open; open {path.resolve().as_uri()} yourself")
    return 0
