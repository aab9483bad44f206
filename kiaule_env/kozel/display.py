"""How a Kozel table looks: the text the env and the engine render, and the picture
``render_mode="rgb_array"`` draws. Apart from the env so that the engine and the env both
import it and neither imports the other."""

from __future__ import annotations

from collections.abc import Sequence

from kiaule_env.cards import CARD_SYMBOLS, SUIT_NAMES, SUIT_SYMBOLS, SUITS
from kiaule_env.core.frames import FACE_DOWN, Row, Table, result_line
from kiaule_env.kozel import rules
from kiaule_env.kozel.rules import State


def card_symbols(cards: Sequence[int]) -> str:
    """The cards as symbols, one space apart."""
    return " ".join(CARD_SYMBOLS[c] for c in cards)


def render_table(state: State) -> str:
    """The table from above: hands and the stock face down, face-up cards shown, K16 scores."""
    config = state.config
    trump = SUITS[state.trump]
    lines = []
    head = f"Kozel  game {state.game_index + 1}" if config.series else "Kozel"
    head += f"  dealer player_{state.dealer}  trump {SUIT_SYMBOLS[trump]} ({trump})"
    lines.append(head)
    at = state.indicator_index - state.stock_pos
    where = (
        f"in the stock at position {at + 1} from the top"
        if at >= 0
        else "drawn"
        if state.indicator not in state.seen
        else "played"
    )
    lines.append(
        f"indicator {CARD_SYMBOLS[state.indicator]} {where}   stock: {state.stock_size} cards"
    )
    for seat in range(4):
        team = seat % 2
        mark = " <" if seat == state.to_act else ""
        lines.append(
            f"  player_{seat} (team {team}): {'▒' * len(state.hands[seat]) or '-':<4}{mark}"
        )
    for team in (0, 1):
        lines.append(
            f"  team {team} pile: {state.tricks[team]} trick(s), {len(state.piles[team])} cards"
            + (f"   series loss points {state.series_loss[team]}" if config.series else "")
        )
    if state.trick:
        plays = []
        for seat, kind, cards in state.trick:
            shown = "▒" * len(cards) if kind == rules.DISCARD else card_symbols(cards)
            plays.append(f"player_{seat} {rules.KIND_WORDS[kind]} {shown}")
        lines.append("trick: " + "; ".join(plays))
        lines.append(f"winning: player_{state.winner} {card_symbols(state.winning)}")
    if state.declined:
        lines.append(
            "declined a molodka claim: " + ", ".join(f"player_{s}" for s in state.declined)
        )
    if state.phase == rules.PHASE_OVER:
        lines.append(f"over: {rules.result(state)}")
    else:
        lines.append(f"to act: player_{state.to_act} ({rules.PHASE_NAMES[state.phase]})")
    return "\n".join(lines)


def frame_table(state: State) -> Table:
    """The table as the omniscient onlooker sees it (``render_mode="rgb_array"``): every hand
    and every face-down discard face up, the stock face down with the indicator (K4) where it
    lies, the trick one run per play, the team piles and card points (K11)."""
    config = state.config
    over = state.phase == rules.PHASE_OVER
    title = f"Kozel  game {state.game_index + 1}" if config.series else "Kozel"
    title += f"  -  dealer player_{state.dealer}, trump {SUIT_NAMES[SUITS[state.trump]]}"
    seats = []
    for seat in range(4):
        note = [f"team {seat % 2}"]
        if seat == state.dealer:
            note.append("dealer")
        if state.trick and seat == state.winner:
            note.append("winning")
        active = not over and seat == state.to_act
        seats.append(Row.of(f"player_{seat}", state.hands[seat], ", ".join(note), active))
    plays = "; ".join(f"player_{s} {rules.KIND_WORDS[kind]}" for s, kind, _ in state.trick)
    stock: list[int | None] = [FACE_DOWN] * state.stock_size
    at = state.indicator_index - state.stock_pos
    if 0 <= at < len(stock):
        stock[at] = state.indicator
    piles = " - ".join(
        f"team {t}: {state.tricks[t]} trick(s), {state.points[t]} card points" for t in (0, 1)
    )
    centre = (
        Row("trick", tuple(cards for _, _, cards in state.trick), plays),
        Row.of("stock", stock, f"{state.stock_size} cards"),
    )
    status = [
        result_line(rules.result(state))
        if over
        else f"to act: player_{state.to_act} ({rules.PHASE_NAMES[state.phase]})",
        piles,
    ]
    if config.series:
        loss = state.series_loss
        status.append(f"series loss points: team 0 {loss[0]}, team 1 {loss[1]}")
    elif state.declined:
        status.append(
            "declined a molodka claim: " + ", ".join(f"player_{s}" for s in state.declined)
        )
    return Table(title, tuple(seats), centre, tuple(status))
