"""``kiauliaganys/heuristic``: a rule-based Kiauliaganys player that counts cards.

It reads only the :class:`~agents.base.Decision` (the player's view and legal moves). Its rules:

1. **Match** from hand whenever possible (a suited card before a joker; among equals a card the
   others saw him take, then the most pips); with nothing to play, ``search`` while face-down
   cards remain, else ``take``.
2. **Drag** the suit the next player still in is known or most likely to lack. The chance that
   he holds a suit comes from card counting: the cards not yet seen (not in my hand, the fund or
   anyone's face-up cards) are dealt at random over his unseen cards, except those known not to be
   of the suit (``not_suit``, G4); a face-up card of the suit or a joker means he has it. While
   face-down cards remain, a suit he lacks is worth more the longer his search for it will be.
   Ties go to the suit held most (the seed's advice), the card to a face-up one, then the most
   pips. A joker is dragged only when nothing else is left (naming the best suit); with face-down
   cards left ``drag blind`` is preferred to giving up the last joker.
3. **Take tactics** in the two-player endgame (table empty, two players still in): when the
   opponent holds at most two cards and would probably match whatever he is dragged, while the
   suit uncovered by a ``take`` is one he probably lacks, ``take`` instead of playing, unless
   playing sheds the agent's last cards.
4. **Repetition** (G10a, once the table is empty). The agent remembers what it did at each of
   its decisions. When its turn starts from a position that has occurred before (the view's
   ``repetitions``), a repetition would end the deal with the G10 tie-break at that position: if
   the tie-break would not make it the swineherd it *seeks* the repetition (it does what it did
   there last time, so the cycle comes round again); if it would, it *avoids* it (the best move
   by rules 1–3 that it has not yet tried there). With ``repetition=None`` rule 4 is off.
"""

from __future__ import annotations

import numpy as np

from agents.base import Decision, check_view
from agents.registry import register
from kiaule_env.cards import NUM_SUITED
from kiaule_env.kiauliaganys import rules
from kiaule_env.kiauliaganys.counting import expected_search, match_chances
from kiaule_env.kiauliaganys.rules import DRAG_BLIND, DRAG_CARD, PLAY, SEARCH, TAKE, View


def next_in(view: View) -> int:
    """The player who moves after ``view.seat`` (the next still in clockwise, or himself)."""
    n = view.num_players
    for step in range(1, n + 1):
        seat = (view.seat + step) % n
        if not view.out[seat]:
            return seat
    return view.seat


def repetition_loser(view: View) -> int:
    """The seat the G10a tie-break would make the swineherd if the position the current turn
    started from ended the deal: the most cards, ties from the player to move (G10). In the drag
    phase the mover's match card is counted back into his hand."""
    sizes = list(view.hand_sizes)
    if view.phase == rules.DRAG and view.to_act >= 0:
        sizes[view.to_act] += 1
    return rules.tie_break_loser(sizes, view.to_act)


def memory_key(view: View) -> tuple:
    """What the agent remembers a decision by: everything public about the position plus its
    own hand (equal for two occurrences of one G10a position)."""
    return (
        view.phase,
        view.to_act,
        view.last_turn,
        view.required_suit,
        view.fund,
        view.hand,
        view.hand_sizes,
        view.had_turn,
    )


