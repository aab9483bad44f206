"""An OpenSpiel bridge (extra ``openspiel``): the suite's games as ``pyspiel`` Python games.

``import kiaule_env.openspiel`` registers, with ``pyspiel.register_game``, the sequential games
with explicit chance (``ChanceMode.EXPLICIT_STOCHASTIC``):

* ``kiaule_kozel`` (RULES §1): the deal is 36 chance nodes, each drawing the next card of the
  deck from top to bottom uniformly among the cards not drawn yet (chance action ``i`` = card
  ``i`` of the deck in canonical order), :class:`DeckDeal`;
* ``kiaule_kiauliaganys`` (RULES §2): the same with the configured deck (G2);
* ``kiaule_elgeta`` (RULES §4): with three players first the suit left out, then every seat's
  pile card by card (E2), :class:`kiaule_env.elgeta.chance.ElgetaDeal`, the distribution of
  ``rules.deal_piles``.

Nothing here is written per game: a game is bridged when its descriptor declares
``openspiel=OpenSpielBridge(...)`` (``kiaule_env.core.game``), and :func:`bridge_spec` derives
the rest: the parameters are the rules ``Config``'s keywords with its defaults (less the fixed
and hidden ones), the longest game is the descriptor's ``max_steps``, the player counts its
``player_counts``, the deal the engine's ``deck`` card by card unless the game names its own
deal class, sequential or simultaneous as the engine (:func:`game_class`).

After the deal the players decide through the engine (``Engine.legal_actions`` / ``apply``, the
env's action indices). The bridged configurations are single deals (no Kozel series, no
Kiauliaganys match), whose engines draw nothing after the deal (a test checks it), so every
random event is a chance node. Rewards are the engine's reward deltas (zero-sum).

Parameters carry the options (``pyspiel.load_game("kiaule_kozel", {"trump_card": "bottom",
"molodka": "none"})``): ``"none"`` stands for ``None``, ``deck`` is an int (``52``),
Kiauliaganys' ``repetition=0`` turns G10a off; unknown parameters are pyspiel errors, bad
values the engine's ``ValueError``.

Observations come from the game's own encoder: ``observation_tensor(player)`` is the env's
observation vector of that seat (all zero during the deal), its named parts are the
observation layout's slices (``observer.dict``), and ``observation_string(player)`` is the
seat's view (``Engine.view``), so both hold exactly the seat's information set.

Information states (perfect recall, every game): ``information_state_string(player)`` is the
sequence of the seat's views (``Engine.view``) after the deal and after every step since, one
line each, numbered: everything the seat has seen, in order, and nothing else (a view is exactly
the seat's information set, so the sequence is its perfect-recall information state; the
private parts of moves, Kozel's face-down discards K7 or a Kiauliaganys search's cards G4, reach
only the seats that see them). ``information_state_tensor(player)`` has a fixed size, for
tensor-based algorithms (Deep CFR, NFSP): the observation tensor followed by the seat's own
actions since the deal, one one-hot row (over the game's actions) per decision it made, padded
with zero rows to ``game.history_length`` rows, the longest game's decisions (the bound that
``max_game_length`` already counts: Kozel's 63, Kiauliaganys' ``2 · max_turns + 2 · n`` (G10,
G8), Elgeta's ``max_tricks · deck`` (E8), a Pig round's steps), so no seat ever needs more;
``game.information_state_tensor_size()`` gives the total. All zero during the deal.

Terminal rewards: every bridged configuration is a single deal, and the parameter
``terminal_rewards=True`` (default False) pays its result only at its end: zero rewards
before, the returns at the terminal state, and the game type's reward model TERMINAL, which
OpenSpiel's Python ``MCTSBot`` requires (Kozel, Kiauliaganys, Elgeta; Pig, a simultaneous
game, is no game for that bot). ``MCTSBot`` searches the true state, every hidden card
included: an omniscient baseline, not a fair player.

Resampling (IS-MCTS): ``state.resample_from_infostate(player, sampler)`` is a state of the same
game with the same information state for ``player``: the engine's ``resample_hidden`` redeals
the cards the seat cannot locate (its generator seeded from ``sampler``). The sampled world is a
fully working state (legal moves, apply, returns, clone); its other seats' recall starts at the
sampled position (their earlier views in that world were never played). OpenSpiel's Python
``open_spiel.python.algorithms.ismcts.ISMCTSBot`` uses it (:func:`resampler` gives one with its
own generator for ``bot.set_resampler``); wrapped in :class:`StatelessBot` it plays inside
``evaluate_bots``. The C++ ``pyspiel.ISMCTSBot`` cannot: pyspiel's Python-game state does not
forward ``ResampleFromInfostate`` to Python, and the bot crashes the interpreter with a
segmentation fault (open_spiel 2.0.2); use the Python bot.

``kiaule_pig`` (RULES §3, one round: ``game="full"`` is not offered) is a simultaneous game
(``Dynamics.SIMULTANEOUS``) with explicit chance: the deal (the starting deck card by card),
and after a joint action every draw the rules make, as chance nodes before the step takes
effect (P3 the reaction order of players touching in the same step, one pick at a time; D3 the
pig of a race cut short), :class:`SimultaneousGame`. Its parameters: ``num_players``, ``stock``,
``tokens``, ``false_nose`` (``"none"``), ``max_passes``, ``max_race_steps``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, fields
from typing import Any

import numpy as np
import pyspiel

from kiaule_env import GAMES
from kiaule_env.cards import CARD_TEXTS, Deck
from kiaule_env.core.game import GameDescriptor
from kiaule_env.openspiel_bots import StatelessBot as StatelessBot
from kiaule_env.openspiel_bots import resampler as resampler

#: pyspiel parameters cannot be ``None``: this string stands for it
NONE = "none"


class _Shared:
    """What every state of one game shares (the engine, the deal, a resample counter): pyspiel
    clones a Python state by deep-copying its attributes, and copying the engine each time cost
    milliseconds per clone, so a deep copy of this holder is the holder itself."""

    def __init__(self, engine: Any, deal: Any, terminal_rewards: bool = False):
        self.engine = engine
        self.deal = deal
        self.resamples = 0
        #: rewards only at the end (``terminal_rewards=True``, OpenSpiel's TERMINAL reward model)
        self.terminal_rewards = terminal_rewards

    def __deepcopy__(self, memo: dict) -> _Shared:
        return self


class _Episode:
    """The engine state (or ``None`` during the deal), deep-copied with ``Engine.clone``: a
    generic deep copy of a Kiauliaganys state took 60 times as long."""

    def __init__(self, engine: Any, state: Any):
        self.engine = engine
        self.state = state

    def __deepcopy__(self, memo: dict) -> _Episode:
        state = None if self.state is None else self.engine.clone(self.state)
        return _Episode(self.engine, state)


class _Recall:
    """Every seat's views so far, one string per step (the perfect-recall information state),
    and every seat's own actions since the deal (the information-state tensor's history).

    Views are immutable strings, so a deep copy copies the lists, not the strings."""

    def __init__(self, seats: list[list[str]], actions: list[list[int]] | None = None):
        self.seats = seats
        self.actions = actions if actions is not None else [[] for _ in seats]

    def __deepcopy__(self, memo: dict) -> _Recall:
        return _Recall([list(views) for views in self.seats], [list(a) for a in self.actions])

    def add(self, engine: Any, game_state: Any) -> None:
        """Append every seat's view of ``game_state``."""
        for seat, views in enumerate(self.seats):
            views.append(repr(engine.view(game_state, seat)))

    def text(self, seat: int) -> str:
        return "\n".join(f"{i}: {view}" for i, view in enumerate(self.seats[seat]))


