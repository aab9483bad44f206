"""The game descriptor: everything the tools need to know about a game, declared once.

In the spirit of OpenSpiel's ``_GAME_TYPE`` / ``_GAME_INFO``: each game's public module
(``kiaule_env/<game>_v0.py``) declares ``GAME = GameDescriptor(...)``, and
:data:`kiaule_env.GAMES` maps each game's name to its descriptor, in a fixed order. Agents,
training, tournaments, the benchmark, soak, bench and the generated docs derive everything per
game from it; what cannot be derived (a game's rule-based agent, its research metrics, its zoo
model) is found by convention from the game's name (``agents/<game>.py``,
``experiments/metrics/<game>.py``, ``agents/zoo/<game>_<n>p.zip``). See ``docs/ARCHITECTURE.md``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, field, fields
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from kiaule_env.core.layout import ObservationLayout

#: constructor keywords that belong to the env, not to the game's rules
ENV_KEYWORDS = frozenset({"render_mode", "max_cycles"})


def config_defaults(config: type) -> dict[str, Any]:
    """The rule keywords of a game's ``Config`` dataclass and their defaults, in field order:
    the one place a game's defaults are written (the env's signature, the descriptor's
    ``default_options`` and the OpenSpiel bridge's parameters all read them from there)."""
    return {f.name: f.default for f in fields(config) if f.default is not MISSING}


@dataclass(frozen=True)
class OpenSpielBridge:
    """What the OpenSpiel bridge (``kiaule_env.openspiel``) needs beyond the descriptor and the
    engine contract, declared by the game (no pyspiel import here).

    The bridge offers every rule keyword of ``config`` as a pyspiel parameter with its default,
    except the ``fixed`` ones and the ``hidden`` ones (left at their defaults). A keyword whose
    default is ``None`` takes ``"none"``; an ``int | None`` keyword with an integer default
    takes 0 for ``None``; a ``deck`` named by digits (``"52"``) is an int parameter.
    """

    #: rule keywords fixed so that an episode is one deal whose every random event is a chance
    #: node of the deal (no series, match or full game)
    fixed: Mapping[str, Any] = field(default_factory=dict)
    #: rule keywords not offered (one allowed value, or meaningless for one deal)
    hidden: tuple[str, ...] = ()
    #: the bound of a seat's return for an engine: returns lie in ``[-bound, bound]``
    utility: Callable[[Any], float] = lambda engine: 1.0
    #: ``"module:Class"`` of the deal's chance nodes, built from the engine (like
    #: ``kiaule_env.openspiel.DeckDeal``); None: the engine's ``deck``, card by card, top first
    deal: str | None = None