class KiauliaganysHeuristic:
    """The rule-based agent of the module docstring."""

    def __init__(self, seed: int | None = 0):
        self.name = "kiauliaganys/heuristic"
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        #: rule 4: per remembered decision (:func:`memory_key`), the actions taken there
        self.memory: dict[tuple, list[int]] = {}

    def reset(self) -> None:
        self.memory = {}

    def act(self, decision: Decision) -> int:
        check_view(decision, View, self.name)
        moves = {index: rules.parse_move(text) for index, text in decision.legal_moves.items()}
        if not moves:
            raise ValueError(f"{decision.agent} has no legal move to choose from")
        if len(moves) == 1:
            return next(iter(moves))
        view: View = decision.view
        choice = self._choose(view, moves)
        if view.face_down or view.config.repetition is None:
            return choice
        return self._repetition(view, moves, choice)

    def _choose(self, view: View, moves: dict[int, rules.Move]) -> int:
        if view.phase == rules.DRAG:
            return self._drag(view, moves)
        return self._match(view, moves)

    # ------------------------------------------------------------------ repetition (G10a)
    def _repetition(self, view: View, moves: dict[int, rules.Move], choice: int) -> int:
        """Rule 4: seek a repetition the tie-break would win, avoid one it would lose."""
        key = memory_key(view)
        tried = self.memory.setdefault(key, [])
        if view.repetitions and tried:
            if repetition_loser(view) == view.seat:  # avoid: a move not yet tried here
                untried = {i: m for i, m in moves.items() if i not in tried}
                if untried:
                    choice = self._choose(view, untried)
            elif tried[-1] in moves:  # seek: what I did here last time
                choice = tried[-1]
        tried.append(choice)
        return choice

    # ------------------------------------------------------------------ match phase
    def _match(self, view: View, moves: dict[int, rules.Move]) -> int:
        plays = {i: m for i, m in moves.items() if m.kind == PLAY}
        if not plays:
            kinds = {m.kind: i for i, m in moves.items()}
            return kinds.get(SEARCH, kinds.get(TAKE, next(iter(moves))))
        face_up = set(view.face_up[view.seat])
        pips = view.config.pips_table
        best = max(
            plays,
            key=lambda i: (
                plays[i].card < NUM_SUITED,
                plays[i].card in face_up,
                int(pips[plays[i].card]),
                self.rng.random(),
            ),
        )
        take = next((i for i, m in moves.items() if m.kind == TAKE), None)
        if take is not None and self._take_instead(view, plays[best].card):
            return take
        return best

    def _take_instead(self, view: View, card: int) -> bool:
        """Two-player endgame: take rather than let the opponent shed his last cards."""
        hand = len(view.hand)
        if hand <= 2 or view.face_down or len(view.still_in) != 2:
            return False
        opponent = next_in(view)
        if view.hand_sizes[opponent] > 2:
            return False
        chances = match_chances(view, opponent)
        rest = [c for c in view.hand if c != card]
        suits = {c // 13 for c in rest if c < NUM_SUITED}
        after_play = min((chances[s] for s in suits), default=0.0)  # the best drag I have
        if any(c >= NUM_SUITED for c in rest):
            after_play = min(chances)
        below = view.fund[-2] if len(view.fund) >= 2 else -1
        after_take = 1.0 if below < 0 or below >= NUM_SUITED else chances[below // 13]
        return after_play >= 0.5 and after_take <= after_play - 0.3

    # ------------------------------------------------------------------ drag phase
    def _drag(self, view: View, moves: dict[int, rules.Move]) -> int:
        target = next_in(view)
        chances = match_chances(view, target)
        pain = []
        for suit in range(4):
            lack = 1.0 - chances[suit]
            pain.append(lack * (1.0 + expected_search(view, suit)) if view.face_down else lack)
        held = [0, 0, 0, 0]
        for c in view.hand:
            if c < NUM_SUITED:
                held[c // 13] += 1
        face_up = set(view.face_up[view.seat])
        pips = view.config.pips_table
        suited = {i: m for i, m in moves.items() if m.kind == DRAG_CARD and m.card < NUM_SUITED}
        if suited:
            return max(
                suited,
                key=lambda i: (
                    round(pain[suited[i].card // 13], 6),
                    held[suited[i].card // 13],
                    suited[i].card in face_up,
                    int(pips[suited[i].card]),
                    self.rng.random(),
                ),
            )
        blind = next((i for i, m in moves.items() if m.kind == DRAG_BLIND), None)
        if blind is not None:
            return blind
        jokers = {i: m for i, m in moves.items() if m.kind == DRAG_CARD}
        return max(jokers, key=lambda i: (pain[jokers[i].suit], self.rng.random()))


register("kiauliaganys/heuristic", lambda seed=0: KiauliaganysHeuristic(seed))