class DeckDeal:
    """The deal as chance nodes: the deck's cards one by one, top first, each uniform among the
    cards not drawn yet (chance action ``i`` = card ``i`` of the deck in canonical order); the
    reset options are ``{"deck": [card texts]}`` (RULES §0)."""

    def __init__(self, deck: Deck):
        self.deck = deck
        self.max_outcomes = deck.size
        self.length = deck.size

    def outcomes(self, drawn: list[int]) -> list[int]:
        taken = set(drawn)
        return [i for i in range(self.deck.size) if i not in taken]

    def done(self, drawn: list[int]) -> bool:
        return len(drawn) == self.deck.size

    def options(self, drawn: list[int]) -> dict[str, Any]:
        return {"deck": [CARD_TEXTS[self.deck.cards[i]] for i in drawn]}

    def text(self, drawn: list[int], action: int) -> str:
        return f"deal {CARD_TEXTS[self.deck.cards[action]]}"


@dataclass(frozen=True)
class BridgeSpec:
    """How one game of the suite becomes a pyspiel game, derived by :func:`bridge_spec` from
    its descriptor (the rules ``Config``, ``max_steps``, ``player_counts``) and its
    :class:`~kiaule_env.core.game.OpenSpielBridge` declaration."""

    #: the suite's game name (``kiaule_env.GAMES``)
    game: str
    #: pyspiel parameters and their defaults (the engine keywords offered)
    params: Mapping[str, Any]
    #: engine keywords fixed by the bridge (a single deal: every random event a chance node)
    fixed: Mapping[str, Any]
    #: the deal's chance nodes for an engine
    deal: Callable[[Any], Any]
    #: the utility bound for an engine (returns lie in ``[-bound, bound]``)
    utility: Callable[[Any], float]
    #: the longest sequence of engine steps for an engine (the descriptor's ``max_steps``;
    #: ``GameInfo.max_game_length`` adds the deal)
    decisions: Callable[[Any], int]
    #: parameters whose value 0 stands for the engine's ``None`` (pyspiel ints cannot be None)
    zero_is_none: tuple[str, ...] = ()
    #: int parameters the engine takes as strings (``deck=52``: a string ``"52"`` would come
    #: back as an int from a serialized game's name)
    int_as_str: tuple[str, ...] = ()


