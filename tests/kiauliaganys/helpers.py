"""Stacked-deck scenario helpers for the Kiauliaganys tests."""

from __future__ import annotations

from typing import Any

import numpy as np

from kiaule_env import kiauliaganys_v0
from kiaule_env.cards import CARD_TEXTS, SUITS, get_deck, parse_card
from kiaule_env.kiauliaganys import rules


def stacked(prefix: str | list[str], deck: str = "52") -> list[str]:
    """A full stacked deck: ``prefix`` (top first), then the deck's other cards in canonical
    order (clubs 2..A, diamonds, hearts, spades, jokers)."""
    head = prefix.split() if isinstance(prefix, str) else list(prefix)
    used = {parse_card(t) for t in head}
    rest = [CARD_TEXTS[c] for c in get_deck(deck).cards if c not in used]
    return [t.upper() for t in head] + rest


def suit_cards(suit: str, ranks: str = "2 3 4 5 6 7 8 9 10 J Q K A") -> list[str]:
    return [r + suit for r in ranks.split()]


def new_env(deck_texts: list[str], **kwargs: Any) -> kiauliaganys_v0.raw_env:
    """A raw env reset to the stacked deck (one deal)."""
    env = kiauliaganys_v0.raw_env(**kwargs)
    env.reset(seed=0, options={"deck": deck_texts})
    return env


def do(env, *moves: str) -> None:
    """Play the move texts in order, each by the agent to act; fail clearly if one is illegal."""
    for text in moves:
        agent = env.agent_selection
        legal = env.legal_moves(agent)
        inverse = {t: a for a, t in legal.items()}
        assert text in inverse, f"{agent}: {text!r} is not legal; legal: {sorted(legal.values())}"
        env.step(inverse[text])


def legal(env) -> set[str]:
    return set(env.legal_moves(env.agent_selection).values())


def hand(env, seat: int) -> set[str]:
    return {CARD_TEXTS[c] for c in env.game_state.hands[seat]}


def fund(env) -> list[str]:
    return [CARD_TEXTS[c] for c in env.game_state.fund]


def required(env) -> str:
    req = rules.required_suit(env.game_state)
    return "any" if req == rules.ANY else SUITS[req]


def play_random(env, rng: np.random.Generator, seed: int, check: bool = True) -> dict[str, float]:
    """One seeded random game on a raw env; invariants after every step; total rewards."""
    env.reset(seed=seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    while not all(env.terminations.values()):
        agent = env.agent_selection
        actions = list(env.legal_moves(agent))
        env.step(actions[rng.integers(len(actions))])
        for a, r in env.rewards.items():
            totals[a] += r
        if check:
            env.check_invariants()
    return totals


# ------------------------------------------------------------------------------ scenarios
def exhaust36() -> list[str]:
    """2–4 players, deck 36. ``player_0``'s first ``search`` (spades) picks up every club,
    diamond and heart and finds 7S; after ``drag 6C`` the next player's ``search`` (clubs) picks up
    8S…AS and empties the table with no match."""
    cdh = [c for s in "CDH" for c in suit_cards(s, "6 7 8 9 10 J Q K A")]
    return stacked(["6S", *cdh, "7S"], deck="36")


EXHAUST36_OPENING = ("search", "drag 6C", "search")


def exhaust52() -> list[str]:
    """Deck 52: ``player_0``'s ``search`` (spades) picks up all 39 clubs, diamonds and hearts and
    finds 3S; after ``drag 2C`` the next ``search`` (clubs) picks up 4S…AS, emptying the table."""
    cdh = [c for s in "CDH" for c in suit_cards(s)]
    return stacked(["2S", *cdh, "3S"], deck="52")


def jokers54() -> list[str]:
    """Deck 54, 2 players: ``player_0``'s ``search`` (spades) picks up all 39 clubs, diamonds and
    hearts and finds RJ; after ``drag 2C``, ``player_1``'s ``search`` picks up 3S…AS and finds BJ,
    the last face-down card."""
    cdh = [c for s in "CDH" for c in suit_cards(s)]
    return stacked(["2S", *cdh, "RJ", *suit_cards("S", "3 4 5 6 7 8 9 10 J Q K A"), "BJ"], "54")


def pairs54(last: str) -> list[str]:
    """Deck 54, 2 players, built so that every ``search`` finds its card at once and every drag
    is ``drag blind`` (26 turns, hands stay empty). Turn 27 (``player_0``) searches for spades,
    picks up AH and empties the table: ``player_1`` is out (G7). ``last`` picks the pair found and
    dragged before: ``"tail"`` ends with a heart (QH KH), ``"swineherd"`` with a club (8C 9C)."""

    def pairs(suit: str, ranks: str) -> list[str]:
        return suit_cards(suit, ranks)

    clubs_tail = [*pairs("C", "2 3 4 5 6 7 8 9 10 J Q K"), "AC", "RJ"]
    diamonds = ["BJ", "AD", *pairs("D", "2 3 4 5 6 7 8 9 10 J Q K")]
    spades = pairs("S", "2 3 4 5 6 7 8 9 10 J Q K")
    hearts = pairs("H", "2 3 4 5 6 7 8 9 10 J Q K")
    if last == "tail":
        order = clubs_tail + diamonds + spades + hearts
    else:
        clubs = ["AC", "RJ", *pairs("C", "2 3 4 5 6 7 10 J Q K 8 9")]
        order = hearts + diamonds + spades + clubs
    deck = [*order, "AS", "AH"]
    assert len(deck) == 54
    return deck


PAIRS54_OPENING = ("search", "drag blind") * 26


def endgame(
    hands: list[str],
    fund_top: list[str],
    to_act: int,
    deck: str = "36",
    **kwargs: Any,
) -> kiauliaganys_v0.raw_env:
    """A raw env loaded with a hand-built position after the face-down cards are gone: ``hands``
    (card texts per seat, space-separated), ``fund_top`` (the top of the open fund, bottom
    first; every other card of the deck lies below it), ``to_act`` to match; everybody has had a
    turn and nobody is out."""
    env = kiauliaganys_v0.raw_env(num_players=len(hands), deck=deck, **kwargs)
    env.reset(seed=0)
    held = [[parse_card(t) for t in h.split()] for h in hands]
    top = [parse_card(t) for t in fund_top]
    used = {c for h in held for c in h} | set(top)
    rest = [c for c in env.config.the_deck.cards if c not in used]
    n = len(hands)
    state = rules.State(
        config=env.config,
        hands=held,
        face_up=[set() for _ in range(n)],
        not_suit=[[0, 0, 0, 0] for _ in range(n)],
        fund=rest + top,
        named_suit=-1,
        face_down=[],
        dealer=n - 1,
        to_act=to_act,
        phase=rules.MATCH,
        last_turn=False,
        had_turn=[True] * n,
        out=[False] * n,
        turns=0,
        last_picked=0,
        loser=-1,
        caught_by_tail=-1,
        capped=False,
        match_years=[0] * n,
        deals=0,
        positions={},
    )
    rules.check_invariants(state)
    env.load_state(state)
    return env
