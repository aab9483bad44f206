"""Per-game display knowledge of the viewer: which view fields hold cards, and small extras.

Everything here reads only the public view dataclasses (``env.unwrapped.view(agent)``) and the
game record; the serialisation itself is generic (:func:`experiments.viewer.replay.serialize`).
A :class:`GameDisplay` says

* which view fields hold cards (shown as symbols), suits, ranks, and plays of a trick;
* the seats' hands as the omniscient onlooker sees them (default: each seat's own ``hand``);
* the ``unit`` a frame belongs to (trick or turn), for stepping by trick;
* ``extras``: labelled rows for the table's centre (Kozel: trump and team scores;
  Kiauliaganys: the suit the next player must find), from the views, the seat whose knowledge
  they show (None: the onlooker's) and the record;
* ``notes``: a short public note per seat (out, face-up cards, pile sizes, touched nose).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from kiaule_env.cards import CARD_SYMBOLS, RANKS, SUIT_SYMBOLS, SUITS, parse_cards
from kiaule_env.core.records import GameRecord

#: one centre row: ``{"label": str, "text": str, "cards": [symbol or "▒", …]}``
Row = dict[str, Any]


def _symbols(cards: Sequence[int]) -> list[str]:
    return [CARD_SYMBOLS[c] for c in cards]


def _own_hands(views: Sequence[Any], record: GameRecord) -> list[list[int]]:
    return [list(v.hand) for v in views]


def _own_hand_seen(
    views: Sequence[Any], seat: int, hands: Sequence[Sequence[int]]
) -> list[list[str | None]]:
    """What ``seat`` sees of every hand: his own face up, the others face down (their sizes
    are public in every game)."""
    return [
        _symbols(views[seat].hand) if s == seat else [None] * len(hand)
        for s, hand in enumerate(hands)
    ]


def _no_note(views: Sequence[Any], seat: int) -> str | None:
    return None


def _public_move(text: str) -> str | None:
    return None


def _kozel_hidden(text: str) -> str | None:
    """A discard is face down (K6): the others see how many cards, not which."""
    word, _, cards = text.partition(" ")
    return f"discard {' '.join('▒' for _ in cards.split())}" if word == "discard" else None


def _pig_hidden(text: str) -> str | None:
    """The card passed is seen by the passer and the receiver only (P3)."""
    return "pass ▒" if text.startswith("pass ") else None


@dataclass(frozen=True)
class GameDisplay:
    """How the viewer shows one game (see the module docstring)."""

    name: str
    title: str
    unit_name: str
    unit: Callable[[Any], int]
    extras: Callable[[Sequence[Any], int | None, GameRecord], list[Row]]
    notes: Callable[[Sequence[Any]], list[str]]
    card_fields: frozenset[str] = frozenset()
    suit_fields: frozenset[str] = frozenset()
    rank_fields: frozenset[str] = frozenset()
    play_fields: frozenset[str] = frozenset()
    #: words for the middle element of a play item (Kozel: lead / beat / discard)
    play_kinds: tuple[str, ...] | None = None
    hands: Callable[[Sequence[Any], GameRecord], list[list[int]]] = _own_hands
    seen: Callable[[Sequence[Any], int, Sequence[Sequence[int]]], list[list[str | None]]] = (
        _own_hand_seen
    )
    #: after a move by ``seat``, what it showed that the move text does not say (views after)
    move_note: Callable[[Sequence[Any], int], str | None] = _no_note
    #: a move text as the other players see it, or None when it is public (Kozel discards)
    hide_move: Callable[[str], str | None] = _public_move
    teams: list[list[int]] | None = field(default=None)


# ---------------------------------------------------------------------------- Kozel
def _kozel_extras(views: Sequence[Any], seat: int | None, record: GameRecord) -> list[Row]:
    v = views[0] if seat is None else views[seat]
    trump = SUITS[v.trump]
    rows: list[Row] = [
        {"label": "trump", "text": f"{SUIT_SYMBOLS[trump]} ({trump})", "cards": []},
        {
            "label": "indicator",
            "text": f"in the stock, {v.indicator_at + 1} from the top"
            if v.indicator_at >= 0
            else ("seen" if v.indicator in v.seen else "drawn"),
            "cards": [CARD_SYMBOLS[v.indicator]],
        },
        {"label": "stock", "text": f"{v.stock_size} cards", "cards": []},
    ]
    # Team card points: the face-up cards in each team's tricks plus the face-down discards;
    # a seat knows only its own discards, the onlooker everybody's (the union of the views).
    discard = [0, 0]
    for s in range(len(views)) if seat is None else (seat,):
        for team in (0, 1):
            discard[team] += views[s].my_discard_points[team]
    points = [v.points_seen[t] + discard[t] for t in (0, 1)]
    known = "" if seat is None else " (known to this player)"
    rows.append(
        {
            "label": "team points",
            "text": f"team 0: {points[0]} · team 1: {points[1]}{known}",
            "cards": [],
        }
    )
    rows.append(
        {
            "label": "tricks",
            "text": f"team 0: {v.tricks[0]} ({v.cards_taken[0]} cards) · "
            f"team 1: {v.tricks[1]} ({v.cards_taken[1]} cards)",
            "cards": [],
        }
    )
    if record.env_kwargs.get("series"):
        rows.append(
            {
                "label": "series",
                "text": f"{v.game_index} game(s) finished; loss points team 0: "
                f"{v.series_loss[0]} · team 1: {v.series_loss[1]}",
                "cards": [],
            }
        )
    for i, (s, kind, cards) in enumerate(v.trick):
        # the onlooker sees a face-down discard in the view of the seat that made it
        shown = views[s].trick[i][2] if seat is None else cards
        word = ("lead", "beat", "discard")[kind]
        face = _symbols(shown) if shown else ["▒"] * v.n_cards
        rows.append({"label": f"player_{s} {word}", "text": "", "cards": face})
    return rows


def _kozel_notes(views: Sequence[Any]) -> list[str]:
    v = views[0]
    notes = []
    for s in range(len(views)):
        parts = [f"team {s % 2}"]
        if s == v.dealer:
            parts.append("dealer")
        if s == v.winner and v.trick:
            parts.append("winning")
        notes.append(", ".join(parts))
    return notes


KOZEL = GameDisplay(
    name="kozel",
    title="Kozel",
    unit_name="trick",
    unit=lambda v: v.game_index * 1000 + v.tricks[0] + v.tricks[1],
    extras=_kozel_extras,
    notes=_kozel_notes,
    card_fields=frozenset(
        {"hand", "indicator", "winning", "seen", "known", "maybe", "my_discards"}
    ),
    suit_fields=frozenset({"trump"}),
    play_fields=frozenset({"trick"}),
    play_kinds=("lead", "beat", "discard"),
    hide_move=_kozel_hidden,
    teams=[[0, 2], [1, 3]],
)


# ---------------------------------------------------------------------------- Kiauliaganys
def _kiau_extras(views: Sequence[Any], seat: int | None, record: GameRecord) -> list[Row]:
    v = views[0]
    req = v.required_suit
    must = "any suit" if req < 0 else f"{SUIT_SYMBOLS[SUITS[req]]} ({SUITS[req]})"
    to_act = f"player_{v.to_act}" if v.to_act >= 0 else "nobody"
    rows: list[Row] = [
        {"label": "must find", "text": f"{must}, {to_act} to act", "cards": []},
        {
            "label": "open fund",
            "text": f"{len(v.fund)} card(s), top shown last",
            "cards": _symbols(v.fund[-8:]),
        },
        {"label": "face down", "text": f"{v.face_down} card(s)", "cards": []},
        {
            "label": "turn",
            "text": f"{v.turns + 1} ({v.turns} played)" + (", the last" if v.last_turn else ""),
            "cards": [],
        },
    ]
    if any(v.match_years):
        rows.append(
            {
                "label": "years",
                "text": " · ".join(f"player_{s}: {y}" for s, y in enumerate(v.match_years)),
                "cards": [],
            }
        )
    return rows


def _kiau_notes(views: Sequence[Any]) -> list[str]:
    v = views[0]
    notes = []
    for s in range(len(views)):
        parts = []
        if s == v.dealer:
            parts.append("dealer")
        if v.out[s]:
            parts.append("out")
        if s == v.loser:
            parts.append("SWINEHERD")
        if s == v.caught_by_tail:
            parts.append("caught the pig by the tail")
        if v.face_up[s]:
            parts.append("face up: " + " ".join(_symbols(v.face_up[s])))
        notes.append(", ".join(parts))
    return notes


KIAULIAGANYS = GameDisplay(
    name="kiauliaganys",
    title="Kiauliaganys",
    unit_name="turn",
    unit=lambda v: v.deals * 100_000 + v.turns,
    extras=_kiau_extras,
    notes=_kiau_notes,
    card_fields=frozenset({"hand", "fund", "face_up"}),
    suit_fields=frozenset({"required_suit"}),
)


# ---------------------------------------------------------------------------- Pig
def _pig_extras(views: Sequence[Any], seat: int | None, record: GameRecord) -> list[Row]:
    v = views[0]
    rows: list[Row] = [
        {"label": "round", "text": f"{v.round_index + 1} ({v.phase})", "cards": []},
        {"label": "ranks", "text": " ".join(RANKS[r] for r in v.ranks), "cards": []},
        {"label": "passes", "text": f"{v.passes}", "cards": []},
    ]
    if v.touched:
        rows.append(
            {
                "label": v.nose_word,
                "text": ", ".join(f"player_{s}" for s in v.touched),
                "cards": [],
            }
        )
    if v.stock_size or v.discard_size:
        rows.append(
            {"label": "stock", "text": f"{v.stock_size}, discard {v.discard_size}", "cards": []}
        )
    if seat is not None:
        mine = views[seat]
        if mine.last_passed >= 0 or mine.last_received >= 0:
            shown = [CARD_SYMBOLS[c] for c in (mine.last_passed, mine.last_received) if c >= 0]
            rows.append({"label": "last passed / received", "text": "", "cards": shown})
    return rows


def _pig_notes(views: Sequence[Any]) -> list[str]:
    v = views[0]
    notes = []
    for s in range(len(views)):
        parts = []
        if s not in v.seats_in:
            parts.append("out")
        if s == v.dealer:
            parts.append("dealer")
        if s in v.touched:
            parts.append(f"{v.nose_word} #{v.touched.index(s) + 1}")
        if any(v.letters):
            parts.append("letters " + ("PIG"[: v.letters[s]] or "-"))
        notes.append(", ".join(parts))
    return notes


PIG = GameDisplay(
    name="pig",
    title="Pig",
    unit_name="exchange",
    unit=lambda v: v.round_index * 1_000_000 + v.passes * 1000 + v.race_steps,
    extras=_pig_extras,
    notes=_pig_notes,
    card_fields=frozenset({"hand", "last_passed", "last_received"}),
    rank_fields=frozenset({"start_ranks", "ranks"}),
    hide_move=_pig_hidden,
)


# ---------------------------------------------------------------------------- Elgeta
def _elgeta_piles(views: Sequence[Any], record: GameRecord) -> list[list[int]]:
    """Each pile top first as the onlooker knows it: the unseen cards keep their order from the
    deal (``options["piles"]`` of the record; nobody has moved them), the seen ones below."""
    piles = (record.options or {}).get("piles")
    v = views[0]
    out = []
    for s in range(len(views)):
        unseen = set(v.unseen[s])
        if piles is not None and s < len(piles):
            dealt = [c for c in parse_cards(piles[s]) if c in unseen]
            top = dealt if len(dealt) == len(unseen) else sorted(unseen)
        else:
            top = sorted(unseen)
        out.append(top + list(v.known[s]))
    return out


def _elgeta_seen(
    views: Sequence[Any], seat: int, hands: Sequence[Sequence[int]]
) -> list[list[str | None]]:
    """Everybody knows every pile but the order of its never-seen top (E2, E6)."""
    v = views[seat]
    return [[None] * len(v.unseen[s]) + _symbols(v.known[s]) for s in range(len(views))]


def _elgeta_note(views: Sequence[Any], seat: int) -> str | None:
    """The card the ``play`` turned up: the newest card of the trick, or of the trick it just
    completed."""
    v = views[seat]
    for trick in (v.trick, v.last_trick):
        if trick and trick[-1][0] == seat:
            return CARD_SYMBOLS[trick[-1][1]]
    return None


def _elgeta_extras(views: Sequence[Any], seat: int | None, record: GameRecord) -> list[Row]:
    v = views[0]
    rows: list[Row] = [
        {
            "label": "trick",
            "text": f"{v.tricks + 1}"
            + (f", tie-break round {v.rounds - 1}" if v.rounds > 1 else ""),
            "cards": [],
        }
    ]
    for i, (s, c) in enumerate(v.trick):
        newest = " (newest round)" if i >= v.round_start and v.round_start else ""
        rows.append({"label": f"player_{s}{newest}", "text": "", "cards": [CARD_SYMBOLS[c]]})
    if v.last_taker >= 0:
        rows.append(
            {
                "label": f"last trick, taken by player_{v.last_taker}",
                "text": "",
                "cards": [CARD_SYMBOLS[c] for _, c in v.last_trick],
            }
        )
    return rows


def _elgeta_notes(views: Sequence[Any]) -> list[str]:
    v = views[0]
    notes = []
    for s in range(len(views)):
        parts = [f"pile {v.pile_sizes[s]} ({len(v.unseen[s])} never seen)"]
        if s == v.leader and not v.over:
            parts.append("leads")
        if not v.still_in[s]:
            parts.append("beggar")
        notes.append(", ".join(parts))
    return notes


ELGETA = GameDisplay(
    name="elgeta",
    title="Elgeta",
    unit_name="trick",
    unit=lambda v: v.tricks,
    extras=_elgeta_extras,
    notes=_elgeta_notes,
    card_fields=frozenset({"unseen", "known"}),
    play_fields=frozenset({"trick", "last_trick"}),
    hands=_elgeta_piles,
    seen=_elgeta_seen,
    move_note=_elgeta_note,
)

DISPLAYS: dict[str, GameDisplay] = {
    "kiaule/kozel-v0": KOZEL,
    "kiaule/kiauliaganys-v0": KIAULIAGANYS,
    "kiaule/pig-v0": PIG,
    "kiaule/elgeta-v0": ELGETA,
}


def display_for(env_id: str) -> GameDisplay:
    """The display of a suite env id (``ValueError`` naming the known ones otherwise)."""
    try:
        return DISPLAYS[env_id]
    except KeyError:
        raise ValueError(
            f"unknown env id {env_id!r}; known env ids: {', '.join(DISPLAYS)}"
        ) from None
