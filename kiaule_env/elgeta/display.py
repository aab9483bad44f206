"""How a Elgeta table looks: the text the env and the engine render, and the picture
``render_mode="rgb_array"`` draws. Apart from the env so that the engine and the env both
import it and neither imports the other."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kiaule_env.cards import card_symbol
from kiaule_env.core.frames import Row, Table, result_line
from kiaule_env.elgeta import rules
from kiaule_env.elgeta.rules import NOBODY, State


def render_table(state: State, mark: int | None = None) -> str:
    """The table from above: pile sizes, the cards on the table, the last trick, who plays."""
    names = [f"player_{s}" for s in range(state.config.num_players)]
    cfg = state.config
    lines = [
        f"Elgeta, {cfg.num_players} players, {cfg.deck}-card deck: trick {state.tricks + 1}"
        + (f", tie-break round {state.rounds - 1}" if state.rounds > 1 else "")
        + (", game over" if state.over else "")
    ]
    for seat, name in enumerate(names):
        pile = state.piles[seat]
        status = "" if state.still_in[seat] else "  beggar"
        you = "  (you)" if seat == mark else ""
        lead = "  leads" if seat == state.leader and not state.over else ""
        lines.append(
            f"  {name}: {len(pile):>2} cards ({state.unseen[seat]} never seen){lead}{status}{you}"
        )
    if state.trick_cards:
        start = state.round_start
        table = _trick_text(state.trick_seats[:start], state.trick_cards[:start])
        newest = _trick_text(state.trick_seats[start:], state.trick_cards[start:])
        lines.append("  on the table: " + (f"{table} | newest round: " if start else "") + newest)
    if state.last_taker != NOBODY:
        lines.append(
            f"  last trick, taken by {names[state.last_taker]}: "
            + _trick_text(state.last_trick_seats, state.last_trick_cards)
        )
    seat = rules.to_act(state)
    if seat != NOBODY:
        lines.append(f"  to play: {names[seat]}")
    else:
        outcome = rules.result(state)
        winner = names[outcome.winner] if outcome.winner != NOBODY else "nobody (a draw)"
        how = " (cycle)" if outcome.cycle else " (capped)" if outcome.capped else ""
        lines.append(f"  winner: {winner}{how}")
    return "\n".join(lines)


def _trick_text(seats: Sequence[int], cards: Sequence[int]) -> str:
    return " ".join(f"{card_symbol(c)}({s})" for s, c in zip(seats, cards, strict=True))


def frame_table(state: State, result: dict[str, Any] | None = None) -> Table:
    """The table as the omniscient onlooker sees it (``render_mode="rgb_array"``): every pile
    face up from its top (E3 plays from there), the cards on the table with the newest round
    (E4: it decides) as its own run, the last trick and who took it (E6). ``result``: the
    engine's result once the game is over."""
    cfg = state.config
    title = f"Elgeta  -  {cfg.num_players} players, {cfg.deck}-card deck, trick {state.tricks + 1}"
    if state.rounds > 1:
        title += f", tie-break round {state.rounds - 1}"
    to_act = rules.to_act(state)
    seats = []
    for seat in range(cfg.num_players):
        note = [f"{len(state.piles[seat])} cards ({state.unseen[seat]} never seen)"]
        if seat == state.leader and not state.over:
            note.append("leads")
        if not state.still_in[seat]:
            note.append("beggar")
        seats.append(Row.of(f"player_{seat}", state.piles[seat], ", ".join(note), seat == to_act))
    start = state.round_start
    groups = (tuple(state.trick_cards[:start]), tuple(state.trick_cards[start:]))
    played = " ".join(f"player_{s}" for s in state.trick_seats)
    taker = state.last_taker
    centre = (
        Row("on the table", groups, f"played by {played}" if played else ""),
        Row.of(
            "last trick",
            state.last_trick_cards,
            f"taken by player_{taker}" if taker != NOBODY else "",
        ),
    )
    if result is not None:
        status = (result_line(result),)
    else:
        status = (f"to play: player_{to_act}",) if to_act != NOBODY else ()
    return Table(title, tuple(seats), centre, status)