def _is_optional_int(annotation: Any) -> bool:
    """Whether a ``Config`` field's annotation is ``int | None`` (as text or as a type)."""
    text = annotation if isinstance(annotation, str) else repr(annotation)
    return text.replace(" ", "") in ("int|None", "Optional[int]", "typing.Optional[int]")


def _parameter(value: Any, annotation: Any) -> tuple[Any, str | None]:
    """A rule keyword's default as a pyspiel parameter value, and how the bridge turns it back:
    ``"none"`` for None, 0 for None of an ``int | None`` keyword, an int for a deck of digits."""
    if value is None:
        return NONE, None
    if _is_optional_int(annotation):
        return value, "zero_is_none"
    if isinstance(value, str) and value.isdigit():
        return int(value), "int_as_str"
    return value, None


def _deal_factory(declared: str | None) -> Callable[[Any], Any]:
    """The deal's chance nodes for an engine: the class a game declares (``"module:Class"``,
    built from the engine), else its ``deck`` card by card (:class:`DeckDeal`)."""
    if declared is None:
        return lambda engine: DeckDeal(engine.deck)
    module, _, name = declared.partition(":")
    return getattr(importlib.import_module(module), name)


def _decisions(game: GameDescriptor) -> Callable[[Any], int]:
    def decisions(engine: Any) -> int:
        steps = game.max_steps(engine.config)
        if steps is None:
            raise ValueError(f"{game.name}: the bridged configuration has no longest game")
        return int(steps)

    return decisions


def bridge_spec(game: GameDescriptor) -> BridgeSpec:
    """The bridge of ``game`` (which declares ``openspiel``): every rule keyword of its
    ``Config`` except the fixed and hidden ones is a parameter with the ``Config``'s default."""
    declared = game.openspiel
    if declared is None:
        raise ValueError(f"{game.name} declares no OpenSpiel bridge (GameDescriptor.openspiel)")
    left_out = set(declared.fixed) | set(declared.hidden)
    params: dict[str, Any] = {}
    turned: dict[str, list[str]] = {"zero_is_none": [], "int_as_str": []}
    for f in fields(game.config):
        if f.name in left_out or f.default is MISSING:
            continue
        params[f.name], how = _parameter(f.default, f.type)
        if how is not None:
            turned[how].append(f.name)
    return BridgeSpec(
        game=game.name,
        params=params,
        fixed=dict(declared.fixed),
        deal=_deal_factory(declared.deal),
        utility=declared.utility,
        decisions=_decisions(game),
        zero_is_none=tuple(turned["zero_is_none"]),
        int_as_str=tuple(turned["int_as_str"]),
    )


