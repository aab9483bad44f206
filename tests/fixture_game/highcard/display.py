"""How a High card table looks: the text the env and the engine render, and the picture
``render_mode="rgb_array"`` draws; imported by both ``engine.py`` and ``env.py``."""

from __future__ import annotations

from kiaule_env.cards import card_symbol
from kiaule_env.core.frames import Row, Table, result_line
from tests.fixture_game.highcard import rules
from tests.fixture_game.highcard.rules import NUM_PLAYERS, State


def _cards(cards: list[int] | tuple[int, ...]) -> str:
    return " ".join(card_symbol(c) for c in cards) or "-"


def render_table(state: State) -> str:
    """The table from above: hand sizes (hands are hidden, H7), the trick, the tricks taken."""
    lines = [f"High card, {state.config.hand_size} cards each"]
    for seat in range(NUM_PLAYERS):
        lead = "  leads" if seat == state.leader and not rules.is_over(state) else ""
        lines.append(
            f"  player_{seat}: {len(state.hands[seat])} cards, {state.tricks[seat]} tricks{lead}"
        )
    lines.append("  trick: " + " ".join(f"{card_symbol(c)}({s})" for s, c in state.trick))
    if rules.is_over(state):
        lines.append("  " + result_line(rules.result(state)))
    else:
        lines.append(f"  to play: player_{state.to_act}")
    return "\n".join(lines)


def render_hand(state: State, seat: int) -> str:
    """The table as ``seat`` sees it: :func:`render_table` plus his own hand."""
    return render_table(state) + f"\nYour hand (player_{seat}): {_cards(state.hands[seat])}"


def frame_table(state: State) -> Table:
    """The table as the omniscient onlooker sees it: both hands and the stock face up."""
    over = rules.is_over(state)
    seats = tuple(
        Row.of(
            f"player_{s}",
            state.hands[s],
            f"{state.tricks[s]} tricks" + (", leads" if s == state.leader and not over else ""),
            s == state.to_act,
        )
        for s in range(NUM_PLAYERS)
    )
    centre = (
        Row.of("trick", [c for _, c in state.trick]),
        Row.of("played", state.played),
        Row.of("stock", state.stock),
    )
    status = (result_line(rules.result(state)),) if over else (f"to play: player_{state.to_act}",)
    return Table(f"High card  -  {state.config.hand_size} cards each", seats, centre, status)
