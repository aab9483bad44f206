"""A tiny game on the shared AEC base, so the harness is tested independently of the four games.

"High cards": every player is dealt two cards from a 52-card deck (stacked decks as RULES §0:
position ``2*i + j`` is card ``j`` of seat ``i``, the rest is the stock, top first). In two rounds
each player in turn either keeps his cards or swaps his lower card for the top of the stock.
The highest total of ranks wins (+1, the others −1/(n−1)); a tie for the top is a draw (all 0).
With ``teams=True`` (four players, partners opposite) a team's total is both partners' cards and
the teams get ±1. Agents: ``toy/random``, ``toy/smart`` (swaps a card below 8), ``toy/keep``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.random_agent import RandomAgent
from agents.registry import register
from experiments.metrics import MetricDef
from experiments.tournament.specs import register_game
from kiaule_env.cards import CARD_TEXTS, get_deck
from kiaule_env.core.aec import TurnBasedCardEnv
from kiaule_env.core.game import GameDescriptor
from kiaule_env.core.layout import ObservationLayout, Slice
from kiaule_env.core.options import decks_option, stacked_decks
from kiaule_env.core.state import HiddenSlice, StateEncoder, order_slice, order_values

DECK = get_deck("52")
KEEP, SWAP = 0, 1


@dataclass
class ToyState:
    hands: list[list[int]]
    stock: list[int]
    turn: int = 0


class ToyCodec:
    num_actions = 2
    texts = ("keep", "swap")

    def mask(self, actions: Sequence[int]) -> np.ndarray:
        mask = np.zeros(2, dtype=np.int8)
        mask[list(actions)] = 1
        return mask

    def markdown_table(self) -> str:
        return "| 0 | keep |\n| 1 | swap |"


class ToyEncoder:
    def __init__(self) -> None:
        self.layout = ObservationLayout([Slice("hand", 52, "my cards")])

    def encode(self, view: dict[str, Any]) -> np.ndarray:
        obs = self.layout.new()
        obs[list(view["hand"])] = 1.0
        return obs


class ToyEngine:
    """The engine contract for the toy game (see the module docstring)."""

    simultaneous = False
    option_keys = frozenset({"deck", "decks"})

    def __init__(self, num_players: int = 3, teams: bool = False):
        self.config = {"num_players": num_players, "teams": teams}
        self.num_players = num_players
        self.teams = teams
        self.encoder = ToyEncoder()
        self.codec = ToyCodec()
        self.num_actions = 2
        # the global state (contract: state_layout, encode_state): the stock's order is hidden
        self.state_encoder = StateEncoder(
            num_players,
            self.encoder.layout,
            [HiddenSlice(order_slice("stock_order", DECK, "the stock"), _toy_stock_order)],
        )
        self.state_layout = self.state_encoder.layout

    def encode_state(self, state: ToyState) -> np.ndarray:
        return self.state_encoder.encode(state, self.to_act(state), self.observe)

    def new_episode(self, rng: np.random.Generator, options: dict[str, Any]) -> ToyState:
        decks = stacked_decks(options, DECK, multi_deal=False)
        deck = decks[0] if decks else DECK.shuffled(rng)
        n = self.num_players
        return ToyState([[deck[2 * i], deck[2 * i + 1]] for i in range(n)], list(deck[2 * n :]))

    def random_deal(self, rng: np.random.Generator) -> dict[str, Any]:
        return decks_option(DECK, rng, 1)

    def to_act(self, state: ToyState) -> tuple[int, ...]:
        n = self.num_players
        return (state.turn % n,) if state.turn < 2 * n else ()

    def legal_actions(self, state: ToyState, seat: int) -> Sequence[int]:
        return (KEEP, SWAP) if self.to_act(state) == (seat,) else ()

    def apply(self, state: ToyState, actions: Sequence[int]) -> Sequence[float]:
        (seat,) = self.to_act(state)
        if actions[0] == SWAP:
            hand = state.hands[seat]
            low = min(range(2), key=lambda j: hand[j] % 13)
            hand[low] = state.stock.pop(0)
        state.turn += 1
        return self._rewards(state) if self.is_over(state) else [0.0] * self.num_players

    def is_over(self, state: ToyState) -> bool:
        return not self.to_act(state)

    def totals(self, state: ToyState) -> list[int]:
        return [sum(c % 13 for c in h) for h in state.hands]

    def _rewards(self, state: ToyState) -> list[float]:
        totals = self.totals(state)
        n = self.num_players
        if self.teams:
            t = [totals[0] + totals[2], totals[1] + totals[3]]
            if t[0] == t[1]:
                return [0.0] * 4
            w = 0 if t[0] > t[1] else 1
            return [1.0 if s % 2 == w else -1.0 for s in range(4)]
        best = max(totals)
        if totals.count(best) > 1:
            return [0.0] * n
        return [1.0 if t == best else -1.0 / (n - 1) for t in totals]

    def result(self, state: ToyState) -> dict[str, Any]:
        return {"totals": self.totals(state)}

    def step_info(self, state: ToyState) -> None:
        return None

    def view(self, state: ToyState, seat: int) -> dict[str, Any]:
        return {"hand": tuple(state.hands[seat])}

    def observe(self, state: ToyState, seat: int) -> np.ndarray:
        return self.encoder.encode(self.view(state, seat))

    def clone(self, state: ToyState) -> ToyState:
        return ToyState([list(h) for h in state.hands], list(state.stock), state.turn)

    def action_text(self, state: ToyState, seat: int, action: int) -> str:
        return self.codec.texts[action]

    def parse_action(self, state: ToyState, seat: int, text: str) -> int:
        return self.codec.texts.index(text)

    def check_invariants(self, state: ToyState) -> None:
        pass

    def render(self, state: ToyState) -> str:
        return " | ".join(" ".join(CARD_TEXTS[c] for c in h) for h in state.hands)

    def resample_hidden(self, state: ToyState, seat: int, rng: np.random.Generator) -> ToyState:
        return self.clone(state)


class ToyEnv(TurnBasedCardEnv):
    def __init__(self, num_players: int = 3, teams: bool = False, **kw: Any):
        super().__init__(ToyEngine(num_players, teams), **kw)
        self.teams = teams


class SmartAgent:
    name = "toy/smart"

    def __init__(self, seed: int | None = 0):
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        pass

    def act(self, decision) -> int:
        return SWAP if min(c % 13 for c in decision.view["hand"]) < 6 else KEEP


class KeepAgent:
    """Deterministic, no ``rng``: the pool creates it anew for every game."""

    name = "toy/keep"

    def __init__(self, seed: int | None = 0):
        pass

    def reset(self) -> None:
        pass

    def act(self, decision) -> int:
        return KEEP


#: tests set ``CRASH["after_calls"]`` to make ``toy/random`` raise mid-run (a stand-in for a
#: crashed or killed run; in-process, ``workers=1``)
CRASH: dict[str, int | None] = {"after_calls": None, "calls": 0}


class CrashableRandom(RandomAgent):
    def act(self, decision) -> int:
        if CRASH["after_calls"] is not None:
            CRASH["calls"] = (CRASH["calls"] or 0) + 1
            if CRASH["calls"] > CRASH["after_calls"]:
                raise RuntimeError("simulated crash")
        return super().act(decision)


class Collector:
    """Counts swaps and decisions per seat (a stand-in for a game's research metrics)."""

    def start(self, env: Any) -> None:
        self.counts = [{"swaps": 0, "decisions": 0} for _ in env.possible_agents]

    def before(self, env: Any, seats: tuple[int, ...], actions: tuple[int, ...]) -> None:
        self.counts[seats[0]]["decisions"] += 1
        self.counts[seats[0]]["swaps"] += actions[0] == SWAP

    def after(self, env: Any, seats: Any, actions: Any, info: Any) -> None:
        pass

    def per_seat(self) -> list[dict[str, float]]:
        return self.counts


METRICS = (
    MetricDef("swap_rate", "share of decisions that swapped", "swaps", "decisions"),
    MetricDef("swaps_per_game", "swaps per game", "swaps"),
)


def raw_env(**kwargs: Any) -> ToyEnv:
    return ToyEnv(**kwargs)


env = raw_env


@dataclass(frozen=True)
class ToyConfig:
    """The toy game's rule keywords and defaults (the descriptor's ``config``)."""

    num_players: int = 3
    teams: bool = False


def toy_game(name: str, teams: tuple[tuple[int, ...], ...] | None) -> GameDescriptor:
    return GameDescriptor(
        name=name,
        env_id="toy-v0",
        version=0,
        module=__name__,
        engine=f"{__name__}:ToyEngine",
        api="aec",
        player_counts=(2, 3, 4),
        decks=("52",),
        teams=teams,
        has_decisions=True,
        reward_range=(-1.0, 1.0),
        config=ToyConfig,
        max_steps=lambda config: 2 * config.num_players,
        longest_game_reason="two rounds of one decision per seat",
    )


for _game in ("toy", "toyteam"):
    register(f"{_game}/random", lambda seed=0: CrashableRandom("toy", seed))
    register(f"{_game}/smart", lambda seed=0: SmartAgent(seed))
    register(f"{_game}/keep", lambda seed=0: KeepAgent(seed))
for _name, _teams in (("toy", None), ("toyteam", ((0, 2), (1, 3)))):
    register_game(toy_game(_name, _teams), metrics=__name__)


def _toy_stock_order(state: ToyState) -> np.ndarray:
    return order_values(state.stock, DECK)