#: parameters of the bridge itself (not engine keywords), offered by every sequential game:
#: ``terminal_rewards=True`` pays the deal's result only at its end (OpenSpiel's TERMINAL reward
#: model, which the Python ``MCTSBot`` requires); the default pays every step's reward delta
BRIDGE_PARAMS: dict[str, Any] = {"terminal_rewards": False}


def _simultaneous(spec: BridgeSpec) -> bool:
    return bool(GAMES[spec.game].engine_class().simultaneous)


def game_type(spec: BridgeSpec, terminal_rewards: bool = False) -> pyspiel.GameType:
    """The pyspiel ``GameType`` of a bridged game: ``kiaule_<game>`` (its reward model TERMINAL
    with ``terminal_rewards``, else REWARDS), sequential or simultaneous as its engine."""
    game = GAMES[spec.game]
    rewards = pyspiel.GameType.RewardModel
    dynamics = pyspiel.GameType.Dynamics
    simultaneous = _simultaneous(spec)
    return pyspiel.GameType(
        short_name=f"kiaule_{spec.game}",
        long_name=f"kiaule-env {spec.game.capitalize()}",
        dynamics=dynamics.SIMULTANEOUS if simultaneous else dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=rewards.TERMINAL if terminal_rewards else rewards.REWARDS,
        max_num_players=max(game.player_counts),
        min_num_players=min(game.player_counts),
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        provides_factored_observation_string=False,
        parameter_specification={**spec.params, **({} if simultaneous else BRIDGE_PARAMS)},
    )


def _terminal_rewards(params: dict[str, Any]) -> bool:
    """Pop and check the bridge's ``terminal_rewards`` parameter (a bool, default False)."""
    value = params.pop("terminal_rewards", BRIDGE_PARAMS["terminal_rewards"])
    if not isinstance(value, bool):
        raise ValueError(f"terminal_rewards must be true or false, got {value!r}")
    return value


def _options(spec: BridgeSpec, params: Mapping[str, Any]) -> dict[str, Any]:
    """Engine keywords from pyspiel parameters (``"none"`` → ``None``; 0 → ``None`` where the
    spec says); unknown keys refused."""
    unknown = sorted(set(params) - set(spec.params))
    if unknown:
        own = [] if _simultaneous(spec) else list(BRIDGE_PARAMS)
        raise ValueError(
            f"unknown parameter(s) {', '.join(map(repr, unknown))}; "
            f"allowed: {', '.join([*spec.params, *own])}"
        )
    merged = {**spec.params, **params}
    options = {k: None if v == NONE else v for k, v in merged.items()}
    for key in spec.zero_is_none:
        if options.get(key) == 0:
            options[key] = None
    for key in spec.int_as_str:
        options[key] = str(options[key])
    return {**options, **spec.fixed}


class KiauleGame(pyspiel.Game):
    """A sequential game of the suite as a pyspiel game (:func:`game_class` makes a subclass
    per game, setting ``spec`` and ``_type``)."""

    spec: BridgeSpec
    _type: pyspiel.GameType

    def __init__(self, params: Mapping[str, Any] | None = None):
        spec = self.spec
        given = dict(params or {})
        terminal = _terminal_rewards(given)
        options = _options(spec, given)
        self.engine = GAMES[spec.game].make_engine(**options)  # a bad value is a ValueError
        self.deal = spec.deal(self.engine)
        self.shared = _Shared(self.engine, self.deal, terminal)
        #: a seat's own decisions at most (the information-state tensor's history slots): the
        #: longest game's decisions, a bound for every seat
        self.history_length = int(spec.decisions(self.engine))
        bound = float(spec.utility(self.engine))
        info = pyspiel.GameInfo(
            num_distinct_actions=self.engine.num_actions,
            max_chance_outcomes=self.deal.max_outcomes,
            num_players=self.engine.num_players,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=0.0,
            max_game_length=self.deal.length + self.history_length,
        )
        kind = game_type(spec, terminal_rewards=True) if terminal else self._type
        super().__init__(kind, info, dict(params or {}))

    def new_initial_state(self) -> KiauleState:
        return KiauleState(self)

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: Any = None
    ) -> KiauleObserver | RecallObserver:
        return make_observer(self, iig_obs_type, params)


