"""Kiauliaganys colour-forcing metrics (RULES §2): does a drag make the next player pick up?

A *drag* (G6: ``drag C``, ``drag RJ H``, ``drag blind``) sets the suit the next player must
follow (G3). For every drag that the next player then answers (the deal goes on and the next
turn is another player's), the collector looks at that player's match decisions of his turn:

* ``forced``: he held no card of the required suit and no joker (G4/G5), so he had to search or
  take — the drag *forced* him (read from the full state: searching is allowed when holding the
  suit, so his move alone does not show it);
* ``pickups``: how many cards he picked up in that turn: the misses of his search (G4) plus a
  ``take`` (G5);
* ``searched_or_took``: he searched or took, forced or not.

Per seat the collector also counts the player's own pick-ups, and who became the swineherd
(G8/G10) with how many years (G9). Per-deal metrics divide by the deals of the episode (one, or
every deal of a match, G11).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from experiments.metrics import MetricDef

METRICS = (
    MetricDef(
        "forcing_success_rate",
        "share of the player's drags after which the next player held no card of the suit "
        "(had to search or take)",
        "forced",
        "drags",
    ),
    MetricDef(
        "pickups_per_drag",
        "cards the next player picked up (search misses + take) after the player's drag",
        "pickups_caused",
        "drags",
    ),
    MetricDef(
        "next_searched_or_took",
        "share of the player's drags after which the next player searched or took",
        "searched_or_took",
        "drags",
    ),
    MetricDef("drags_per_deal", "drags per deal", "drags", "deals"),
    MetricDef("blind_drag_share", "share of drags made blind (G6)", "blind_drags", "drags"),
    MetricDef(
        "own_pickups_per_deal",
        "cards the player picked up himself per deal (search misses + takes)",
        "own_pickups",
        "deals",
    ),
    MetricDef("swineherd_rate", "share of deals the player lost (G8, G10)", "swineherd", "deals"),
    MetricDef("years_when_swineherd", "years (cards left, G9) per lost deal", "years", "swineherd"),
)

_FIELDS = (
    "drags",
    "forced",
    "pickups_caused",
    "searched_or_took",
    "blind_drags",
    "own_pickups",
    "swineherd",
    "years",
    "deals",
)


@dataclass
class _Answer:
    """The next player's answer to one drag, being watched."""

    dragger: int
    responder: int
    started: bool = False
    forced: bool = False
    pickups: int = 0
    searched_or_took: bool = False


class Collector:
    """Step observer of one Kiauliaganys episode; see the module docstring for the counts."""

    def start(self, env: Any) -> None:
        from kiaule_env.kiauliaganys import rules

        self._rules = rules
        self._env = env
        n = self._env.num_players
        self.counts = [dict.fromkeys(_FIELDS, 0) for _ in range(n)]
        self._answer: _Answer | None = None
        self._kind = -1
        self._state: Any = None

    def before(self, env: Any, seats: tuple[int, ...], actions: tuple[int, ...]) -> None:
        seat = seats[0]
        rules = self._rules
        state = self._state = self._env.game_state
        move = self._env.codec.moves[actions[0]]
        self._kind = move.kind
        answer = self._answer
        if answer is not None and answer.responder == seat and state.phase == rules.MATCH:
            if not answer.started:
                answer.started = True
                required = rules.required_suit(state)
                answer.forced = not any(rules.matches(c, required) for c in state.hands[seat])
            if move.kind in (rules.SEARCH, rules.TAKE):
                answer.searched_or_took = True

    def after(self, env: Any, seats: tuple[int, ...], actions: tuple[int, ...], info: Any) -> None:
        seat = seats[0]
        rules = self._rules
        played = self._state  # mutated by the move (in a match: into the next deal)
        finished = info.get("deal_result") if info else None  # G11: a deal of a match ended
        deal_over = played.phase == rules.OVER or finished is not None
        kind = self._kind
        c = self.counts[seat]
        picked = played.last_picked if kind == rules.SEARCH else 1 if kind == rules.TAKE else 0
        c["own_pickups"] += picked
        answer = self._answer
        if answer is not None and answer.responder == seat and answer.started:
            answer.pickups += picked
            search_failed = kind == rules.SEARCH and played.phase == rules.MATCH  # G4 → G5
            if deal_over or not search_failed:
                self._close(answer)
        if kind in (rules.DRAG_CARD, rules.DRAG_BLIND):
            c["drags"] += 1
            c["blind_drags"] += kind == rules.DRAG_BLIND
            nxt = played.to_act
            if not deal_over and nxt != seat:
                self._answer = _Answer(seat, nxt)
            else:
                self._answer = None  # nobody answers this drag (deal over, or a G8 last turn)
        if deal_over:
            self._deal_finished(played, finished)

    def _close(self, answer: _Answer) -> None:
        d = self.counts[answer.dragger]
        d["forced"] += answer.forced
        d["pickups_caused"] += answer.pickups
        d["searched_or_took"] += answer.searched_or_took
        self._answer = None

    def _deal_finished(self, state: Any, result: dict[str, Any] | None) -> None:
        """Count a finished deal: from the state, or in a match (whose state already holds
        the next deal) from the finished deal's G14 outcome."""
        for c in self.counts:
            c["deals"] += 1
        if result is not None:
            loser = int(result["loser"].split("_")[1]) if result["loser"] else -1
            years = result["years"]
        else:
            loser = state.loser
            years = self._rules.years(state) if loser >= 0 else 0
        if loser >= 0:  # G8, G10
            self.counts[loser]["swineherd"] += 1
            self.counts[loser]["years"] += years  # G9
        self._answer = None

    def per_seat(self) -> list[dict[str, float]]:
        return [dict(c) for c in self.counts]
