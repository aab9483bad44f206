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
from typing import Any

import numpy as np

from agents.random_agent import RandomAgent
from agents.registry import register
from experiments.metrics import MetricDef
from experiments.tournament.specs import GameSpec, decks_option, register_game
from kiaule_env.cards import CARD_TEXTS, get_deck
from kiaule_env.core.aec import TurnBasedCardEnv
from kiaule_env.core.layout import ObservationLayout, Slice
from kiaule_env.core.options import stacked_decks

DECK = get_deck("52")
KEEP, SWAP = 0, 1


class ToyEnv(TurnBasedCardEnv):
    option_keys = frozenset({"deck", "decks"})

    def __init__(self, num_players: int = 3, teams: bool = False, **kw: Any):
        layout = ObservationLayout([Slice("hand", 52, "my cards")])
        super().__init__(num_players, layout, 2, **kw)
        self.teams = teams

    def _start_episode(self, rng: np.random.Generator, options: dict[str, Any]) -> None:
        decks = stacked_decks(options, DECK, multi_deal=False)
        deck = decks[0] if decks else DECK.shuffled(rng)
        n = self.num_players
        self.hands = [[deck[2 * i], deck[2 * i + 1]] for i in range(n)]
        self.stock = list(deck[2 * n :])
        self.turn = 0

    def _seat_to_act(self) -> int:
        return self.turn % self.num_players if self.turn < 2 * self.num_players else -1

    def _legal_actions(self) -> Sequence[int]:
        return (KEEP, SWAP)

    def _apply(self, action: int) -> Sequence[float] | None:
        seat = self._seat_to_act()
        if action == SWAP:
            hand = self.hands[seat]
            low = min(range(2), key=lambda j: hand[j] % 13)
            hand[low] = self.stock.pop(0)
        self.turn += 1
        if self._seat_to_act() >= 0:
            return None
        return self._rewards()

    def totals(self) -> list[int]:
        return [sum(c % 13 for c in h) for h in self.hands]

    def _rewards(self) -> list[float]:
        totals = self.totals()
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

    def _encode(self, seat: int) -> np.ndarray:
        obs = self.layout.new()
        obs[list(self.hands[seat])] = 1.0
        return obs

    def view(self, agent: str) -> dict[str, Any]:
        return {"hand": tuple(self.hands[self.agent_name_mapping[agent]])}

    def _move_text(self, action: int) -> str:
        return ("keep", "swap")[action]

    def _result(self) -> dict[str, Any]:
        return {"totals": self.totals()}

    def _render_table(self) -> str:
        return " | ".join(" ".join(CARD_TEXTS[c] for c in h) for h in self.hands)

    def check_invariants(self) -> None:
        pass


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

    def before(self, env: Any, seat: int, action: int) -> None:
        self.counts[seat]["decisions"] += 1
        self.counts[seat]["swaps"] += action == SWAP

    def after(self, env: Any, seat: int, action: int) -> None:
        pass

    def per_seat(self) -> list[dict[str, float]]:
        return self.counts


METRICS = (
    MetricDef("swap_rate", "share of decisions that swapped", "swaps", "decisions"),
    MetricDef("swaps_per_game", "swaps per game", "swaps"),
)


def toy_deal(env: Any, kwargs: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    return decks_option(DECK, rng, 1)


def raw_env(**kwargs: Any) -> ToyEnv:
    return ToyEnv(**kwargs)


for _game in ("toy", "toyteam"):
    register(f"{_game}/random", lambda seed=0: CrashableRandom("toy", seed))
    register(f"{_game}/smart", lambda seed=0: SmartAgent(seed))
    register(f"{_game}/keep", lambda seed=0: KeepAgent(seed))
for _name, _teams in (("toy", None), ("toyteam", ((0, 2), (1, 3)))):
    register_game(
        GameSpec(
            name=_name,
            env_id="toy-v0",
            make_env="tests.experiments.toy:raw_env",
            teams=_teams,
            deal_options=toy_deal,
            metrics="tests.experiments.toy",
        )
    )