class KiauleState(pyspiel.State):
    """A deal in progress (chance nodes) or an engine episode (the players' decisions)."""

    def __init__(self, game: KiauleGame | SimultaneousGame):
        super().__init__(game)
        self._shared: _Shared = game.shared
        #: the chance actions of the deal so far
        self.drawn: list[int] = []
        self._episode = _Episode(self.engine, None)
        n = self.engine.num_players
        self._rewards = [0.0] * n
        self._returns = [0.0] * n
        #: every seat's views since the deal (the perfect-recall information states)
        self.recall = _Recall([[] for _ in range(n)])

    @property
    def engine(self) -> Any:
        return self._shared.engine

    @property
    def deal(self) -> Any:
        return self._shared.deal

    @property
    def game_state(self) -> Any:
        """The engine state once the deal is complete (``None`` during the deal)."""
        return self._episode.state

    @game_state.setter
    def game_state(self, state: Any) -> None:
        self._episode = _Episode(self.engine, state)

    def information_state_text(self, player: int) -> str:
        """The perfect-recall information state of ``player`` (the module docstring)."""
        if self.game_state is None:
            return f"dealing {len(self.drawn)}/{self.deal.length}"
        return self.recall.text(player)

    def resample_from_infostate(self, player: int, sampler: Any) -> KiauleState:
        """A state of the same game with the same information state for ``player``: the
        engine's ``resample_hidden`` with a generator seeded from ``sampler()`` (a number in
        [0, 1), e.g. ``pyspiel.UniformProbabilitySampler``) and the game's resample count."""
        self._shared.resamples += 1
        seed = (int(float(sampler()) * 2**53), self._shared.resamples)
        return self.resample(player, np.random.default_rng(seed))

    def resample(self, player: int, rng: np.random.Generator) -> KiauleState:
        """:meth:`resample_from_infostate` with an explicit generator."""
        n = self.engine.num_players
        if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < n:
            raise ValueError(f"player must be a seat 0..{n - 1}, got {player!r}")
        if self.game_state is None or self.is_chance_node():
            raise ValueError("resample_from_infostate needs a decision node (not the deal)")
        clone = self.clone()
        clone.game_state = self.engine.resample_hidden(self.game_state, player, rng)
        views = [[] for _ in range(n)]
        for seat in range(n):
            views[seat] = (
                list(self.recall.seats[seat])
                if seat == player
                else [repr(self.engine.view(clone.game_state, seat))]
            )
        # the other seats' own actions restart with their recall (their past in that world was
        # never played); the player's own are kept (its information state)
        actions = [list(a) if seat == player else [] for seat, a in enumerate(self.recall.actions)]
        clone.recall = _Recall(views, actions)
        return clone

    def current_player(self) -> int:
        if self.game_state is None:
            return int(pyspiel.PlayerId.CHANCE)
        seats = self.engine.to_act(self.game_state)
        return int(seats[0]) if seats else int(pyspiel.PlayerId.TERMINAL)

    def _legal_actions(self, player: int) -> list[int]:
        if self.game_state is None or player != self.current_player():
            return []
        return [int(a) for a in self.engine.legal_actions(self.game_state, player)]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.game_state is not None:
            raise ValueError("chance_outcomes() called at a decision node")
        left = self.deal.outcomes(self.drawn)
        p = 1.0 / len(left)
        return [(i, p) for i in left]

    def _apply_action(self, action: int) -> None:
        n = self.engine.num_players
        if self.game_state is None:
            if action not in self.deal.outcomes(self.drawn):
                raise ValueError(f"chance outcome {action} is not possible now")
            self.drawn.append(int(action))
            self._rewards = [0.0] * n
            if self.deal.done(self.drawn):
                # the generator is never used: the bridged games draw nothing after the deal
                rng = np.random.default_rng(0)
                self.game_state = self.engine.new_episode(rng, self.deal.options(self.drawn))
                self.recall.add(self.engine, self.game_state)
            return
        self.recall.actions[self.current_player()].append(int(action))
        deltas = self.engine.apply(self.game_state, (int(action),))
        self.recall.add(self.engine, self.game_state)
        self._rewards = [float(d) for d in deltas]
        self._returns = [r + d for r, d in zip(self._returns, self._rewards, strict=True)]

    def _action_to_string(self, player: int, action: int) -> str:
        if player == int(pyspiel.PlayerId.CHANCE):
            return self.deal.text(self.drawn, action)
        return self.engine.action_text(self.game_state, player, action)

    def is_terminal(self) -> bool:
        return self.game_state is not None and self.engine.is_over(self.game_state)

    def rewards(self) -> list[float]:
        """The last step's rewards, or with ``terminal_rewards`` zero until the end and the
        returns at the end (OpenSpiel's TERMINAL reward model)."""
        if self._shared.terminal_rewards:
            n = self.engine.num_players
            return self.returns() if self.is_terminal() else [0.0] * n
        return list(self._rewards)

    def returns(self) -> list[float]:
        return list(self._returns)

    def __str__(self) -> str:
        if self.game_state is None:
            return f"dealing {len(self.drawn)}/{self.deal.length}: {self.drawn}"
        return self.engine.render(self.game_state)


