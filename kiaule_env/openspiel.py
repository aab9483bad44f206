"""An OpenSpiel bridge (extra ``openspiel``): the suite's games as ``pyspiel`` Python games.

``import kiaule_env.openspiel`` registers, with ``pyspiel.register_game``:

* ``kiaule_kozel``: Kozel (RULES §1), a sequential game with explicit chance: the deal is 36
  chance nodes, each drawing the next card of the deck from top to bottom uniformly among the
  cards not drawn yet (chance action ``i`` = card ``i`` of the deck in canonical order), then the
  players decide through the engine (``Engine.legal_actions`` / ``apply``, the ``Discrete(47)``
  action indices). After the deal the engine draws nothing more (one game), so every random
  event is a chance node.

Parameters carry the game's options (``pyspiel.load_game("kiaule_kozel", {"trump_card":
"bottom", "molodka": "none"})``; ``"none"`` stands for ``None``). A series (K14) is not offered:
its later deals would be drawn from a generator, not from chance nodes.

Observations come from the game's own encoder: ``observation_tensor(player)`` is the env's
observation vector of that seat (all zero during the deal), its named parts are the
observation layout's slices (``observer.dict``), and ``observation_string(player)`` is the
seat's view (``Engine.view``), so both hold exactly the seat's information set. Rewards are the
engine's reward deltas (K15, zero-sum).

Other games (Kiauliaganys, Elgeta, Pig) are not bridged yet.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from kiaule_env.cards import CARD_TEXTS, Deck
from kiaule_env.kozel.engine import Engine as KozelEngine
from kiaule_env.kozel.rules import DECK as KOZEL_DECK

#: pyspiel parameters cannot be ``None``: this string stands for it
NONE = "none"

_KOZEL_PARAMS: dict[str, Any] = {
    "trump_card": "middle",
    "molodka": "any",
    "beat_partner": True,
    "reward": "loss_points",
}
_KOZEL_UTILITY = {"loss_points": 6.0, "win_loss": 1.0, "card_points": 1.0}
#: K5–K8: 9 tricks of at most 4 plays and 3 claim/decline decisions each
_KOZEL_DECISIONS = 63

_KOZEL_TYPE = pyspiel.GameType(
    short_name="kiaule_kozel",
    long_name="kiaule-env Kozel (RULES §1)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.REWARDS,
    max_num_players=4,
    min_num_players=4,
    provides_information_state_string=False,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    provides_factored_observation_string=False,
    parameter_specification=_KOZEL_PARAMS,
)


def _options(params: dict[str, Any], defaults: dict[str, Any]) -> dict[str, Any]:
    """Engine keywords from pyspiel parameters (``"none"`` → ``None``); unknown keys refused."""
    unknown = sorted(set(params) - set(defaults))
    if unknown:
        raise ValueError(
            f"unknown parameter(s) {', '.join(map(repr, unknown))}; allowed: {', '.join(defaults)}"
        )
    merged = {**defaults, **params}
    return {k: None if v == NONE else v for k, v in merged.items()}


class KozelGame(pyspiel.Game):
    """Kozel as a pyspiel game; see the module docstring."""

    def __init__(self, params: dict[str, Any] | None = None):
        options = _options(dict(params or {}), _KOZEL_PARAMS)
        self.engine = KozelEngine(**options)  # validates: a bad value is a ValueError
        self.deck: Deck = KOZEL_DECK
        bound = _KOZEL_UTILITY[self.engine.config.reward]
        info = pyspiel.GameInfo(
            num_distinct_actions=self.engine.num_actions,
            max_chance_outcomes=self.deck.size,
            num_players=self.engine.num_players,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=0.0,
            max_game_length=self.deck.size + _KOZEL_DECISIONS,
        )
        super().__init__(_KOZEL_TYPE, info, params or {})

    def new_initial_state(self) -> KiauleState:
        return KiauleState(self)

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: Any = None
    ) -> KiauleObserver:
        return KiauleObserver(self, iig_obs_type, params)


class KiauleState(pyspiel.State):
    """A deal in progress (chance nodes) or an engine episode (the players' decisions)."""

    def __init__(self, game: KozelGame):
        super().__init__(game)
        self.engine = game.engine
        self.deck = game.deck
        #: deck indices drawn so far by the chance nodes, top first
        self.drawn: list[int] = []
        #: the engine state once the deal is complete
        self.game_state: Any = None
        n = self.engine.num_players
        self._rewards = [0.0] * n
        self._returns = [0.0] * n

    def current_player(self) -> int:
        if self.game_state is None:
            return pyspiel.PlayerId.CHANCE
        seats = self.engine.to_act(self.game_state)
        return int(seats[0]) if seats else pyspiel.PlayerId.TERMINAL

    def _legal_actions(self, player: int) -> list[int]:
        if self.game_state is None or player != self.current_player():
            return []
        return [int(a) for a in self.engine.legal_actions(self.game_state, player)]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.game_state is not None:
            raise ValueError("chance_outcomes() called at a decision node")
        taken = set(self.drawn)
        left = [i for i in range(self.deck.size) if i not in taken]
        p = 1.0 / len(left)
        return [(i, p) for i in left]

    def _apply_action(self, action: int) -> None:
        n = self.engine.num_players
        if self.game_state is None:
            if action in self.drawn or not 0 <= action < self.deck.size:
                raise ValueError(f"chance outcome {action} is not a card still to deal")
            self.drawn.append(int(action))
            self._rewards = [0.0] * n
            if len(self.drawn) == self.deck.size:
                texts = [CARD_TEXTS[self.deck.cards[i]] for i in self.drawn]
                # the generator is never used: one game draws nothing after its deal
                rng = np.random.default_rng(0)
                self.game_state = self.engine.new_episode(rng, {"deck": texts})
            return
        deltas = self.engine.apply(self.game_state, (int(action),))
        self._rewards = [float(d) for d in deltas]
        self._returns = [r + d for r, d in zip(self._returns, self._rewards, strict=True)]

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {CARD_TEXTS[self.deck.cards[action]]}"
        return self.engine.action_text(self.game_state, player, action)

    def is_terminal(self) -> bool:
        return self.game_state is not None and self.engine.is_over(self.game_state)

    def rewards(self) -> list[float]:
        return list(self._rewards)

    def returns(self) -> list[float]:
        return list(self._returns)

    def __str__(self) -> str:
        if self.game_state is None:
            shown = " ".join(CARD_TEXTS[self.deck.cards[i]] for i in self.drawn)
            return f"dealing {len(self.drawn)}/{self.deck.size}: {shown}"
        return self.engine.render(self.game_state)


class KiauleObserver:
    """The seat's observation (PyObserver interface): the env's observation vector and view.

    Only the default observation type is offered (a seat's private and public information,
    without perfect recall): that is what the suite's encoders encode.
    """

    def __init__(self, game: KozelGame, iig_obs_type: Any, params: Any):
        if params:
            raise ValueError(f"observation parameters are not supported, got {params!r}")
        if iig_obs_type is not None and (
            iig_obs_type.perfect_recall
            or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
            or not iig_obs_type.public_info
        ):
            raise ValueError(
                "only the default observation type (perfect_recall=False, the seat's private "
                "and the public information) is supported"
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
            return f"dealing {len(state.drawn)}/{state.deck.size}"
        return repr(self.engine.view(state.game_state, player))


pyspiel.register_game(_KOZEL_TYPE, KozelGame)
