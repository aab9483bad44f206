"""The pure rules engine of Pig (RULES §3, rules P1–P10); knows nothing of PettingZoo or RL.

Pig is a simultaneous-move game: one engine step is one passing round for everybody at once (P2).
:func:`apply` takes one move per player still in and returns what happened (rewards, a finished
round, an elimination). A move is a small ``int``:

* ``0..12`` — ``pass R``: pass the card of rank index ``R`` (``2``..``A``, as in
  :mod:`kiaule_env.cards`); of several cards of that rank the lowest suit (C D H S) goes (P2);
* :data:`NOSE` — touch the nose (``nose``), or take a token with ``tokens=True`` (``token``, P8);
* :data:`WAIT` — ``wait`` (only during the nose race, P3).

All randomness (shuffles without stacked decks, the reaction order of players touching in the
same step, a race cut short) comes from the ``numpy.random.Generator`` passed in, so a seed or the
stacked decks fix a whole game. Comments cite the rule ids of RULES §3; ``kiaule_env/pig/RULES.md``
records the decisions taken where RULES.md is silent (marked "D1", "D2", … below).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from kiaule_env.cards import NUM_SUITED, RANKS, Deck, cards_text, deck_of
from kiaule_env.core.options import check_bool, check_choice, check_int, stacked_decks

NOSE = -1
WAIT = -2

#: ``game=`` choices (P5), ``false_nose=`` choices (P3).
GAMES = ("round", "full")
FALSE_NOSE = (None, "pig")

PASSING = "passing"
RACE = "race"
OVER = "over"

#: Letters a player can turn over before he leaves (P7: P-I-G).
LIVES = 3
HAND_SIZE = 4


@dataclass(frozen=True)
class Config:
    """Validated constructor keywords of RULES §3.

    ``num_players`` 3–13 (P1; at most 12 with ``stock``, P6); ``game`` ``"round"`` or ``"full"``
    (P5); ``stock`` (P6); ``letters`` (P7, full games only); ``tokens`` (P8); ``false_nose``
    ``None`` or ``"pig"`` (P3); ``max_passes`` (P4) and ``max_race_steps`` (P3) caps.
    """

    num_players: int = 4
    game: str = "round"
    stock: bool = False
    letters: bool = False
    tokens: bool = False
    false_nose: str | None = None
    max_passes: int = 200
    max_race_steps: int = 20

    def __post_init__(self) -> None:
        check_bool("stock", self.stock)
        check_int("num_players", self.num_players, 3, 12 if self.stock else 13)
        check_choice("game", self.game, GAMES)
        check_bool("letters", self.letters)
        check_bool("tokens", self.tokens)
        check_choice("false_nose", self.false_nose, FALSE_NOSE)
        check_int("max_passes", self.max_passes, 1)
        check_int("max_race_steps", self.max_race_steps, 1)
        if self.letters and self.game != "full":
            raise ValueError(
                "letters=True needs game='full' (P7: a pig keeps playing until three letters "
                "show); use game='full', letters=True"
            )

    @property
    def full(self) -> bool:
        return self.game == "full"

    @cached_property
    def start_ranks(self) -> tuple[int, ...]:
        """Rank indices of the starting deck, low to high: the top n ranks (P1), or all (P6)."""
        if self.stock:
            return tuple(range(13))
        return tuple(range(13 - self.num_players, 13))

    @cached_property
    def start_deck(self) -> tuple[int, ...]:
        """Card ids of the starting deck in canonical order (suit C D H S, rank low to high)."""
        ranks = self.start_ranks
        return tuple(s * 13 + r for s in range(4) for r in ranks)

    @property
    def nose_word(self) -> str:
        """Text of the nose move: ``nose``, or ``token`` with ``tokens=True`` (P8)."""
        return "token" if self.tokens else "nose"


def ranks_in_play(config: Config, players_left: int) -> tuple[int, ...]:
    """Ranks of a round with ``players_left`` players in: the top ones (P1, P5); all with P6."""
    if config.stock:
        return tuple(range(13))
    return tuple(range(13 - players_left, 13))


def starting_deck(config: Config) -> Deck:
    """The starting deck as a :class:`~kiaule_env.cards.Deck` (P1; the 52-card deck with P6).

    Stacked decks are validated against it (``stacked_decks``): every entry of ``decks`` is a
    permutation of the starting deck, also in later rounds of a full game (P5).
    """
    return deck_of(config.start_deck)


def parse_decks(config: Config, options: Mapping[str, Any]) -> list[list[int]]:
    """Stacked decks of ``reset(options=...)`` (§0): ``deck``, or ``decks`` (one per round, P5).

    Raises ``ValueError`` naming the problem (not a permutation, several decks for one round).
    """
    return stacked_decks(options, starting_deck(config), multi_deal=config.full)


@dataclass
class State:
    """The whole state of a Pig episode (one round, or a full game of rounds).

    Fields (seats are ``0..n-1`` clockwise; a player's left is the next seat still in, P1):

    * ``config`` — the :class:`Config`.
    * ``decks`` — stacked decks given at reset, one per round in order (``()``: all shuffled).
    * ``seats_in`` — seats still in the game, in clockwise (ascending) order (P5).
    * ``ranks`` — rank indices in play this round, low to high (P1, P5).
    * ``dealer`` — the dealer of this round (the last seat in the first round, §0).
    * ``hands`` — per seat the cards held (4 while in, ``[]`` once out), any order.
    * ``stock`` — stock cards, top first (P6; ``[]`` without stock).
    * ``discard`` — discard pile, first-discarded first (P6: it turns over unshuffled).
    * ``phase`` — ``"passing"``, ``"race"`` (passing has stopped, P3) or ``"over"``.
    * ``touched`` — seats that touched their nose / took a token this round, in order (P3, P8).
    * ``passes`` — passing steps made this round (cards moved, P4).
    * ``race_steps`` — steps of the race after the first touching step (P3 ``max_race_steps``).
    * ``passed_counts`` / ``received_counts`` — per seat, per rank index 0..12: cards of that rank
      the player passed (or discarded) / received (or drew) this round: his own memory.
    * ``last_passed`` / ``last_received`` — per seat the card passed / received in the latest
      passing step of this round (-1 before the first).
    * ``letters`` — per seat the letters of P-I-G turned over (P7).
    * ``eliminated`` — seats in the order they left (P5).
    * ``round_index`` — rounds started so far minus one (0 in the first round).
    * ``last_round`` — outcome of the latest finished round (P10), or ``None``.
    * ``winner`` — the last player in (full games, P5), else ``None``.
    """

    config: Config
    decks: tuple[tuple[int, ...], ...]
    seats_in: list[int]
    ranks: tuple[int, ...]
    dealer: int
    hands: list[list[int]]
    stock: list[int]
    discard: list[int]
    phase: str = PASSING
    touched: list[int] = field(default_factory=list)
    passes: int = 0
    race_steps: int = 0
    passed_counts: list[list[int]] = field(default_factory=list)
    received_counts: list[list[int]] = field(default_factory=list)
    last_passed: list[int] = field(default_factory=list)
    last_received: list[int] = field(default_factory=list)
    letters: list[int] = field(default_factory=list)
    eliminated: list[int] = field(default_factory=list)
    round_index: int = 0
    last_round: dict[str, Any] | None = None
    winner: int | None = None
    #: the generator of the episode's chance events (reaction orders, later deals), shared by
    #: clones; None until an engine starts the episode
    rng: np.random.Generator | None = None
    #: what the latest engine step adds to every agent's info (``round_result``), or None
    step_info: dict[str, Any] | None = None

    @property
    def num_players(self) -> int:
        return self.config.num_players

    @property
    def over(self) -> bool:
        return self.phase == OVER


def clone(state: State) -> State:
    """A deep copy cheap enough for search (config and decks are shared, being immutable)."""
    return State(
        config=state.config,
        decks=state.decks,
        seats_in=state.seats_in[:],
        ranks=state.ranks,
        dealer=state.dealer,
        hands=[h[:] for h in state.hands],
        stock=state.stock[:],
        discard=state.discard[:],
        phase=state.phase,
        touched=state.touched[:],
        passes=state.passes,
        race_steps=state.race_steps,
        passed_counts=[c[:] for c in state.passed_counts],
        received_counts=[c[:] for c in state.received_counts],
        last_passed=state.last_passed[:],
        last_received=state.last_received[:],
        letters=state.letters[:],
        eliminated=state.eliminated[:],
        round_index=state.round_index,
        last_round=None if state.last_round is None else dict(state.last_round),
        winner=state.winner,
        rng=state.rng,
        step_info=state.step_info,
    )


def agent_name(seat: int | None) -> str | None:
    return None if seat is None else f"player_{seat}"


# ---------------------------------------------------------------------- seats and dealing (P1)
def left_of(state: State, seat: int) -> int:
    """The next seat clockwise that is still in (P1), ``seat`` itself need not be in."""
    n = state.config.num_players
    for step in range(1, n + 1):
        other = (seat + step) % n
        if other in state.seats_in:
            return other
    raise AssertionError("no player is in")


def right_of(state: State, seat: int) -> int:
    """The previous seat clockwise that is still in."""
    n = state.config.num_players
    for step in range(1, n + 1):
        other = (seat - step) % n
        if other in state.seats_in:
            return other
    raise AssertionError("no player is in")


def new_game(
    config: Config, rng: np.random.Generator, decks: Sequence[Sequence[int]] = ()
) -> State:
    """Start an episode: the first round dealt by the last seat (§0), ``player_0`` first.

    ``decks`` are validated stacked decks (card ids, top first; see :func:`parse_decks`), one per
    round in order; rounds beyond them are shuffled from ``rng`` (§0).
    """
    n = config.num_players
    state = State(
        config=config,
        decks=tuple(tuple(d) for d in decks),
        seats_in=list(range(n)),
        ranks=ranks_in_play(config, n),
        dealer=n - 1,
        hands=[[] for _ in range(n)],
        stock=[],
        discard=[],
        letters=[0] * n,
    )
    deal(state, rng)
    return state


def deal(state: State, rng: np.random.Generator) -> None:
    """Deal round ``state.round_index`` from its stacked deck or a shuffle (P1, P5, P6).

    Position i goes to the (i mod m)-th player still in, counting clockwise from the dealer's
    left; with ``stock`` the rest is the stock, top first. Cards of removed ranks are skipped.
    """
    config = state.config
    in_play = set(state.ranks)
    if state.round_index < len(state.decks):
        cards = [c for c in state.decks[state.round_index] if c % 13 in in_play]
    else:
        base = [s * 13 + r for s in range(4) for r in state.ranks]
        cards = [base[i] for i in rng.permutation(len(base))]
    m = len(state.seats_in)
    first = left_of(state, state.dealer)
    start = state.seats_in.index(first)
    order = state.seats_in[start:] + state.seats_in[:start]
    n = config.num_players
    state.hands = [[] for _ in range(n)]
    for i in range(HAND_SIZE * m):
        state.hands[order[i % m]].append(cards[i])
    state.stock = cards[HAND_SIZE * m :] if config.stock else []
    state.discard = []
    state.phase = PASSING
    state.touched = []
    state.passes = 0
    state.race_steps = 0
    state.passed_counts = [[0] * 13 for _ in range(n)]
    state.received_counts = [[0] * 13 for _ in range(n)]
    state.last_passed = [-1] * n
    state.last_received = [-1] * n


# ---------------------------------------------------------------------- moves (P2, P3, P8)
def has_four(hand: Sequence[int]) -> bool:
    """Four of a kind: all four cards of one rank (P3)."""
    r = hand[0] % 13
    return hand[1] % 13 == r and hand[2] % 13 == r and hand[3] % 13 == r


def legal_moves(state: State, seat: int) -> list[int]:
    """Legal moves of ``seat`` this step, in action order (passes by rank, nose, wait).

    Passing phase (P2, P3): ``pass R`` for every rank held, ``nose`` with four of a kind (or
    always with ``false_nose="pig"``). Race (P3): ``nose`` or ``wait``; ``wait`` only once
    touched. Nothing for a player who is out, or when the episode is over.
    """
    if state.phase == OVER or not state.hands[seat]:
        return []
    if state.phase == RACE:
        return [WAIT] if seat in state.touched else [NOSE, WAIT]
    hand = state.hands[seat]
    moves = sorted({c % 13 for c in hand})
    if state.config.false_nose == "pig" or has_four(hand):
        moves.append(NOSE)
    return moves


def move_text(config: Config, move: int) -> str:
    """Move text of RULES §3: ``pass R``, ``nose`` (``token`` with P8), ``wait``."""
    if move == NOSE:
        return config.nose_word
    if move == WAIT:
        return "wait"
    return f"pass {RANKS[move]}"


def parse_move(config: Config, text: str) -> int:
    """Parse a move text case-insensitively (``"pass 10"``, ``"NOSE"``); ``ValueError`` if bad."""
    if not isinstance(text, str):
        raise ValueError(f"a move must be text such as 'pass A', got {text!r}")
    words = text.strip().upper().split()
    if words == [config.nose_word.upper()]:
        return NOSE
    if words == ["WAIT"]:
        return WAIT
    if len(words) == 2 and words[0] == "PASS" and words[1] in RANKS:
        rank = RANKS.index(words[1])
        if rank in config.start_ranks:
            return rank
    ranks = " ".join(RANKS[r] for r in config.start_ranks)
    raise ValueError(
        f"malformed move {text!r}; moves are 'pass R' with R one of {ranks}, "
        f"'{config.nose_word}' or 'wait'"
    )


def _lowest_of_rank(hand: list[int], rank: int) -> int:
    """The card of ``rank`` with the lowest suit (C D H S) in ``hand`` (P2)."""
    best = -1
    for card in hand:
        if card % 13 == rank and (best < 0 or card < best):
            best = card
    return best


# ---------------------------------------------------------------------- one step
@dataclass
class StepReport:
    """What one step did: reward per seat, a finished round's outcome (P10), eliminations."""

    rewards: list[float]
    round_result: dict[str, Any] | None = None
    eliminated: int | None = None
    game_over: bool = False


def apply(
    state: State, moves: Sequence[int], rng: np.random.Generator, validate: bool = True
) -> StepReport:
    """Play one simultaneous step: ``moves[seat]`` for every seat still in (others ignored).

    Raises ``ValueError`` for an illegal move, naming the seat, the move and the legal ones
    (``validate=False`` skips the check, for callers that checked already, like the env).
    """
    if state.phase == OVER:
        raise ValueError("the episode is over; reset to play again")
    config = state.config
    touchers: list[int] = []
    for seat in state.seats_in:
        move = moves[seat]
        if validate:
            legal = legal_moves(state, seat)
            if move not in legal:
                texts = ", ".join(move_text(config, m) for m in legal)
                raise ValueError(f"player_{seat}: move {move!r} is illegal now; legal: {texts}")
        if move == NOSE:
            touchers.append(seat)
    report = StepReport(rewards=[0.0] * config.num_players)
    if state.phase == PASSING and not touchers:
        _pass_cards(state, moves)
        if state.passes >= config.max_passes:
            _end_round(state, None, rng, report, capped=True)  # P4 cap (D4)
        return report
    order = _reaction_order(touchers, rng)
    if state.phase == PASSING:
        # P3: the first touching step; no cards move. False touches judged on the hands now.
        false = [s for s in order if not has_four(state.hands[s])]
        state.touched = order
        state.phase = RACE
        if false:
            _end_round(state, false[0], rng, report)  # D1: the first false toucher
            return report
    else:
        state.race_steps += 1
        state.touched.extend(order)
    untouched = [s for s in state.seats_in if s not in state.touched]
    if len(untouched) == 1:
        _end_round(state, untouched[0], rng, report)
    elif not untouched:
        _end_round(state, state.touched[-1], rng, report)  # P3: last of the same-step order
    elif state.race_steps >= config.max_race_steps:  # D2
        pig = untouched[int(rng.integers(len(untouched)))]  # P3: race cut short (D3)
        _end_round(state, pig, rng, report, race_cut=True)
    return report


def _reaction_order(touchers: list[int], rng: np.random.Generator) -> list[int]:
    """P3: players touching in one step, ordered by a uniform draw (drawn for two or more, D3)."""
    if len(touchers) < 2:
        return touchers
    return [touchers[i] for i in rng.permutation(len(touchers))]


def _pass_cards(state: State, moves: Sequence[int]) -> None:
    """P2 (and P6 with stock): every player passes one card left at once."""
    seats = state.seats_in
    outgoing = []
    for seat in seats:
        hand = state.hands[seat]
        card = _lowest_of_rank(hand, moves[seat])
        hand.remove(card)
        outgoing.append(card)
        state.passed_counts[seat][card % 13] += 1
        state.last_passed[seat] = card
    incoming = [outgoing[i - 1] for i in range(len(seats))]  # from the right (wraps around)
    if state.config.stock:
        # P6: the dealer's right discards first, then the dealer draws; stock and discard pile
        # act as one queue (the pile turns over unshuffled when the stock is empty).
        dealer = seats.index(state.dealer)
        state.discard.append(incoming[dealer])
        if not state.stock:
            state.stock, state.discard = state.discard, []
        incoming[dealer] = state.stock.pop(0)
    for seat, card in zip(seats, incoming, strict=True):
        state.hands[seat].append(card)
        state.received_counts[seat][card % 13] += 1
        state.last_received[seat] = card
    state.passes += 1


def _end_round(
    state: State,
    pig: int | None,
    rng: np.random.Generator,
    report: StepReport,
    capped: bool = False,
    race_cut: bool = False,
) -> None:
    """P4, P5, P7, P9, P10: settle the round, and deal the next one at once in full games."""
    config = state.config
    n = config.num_players
    first = state.touched[0] if state.touched else None
    outcome: dict[str, Any] = {
        "pig": agent_name(pig),
        "first_nose": agent_name(first),
        "passes": state.passes,
        "capped": capped,
        "race_cut": race_cut,
        "round": state.round_index,
    }
    state.last_round = outcome
    report.round_result = outcome
    if not config.full:
        state.phase = OVER
        if pig is not None:  # P9: pig −1, the others +1/(n−1)
            share = 1.0 / (n - 1)
            report.rewards = [share] * n
            report.rewards[pig] = -1.0
        return
    if pig is not None:
        if config.letters:
            state.letters[pig] += 1  # P7: he turns over a letter
        if not config.letters or state.letters[pig] >= LIVES:  # P5, P7: he leaves
            state.seats_in.remove(pig)
            state.eliminated.append(pig)
            report.eliminated = pig
            report.rewards[pig] = -1.0 / (n - 1)  # P9
    if config.letters:
        outcome["letters"] = list(state.letters)
    if len(state.seats_in) == 1:  # D10: no new round
        state.winner = state.seats_in[0]
        report.rewards[state.winner] = 1.0  # P9
        report.game_over = True
        state.phase = OVER
        return
    # Next dealer: P6 the first to touch (or the next in to his left); else P5 the deal passes
    # on (also after a capped round with stock, D5).
    if config.stock and first is not None:
        state.dealer = first if first in state.seats_in else left_of(state, first)
    else:
        state.dealer = left_of(state, state.dealer)
    state.ranks = ranks_in_play(config, len(state.seats_in))
    state.round_index += 1
    deal(state, rng)


# ---------------------------------------------------------------------- outcome (P10)
def result(state: State) -> dict[str, Any]:
    """Outcome fields of P10 (of the last round; plus the full-game fields)."""
    last = state.last_round or {}
    out: dict[str, Any] = {
        "pig": last.get("pig"),
        "first_nose": last.get("first_nose"),
        "passes": last.get("passes", state.passes),
        "capped": last.get("capped", False),
        "race_cut": last.get("race_cut", False),
    }
    if state.config.full:
        out["winner"] = agent_name(state.winner)
        out["eliminated"] = [agent_name(s) for s in state.eliminated]
        out["rounds"] = state.round_index + 1
        if state.config.letters:
            out["letters"] = list(state.letters)
    return out


#: the values of :func:`ending`: how an episode ended
ENDINGS: tuple[str, ...] = ("play", "max_passes", "race_cut")


def ending(result: Mapping[str, Any]) -> str:
    """How an episode ended, from its :func:`result` (P10; in a full game, its last round):
    ``"max_passes"`` (P4: the round was capped with no pig), ``"race_cut"`` (P3: the nose race
    was cut short after ``max_race_steps`` and the pig drawn at random) or ``"play"`` (the pig
    was decided by the race). A full game always ends on a decided round (a capped one
    eliminates nobody, P4); its capped rounds are in the ``round_result`` infos."""
    if result.get("capped"):
        return "max_passes"
    if result.get("race_cut"):
        return "race_cut"
    return "play"


# ---------------------------------------------------------------------- views
@dataclass(slots=True)
class PigView:
    """What one player knows (``docs/ARCHITECTURE.md``):
    his hand, his own passing memory, and everything public.

    Public: who is in, the dealer, the ranks in play, the phase, who touched (in order), the step
    counters, letters, stock and discard sizes. Private: ``hand`` and the counts/last cards he
    passed and received this round. Other hands, the stock and the discard pile are hidden.
    A plain (slotted, not frozen) dataclass of immutable values, for speed: treat it as
    read-only.
    """

    seat: int
    num_players: int
    nose_word: str
    start_ranks: tuple[int, ...]
    ranks: tuple[int, ...]
    seats_in: tuple[int, ...]
    dealer: int
    phase: str
    hand: tuple[int, ...]
    touched: tuple[int, ...]
    passes: int
    race_steps: int
    max_passes: int
    max_race_steps: int
    passed_counts: tuple[int, ...]
    received_counts: tuple[int, ...]
    last_passed: int
    last_received: int
    letters: tuple[int, ...]
    stock_size: int
    discard_size: int
    tokens_left: int
    round_index: int
    false_nose: bool

    @property
    def hand_counts(self) -> tuple[int, ...]:
        """Cards held per rank index 0..12."""
        counts = [0] * 13
        for card in self.hand:
            counts[card % 13] += 1
        return tuple(counts)

    @property
    def is_in(self) -> bool:
        return self.seat in self.seats_in


def view(state: State, seat: int) -> PigView:
    """The information set of ``seat`` as plain data (see :class:`PigView`)."""
    config = state.config
    m = len(state.seats_in)
    return PigView(
        seat=seat,
        num_players=config.num_players,
        nose_word=config.nose_word,
        start_ranks=config.start_ranks,
        ranks=state.ranks,
        seats_in=tuple(state.seats_in),
        dealer=state.dealer,
        phase=state.phase,
        hand=tuple(sorted(state.hands[seat])),
        touched=tuple(state.touched),
        passes=state.passes,
        race_steps=state.race_steps,
        max_passes=config.max_passes,
        max_race_steps=config.max_race_steps,
        passed_counts=tuple(state.passed_counts[seat]),
        received_counts=tuple(state.received_counts[seat]),
        last_passed=state.last_passed[seat],
        last_received=state.last_received[seat],
        letters=tuple(state.letters),
        stock_size=len(state.stock),
        discard_size=len(state.discard),
        tokens_left=max(0, m - 1 - len(state.touched)) if config.tokens else 0,
        round_index=state.round_index,
        false_nose=config.false_nose == "pig",
    )


# ---------------------------------------------------------------------- rank counts
def counts_per_rank(cards: Sequence[int]) -> list[int]:
    """How many of ``cards`` there are of each rank index (0 = 2 … 12 = A)."""
    out = [0] * 13
    for c in cards:
        out[c % 13] += 1
    return out


# ---------------------------------------------------------------------- invariants
def check_invariants(state: State) -> None:
    """Raise ``AssertionError`` describing a broken invariant (used by the soak and the tests)."""
    config = state.config
    n = config.num_players
    in_play = set(state.ranks)
    held = [c for h in state.hands for c in h]
    everything = held + state.stock + state.discard
    expected = {s * 13 + r for s in range(4) for r in state.ranks}
    assert len(everything) == len(set(everything)), "a card is in two places"
    assert set(everything) == expected, (
        f"cards not conserved: have {cards_text(sorted(everything))}"
    )

    assert all(0 <= c < NUM_SUITED and c % 13 in in_play for c in everything), "foreign card"
    assert state.seats_in == sorted(state.seats_in), "seats_in not in clockwise order"
    assert len(state.seats_in) + len(state.eliminated) == n, "players lost or duplicated"
    assert not set(state.seats_in) & set(state.eliminated), "an eliminated player is in"
    if state.phase != OVER:
        assert len(state.seats_in) >= 2, "a round needs two players"
        assert state.dealer in state.seats_in, "the dealer is not in"
        assert len(state.ranks) == (13 if config.stock else len(state.seats_in)), "wrong ranks"
        for seat in range(n):
            size = len(state.hands[seat])
            want = HAND_SIZE if seat in state.seats_in else 0
            assert size == want, f"player_{seat} holds {size} cards, not {want}"
        assert state.passes < config.max_passes, "max_passes exceeded"
        assert state.race_steps < config.max_race_steps, "max_race_steps exceeded"
        if config.stock:
            assert len(state.stock) + len(state.discard) == 52 - 4 * len(state.seats_in)
        assert all(s in state.seats_in for s in state.touched), "an absent player touched"
        assert len(set(state.touched)) == len(state.touched), "a player touched twice"
        assert (state.phase == RACE) == bool(state.touched), "race phase and touches disagree"
        assert len(state.touched) < len(state.seats_in), "the race should have ended"
    for seat in state.seats_in:
        assert sum(state.passed_counts[seat]) == state.passes, "passed counts drift"
        assert sum(state.received_counts[seat]) == state.passes, "received counts drift"
    if state.phase != OVER and state.passes:
        _check_passing_memory(state)
    assert all(0 <= k <= LIVES for k in state.letters), "letters out of range"
    if config.full and not config.letters:
        assert all(state.letters[s] == 0 for s in state.seats_in), "a player in has letters"


def _check_passing_memory(state: State) -> None:
    """P2: what a player received is what his right neighbour passed (the dealer draws instead
    with ``stock``, P6), his last received card is still in his hand, and his hand at the deal
    (current cards plus passed minus received, per rank) is a real hand."""
    for seat in state.seats_in:
        right = right_of(state, seat)
        if not (state.config.stock and seat == state.dealer):
            assert state.received_counts[seat] == state.passed_counts[right], (
                f"player_{seat} received other cards than player_{right} passed"
            )
            assert state.last_received[seat] == state.last_passed[right], "last cards disagree"
        assert state.last_received[seat] in state.hands[seat], "the last received card moved"
        dealt = counts_per_rank(state.hands[seat])
        for r in range(13):
            dealt[r] += state.passed_counts[seat][r] - state.received_counts[seat][r]
        assert min(dealt) >= 0, f"player_{seat}'s passing memory fits no dealt hand"