class KiauleObserver:
    """The seat's observation (PyObserver interface): the env's observation vector and view.

    The observation without perfect recall (a seat's private and the public information):
    what the suite's encoders encode; :class:`RecallObserver` is the perfect-recall one.
    """

    def __init__(self, game: KiauleGame, iig_obs_type: Any, params: Any):
        if params:
            raise ValueError(f"observation parameters are not supported, got {params!r}")
        if iig_obs_type is not None and (
            iig_obs_type.perfect_recall
            or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
            or not iig_obs_type.public_info
        ):
            raise ValueError(
                "observations are offered only with the seat's private and the public "
                "information (perfect_recall=False here; True is the information state)"
            )
        self.engine = game.engine
        layout = self.engine.encoder.layout
        self.tensor = np.zeros(layout.size, np.float32)
        self.dict = {name: self.tensor[sl] for name, sl in layout.offsets.items()}

    def set_from(self, state: KiauleState, player: int) -> None:
        if state.game_state is None:
            self.tensor.fill(0.0)
        else:
            self.tensor[:] = self.engine.observe(state.game_state, player)

    def string_from(self, state: KiauleState, player: int) -> str:
        if state.game_state is None:
            return f"dealing {len(state.drawn)}/{state.deal.length}"
        return repr(self.engine.view(state.game_state, player))


class RecallObserver:
    """The information state (PyObserver interface).

    The string is the perfect-recall sequence of the seat's views. The tensor has a fixed size
    for tensor-based algorithms (Deep CFR, NFSP): the seat's observation (the env's vector,
    ``dict["observation"]``) followed by its own actions since the deal, one row per decision
    it made, one-hot over the game's actions (``dict["actions"]``, ``history_length`` rows:
    the longest game's decisions, zero rows past the last action). All zero during the deal.
    """

    def __init__(self, game: KiauleGame | SimultaneousGame):
        self.engine = game.engine
        size = self.engine.encoder.layout.size
        rows, width = game.history_length, self.engine.num_actions
        self.tensor = np.zeros(size + rows * width, np.float32)
        self.dict = {
            "observation": self.tensor[:size],
            "actions": self.tensor[size:].reshape(rows, width),
        }

    def set_from(self, state: KiauleState, player: int) -> None:
        """Write ``player``'s observation and own-action history into :attr:`tensor`."""
        self.tensor.fill(0.0)
        if state.game_state is None:
            return
        self.dict["observation"][:] = self.engine.observe(state.game_state, player)
        actions = state.recall.actions[player]
        self.dict["actions"][np.arange(len(actions)), actions] = 1.0

    def string_from(self, state: KiauleState, player: int) -> str:
        return state.information_state_text(player)


