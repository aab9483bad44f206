"""How a Kiauliaganys table looks: the text the env and the engine render, and the picture
``render_mode="rgb_array"`` draws. Apart from the env so that the engine and the env both
import it and neither imports the other."""

from __future__ import annotations

from kiaule_env.cards import SUIT_NAMES, SUITS, card_symbol
from kiaule_env.core.frames import FACE_DOWN, Row, Table, cards_text, result_line
from kiaule_env.kiauliaganys import rules
from kiaule_env.kiauliaganys.rules import ANY, DRAG, State


def _move_note(seat: int, move: rules.Move, picked: int, top: int, phase: int) -> str:
    """A move as text; a search says what it picked up and found, a blind drag the card."""
    text = f"player_{seat}: {move.text}"
    if move.kind == rules.SEARCH:
        found = " and found " + card_symbol(top) if phase == DRAG else ""
        text += f" (picked up {picked}{found})"
    elif move.kind == rules.DRAG_BLIND:
        text += f" ({card_symbol(top)})"
    return text


def render_table(state: State | None, seat: int | None = None) -> str:
    """The table from above (hidden cards hidden), plus ``seat``'s own hand if given."""
    if state is None:
        return "(not reset)"
    config = state.config
    req = rules.required_suit(state)
    top = card_symbol(state.fund[-1]) if state.fund else "(empty)"
    suit = "any" if req == ANY else SUITS[req]
    seen = f", position seen {state.repeats}×" if state.repeats > 1 else ""  # G10a
    lines = [
        f"Kiauliaganys — turn {state.turns}, dealer player_{state.dealer}"
        + (f", deal {state.deals + 1}" if config.match_years else "")
        + seen,
        f"open fund: {len(state.fund)} card(s), top {top}; required suit {suit}; "
        f"face-down: {len(state.face_down)}",
    ]
    for s in range(state.num_players):
        marks = []
        if s == state.to_act:
            phase = rules.PHASE_NAMES[state.phase]
            marks.append(f"to {phase}" + (" (last turn)" if state.last_turn else ""))
        marks += _standing(state, s)
        face_up = " ".join(card_symbol(c) for c in sorted(state.face_up[s]))
        shown = f", face up: {face_up}" if face_up else ""
        lines.append(
            f"  player_{s}: {len(state.hands[s])} card(s){shown}"
            + (f"  [{', '.join(marks)}]" if marks else "")
        )
    if seat is not None:
        hand = " ".join(card_symbol(c) for c in sorted(state.hands[seat])) or "(empty)"
        lines.append(f"your hand (player_{seat}): {hand}")
    if state.recent:
        notes = [_move_note(*note) for note in state.recent[-4:]]
        lines.append("last moves: " + "; ".join(notes))
    return "\n".join(lines)


def _standing(state: State, seat: int) -> list[str]:
    """How a seat stands, in the text and in the frame: out (G7), the swineherd (G8; by
    repetition, G10a), caught the pig by the tail (G8), his match years (G11)."""
    marks = []
    if state.out[seat]:
        marks.append("out")
    if seat == state.loser:
        marks.append("SWINEHERD" + (" (repetition)" if state.repeated else ""))
    if seat == state.caught_by_tail:
        marks.append("caught the pig by the tail")
    if state.config.match_years:
        marks.append(f"{state.match_years[seat]} years")
    return marks


def frame_table(state: State) -> Table:
    """The table as the omniscient onlooker sees it (``render_mode="rgb_array"``): every hand
    face up (with the cards its holder took face up, G8, named), the open fund bottom to top,
    the face-down table as backs (its order is nobody's knowledge), the last moves."""
    config = state.config
    req = rules.required_suit(state)
    title = f"Kiauliaganys  -  turn {state.turns}, dealer player_{state.dealer}"
    if config.match_years:
        title += f", deal {state.deals + 1}"
    if state.repeats > 1:  # G10a
        title += f", position seen {state.repeats} times"
    seats = []
    for s in range(state.num_players):
        note = [f"{len(state.hands[s])} card(s)"]
        if state.face_up[s]:
            note.append("face up: " + cards_text(sorted(state.face_up[s])))
        note += _standing(state, s)
        active = s == state.to_act and state.phase != rules.OVER
        seats.append(Row.of(f"player_{s}", sorted(state.hands[s]), ", ".join(note), active))
    suit = "any" if req == ANY else SUIT_NAMES[SUITS[req]]
    centre = (
        Row.of("open fund", state.fund, f"required suit: {suit}"),
        Row.of("face down", [FACE_DOWN] * len(state.face_down), f"{len(state.face_down)} cards"),
    )
    if state.phase == rules.OVER:
        status = [result_line(rules.result(state))]
    else:
        phase = rules.PHASE_NAMES[state.phase]
        status = [
            f"to {phase}: player_{state.to_act}" + (" (last turn)" if state.last_turn else "")
        ]
    if state.recent:
        notes = [_move_note(*note) for note in state.recent[-3:]]
        status.append("last moves: " + "; ".join(notes))
    return Table(title, tuple(seats), centre, tuple(status))
