"""Record a game as an animated GIF of ``render_mode="rgb_array"`` frames, or time the frames.

    kiaule frames kozel --out kozel.gif              # one seeded game between random agents
    kiaule frames pig --agent rule --seed 3 --out pig.gif --scale 0.5
    kiaule frames --bench                            # milliseconds per frame, every game

A frame is the table as the omniscient onlooker of ``kiaule view`` sees it (every hand face up;
:mod:`kiaule_env.core.frames`), one after the deal and one after every step (in Pig one per
simultaneous passing step). The GIF holds the last frame longer. Both need Pillow (the
``render`` extra). A GIF is written only where no file is, unless ``--force`` says to replace
it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import median
from typing import Any

import numpy as np

from experiments.cli_args import (
    Parser,
    describe,
    fail,
    non_negative_int,
    positive_float,
    positive_int,
)
from kiaule_env import GAMES
from kiaule_env.core.play import play_episode
from kiaule_env.extras import require

#: how long the last frame of a GIF stays, in milliseconds
HOLD_LAST_MS = 3000


class _Recorder:
    """Step observer of :func:`~kiaule_env.core.play.play_episode` that keeps the frame after
    the deal and after every step, up to ``limit`` frames."""

    def __init__(self, limit: int | None):
        self.limit = limit
        self.frames: list[np.ndarray] = []
        self.seconds: list[float] = []

    def _grab(self, env: Any) -> None:
        if self.limit is not None and len(self.frames) >= self.limit:
            return
        start = time.perf_counter()
        frame = env.render()
        self.seconds.append(time.perf_counter() - start)
        self.frames.append(frame)

    def start(self, env: Any) -> None:
        self._grab(env)

    def before(self, env: Any, seats: Any, actions: Any) -> None:
        pass

    def after(self, env: Any, seats: Any, actions: Any, info: Any) -> None:
        self._grab(env)


def record(
    game: str, seed: int = 0, agent: str = "random", limit: int | None = None
) -> tuple[list[np.ndarray], list[float], dict[str, Any]]:
    """Play one seeded game of ``game`` with ``agent`` (a registered kind, ``kiaule agents``) in
    every seat; return its frames, the seconds each took to draw, and the result."""
    from agents.registry import make, qualified

    env = GAMES[game].native_env(render_mode="rgb_array")
    seats = len(env.possible_agents)
    players = [make(qualified(game, agent), seed=seed + i) for i in range(seats)]
    recorder = _Recorder(limit)
    episode = play_episode(env, players, seed=seed, observer=recorder)
    return recorder.frames, recorder.seconds, episode.result


def write_gif(
    frames: Sequence[np.ndarray], path: Path, fps: float = 2.0, scale: float = 1.0
) -> int:
    """Write ``frames`` as a looping animated GIF at ``fps`` frames per second (the last held
    :data:`HOLD_LAST_MS`), each resized by ``scale``; return the file's size in bytes."""
    image_module = require("PIL.Image", "kiaule frames")
    images = []
    for frame in frames:
        image = image_module.fromarray(frame)
        if scale != 1.0:
            size = (round(image.width * scale), round(image.height * scale))
            image = image.resize(size, image_module.Resampling.LANCZOS)
        images.append(image.quantize(colors=64, method=image_module.Quantize.MEDIANCUT))
    step = round(1000 / fps)
    durations = [step] * (len(images) - 1) + [max(step, HOLD_LAST_MS)]
    images[0].save(
        path,
        format="GIF",
        save_all=True,
        append_images=images[1:],
        duration=durations,
        loop=0,
        optimize=True,
    )
    return path.stat().st_size


@dataclass(frozen=True)
class FrameTiming:
    """Drawing speed of one game's frames (``kiaule frames --bench``)."""

    game: str
    height: int
    width: int
    frames: int
    median_ms: float
    mean_ms: float


def bench(games: Sequence[str], seed: int = 0, limit: int = 400) -> list[FrameTiming]:
    """Time ``render()`` on the frames of one seeded random game of each of ``games`` (its
    first ``limit`` frames)."""
    timings = []
    for game in games:
        frames, seconds, _ = record(game, seed=seed, limit=limit)
        ms = [1000 * s for s in seconds]
        height, width, _ = frames[0].shape
        timings.append(FrameTiming(game, height, width, len(ms), median(ms), sum(ms) / len(ms)))
    return timings


def format_timings(timings: Sequence[FrameTiming]) -> str:
    """The timings as a Markdown table."""
    lines = [
        "| game | frame (H × W) | frames timed | median ms/frame | mean ms/frame | frames/s |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for t in timings:
        lines.append(
            f"| {t.game} | {t.height} × {t.width} | {t.frames} | {t.median_ms:.2f} | "
            f"{t.mean_ms:.2f} | {1000 / t.mean_ms:,.0f} |"
        )
    return "\n".join(lines)


def _parser() -> Parser:
    parser = Parser(prog="kiaule frames", description=describe(__doc__))
    parser.add_argument(
        "game", choices=list(GAMES), nargs="?", default=None, help="the game to record"
    )
    parser.add_argument("--out", type=Path, default=None, help="the GIF to write (*.gif)")
    parser.add_argument(
        "--seed", type=non_negative_int, default=0, help="seed of the deal and the agents"
    )
    parser.add_argument(
        "--agent", default="random", help="registered agent kind in every seat (kiaule agents)"
    )
    parser.add_argument(
        "--max-frames", type=positive_int, default=None, help="keep at most this many frames"
    )
    parser.add_argument("--fps", type=positive_float, default=2.0, help="GIF frames per second")
    parser.add_argument(
        "--scale", type=positive_float, default=1.0, help="resize the GIF's frames (0.5: half)"
    )
    parser.add_argument("--force", action="store_true", help="replace an existing --out file")
    parser.add_argument(
        "--bench", action="store_true", help="print the time per frame of every game (or GAME)"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.bench:
        if args.out is not None:
            fail("kiaule frames", "--bench prints timings; it takes no --out")
        games = [args.game] if args.game else list(GAMES)
        print(format_timings(bench(games, seed=args.seed)))
        return 0
    if args.game is None or args.out is None:
        fail("kiaule frames", "give a GAME and --out FILE.gif, or --bench")
    if args.out.suffix.lower() != ".gif":
        fail("kiaule frames", f"--out must name a .gif file, got {str(args.out)!r}")
    if args.out.exists() and not args.force:
        fail("kiaule frames", f"--out {args.out} exists; pass --force to replace it")
    if args.scale > 4:
        fail("kiaule frames", f"--scale must be at most 4, got {args.scale}")
    frames, seconds, result = record(args.game, args.seed, args.agent, args.max_frames)
    size = write_gif(frames, args.out, args.fps, args.scale)
    print(
        f"wrote {args.out}: {len(frames)} frames, {size / 1024:.0f} KiB "
        f"({1000 * sum(seconds) / len(seconds):.1f} ms per frame drawn); result: {result}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
