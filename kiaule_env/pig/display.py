"""How a Pig table looks: the text the env and the engine render, and the picture
``render_mode="rgb_array"`` draws. Apart from the env so that the engine and the env both
import it and neither imports the other."""

from __future__ import annotations

from kiaule_env.cards import RANKS
from kiaule_env.core.frames import FACE_DOWN, Row, Table, result_line
from kiaule_env.pig import rules


def render_table(state: rules.State) -> str:
    """The table from above: public facts only (every hand is face down to an onlooker)."""
    config = state.config
    ranks = " ".join(RANKS[r] for r in state.ranks)
    word = "took a token" if config.tokens else "touched nose"
    lines = [
        f"Pig round {state.round_index + 1} ({state.phase}), ranks {ranks}, "
        f"passes {state.passes}" + (f", race step {state.race_steps}" if state.touched else "")
    ]
    for seat in range(config.num_players):
        name = f"player_{seat}"
        if seat not in state.seats_in:
            lines.append(f"  {name:<10} out")
            continue
        marks = _seat_marks(state, seat, word)
        cards = " ".join("??" for _ in state.hands[seat])
        lines.append(f"  {name:<10} [{cards}] {', '.join(marks)}".rstrip())
    if config.stock:
        lines.append(f"  stock {len(state.stock)}, discard pile {len(state.discard)}")
    if state.last_round is not None:
        last = state.last_round
        lines.append(f"  last round: pig {last['pig']}, first {word}: {last['first_nose']}")
    return "\n".join(lines)


def _seat_marks(state: rules.State, seat: int, word: str) -> list[str]:
    """What the table shows beside a seat, in the text and in the frame: the dealer, a touched
    nose or a token (``word``) with its order (P3, P8), the P-I-G letters (P7)."""
    marks = []
    if seat == state.dealer:
        marks.append("dealer")
    if seat in state.touched:
        marks.append(f"{word} #{state.touched.index(seat) + 1}")
    if state.config.letters:
        marks.append("letters " + ("PIG"[: state.letters[seat]] or "-"))
    return marks


def frame_table(state: rules.State) -> Table:
    """The table as the omniscient onlooker sees it (``render_mode="rgb_array"``): every hand
    face up, the players out (P5) with an empty row, the stock and discard pile face down when
    the variant has them (P7), touched noses or tokens (P3, P9) and letters (P8) noted."""
    config = state.config
    word = "token" if config.tokens else "nose"
    ranks = " ".join(RANKS[r] for r in state.ranks)
    title = (
        f"Pig  -  round {state.round_index + 1} ({state.phase}), ranks {ranks}, "
        f"passes {state.passes}"
    )
    acting = () if state.phase == rules.OVER else state.seats_in
    seats = []
    for seat in range(config.num_players):
        note = ([] if seat in state.seats_in else ["out"]) + _seat_marks(state, seat, word)
        held = state.hands[seat] if seat in state.seats_in else ()
        seats.append(Row.of(f"player_{seat}", held, ", ".join(note), seat in acting))
    centre = ()
    if config.stock:
        centre = (
            Row.of("stock", [FACE_DOWN] * len(state.stock), f"{len(state.stock)} cards"),
            Row.of("discard", [FACE_DOWN] * len(state.discard), f"{len(state.discard)} cards"),
        )
    status = []
    if state.phase == rules.OVER:
        status.append(result_line(rules.result(state)))
    elif state.touched:
        status.append(f"race step {state.race_steps}: everyone passes or touches at once")
    else:
        status.append("everyone passes one card to the left at once")
    if state.last_round is not None and state.phase != rules.OVER:
        last = state.last_round
        status.append(f"last round: pig {last['pig']}, first {word}: {last['first_nose']}")
    return Table(title, tuple(seats), centre, tuple(status))