def make_observer(
    game: Any, iig_obs_type: pyspiel.IIGObservationType | None, params: Any
) -> KiauleObserver | RecallObserver:
    """The observer of ``iig_obs_type``: the perfect-recall information state
    (:class:`RecallObserver`) or the default observation (:class:`KiauleObserver`)."""
    if iig_obs_type is not None and iig_obs_type.perfect_recall:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params!r}")
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not (
            iig_obs_type.public_info
        ):
            raise ValueError(
                "perfect-recall observations are offered only with the seat's private and the "
                "public information (the information state)"
            )
        return RecallObserver(game)
    return KiauleObserver(game, iig_obs_type, params)


class _ScriptedRng:
    """Stands in for the episode generator during one Pig step: serves the draws chance nodes
    chose (``script``), and records the first draw it has no value for (``request``)."""

    def __init__(self, script: list[Any]):
        self.script = script
        self.used = 0
        self.request: tuple[str, int] | None = None

    def _next(self, kind: str, n: int, default: Any) -> Any:
        if self.used < len(self.script):
            value = self.script[self.used]
            self.used += 1
            return value
        if self.request is None:
            self.request = (kind, n)
        return default

    def permutation(self, n: int) -> np.ndarray:
        return np.asarray(self._next("permutation", int(n), list(range(int(n)))))

    def integers(self, n: int) -> int:
        return int(self._next("integers", int(n), 0))


class SimultaneousGame(pyspiel.Game):
    """A simultaneous game of the suite (``kiaule_pig``: one round of Pig, RULES §3) as a
    simultaneous pyspiel game (:func:`game_class` makes a subclass per game).

    Chance nodes: the deal (the deck card by card, :class:`DeckDeal`), and after a joint action
    every draw the rules make from the episode's generator (Pig's P3: the reaction order of
    players touching in the same step, one pick at a time, each uniform among those not placed
    yet; D3: the pig of a race cut short, uniform). A full game (``game="full"``, later deals)
    is not offered.
    """

    spec: BridgeSpec
    _type: pyspiel.GameType

    def __init__(self, params: Mapping[str, Any] | None = None):
        spec = self.spec
        options = _options(spec, dict(params or {}))
        self.engine = GAMES[spec.game].make_engine(**options)  # a bad value is a ValueError
        self.deal = spec.deal(self.engine)
        self.shared = _Shared(self.engine, self.deal)
        n = self.engine.num_players
        steps = spec.decisions(self.engine)
        #: a seat's own actions at most (the information-state tensor's rows): one per step
        self.history_length = steps
        bound = float(spec.utility(self.engine))
        info = pyspiel.GameInfo(
            num_distinct_actions=self.engine.num_actions,
            max_chance_outcomes=max(self.deal.max_outcomes, n),
            num_players=n,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=0.0,
            max_game_length=self.deal.length + steps * (1 + n),
        )
        super().__init__(self._type, info, dict(params or {}))

    def new_initial_state(self) -> SimultaneousState:
        return SimultaneousState(self)

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: Any = None
    ) -> KiauleObserver | RecallObserver:
        return make_observer(self, iig_obs_type, params)


