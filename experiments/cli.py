"""The ``kiaule`` command line: one entry point for every runnable part of the project.

kiaule demo kozel              a rendered game between random agents
kiaule bench                   environment speed benchmark (steps/s vs texas_holdem_v4)
kiaule soak kozel --games N    long random-play invariant check
kiaule view runs/t1 --out g.html  replay a recorded game in the browser

Bad arguments are refused before any work, with one line on stderr and exit status 2; so are the
errors a command meets at its boundaries (a bad option, file or folder: ``ValueError``,
``TypeError``, ``OSError``), and a missing extra (a bare ``pip install -e .`` running a command
that needs ``train``: the line names the extra). Ctrl-C ends a command with one line and status
130. Set ``KIAULE_TRACEBACK=1`` to see the traceback instead.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from kiaule_env.extras import missing_extra, require_all

#: subcommand -> (module with main(argv), one-line help)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("experiments.demo", "play and render one game between random agents"),
    "bench": ("experiments.bench_envs", "measure environment speed"),
    "soak": ("experiments.soak", "long random-play invariant check"),
    "agents": ("experiments.list_agents", "list the registered agents per game"),
    "play": ("experiments.play", "play a game in the terminal against agents"),
    "train": ("experiments.train", "train a MaskablePPO agent (self-play, team play)"),
    "tournament": ("experiments.tournament", "duplicate-deal tournament between agents"),
    "view": ("experiments.viewer", "write an HTML page that replays a recorded game"),
    "frames": ("experiments.frames", "record a game as an animated GIF; time the frames"),
    "benchmark": ("experiments.benchmark", "standard benchmark suite, Markdown report"),
    "elgeta-lengths": ("experiments.elgeta_lengths", "study: Elgeta game lengths (random deals)"),
    "endings": ("experiments.endings", "study: deals ended by play or by a rule cap"),
    "strength": ("experiments.strength", "study: search agents against the baselines by budget"),
}


#: the modules of extras a subcommand cannot start without, checked before it runs, so that a
#: bare install (`pip install -e .`) gets one line naming the extra, not work and then a failure
NEEDS: dict[str, tuple[str, ...]] = {
    "train": ("yaml", "pydantic", "filelock", "torch", "stable_baselines3", "sb3_contrib"),
    "tournament": ("tqdm", "openskill", "scipy", "filelock"),
    "benchmark": ("tqdm", "openskill", "scipy", "filelock"),
    "strength": ("tqdm", "openskill", "scipy", "filelock"),
    "frames": ("PIL",),
}


def _usage() -> str:
    lines = ["usage: kiaule <command> [args]", "", "commands:"]
    lines += [f"  {name:<15} {help_}" for name, (_, help_) in SUBCOMMANDS.items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ("-h", "--help"):
        print(_usage())
        return 0
    command, rest = args[0], args[1:]
    if command not in SUBCOMMANDS:
        print(f"kiaule: unknown command {command!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    if os.environ.get("KIAULE_TRACEBACK"):
        return int(_entry(command, rest)(rest) or 0)
    try:
        return int(_entry(command, rest)(rest) or 0)
    except KeyboardInterrupt:
        print(f"kiaule {command}: interrupted", file=sys.stderr)
        return 130
    except ModuleNotFoundError as exc:
        # an extra this command needs is not installed (a bare `pip install -e .`): one line
        # naming the extra; a module of no extra missing is a bug, its traceback is shown
        missing = missing_extra(exc, "this command")
        if missing is None:
            raise
        print(f"kiaule {command}: {one_line(missing)}", file=sys.stderr)
        return 2
    except (ValueError, TypeError, OSError) as exc:
        print(f"kiaule {command}: {one_line(exc)}", file=sys.stderr)
        return 2


def _entry(command: str, args: list[str]) -> Callable[[list[str]], int]:
    """The ``main`` of a subcommand's module, once the extras it needs are there (``--help``
    works without them). Imported here, inside the error handling: a module may need an extra
    at import."""
    import importlib

    if not {"-h", "--help"} & set(args):
        require_all(NEEDS.get(command, ()), "this command")
    return importlib.import_module(SUBCOMMANDS[command][0]).main


def one_line(exc: BaseException) -> str:
    """The first line of an exception's message (its type name if it has none)."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


if __name__ == "__main__":
    sys.exit(main())