@dataclass(frozen=True)
class GameDescriptor:
    """A game of the suite; see the module docstring."""

    #: short name, also the agent-name prefix (``kozel`` → ``kozel/heuristic``)
    name: str
    #: PettingZoo registry id, stored in game records
    env_id: str
    version: int
    #: the public versioned module (``env``, ``raw_env``, tables, and this descriptor)
    module: str
    #: ``"module:Class"`` of the game's :class:`~kiaule_env.core.engine.Engine`
    engine: str
    #: ``"aec"``, or ``"parallel"`` for a ParallelEnv that also has an AEC version (``env()``)
    api: Literal["aec", "parallel"]
    player_counts: tuple[int, ...]
    decks: tuple[str, ...]
    #: fixed partnerships (seats sharing one reward), or None: every seat plays for itself
    teams: tuple[tuple[int, ...], ...] | None
    #: whether players make decisions (Elgeta: none after the deal)
    has_decisions: bool
    #: (lowest, highest) episode reward of one seat with the default options
    reward_range: tuple[float, float]
    #: the rules' ``Config`` dataclass: its fields and their defaults are the game's rule
    #: keywords (``num_players`` and ``deck`` included), written nowhere else
    config: type
    #: the most engine steps (``apply`` calls) an episode of a configuration (the engine's
    #: ``config``) can take, or None where no rule bounds it (a series of games, a match)
    max_steps: Callable[[Any], int | None]
    #: which rules bound the longest episode, in words
    longest_game_reason: str
    #: one-line description
    summary: str = ""
    #: option variants every test over all games covers (conformance suite, soak)
    variants: tuple[Mapping[str, Any], ...] = ({},)
    #: the configuration ``kiaule bench`` measures
    bench_options: Mapping[str, Any] = field(default_factory=dict)
    #: games per lineup in ``kiaule benchmark`` (default options), and what its report says
    benchmark_games: int = 1000
    benchmark_note: str = ""
    #: a small configuration for quick tests and search over the Python engine (fewest
    #: players, smallest deck)
    small_options: Mapping[str, Any] = field(default_factory=dict)
    #: how the OpenSpiel bridge offers the game; None: not bridged
    openspiel: OpenSpielBridge | None = None
    #: the module registering the game's rule-based agent; None: ``agents.<name>`` by convention
    #: (a game kept outside the repository's packages, like the test suite's fixture, names its own)
    agents_module: str | None = None
    #: the module of the game's research metrics; None: ``experiments.metrics.<name>``
    metrics_module: str | None = None
    #: ``"module:Class"`` of the game's batched compiled env (``kiaule_env.vector.make``), or
    #: None: the game has none yet
    vector: str | None = None
    #: ``"module:Class"`` of the compiled counterpart of the rule-based agent deciding for many
    #: slots of the batched env at once (``kiaule_env.vector.heuristic_opponent``), or None
    vector_policy: str | None = None

    # ------------------------------------------------------------------ derived
    @property
    def parallel(self) -> bool:
        return self.api == "parallel"

    @property
    def agents_provider(self) -> str:
        """The module that registers the game's rule-based agent (``agents/<game>.py`` unless
        the descriptor names another)."""
        return self.agents_module or f"agents.{self.name}"

    @property
    def metrics_provider(self) -> str:
        """The module of the game's research metrics (``experiments/metrics/<game>.py`` unless
        the descriptor names another)."""
        return self.metrics_module or f"experiments.metrics.{self.name}"

    @property
    def default_options(self) -> dict[str, Any]:
        """The rule keywords and their defaults (the ``Config``'s fields, in order)."""
        return config_defaults(self.config)

    def longest_game(self, **options: Any) -> int | None:
        """The most engine steps an episode with these constructor keywords can take (None:
        unbounded), :attr:`max_steps` of their configuration."""
        return self.max_steps(self.make_engine(**options).config)

    @property
    def default_players(self) -> int:
        return int(self.default_options["num_players"])

    def load(self) -> ModuleType:
        """The public module (``kiaule_env.<game>_v0``)."""
        return importlib.import_module(self.module)

    def engine_class(self) -> type:
        module, _, cls = self.engine.partition(":")
        return getattr(importlib.import_module(module), cls)

    def make_engine(self, **options: Any) -> Any:
        """The engine for constructor keywords ``options`` (env keywords are ignored)."""
        rules = {k: v for k, v in options.items() if k not in ENV_KEYWORDS}
        return self.engine_class()(**rules)

    def env(self, **kwargs: Any) -> Any:
        """``env()``: the AEC env with PettingZoo's classic wrappers."""
        return self.load().env(**kwargs)

    def raw_env(self, **kwargs: Any) -> Any:
        """The AEC env without wrappers (illegal actions raise ``ValueError``)."""
        return self.load().raw_env(**kwargs)

    def native_env(self, **kwargs: Any) -> Any:
        """The env in the game's own API: the ParallelEnv for Pig, else the raw AEC env."""
        module = self.load()
        return module.parallel_env(**kwargs) if self.parallel else module.raw_env(**kwargs)

    def team_of(self, seat: int) -> tuple[int, ...]:
        """Seats playing together with ``seat`` (itself alone in games without teams)."""
        for team in self.teams or ():
            if seat in team:
                return team
        return (seat,)

    def sides(self, num_players: int) -> list[tuple[int, ...]]:
        """The sides of a table: the teams (Kozel K1), else one side per seat."""
        if self.teams is not None:
            return [tuple(t) for t in self.teams]
        return [(s,) for s in range(num_players)]

    def observation_layout(self, **options: Any) -> ObservationLayout:
        """The :class:`~kiaule_env.core.layout.ObservationLayout` the env built with these
        constructor keywords observes (the engine's encoder's; no episode is started)."""
        return self.make_engine(**options).encoder.layout

    def observation_table(self, **options: Any) -> str:
        """Markdown table of the observation layout for these constructor keywords."""
        return self.observation_layout(**options).markdown_table()

    def state_table(self, **options: Any) -> str:
        """Markdown table of the global state layout (``state()``) for these keywords."""
        return self.make_engine(**options).state_encoder.markdown_table()

    def action_table(self, **options: Any) -> str:
        """Markdown table of the action indices for these constructor keywords."""
        return self.make_engine(**options).codec.markdown_table()


def game_from_module(module: str) -> GameDescriptor:
    """The ``GAME`` descriptor a public game module declares."""
    game = getattr(importlib.import_module(module), "GAME", None)
    if not isinstance(game, GameDescriptor):
        raise TypeError(f"{module} declares no GAME = GameDescriptor(...)")
    return game
