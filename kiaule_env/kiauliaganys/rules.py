"""The pure rules engine of Kiauliaganys (Swineherd), RULES §2 (G1–G14, G10a).

No reinforcement-learning code lives here (``docs/ARCHITECTURE.md``): the engine knows cards,
seats and moves.
A deal is a :class:`State`; :func:`new_deal` lays it out, :func:`legal_moves` lists what the
player to act may do, :func:`apply` makes one decision (G7a: every decision is one call, forced
ones included), :func:`result` reports the outcome (G14) and :func:`view` gives exactly one
player's information set. All randomness comes from the ``numpy.random.Generator`` passed in.

Card ids are those of :mod:`kiaule_env.cards`; seats are ``0 … n-1`` clockwise and the agent of
seat ``i`` is ``player_i`` (RULES §0).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from kiaule_env.cards import (
    CARD_POINTS,
    FACE_PIPS,
    NUM_SUITED,
    Deck,
    get_deck,
)
from kiaule_env.core.options import check_bool, check_choice, check_int, is_integer

# Moves (kinds, :class:`Move`, :func:`parse_move`) live in moves.py; the rules re-export them.
from kiaule_env.kiauliaganys.moves import (
    BLIND_MOVE,
    DRAG_CARD,
    PLAY,
    SEARCH,
    SEARCH_MOVE,
    TAKE,
    TAKE_MOVE,
    Move,
)
from kiaule_env.kiauliaganys.moves import DRAG_BLIND as DRAG_BLIND
from kiaule_env.kiauliaganys.moves import parse_move as parse_move

#: Required suit meaning "any card matches" (G3). Suits are 0..3 = C D H S.
ANY = -1

# Phases of a turn (G4–G6) and of the deal.
MATCH = 0
DRAG = 1
OVER = 2
PHASE_NAMES: tuple[str, ...] = ("match", "drag", "over")

DECKS_BY_PLAYERS = {"36": (2, 4), "52": (2, 6), "54": (2, 6)}  # G1
PIPS = ("points", "face")  # G9
REWARDS = ("win_loss", "years")  # G12
DEFAULT_MATCH_YEARS = 20  # G11
DEFAULT_REPETITION = 3  # G10a

# Suit per card id, -1 for the jokers: a list lookup is the cheapest test on the hot path.
_SUIT: tuple[int, ...] = tuple([c // 13 for c in range(NUM_SUITED)] + [-1, -1])


@dataclass(frozen=True)
class Config:
    """The options of RULES §2, validated (``ValueError`` saying what is wrong and allowed).

    ``match_years``: ``None`` (default) = an episode is one deal; an int N (or ``True`` = 20) = a
    match to N years (G11). ``repetition``: the occurrence of a position that ends the deal
    (G10a, default 3); ``None`` turns the rule off.
    """

    num_players: int = 4
    deck: str = "52"
    pips: str = "points"
    max_turns: int = 1000
    match_years: int | None = None
    reward: str = "win_loss"
    must_play_from_hand: bool = False
    blind_drag_only_when_empty_hand: bool = False
    repetition: int | None = DEFAULT_REPETITION

    def __post_init__(self) -> None:
        check_int("num_players", self.num_players, 2, 6)
        deck = str(self.deck)
        check_choice("deck", deck, tuple(DECKS_BY_PLAYERS))
        low, high = DECKS_BY_PLAYERS[deck]
        if not low <= self.num_players <= high:
            raise ValueError(
                f"deck={deck!r} allows {low}–{high} players, got num_players={self.num_players} "
                "(G1: 2–6 players with decks 52/54, 2–4 with 36)"
            )
        object.__setattr__(self, "deck", deck)
        check_choice("pips", self.pips, PIPS)
        check_int("max_turns", self.max_turns, 1)
        years = self.match_years
        if years is True:
            years = DEFAULT_MATCH_YEARS
        elif years is False:
            years = None
        if years is not None:
            check_int("match_years", years, 1)
        object.__setattr__(self, "match_years", years)
        check_choice("reward", self.reward, REWARDS)
        check_bool("must_play_from_hand", self.must_play_from_hand)
        check_bool("blind_drag_only_when_empty_hand", self.blind_drag_only_when_empty_hand)
        rep = self.repetition
        if rep is not None and (not is_integer(rep) or rep < 2):
            raise ValueError(
                f"repetition={rep!r} is not allowed; it must be None (the G10a rule off) or an "
                "integer of at least 2 (the occurrence of a position that ends the deal)"
            )

    @property
    def the_deck(self) -> Deck:
        return get_deck(self.deck)

    @property
    def pips_table(self) -> np.ndarray:
        return FACE_PIPS if self.pips == "face" else CARD_POINTS


@dataclass(slots=True)
class State:
    """A deal in progress (and, in a match, the match so far). Fields:

    - ``config``: the :class:`Config` (shared, immutable).
    - ``hands``: per seat, the cards held (unordered list of card ids).
    - ``face_up``: per seat, the cards of his hand that are public: taken face up from the fund
      (G5, G7) and not played since.
    - ``not_suit``: per seat, four counts (C D H S): how many of his hidden cards are known not to
      be of that suit (G4: cards picked up in a search for it). A public lower bound: +k for k
      cards picked up searching for the suit; −1 (not below 0) when he plays a hidden card that is
      neither of that suit nor a joker (it may have been one of them).
    - ``fund``: the open fund, bottom first (``fund[-1]`` is the top); position 0 of the deck
      starts it (G2).
    - ``named_suit``: the suit named by the joker on top of the fund (G6), else -1.
    - ``face_down``: the face-down table, the next card to be drawn *last* (``pop()``).
    - ``dealer``: seat of this deal's dealer; ``to_act``: seat to decide (-1 when over).
    - ``phase``: MATCH, DRAG (G4–G6) or OVER.
    - ``last_turn``: the player to act is making the G8 last turn.
    - ``had_turn``: per seat, has completed at least one turn (G7).
    - ``out``: per seat, out of the deal, safe (G7).
    - ``turns``: completed turns in this deal (G10).
    - ``last_picked``: cards the latest search picked up into the hand (public; 0 before any).
    - ``loser``, ``caught_by_tail``: seats (-1 if none) once the deal is over (G8, G10);
      ``capped``: the deal ended by the G10 cap; ``repeated``: it ended by G10a.
    - ``positions``: G10a, how often each position has occurred at the start of a turn in this
      deal (recorded only once no face-down cards remain, and only with the rule on); keys are
      :func:`position_key`. ``repeats``: the count of the position the current turn started
      from (0 before the table is empty, or with the rule off).
    - ``match_years``: per seat, years accumulated in the match including this deal once over
      (G11; all zero outside a match); ``deals``: deals finished in the episode.
    """

    config: Config
    hands: list[list[int]]
    face_up: list[set[int]]
    not_suit: list[list[int]]
    fund: list[int]
    named_suit: int
    face_down: list[int]
    dealer: int
    to_act: int
    phase: int
    last_turn: bool
    had_turn: list[bool]
    out: list[bool]
    turns: int
    last_picked: int
    loser: int
    caught_by_tail: int
    capped: bool
    match_years: list[int]
    deals: int
    #: stacked decks of the later deals of a match (G11), shared by clones
    decks: list[list[int]] = field(default_factory=list)
    #: the generator that shuffles later deals beyond ``decks`` (None: no later deals)
    rng: np.random.Generator | None = None
    #: what the latest engine step adds to every agent's info (``deal_result``), or None
    step_info: dict[str, Any] | None = None
    #: the latest moves for the rendered table: (seat, move, cards picked up, fund top, phase)
    recent: list[tuple[int, Move, int, int, int]] = field(default_factory=list)
    positions: dict[tuple, int] = field(default_factory=dict)
    repeats: int = 0
    repeated: bool = False

    @property
    def num_players(self) -> int:
        return len(self.hands)

    @property
    def match_over(self) -> bool:
        """The deal is over and so is the episode (single deal, or a match decided, G11)."""
        if self.phase != OVER:
            return False
        target = self.config.match_years
        return target is None or max(self.match_years) >= target


def new_deal(
    config: Config,
    rng: np.random.Generator,
    deck: list[int] | None = None,
    dealer: int | None = None,
    match_years: list[int] | None = None,
    deals: int = 0,
) -> State:
    """Lay out a deal (G2): ``deck`` (card ids, top first; shuffled from ``rng`` if None),
    position 0 face up as the open fund, the rest face down. The player after ``dealer``
    (default: the last seat, RULES §0) acts first."""
    n = config.num_players
    if deck is None:
        deck = config.the_deck.shuffled(rng)
    if dealer is None:
        dealer = n - 1
    return State(
        config=config,
        hands=[[] for _ in range(n)],
        face_up=[set() for _ in range(n)],
        not_suit=[[0, 0, 0, 0] for _ in range(n)],
        fund=[deck[0]],
        named_suit=-1,
        face_down=list(reversed(deck[1:])),
        dealer=dealer,
        to_act=(dealer + 1) % n,
        phase=MATCH,
        last_turn=False,
        had_turn=[False] * n,
        out=[False] * n,
        turns=0,
        last_picked=0,
        loser=-1,
        caught_by_tail=-1,
        capped=False,
        match_years=list(match_years) if match_years is not None else [0] * n,
        deals=deals,
        positions={},
    )


def next_deal(state: State, rng: np.random.Generator, deck: list[int] | None = None) -> State:
    """The next deal of a match (G11): the loser, or the player who caught the pig by the tail,
    deals; after a deal with neither (nobody still in, G8) the deal passes to the left."""
    if state.phase != OVER:
        raise ValueError("the deal is not over yet")
    if state.loser >= 0:
        dealer = state.loser
    elif state.caught_by_tail >= 0:
        dealer = state.caught_by_tail
    else:
        dealer = (state.dealer + 1) % state.num_players
    return new_deal(state.config, rng, deck, dealer, state.match_years, state.deals)


def clone(state: State) -> State:
    """An independent copy (cheap: lists of small ints; the config is shared)."""
    return State(
        config=state.config,
        hands=[list(h) for h in state.hands],
        face_up=[set(f) for f in state.face_up],
        not_suit=[list(c) for c in state.not_suit],
        fund=list(state.fund),
        named_suit=state.named_suit,
        face_down=list(state.face_down),
        dealer=state.dealer,
        to_act=state.to_act,
        phase=state.phase,
        last_turn=state.last_turn,
        had_turn=list(state.had_turn),
        out=list(state.out),
        turns=state.turns,
        last_picked=state.last_picked,
        loser=state.loser,
        caught_by_tail=state.caught_by_tail,
        capped=state.capped,
        match_years=list(state.match_years),
        deals=state.deals,
        decks=state.decks,
        rng=state.rng,
        step_info=state.step_info,
        recent=list(state.recent),
        positions=dict(state.positions),
        repeats=state.repeats,
        repeated=state.repeated,
    )


# ---------------------------------------------------------------------------------- queries
def required_suit(state: State) -> int:
    """G3: the suit of the fund's top card; ANY for an empty fund or a joker on top, unless the
    joker was dragged naming a suit."""
    fund = state.fund
    if not fund:
        return ANY
    top = fund[-1]
    if top >= NUM_SUITED:
        return state.named_suit
    return top // 13


def matches(card: int, required: int) -> bool:
    """G4: a card of the required suit, or a joker, or any card when any suit is required."""
    return required == ANY or card >= NUM_SUITED or card // 13 == required


class Options(NamedTuple):
    """The legal moves of the player to act in compact form (see :func:`legal_options`)."""

    phase: int
    cards: list[int]  # MATCH: cards he may play; DRAG: cards he may drag (a joker: any suit)
    search: bool
    take: bool
    blind: bool


NO_OPTIONS = Options(OVER, [], False, False, False)


def legal_options(state: State) -> Options:
    """The legal moves of the player to act, compactly: the single source of legality that
    :func:`legal_moves` and the env's action mask are both built from."""
    phase = state.phase
    if phase == OVER:
        return NO_OPTIONS
    hand = state.hands[state.to_act]
    if phase == MATCH:
        req = required_suit(state)
        plays = list(hand) if req == ANY else [c for c in hand if c >= NUM_SUITED or c // 13 == req]
        if state.face_down:  # G4; G13 forbids the search while holding a match
            search = not (plays and state.config.must_play_from_hand)
            return Options(MATCH, plays, search, False, False)
        # G5 (the G7 empty-handed player has only the take)
        return Options(MATCH, plays, False, bool(state.fund), False)
    blind = bool(state.face_down) and (not state.config.blind_drag_only_when_empty_hand or not hand)
    return Options(DRAG, list(hand), False, False, blind)  # G6


def legal_moves(state: State) -> list[Move]:
    """Every legal move of the player to act (empty when the deal is over)."""
    phase, cards, search, take, blind = legal_options(state)
    if phase == OVER:
        return []
    if phase == MATCH:
        moves = [Move(PLAY, c) for c in cards]
        if search:
            moves.append(SEARCH_MOVE)
        if take:
            moves.append(TAKE_MOVE)
        return moves
    moves = []
    for c in cards:
        if c >= NUM_SUITED:
            moves.extend(Move(DRAG_CARD, c, s) for s in range(4))
        else:
            moves.append(Move(DRAG_CARD, c))
    if blind:
        moves.append(BLIND_MOVE)
    return moves


def is_legal(state: State, move: Move) -> bool:
    return move in legal_moves(state)


# ---------------------------------------------------------------------------------- moves
def apply(state: State, move: Move, check: bool = True) -> None:
    """Make one decision of the player to act, in place (G4–G8, G10).

    With ``check`` an illegal move raises ``ValueError`` naming it and the legal ones; the env
    has checked already and passes ``check=False``.
    """
    if check and move not in legal_moves(state):
        legal = ", ".join(m.text for m in legal_moves(state)) or "none (the deal is over)"
        raise ValueError(f"illegal move {move.text!r}; legal moves: {legal}")
    seat = state.to_act
    kind = move[0]
    if kind == PLAY:
        _remove_from_hand(state, seat, move[1])
        state.fund.append(move[1])
        state.named_suit = -1
        _after_match(state, seat)
    elif kind == SEARCH:
        _search(state, seat)
    elif kind == TAKE:
        card = state.fund.pop()
        state.hands[seat].append(card)
        state.face_up[seat].add(card)
        state.named_suit = -1  # G3: an uncovered joker means any suit
        _end_turn(state, seat)
    elif kind == DRAG_CARD:
        _remove_from_hand(state, seat, move[1])
        state.fund.append(move[1])
        state.named_suit = move[2]  # -1 for a suited card
        _end_turn(state, seat)
    else:  # DRAG_BLIND
        state.fund.append(state.face_down.pop())
        state.named_suit = -1  # G6: a blind-dragged joker names no suit
        if not state.face_down:
            _update_out(state)
        _end_turn(state, seat)


def _remove_from_hand(state: State, seat: int, card: int) -> None:
    state.hands[seat].remove(card)
    face_up = state.face_up[seat]
    if card in face_up:
        face_up.discard(card)
        return
    suit = _SUIT[card]
    if suit >= 0:  # a hidden suited card may have been one of the search pick-ups (not_suit)
        counts = state.not_suit[seat]
        for s in range(4):
            if s != suit and counts[s]:
                counts[s] -= 1


def _after_match(state: State, seat: int) -> None:
    """G6: drag next, unless hand and face-down table are both empty (a one-card move)."""
    if state.hands[seat] or state.face_down:
        state.phase = DRAG
    else:
        _end_turn(state, seat)


def _search(state: State, seat: int) -> None:
    """G4: draw until the required suit (or a joker) appears; the misses go to the hand."""
    req = required_suit(state)
    face_down = state.face_down
    hand = state.hands[seat]
    picked = 0
    while face_down:
        card = face_down.pop()
        if req == ANY or card >= NUM_SUITED or card // 13 == req:
            state.fund.append(card)
            state.named_suit = -1
            break
        hand.append(card)
        picked += 1
    else:
        card = -1  # G4: the table ran out with no match; the same turn continues as in G5
    if picked:
        state.not_suit[seat][req] += picked
    state.last_picked = picked
    if not face_down:
        _update_out(state)
    if card >= 0:
        _after_match(state, seat)


def _update_out(state: State) -> None:
    """G7: out as soon as he has had a turn, holds no cards and the face-down table is empty."""
    if state.face_down:
        return
    hands, had_turn, out = state.hands, state.had_turn, state.out
    for s in range(len(hands)):
        if not out[s] and had_turn[s] and not hands[s]:
            out[s] = True


def _end_turn(state: State, seat: int) -> None:
    """Close a turn (G10) and decide who moves next: G7 passes, G8 last turn, G10 cap."""
    state.had_turn[seat] = True
    state.turns += 1
    state.phase = MATCH
    _update_out(state)
    if state.last_turn:  # G8: the last turn has been made
        if state.hands[seat]:
            _finish(state, loser=seat)
        else:
            _finish(state, tail=seat)
        return
    n = len(state.hands)
    out = state.out
    while True:
        still_in = [s for s in range(n) if not out[s]]
        if not still_in:  # G8: nobody is still in, no loser
            _finish(state)
            return
        last = len(still_in) == 1  # G8 (possibly the player who just moved)
        if last:
            nxt = still_in[0]
        else:
            nxt = (seat + 1) % n
            while out[nxt]:
                nxt = (nxt + 1) % n
        if (
            not state.hands[nxt]
            and not state.had_turn[nxt]
            and not state.face_down
            and not state.fund
        ):
            out[nxt] = True  # G7: no cards, no turn yet, nothing to take: out
            continue
        break
    if state.turns >= state.config.max_turns:  # G10, even with a G8 last turn pending
        _cap(state, nxt)
        return
    state.to_act = nxt
    state.last_turn = last
    limit = state.config.repetition
    if limit is not None and not state.face_down:  # G10a: the position at the turn's start
        key = position_key(state)
        positions = state.positions
        count = positions.get(key, 0) + 1
        positions[key] = count
        state.repeats = count
        if count >= limit:
            _cap(state, nxt, repetition=True)


def position_key(state: State) -> tuple:
    """G10a: the position at the start of a turn, hashable: who is to move, whether the G8 last
    turn is pending, the suit a dragged joker named, who has had a turn, the fund in order and
    every hand as a set. (Who is out follows from hands and turns once the table is empty.)"""
    return (
        state.to_act,
        state.last_turn,
        state.named_suit,
        tuple(state.had_turn),
        tuple(state.fund),
        *map(frozenset, state.hands),
    )


def tie_break_loser(hand_sizes: list[int] | tuple[int, ...], next_mover: int) -> int:
    """G10/G10a: the seat holding the most cards; ties go to the first of them clockwise from
    ``next_mover`` (himself included)."""
    n = len(hand_sizes)
    order = [(next_mover + i) % n for i in range(n)]
    most = max(hand_sizes)
    return next(s for s in order if hand_sizes[s] == most)


def _cap(state: State, next_mover: int, repetition: bool = False) -> None:
    """G10 (or G10a with ``repetition``): the player holding the most cards loses; ties go to
    the first of them clockwise from the player who would move next."""
    loser = tie_break_loser([len(h) for h in state.hands], next_mover)
    if repetition:
        state.repeated = True
    else:
        state.capped = True
    _finish(state, loser=loser)


def _finish(state: State, loser: int = -1, tail: int = -1) -> None:
    state.phase = OVER
    state.to_act = -1
    state.last_turn = False
    state.loser = loser
    state.caught_by_tail = tail
    state.deals += 1
    if loser >= 0:
        state.match_years[loser] += len(state.hands[loser])


# ---------------------------------------------------------------------------------- outcome
def years(state: State) -> int:
    """G9: cards left in the loser's hand (0 without a loser)."""
    return len(state.hands[state.loser]) if state.loser >= 0 else 0


def piglets(state: State) -> int:
    """G9: the pips of the loser's cards (``pips`` option)."""
    if state.loser < 0:
        return 0
    table = state.config.pips_table
    return int(sum(int(table[c]) for c in state.hands[state.loser]))


def deal_rewards(state: State) -> list[float]:
    """G12: per seat, the rewards of the finished deal."""
    n = state.num_players
    rewards = [0.0] * n
    if state.loser < 0:
        return rewards
    if state.config.reward == "years":
        rewards[state.loser] = -float(years(state))
        return rewards
    share = 1.0 / (n - 1)
    for s in range(n):
        rewards[s] = -1.0 if s == state.loser else share
    return rewards


def result(state: State) -> dict[str, Any]:
    """G14 outcome of the (last) deal, with agent names; in a match also G11's fields."""
    out: dict[str, Any] = {
        "loser": _agent(state.loser),
        "years": years(state),
        "piglets": piglets(state),
        "capped": state.capped,
        "turns": state.turns,
        "caught_by_tail": _agent(state.caught_by_tail),
        "repetition": state.repeated,
    }
    if state.config.match_years is not None:
        out["match_years"] = {f"player_{s}": y for s, y in enumerate(state.match_years)}
        out["deals"] = state.deals
    return out


def _agent(seat: int) -> str | None:
    return f"player_{seat}" if seat >= 0 else None


#: the values of :func:`ending`: how a deal ended
ENDINGS: tuple[str, ...] = ("play", "cap", "repetition")


def ending(result: dict[str, Any]) -> str:
    """How the (last) deal of a finished episode ended, from its :func:`result`: ``"play"``
    (G8: a swineherd, the pig caught by the tail, or nobody left in), ``"cap"`` (the G10 turn
    cap) or ``"repetition"`` (G10a)."""
    if result.get("repetition"):
        return "repetition"
    if result.get("capped"):
        return "cap"
    return "play"


# ---------------------------------------------------------------------------------- view
@dataclass(slots=True)
class View:
    """What player ``seat`` knows (``docs/ARCHITECTURE.md``): his hand and everything public,
    nothing else.

    A plain dataclass of tuples, built fresh for every call of :func:`view` (cheap: the env
    builds one per observation); treat it as read-only.

    Per-seat tuples are indexed by absolute seat. ``face_up[s]`` are the cards of seat s's hand
    everyone saw him take (G5, G7); ``not_suit[s][t]`` how many of his other cards are known not
    to be of suit t (G4). ``fund`` is the open fund bottom first (all of it was seen face up).
    ``repetitions`` is how many times the position the current turn started from has occurred
    in the deal, that occurrence included (G10a: public, since once the face-down cards are gone
    every change to a hand is a public play or take; 0 while face-down cards remain or with the
    rule off). ``loser``, ``caught_by_tail`` (seats, -1 if none), ``capped`` and ``repeated``
    describe a finished deal.
    """

    seat: int
    config: Config
    hand: tuple[int, ...]
    fund: tuple[int, ...]
    required_suit: int
    face_down: int
    hand_sizes: tuple[int, ...]
    face_up: tuple[tuple[int, ...], ...]
    not_suit: tuple[tuple[int, ...], ...]
    out: tuple[bool, ...]
    had_turn: tuple[bool, ...]
    to_act: int
    phase: int
    last_turn: bool
    turns: int
    dealer: int
    last_picked: int
    match_years: tuple[int, ...]
    deals: int
    loser: int = -1
    caught_by_tail: int = -1
    capped: bool = False
    repetitions: int = 0
    repeated: bool = False

    @property
    def num_players(self) -> int:
        return len(self.hand_sizes)

    @property
    def fund_top(self) -> int:
        """The top card of the open fund, -1 if it is empty."""
        return self.fund[-1] if self.fund else -1

    @property
    def still_in(self) -> tuple[int, ...]:
        return tuple(s for s, o in enumerate(self.out) if not o)


def view(state: State, seat: int) -> View:
    """The information set of ``seat``."""
    return View(
        seat=seat,
        config=state.config,
        hand=tuple(sorted(state.hands[seat])),
        fund=tuple(state.fund),
        required_suit=required_suit(state),
        face_down=len(state.face_down),
        hand_sizes=tuple(map(len, state.hands)),
        face_up=tuple(tuple(sorted(f)) if f else () for f in state.face_up),
        not_suit=tuple(map(tuple, state.not_suit)),
        out=tuple(state.out),
        had_turn=tuple(state.had_turn),
        to_act=state.to_act,
        phase=state.phase,
        last_turn=state.last_turn,
        turns=state.turns,
        dealer=state.dealer,
        last_picked=state.last_picked,
        match_years=tuple(state.match_years),
        deals=state.deals,
        loser=state.loser,
        caught_by_tail=state.caught_by_tail,
        capped=state.capped,
        repetitions=state.repeats,
        repeated=state.repeated,
    )


# ---------------------------------------------------------------------------------- checks
def check_invariants(state: State) -> None:
    """Raise ``AssertionError`` describing any broken invariant (tests and soak)."""
    deck = state.config.the_deck
    places = [*state.fund, *state.face_down]
    for hand in state.hands:
        places.extend(hand)
    assert sorted(places) == sorted(deck.cards), (
        f"cards are not each exactly once: {len(places)} placed for a {deck.size}-card deck"
    )
    n = state.num_players
    for s in range(n):
        hand = state.hands[s]
        assert state.face_up[s] <= set(hand), f"seat {s}: face-up cards not in hand"
        hidden = len(hand) - len(state.face_up[s])
        for t in range(4):
            assert 0 <= state.not_suit[s][t] <= hidden, f"seat {s}: not_suit {state.not_suit[s]}"
        if state.out[s]:
            assert not hand, f"seat {s} is out but holds cards"
            assert not state.face_down, f"seat {s} is out while face-down cards remain"
    assert state.named_suit == -1 or (state.fund and state.fund[-1] >= NUM_SUITED), (
        "a named suit without a joker on top of the fund"
    )
    assert state.turns <= state.config.max_turns, "turns past the cap"
    assert not (state.capped and state.repeated), "capped and repeated at once"
    limit = state.config.repetition
    if limit is None or state.face_down:
        assert not state.positions and not state.repeated, "positions recorded without G10a"
    else:
        assert all(0 < c <= limit for c in state.positions.values()), "a count past the limit"
    if state.phase == OVER:
        assert state.to_act == -1
        if not (state.capped or state.repeated):
            holders = [s for s in range(n) if state.hands[s]]
            if state.loser >= 0:
                assert holders == [state.loser], f"loser {state.loser} but holders {holders}"
            else:
                assert not holders, f"no loser but {holders} hold cards"
        assert not (state.loser >= 0 and state.caught_by_tail >= 0)
    else:
        seat = state.to_act
        assert 0 <= seat < n and not state.out[seat], f"seat {seat} cannot act"
        assert legal_moves(state), "the player to act has no legal move"
        if state.last_turn:
            assert sum(not o for o in state.out) == 1, "last turn with several players in"
        if state.phase == DRAG:
            assert state.hands[seat] or state.face_down, "drag phase with nothing to drag"
