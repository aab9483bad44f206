"""Kozel team-play metrics (RULES §1): points, tricks, discards onto whose tricks, beating one's
own partner, molodka claims.

Counted per seat from the engine state around each move (``env.game_state``, the
:class:`kiaule_env.kozel.rules.State`); per-game metrics divide by the Kozel games played in the
episode (one, or all games of a series, K14).

* ``card_points`` / ``tricks_won``: the card points (K11) and tricks of the tricks this player
  took himself (K7), per game; ``team_points``: his team's points per game.
* ``discard_to_partner`` / ``discard_to_opponents``: card points he discarded face down (K6) into
  tricks his partner / the opponents then took, per game; ``discard_share_to_partner``: the share
  of his discarded points that went to his partner's tricks (a good partner feeds his partner's
  winning tricks and starves the opponents').
* ``beat_partner_rate``: of his responses while his partner owned the winning set, the share in
  which he beat it anyway (K6; often a waste of high cards, sometimes needed).
* ``molodka_claims``: molodka claims per game (K8); ``molodka_claim_rate``: claims per claim
  window he was asked in.
"""

from __future__ import annotations

from typing import Any

from experiments.metrics import MetricDef

METRICS = (
    MetricDef(
        "card_points",
        "card points of the tricks the player took, per game",
        "points",
        "kozel_games",
    ),
    MetricDef(
        "team_points", "card points of the player's team, per game", "team_points", "kozel_games"
    ),
    MetricDef("tricks_won", "tricks the player took, per game", "tricks", "kozel_games"),
    MetricDef(
        "discard_to_partner",
        "points discarded into tricks the partner took, per game",
        "discard_partner",
        "kozel_games",
    ),
    MetricDef(
        "discard_to_opponents",
        "points discarded into tricks the opponents took, per game",
        "discard_opponents",
        "kozel_games",
    ),
    MetricDef(
        "discard_share_to_partner",
        "share of discarded points that went to the partner's tricks",
        "discard_partner",
        "discard_points",
    ),
    MetricDef(
        "beat_partner_rate",
        "share of responses beating the partner's winning set, when he was winning",
        "beat_partner",
        "partner_winning",
    ),
    MetricDef("molodka_claims", "molodka claims per game (K8)", "claims", "kozel_games"),
    MetricDef(
        "molodka_claim_rate",
        "claims per claim window the player was asked in",
        "claims",
        "claim_windows",
    ),
)

_FIELDS = (
    "points",
    "team_points",
    "tricks",
    "discard_partner",
    "discard_opponents",
    "discard_points",
    "beat_partner",
    "partner_winning",
    "claims",
    "claim_windows",
    "kozel_games",
)


class Collector:
    """Step observer of one Kozel episode; see the module docstring for the counts."""

    def start(self, env: Any) -> None:
        from kiaule_env.kozel import rules

        self._rules = rules
        self._claim = rules.CLAIM
        self._points = rules.POINTS
        self._env = env
        self.counts = [dict.fromkeys(_FIELDS, 0) for _ in range(4)]
        self._discards: list[tuple[int, int]] = []  # (seat, points) in the current trick
        self._games_seen = 0

    def before(self, env: Any, seats: tuple[int, ...], actions: tuple[int, ...]) -> None:
        seat, action = seats[0], actions[0]
        c = self.counts[seat]
        if action >= self._claim:  # K8 claim window
            c["claim_windows"] += 1
            if action == self._claim:
                c["claims"] += 1
            return
        kind = action // 15
        if kind == 0:  # LEAD: a new trick
            self._discards = []
            return
        state = self._env.game_state
        points = self._points
        partner_winning = state.winner == (seat + 2) % 4
        if partner_winning:
            c["partner_winning"] += 1
        cards = self._rules.move_cards(state.hands[seat], action)
        if kind == 1:  # BEAT (K6)
            if partner_winning:
                c["beat_partner"] += 1
        else:  # DISCARD, face down (K6)
            pts = 0
            for x in cards:
                pts += points[x]
            self._discards.append((seat, pts))
        if len(state.trick) == 3:  # this play completes the trick (K7)
            winner = seat if kind == 1 else state.winner
            total = 0
            for _, _, played in state.trick:
                for x in played:
                    total += points[x]
            for x in cards:
                total += points[x]
            w = self.counts[winner]
            w["points"] += total
            w["tricks"] += 1
            for discarder, pts in self._discards:
                d = self.counts[discarder]
                d["discard_points"] += pts
                if winner == (discarder + 2) % 4:
                    d["discard_partner"] += pts
                else:
                    d["discard_opponents"] += pts
            self._discards = []

    def after(self, env: Any, seats: tuple[int, ...], actions: tuple[int, ...], info: Any) -> None:
        games = self._env.game_state.finished_games
        while self._games_seen < len(games):  # K16 outcome of each finished game
            team_points = games[self._games_seen]["team_points"]
            for s in range(4):
                self.counts[s]["team_points"] += team_points[s % 2]
                self.counts[s]["kozel_games"] += 1
            self._games_seen += 1

    def per_seat(self) -> list[dict[str, float]]:
        return [dict(c) for c in self.counts]