class SimultaneousState(KiauleState):
    """A Pig round: the deal (chance), simultaneous steps, the rules' draws (chance).

    The deal, the engine state, rewards, returns and the text come from :class:`KiauleState`.
    """

    def __init__(self, game: SimultaneousGame):
        super().__init__(game)
        #: the joint action waiting for its draws, the draws chosen so far, a pick in progress
        self._pending: list[int] | None = None
        self._script: list[Any] = []
        self._partial: list[int] = []
        self._request: tuple[str, int] | None = None

    def current_player(self) -> int:
        if self.game_state is None or self._request is not None:
            return int(pyspiel.PlayerId.CHANCE)
        if self.engine.is_over(self.game_state):
            return int(pyspiel.PlayerId.TERMINAL)
        return int(pyspiel.PlayerId.SIMULTANEOUS)

    def _legal_actions(self, player: int) -> list[int]:
        if self.current_player() != int(pyspiel.PlayerId.SIMULTANEOUS):
            return []
        return [int(a) for a in self.engine.legal_actions(self.game_state, player)]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.game_state is None:
            left = self.deal.outcomes(self.drawn)
        elif self._request is None:
            raise ValueError("chance_outcomes() called at a decision node")
        elif self._request[0] == "integers":
            left = list(range(self._request[1]))
        else:
            left = [i for i in range(self._request[1]) if i not in self._partial]
        p = 1.0 / len(left)
        return [(i, p) for i in left]

    def _apply_action(self, action: int) -> None:
        if action not in [a for a, _ in self.chance_outcomes()]:
            raise ValueError(f"chance outcome {action} is not possible now")
        if self.game_state is None:
            self.drawn.append(int(action))
            self._rewards = [0.0] * self.engine.num_players
            if self.deal.done(self.drawn):
                self.game_state = self.engine.new_episode(
                    _ScriptedRng([]), self.deal.options(self.drawn)
                )
                self.recall.add(self.engine, self.game_state)
            return
        kind, n = self._request
        if kind == "integers":
            self._script.append(int(action))
        else:
            self._partial.append(int(action))
            if len(self._partial) < n - 1:
                return
            self._partial.append(next(i for i in range(n) if i not in self._partial))
            self._script.append(self._partial)
            self._partial = []
        self._resolve()

    def _apply_actions(self, actions: list[int]) -> None:
        seats = self.engine.to_act(self.game_state)
        self._pending = [int(actions[s]) for s in seats]
        for seat, action in zip(seats, self._pending, strict=True):
            self.recall.actions[seat].append(action)
        self._script = []
        self._resolve()

    def _resolve(self) -> None:
        """Play the pending joint action if every draw it makes has been chosen, else ask the
        next chance node for the first missing one (the step is replayed on a clone with the
        chosen draws each time: the draws a step makes do not depend on their values)."""
        trial = self.engine.clone(self.game_state)
        rng = trial.rng = _ScriptedRng(self._script)
        deltas = self.engine.apply(trial, self._pending)
        self._request = rng.request
        if self._request is not None:
            self._rewards = [0.0] * self.engine.num_players
            return
        trial.rng = _ScriptedRng([])  # no draw outside a step
        self.game_state = trial
        self.recall.add(self.engine, self.game_state)
        self._pending, self._script = None, []
        self._rewards = [float(d) for d in deltas]
        self._returns = [r + d for r, d in zip(self._returns, self._rewards, strict=True)]

    def _action_to_string(self, player: int, action: int) -> str:
        if player == int(pyspiel.PlayerId.CHANCE):
            if self.game_state is None:
                return self.deal.text(self.drawn, action)
            kind, _ = self._request or ("?", 0)
            return f"draw {kind} {action}"
        return self.engine.action_text(self.game_state, player, action)

    def is_terminal(self) -> bool:
        return self.current_player() == int(pyspiel.PlayerId.TERMINAL)


def game_class(game: GameDescriptor) -> type[pyspiel.Game]:
    """The pyspiel game class of a game that declares an OpenSpiel bridge: a
    :class:`KiauleGame` (sequential) or :class:`SimultaneousGame` subclass named after it."""
    spec = bridge_spec(game)
    base = SimultaneousGame if _simultaneous(spec) else KiauleGame
    name = f"{game.name.capitalize()}Game"
    doc = f"``kiaule_{game.name}``: {game.summary or game.name} (derived from its descriptor)."
    return type(name, (base,), {"spec": spec, "_type": game_type(spec), "__doc__": doc})


#: short name -> game class, every game declaring ``openspiel`` registered with pyspiel on import
REGISTERED: dict[str, type[pyspiel.Game]] = {}
for _game in GAMES.values():
    if _game.openspiel is not None:
        _cls = REGISTERED[f"kiaule_{_game.name}"] = game_class(_game)
        pyspiel.register_game(_cls._type, _cls)
