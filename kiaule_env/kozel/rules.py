"""The Kozel (Goat) rules engine: RULES.md §1, rules K1–K16. No RL imports.

The engine is a handful of functions over a mutable :class:`State`:

* :func:`new_deal` deals the first game of an episode (a single game, or a series, K14);
* :func:`legal_moves` lists the legal moves of the seat to act, :func:`apply` plays one (in place)
  and returns the reward deltas when it ends a game (K15);
* :func:`view` is one player's information set (:class:`View`), :func:`result` the outcome (K16);
* :func:`clone` copies a state cheaply (search agents), :func:`check_invariants` audits one.

**Moves are small ints**, the env's actions (:mod:`kiaule_env.kozel.moves` numbers them and
holds the card tables). :func:`move_text` and :func:`parse_move` translate to and from the move
texts of RULES §1 (``lead 7S AS``, ``beat 8S 6H``, ``discard 9C 6D``, ``claim``, ``decline``).

All chance comes from the ``numpy.random.Generator`` given to :func:`new_deal` (kept in the state
for the later deals of a series), so a seed or stacked decks fix an episode.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kiaule_env.cards import CARD_TEXTS, SUITS, parse_card
from kiaule_env.core.options import check_bool, check_choice, check_int

# The card and move vocabulary lives in moves.py; the rules re-export it, so ``rules.X`` stays
# the one place the game's names are found.
from kiaule_env.kozel.moves import (
    BEAT,
    CLAIM,
    DECK,
    DECLINE,
    DISCARD,
    HAND_SIZE,
    KIND_WORDS,
    LEAD,
    MASK_POSITIONS,
    POINTS,
    SORT_KEY,
    SUIT,
    lead_moves,
    move_code,
    respond_moves,
    sort_hand,
)
from kiaule_env.kozel.moves import NUM_MOVES as NUM_MOVES
from kiaule_env.kozel.moves import STRENGTH as STRENGTH
from kiaule_env.kozel.moves import can_beat as can_beat
from kiaule_env.kozel.moves import kind_of as kind_of
from kiaule_env.kozel.moves import move_cards as move_cards

NUM_PLAYERS = 4
STOCK_SIZE = DECK.size - NUM_PLAYERS * HAND_SIZE  # 20
WIN_POINTS = 61  # K12
SERIES_LOSS = 12  # K14

# ---------------------------------------------------------------------------------------- phases
PHASE_LEAD, PHASE_RESPOND, PHASE_CLAIM, PHASE_OVER = 0, 1, 2, 3
PHASE_NAMES = ("lead", "respond", "claim", "over")


# ---------------------------------------------------------------------------------------- config
@dataclass(frozen=True)
class Config:
    """The constructor options of RULES §1 (validated; bad values raise ``ValueError``).

    ``num_players`` is always 4 (K1) and ``deck`` always ``"36"`` (K2); ``trump_card`` is
    ``"middle"`` or ``"bottom"`` (K4); ``molodka`` ``"any"``, ``"trumps"`` or ``None`` (K8);
    ``beat_partner`` (K6); ``eggs`` ``None`` or ``"double"`` (K13, series only); ``series``
    (K14); ``reward`` ``"loss_points"``, ``"win_loss"`` or ``"card_points"`` (K15).
    """

    num_players: int = NUM_PLAYERS
    deck: str = "36"
    trump_card: str = "middle"
    molodka: str | None = "any"
    beat_partner: bool = True
    eggs: str | None = None
    series: bool = False
    reward: str = "loss_points"

    def __post_init__(self) -> None:
        check_int("num_players", self.num_players, NUM_PLAYERS, NUM_PLAYERS)
        if str(self.deck) != "36":
            raise ValueError(f"deck={self.deck!r} is not allowed; Kozel uses the 36-card deck (K2)")
        object.__setattr__(self, "deck", "36")
        check_choice("trump_card", self.trump_card, ("middle", "bottom"))
        check_choice("molodka", self.molodka, ("any", "trumps", None))
        check_bool("beat_partner", self.beat_partner)
        check_choice("eggs", self.eggs, (None, "double"))
        check_bool("series", self.series)
        check_choice("reward", self.reward, ("loss_points", "win_loss", "card_points"))
        if self.eggs == "double" and not self.series:
            raise ValueError(
                "eggs='double' needs series=True (K13: it carries over to later games)"
            )


# ---------------------------------------------------------------------------------------- state
@dataclass(slots=True)
class State:
    """Everything about an episode in progress (mutated in place by :func:`apply`).

    Seats are 0–3 clockwise; team of seat ``s`` is ``s % 2`` (K1).

    * ``config``: the :class:`Config`; ``rng``: the generator for later deals of a series.
    * ``decks``: stacked decks (card ids, top first) still to be dealt in later games (K14).
    * ``dealer``: this game's dealer; ``game_index``: games finished before this one.
    * ``hands``: each seat's cards, sorted by :func:`sort_hand`.
    * ``stock``: this game's stock, top first, never mutated after the deal (clones share it);
      ``stock_pos``: index of the next card to draw (the stock is ``stock[stock_pos:]``).
    * ``trump``: trump suit index (C D H S = 0–3); ``indicator``: the card that showed it (K4);
      ``indicator_index``: its index in ``stock``.
    * ``phase``: PHASE_LEAD / PHASE_RESPOND / PHASE_CLAIM / PHASE_OVER; ``to_act``: the seat
      whose decision it is (-1 when over).
    * ``leader``: the trick's leader (the claimant after a claim, K8); ``first_leader``: who led
      first this trick; ``claimed``: a molodka was claimed this trick.
    * ``claim_queue``: seats still to be asked in the claim window (K8), in order;
      ``declined``: seats that declined in this trick's window (public).
    * ``trick``: the plays so far, ``(seat, kind, cards)`` in order; ``n_cards``: cards per play
      this trick (0 before the lead).
    * ``winner`` / ``winning``: the seat owning the set to beat, and that set (K6).
    * ``seen``: cards seen face up this game that are out of the hands (tricks, current trick).
    * ``known``: per seat, cards public knowledge puts in his hand (the indicator he drew, K4;
      cards returned by a claim, K8) that he has not played face up and not possibly discarded.
    * ``maybe``: per seat, such cards after he discarded face down: in his hand or among those
      discards.
    * ``discards``: per seat, his face-down discards this game (his private memory).
    * ``piles``: per team, the cards of the tricks it took (K7); ``points``: their card points
      (K11); ``points_seen``: the points of the face-up cards among them (public);
      ``discard_points``: per seat and team, points of his own discards in that team's tricks.
    * ``tricks``: tricks taken per team; ``last_winner``: winner of the latest trick (K14).
    * ``series_loss``: loss points per team over the series (K14); ``eggs_streak``: consecutive
      eggs games just before (K13); ``last_result``: outcome of the latest finished game (K16).
    """

    config: Config
    rng: np.random.Generator | None
    decks: list[list[int]]
    dealer: int
    game_index: int
    hands: list[list[int]]
    stock: list[int]
    stock_pos: int
    trump: int
    indicator: int
    indicator_index: int
    phase: int
    to_act: int
    leader: int
    first_leader: int
    claimed: bool
    claim_queue: list[int]
    declined: list[int]
    trick: list[tuple[int, int, tuple[int, ...]]]
    n_cards: int
    winner: int
    winning: tuple[int, ...]
    seen: list[int]
    known: list[list[int]]
    maybe: list[list[int]]
    discards: list[list[int]]
    piles: list[list[int]]
    points: list[int]
    points_seen: list[int]
    discard_points: list[list[int]]
    tricks: list[int]
    last_winner: int
    series_loss: list[int]
    eggs_streak: int
    last_result: dict[str, Any] | None = None
    finished_games: list[dict[str, Any]] = field(default_factory=list)
    #: what the latest engine step adds to every agent's info (``game_result``, K16), or None
    step_info: dict[str, Any] | None = None

    @property
    def stock_size(self) -> int:
        return len(self.stock) - self.stock_pos

    @property
    def over(self) -> bool:
        return self.phase == PHASE_OVER


def clone(state: State, rng: np.random.Generator | None = None) -> State:
    """A copy that can be played on independently of ``state``.

    The chance generator of later series deals is shared unless ``rng`` is given.
    """
    return State(
        state.config,
        state.rng if rng is None else rng,
        [list(d) for d in state.decks],
        state.dealer,
        state.game_index,
        [h[:] for h in state.hands],
        state.stock,
        state.stock_pos,
        state.trump,
        state.indicator,
        state.indicator_index,
        state.phase,
        state.to_act,
        state.leader,
        state.first_leader,
        state.claimed,
        state.claim_queue[:],
        state.declined[:],
        state.trick[:],
        state.n_cards,
        state.winner,
        state.winning,
        state.seen[:],
        [k[:] for k in state.known],
        [m[:] for m in state.maybe],
        [d[:] for d in state.discards],
        [p[:] for p in state.piles],
        state.points[:],
        state.points_seen[:],
        [d[:] for d in state.discard_points],
        state.tricks[:],
        state.last_winner,
        state.series_loss[:],
        state.eggs_streak,
        state.last_result,
        state.finished_games[:],
    )


# ---------------------------------------------------------------------------------------- dealing
def new_deal(
    config: Config,
    rng: np.random.Generator,
    decks: Sequence[Sequence[int]] = (),
) -> State:
    """The state at the start of an episode: game 0 dealt by seat 3, ``player_0`` leads (§0, K14).

    ``decks`` are stacked decks (card ids, top first), one per game in order (only the first is
    used outside series); games beyond them are shuffled from ``rng``.
    """
    decks = [list(d) for d in decks]
    for d in decks:
        if sorted(d) != sorted(DECK.cards):
            raise ValueError("a stacked Kozel deck must be a permutation of the 36-card deck")
    state = State(
        config=config,
        rng=rng,
        decks=decks,
        dealer=NUM_PLAYERS - 1,
        game_index=0,
        hands=[],
        stock=[],
        stock_pos=0,
        trump=0,
        indicator=0,
        indicator_index=0,
        phase=PHASE_LEAD,
        to_act=0,
        leader=0,
        first_leader=0,
        claimed=False,
        claim_queue=[],
        declined=[],
        trick=[],
        n_cards=0,
        winner=-1,
        winning=(),
        seen=[],
        known=[],
        maybe=[],
        discards=[],
        piles=[],
        points=[0, 0],
        points_seen=[0, 0],
        discard_points=[],
        tricks=[0, 0],
        last_winner=-1,
        series_loss=[0, 0],
        eggs_streak=0,
    )
    _deal_game(state, first_leader=0)
    return state


def _deal_game(state: State, first_leader: int) -> None:
    """Deal the next game of ``state`` by ``state.dealer`` (K3, K4) and reset the game fields."""
    if state.decks:
        deck = state.decks.pop(0)
    else:
        if state.rng is None:
            raise ValueError("this state has no generator for further deals")
        deck = DECK.shuffled(state.rng)
    dealer = state.dealer
    hands: list[list[int]] = [[], [], [], []]
    for i in range(NUM_PLAYERS * HAND_SIZE):  # K3: one at a time from the dealer's left
        hands[(dealer + 1 + i) % NUM_PLAYERS].append(deck[i])
    state.hands = [sort_hand(h) for h in hands]
    stock = list(deck[NUM_PLAYERS * HAND_SIZE :])
    middle = len(stock) // 2  # K4
    indicator = stock[middle]
    if state.config.trump_card == "bottom":
        stock = stock[:middle] + stock[middle + 1 :] + [indicator]
        middle = len(stock) - 1
    state.stock = stock
    state.stock_pos = 0
    state.indicator = indicator
    state.indicator_index = middle
    state.trump = SUIT[indicator]
    state.phase = PHASE_LEAD
    state.to_act = state.leader = state.first_leader = first_leader
    state.claimed = False
    state.claim_queue = []
    state.declined = []
    state.trick = []
    state.n_cards = 0
    state.winner = -1
    state.winning = ()
    state.seen = []
    state.known = [[], [], [], []]
    state.maybe = [[], [], [], []]
    state.discards = [[], [], [], []]
    state.piles = [[], []]
    state.points = [0, 0]
    state.points_seen = [0, 0]
    state.discard_points = [[0, 0], [0, 0], [0, 0], [0, 0]]
    state.tricks = [0, 0]
    state.last_winner = -1


# ---------------------------------------------------------------------------------------- moves
def legal_moves(state: State) -> list[int]:
    """The legal moves (ascending move numbers) of ``state.to_act``; ``[]`` when over."""
    phase = state.phase
    if phase == PHASE_RESPOND:
        seat = state.to_act
        barred = not state.config.beat_partner and (state.winner - seat) % 4 == 2  # K6
        hand = state.hands[seat]
        return respond_moves(hand, state.n_cards, state.winning, state.trump, not barred)
    if phase == PHASE_LEAD:
        return lead_moves(state.hands[state.to_act])
    if phase == PHASE_CLAIM:
        return [CLAIM, DECLINE]
    return []


def move_text(state: State, move: int) -> str:
    """The RULES §1 text of a move of ``state.to_act`` (cards in hand order)."""
    if move == CLAIM:
        return "claim"
    if move == DECLINE:
        return "decline"
    hand = state.hands[state.to_act]
    words = [KIND_WORDS[move // 15]]
    words += [CARD_TEXTS[hand[i]] for i in MASK_POSITIONS[move % 15 + 1]]
    return " ".join(words)


def parse_move(state: State, text: str) -> int:
    """The move number of a move text of ``state.to_act`` (case-insensitive, any card order).

    Raises ``ValueError`` for malformed text or cards not in the mover's hand; legality is
    checked by :func:`play`.
    """
    words = text.split()
    if not words:
        raise ValueError("empty move text; moves are 'lead C…', 'beat C…', 'discard C…', …")
    verb = words[0].lower()
    if verb in ("claim", "decline"):
        if len(words) != 1:
            raise ValueError(f"{verb!r} takes no cards, got {text!r}")
        return CLAIM if verb == "claim" else DECLINE
    if verb not in KIND_WORDS:
        raise ValueError(
            f"unknown move {words[0]!r}; moves are 'lead C…', 'beat C…', 'discard C…', "
            "'claim', 'decline'"
        )
    if not 2 <= len(words) <= 1 + HAND_SIZE:
        raise ValueError(f"{verb!r} needs 1 to {HAND_SIZE} cards, got {text!r}")
    hand = state.hands[state.to_act]
    mask = 0
    for word in words[1:]:
        card = parse_card(word)
        if card not in hand:
            raise ValueError(
                f"player_{state.to_act} does not hold {CARD_TEXTS[card]} "
                f"(hand: {' '.join(CARD_TEXTS[c] for c in hand)})"
            )
        bit = 1 << hand.index(card)
        if mask & bit:
            raise ValueError(f"{CARD_TEXTS[card]} is named twice in {text!r}")
        mask |= bit
    return move_code(KIND_WORDS.index(verb), mask)


def play(state: State, text: str) -> list[float] | None:
    """Parse, check and apply a move text; ``ValueError`` naming the legal moves if illegal."""
    move = parse_move(state, text)
    legal = legal_moves(state)
    if move not in legal:
        raise ValueError(
            f"player_{state.to_act}: {text!r} is illegal now; legal moves: "
            + ", ".join(move_text(state, m) for m in legal)
        )
    return apply(state, move)


# ---------------------------------------------------------------------------------------- apply
def apply(state: State, move: int) -> list[float] | None:
    """Play the legal ``move`` of ``state.to_act`` in place (legality is the caller's check).

    Returns the reward deltas per seat when the move ends a game (K15), else ``None``.
    """
    seat = state.to_act
    if move >= CLAIM:
        if move == CLAIM:
            _claim(state, seat)
        else:
            _decline(state)
        return None
    hand = state.hands[seat]
    mask = move % 15 + 1
    positions = MASK_POSITIONS[mask]
    cards = tuple([hand[i] for i in positions])
    state.hands[seat] = [c for i, c in enumerate(hand) if not mask >> i & 1]
    kind = move // 15
    if kind == LEAD:  # K5
        state.trick.append((seat, LEAD, cards))
        state.n_cards = len(cards)
        state.winner = seat
        state.winning = cards
        _played_face_up(state, seat, cards)
        if _open_claim_window(state, seat):
            return None
        state.phase = PHASE_RESPOND
        state.to_act = (seat + 1) % 4
        return None
    if kind == BEAT:  # K6
        state.winner = seat
        state.winning = cards
        _played_face_up(state, seat, cards)
    else:  # K6 discard: face down
        state.discards[seat].extend(cards)
        if state.known[seat]:
            state.maybe[seat].extend(state.known[seat])
            state.known[seat] = []
    state.trick.append((seat, kind, cards))
    if len(state.trick) < NUM_PLAYERS:
        state.to_act = (seat + 1) % 4
        return None
    return _end_trick(state)


def _played_face_up(state: State, seat: int, cards: tuple[int, ...]) -> None:
    state.seen.extend(cards)
    known = state.known[seat]
    if known:
        state.known[seat] = [c for c in known if c not in cards]
    maybe = state.maybe[seat]
    if maybe:
        state.maybe[seat] = [c for c in maybe if c not in cards]


def has_molodka(hand: list[int], trump: int, only_trumps: bool) -> bool:
    """K8: four cards, all of one suit (of the trump suit with ``molodka="trumps"``)."""
    if len(hand) != HAND_SIZE:
        return False
    suit = SUIT[hand[0]]
    return suit == SUIT[hand[3]] and (not only_trumps or suit == trump)  # hands sorted by suit


def _open_claim_window(state: State, leader: int) -> bool:
    """K8: after a lead of fewer than four cards, queue the molodka holders clockwise."""
    mode = state.config.molodka
    if mode is None or state.claimed or state.n_cards == HAND_SIZE:
        return False
    only_trumps = mode == "trumps"
    queue = [
        s
        for s in ((leader + 1) % 4, (leader + 2) % 4, (leader + 3) % 4)
        if has_molodka(state.hands[s], state.trump, only_trumps)
    ]
    if not queue:
        return False
    state.claim_queue = queue
    state.phase = PHASE_CLAIM
    state.to_act = queue[0]
    return True


def _claim(state: State, claimant: int) -> None:
    """K8: the led cards go back to the leader (public), the claimant's four become the lead."""
    leader, _, led = state.trick[0]
    hand = state.hands[leader]
    for c in led:
        insort(hand, c, key=SORT_KEY.__getitem__)
    state.known[leader].extend(led)
    state.seen = [c for c in state.seen if c not in led]
    cards = tuple(state.hands[claimant])
    state.hands[claimant] = []
    _played_face_up(state, claimant, cards)
    state.trick = [(claimant, LEAD, cards)]
    state.n_cards = HAND_SIZE
    state.leader = state.winner = claimant
    state.winning = cards
    state.claimed = True
    state.claim_queue = []
    state.phase = PHASE_RESPOND
    state.to_act = (claimant + 1) % 4


def _decline(state: State) -> None:
    state.declined.append(state.claim_queue.pop(0))
    if state.claim_queue:
        state.to_act = state.claim_queue[0]
    else:
        state.phase = PHASE_RESPOND
        state.to_act = (state.first_leader + 1) % 4


def _end_trick(state: State) -> list[float] | None:
    """K7 take the trick, K9 refill and next lead, K10 game end."""
    winner = state.winner
    team = winner & 1
    pile = state.piles[team]
    total = seen_points = 0
    for seat, kind, cards in state.trick:
        pile.extend(cards)
        pts = 0
        for c in cards:
            pts += POINTS[c]
        total += pts
        if kind == DISCARD:
            state.discard_points[seat][team] += pts
        else:
            seen_points += pts
    state.points[team] += total  # K11: face-down discards count for the taker
    state.points_seen[team] += seen_points
    state.tricks[team] += 1
    state.last_winner = winner
    _refill(state, winner)
    state.trick = []
    state.n_cards = 0
    state.winner = -1
    state.winning = ()
    state.claimed = False
    state.declined = []
    state.leader = state.first_leader = state.to_act = winner
    state.phase = PHASE_LEAD
    if state.hands[winner]:
        return None
    return _end_game(state)  # K10: hands are equal after a refill, so all are empty


def _refill(state: State, winner: int) -> None:
    """K9: one card at a time from the top, clockwise from the trick winner, up to four each."""
    stock = state.stock
    pos = state.stock_pos
    left = len(stock) - pos
    if not left:
        return
    hands = state.hands
    need = HAND_SIZE - len(hands[winner])  # hands are equal after a trick
    rounds = min(need, left // NUM_PLAYERS)
    key = SORT_KEY.__getitem__
    indicator_index = state.indicator_index
    for _ in range(rounds):
        for k in range(NUM_PLAYERS):
            seat = (winner + k) % 4
            insort(hands[seat], stock[pos], key=key)
            if pos == indicator_index:  # K4: who draws the indicator is public
                state.known[seat].append(state.indicator)
            pos += 1
    state.stock_pos = pos


# ---------------------------------------------------------------------------------------- scoring
def loss_points(team_points: int, tricks: int) -> int:
    """K12: loss points of a losing team that took ``team_points`` in ``tricks`` tricks."""
    if team_points >= 31:
        return 2
    return 4 if tricks > 0 else 6


def _end_game(state: State) -> list[float]:
    """K12–K16: score the game, pay rewards, and deal the next game of a series."""
    config = state.config
    p0, p1 = state.points
    eggs = p0 == p1
    loss = [0, 0]
    if eggs:  # K13
        state.eggs_streak += 1
        loser = -1
    else:
        loser = 0 if p0 < WIN_POINTS else 1
        value = loss_points(state.points[loser], state.tricks[loser])
        if config.eggs == "double":
            value <<= state.eggs_streak
        state.eggs_streak = 0
        loss[loser] = value
    state.series_loss[0] += loss[0]
    state.series_loss[1] += loss[1]
    result: dict[str, Any] = {
        "team_points": [p0, p1],
        "loss_points": loss,
        "tricks": list(state.tricks),
        "eggs": eggs,
        "trump": SUITS[state.trump],
    }
    if config.series:
        result["series_loss_points"] = list(state.series_loss)
        result["games"] = state.game_index + 1
    state.last_result = result
    state.finished_games.append(result)
    rewards = _team_rewards(config.reward, loss, loser, (p0, p1))
    deltas = [rewards[0], rewards[1], rewards[0], rewards[1]]
    state.game_index += 1
    if config.series and max(state.series_loss) < SERIES_LOSS:  # K14
        state.dealer = (3 + state.game_index) % 4
        _deal_game(state, first_leader=state.last_winner)
    else:
        state.phase = PHASE_OVER
        state.to_act = -1
    return deltas


def _team_rewards(mode: str, loss: list[int], loser: int, points: tuple[int, int]) -> list[float]:
    """K15 rewards per team for one game."""
    if mode == "card_points":
        return [(points[0] - 60) / 60, (points[1] - 60) / 60]
    if loser < 0:
        return [0.0, 0.0]
    value = float(loss[loser]) if mode == "loss_points" else 1.0
    return [-value, value] if loser == 0 else [value, -value]


def result(state: State) -> dict[str, Any]:
    """K16 outcome fields of the latest finished game (empty before the first one ends)."""
    return dict(state.last_result) if state.last_result else {}


#: the values of :func:`ending`: how a game ended
ENDINGS: tuple[str, ...] = ("play",)


def ending(result: dict[str, Any]) -> str:
    """How a finished game (or series) ended, from its :func:`result`: always ``"play"``; Kozel
    has no cap (every game ends when the cards are played, K16)."""
    return "play"


# ---------------------------------------------------------------------------------------- views
@dataclass(slots=True)
class View:
    """What one player knows (his information set), as plain data; seats are absolute (0–3).

    * ``seat``; ``hand`` (sorted); ``hand_sizes`` of all seats.
    * ``trump`` (suit index), ``indicator`` (K4); ``indicator_at``: its index from the top of the
      stock while there, else -1; ``stock_size``.
    * ``phase``, ``to_act``, ``dealer``; ``leader`` of the trick (the claimant after a claim),
      ``first_leader`` (who led first), ``claimed``; ``n_cards`` to play this trick.
    * ``trick``: ``(seat, kind, cards)`` per play so far; ``cards`` is ``()`` for another
      player's face-down discard (it had ``n_cards`` cards).
    * ``winner`` / ``winning``: the seat and set to beat (K6); ``declined``: seats that declined
      a molodka claim in this trick's window (K8).
    * ``seen``: cards seen face up this game that left the hands.
    * ``known`` / ``maybe``: per seat, cards public knowledge puts in his hand / in his hand or
      among his face-down discards (K4 indicator, K8 returned cards).
    * ``my_discards``: this player's own face-down discards this game.
    * ``points_seen``: per team, points of the face-up cards in its tricks;
      ``my_discard_points``: per team, points of this player's discards in its tricks.
    * ``tricks`` and ``cards_taken`` per team.
    * ``game_index``, ``series_loss`` per team, ``eggs_streak`` (K13, K14).
    * ``beat_partner``, ``molodka``: the rule options in force (public).
    """

    seat: int
    hand: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    trump: int
    indicator: int
    indicator_at: int
    stock_size: int
    phase: int
    to_act: int
    dealer: int
    leader: int
    first_leader: int
    claimed: bool
    n_cards: int
    trick: tuple[tuple[int, int, tuple[int, ...]], ...]
    winner: int
    winning: tuple[int, ...]
    declined: tuple[int, ...]
    seen: tuple[int, ...]
    known: tuple[tuple[int, ...], ...]
    maybe: tuple[tuple[int, ...], ...]
    my_discards: tuple[int, ...]
    points_seen: tuple[int, ...]
    my_discard_points: tuple[int, ...]
    tricks: tuple[int, ...]
    cards_taken: tuple[int, ...]
    game_index: int
    series_loss: tuple[int, ...]
    eggs_streak: int
    beat_partner: bool
    molodka: str | None


def view(state: State, seat: int) -> View:
    """The information set of ``seat``: own hand and memory plus everything public."""
    hands = state.hands
    trick = tuple(
        [
            (s, kind, () if kind == DISCARD and s != seat else cards)
            for s, kind, cards in state.trick
        ]
    )
    at = state.indicator_index - state.stock_pos
    config = state.config
    return View(
        seat,
        tuple(hands[seat]),
        (len(hands[0]), len(hands[1]), len(hands[2]), len(hands[3])),
        state.trump,
        state.indicator,
        at if at >= 0 else -1,
        len(state.stock) - state.stock_pos,
        state.phase,
        state.to_act,
        state.dealer,
        state.leader,
        state.first_leader,
        state.claimed,
        state.n_cards,
        trick,
        state.winner,
        state.winning,
        tuple(state.declined),
        tuple(state.seen),
        tuple([tuple(k) for k in state.known]),
        tuple([tuple(m) for m in state.maybe]),
        tuple(state.discards[seat]),
        tuple(state.points_seen),
        tuple(state.discard_points[seat]),
        tuple(state.tricks),
        (len(state.piles[0]), len(state.piles[1])),
        state.game_index,
        tuple(state.series_loss),
        state.eggs_streak,
        config.beat_partner,
        config.molodka,
    )


# ---------------------------------------------------------------------------------------- checks
def check_invariants(state: State) -> None:
    """Raise ``AssertionError`` naming the first broken invariant of ``state``."""
    hands = state.hands
    places = [c for h in hands for c in h]
    places += state.stock[state.stock_pos :]
    places += [c for p in state.piles for c in p]
    places += [c for _, _, cards in state.trick for c in cards]
    assert len(places) == DECK.size, f"{len(places)} cards in play, not {DECK.size}"
    assert sorted(places) == sorted(DECK.cards), "a card is missing or present twice"
    for seat, hand in enumerate(hands):
        assert hand == sort_hand(hand), f"hand of seat {seat} is not sorted"
        assert len(hand) <= HAND_SIZE, f"seat {seat} holds {len(hand)} cards"
    assert state.stock_size % NUM_PLAYERS == 0, "stock size is not a multiple of 4 (K9)"
    assert state.trump == SUIT[state.indicator], "trump is not the indicator's suit (K4)"
    if state.stock_pos <= state.indicator_index:
        assert state.stock[state.indicator_index] == state.indicator, "indicator moved (K4)"
    for team in (0, 1):
        pile_points = sum(POINTS[c] for c in state.piles[team])
        assert state.points[team] == pile_points, f"team {team} points disagree with its pile"
    assert sum(POINTS[c] for c in places) == 120, "card points do not sum to 120 (K11)"
    played = {s for s, _, _ in state.trick}
    if state.phase != PHASE_OVER:
        sizes = {len(h) + (state.n_cards if s in played else 0) for s, h in enumerate(hands)}
        assert len(sizes) == 1, f"hands unequal within a trick: {[len(h) for h in hands]}"
        for seat, _, cards in state.trick:
            assert len(cards) == state.n_cards, f"seat {seat} played {len(cards)} cards"
        if state.trick:
            assert state.winning == next(c for s, _, c in state.trick if s == state.winner)
            assert state.trick[0][0] == state.leader, "the trick's first play is not the leader's"
    else:
        assert not any(hands) and state.stock_size == 0, "game over with cards left (K10)"
        assert sum(state.points) == 120, "team points do not sum to 120 (K11)"
    for seat in range(NUM_PLAYERS):
        assert set(state.known[seat]) <= set(hands[seat]), f"known cards of {seat} not in hand"
        assert set(state.maybe[seat]) <= set(hands[seat]) | set(state.discards[seat])
    face_up = [c for _, kind, cards in state.trick if kind != DISCARD for c in cards]
    assert set(face_up) <= set(state.seen), "a face-up card of the trick is not in seen"
    assert state.points_seen[0] + state.points_seen[1] == sum(
        POINTS[c] for c in state.seen if c not in face_up
    ), "face-up points of taken tricks disagree with seen cards"
