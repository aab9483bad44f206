"""The global state vector of an episode, for centralized critics (MAPPO) and PettingZoo's
``state()``.

Everything an onlooker who may look at every card would know, as a flat ``float32`` vector of
named slices (an :class:`~kiaule_env.core.layout.ObservationLayout`), built the same way in every
game:

1. ``to_act``: one entry per seat, 1 for each seat deciding now (all zero once over);
2. ``player_<i>/<slice>``: the observation of every seat ``i`` in turn, exactly as that seat's
   observation encodes it (so the union of the information sets: every hand, every private
   memory, the scores, the phase);
3. the game's *hidden* slices: what no seat knows, the order of the face-down cards as far as
   the game has it (Kozel's stock, Kiauliaganys' face-down table, Pig's stock and discard pile,
   Elgeta's piles). An ordered pile is encoded per card of the deck (:func:`order_values`).

Each game's ``encoding.py`` declares its hidden slices; its engine's ``state_layout`` and
``encode_state(state)`` come from :class:`StateEncoder`. Stacked decks of deals still to come
are chance, not state, and are not encoded.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kiaule_env.cards import Deck
from kiaule_env.core.layout import ObservationLayout, Slice


@dataclass(frozen=True)
class HiddenSlice:
    """A slice of the state vector no observation has: its :class:`Slice` and its values."""

    slice: Slice
    #: ``state -> values`` (``slice.size`` floats within ``[slice.low, slice.high]``)
    values: Callable[[Any], Sequence[float] | np.ndarray]


def order_values(cards: Iterable[int], deck: Deck) -> np.ndarray:
    """An ordered pile as one value per card of ``deck`` (canonical order, ``Deck.cards``).

    The card at position ``p`` of the pile (0 = the first listed) gets ``(p + 1) / deck.size``;
    cards not in the pile get 0. The pile's order and content can be read back exactly.
    """
    out = np.zeros(deck.size, dtype=np.float32)
    scale = 1.0 / deck.size
    for p, card in enumerate(cards):
        index = int(deck.position[card])
        if index < 0:
            raise ValueError(f"card id {card} is not in the {deck.name}-card deck")
        out[index] = (p + 1) * scale
    return out


def order_slice(name: str, deck: Deck, what: str) -> Slice:
    """The :class:`Slice` of an ordered pile encoded by :func:`order_values`."""
    return Slice(
        name,
        deck.size,
        f"{what}: per card of the deck (canonical order), (position + 1) / {deck.size}, "
        "0 if not there",
    )


class StateEncoder:
    """Global state vectors of one game configuration; see the module docstring."""

    def __init__(
        self,
        num_players: int,
        observation: ObservationLayout,
        hidden: Sequence[HiddenSlice] = (),
    ):
        self.num_players = num_players
        self.observation = observation
        self.hidden = tuple(hidden)
        slices = [Slice("to_act", num_players, "1 for each seat deciding now (absolute seats)")]
        for seat in range(num_players):
            slices += [
                Slice(f"player_{seat}/{p.name}", p.size, p.description, p.low, p.high)
                for p in observation.slices
            ]
        slices += [h.slice for h in self.hidden]
        self.layout = ObservationLayout(slices)
        self._to_act = self.layout.offsets["to_act"].start
        self._obs_start = [
            self.layout.offsets[f"player_{s}/{observation.slices[0].name}"].start
            for s in range(num_players)
        ]
        self._hidden = [(self.layout.offsets[h.slice.name], h.values) for h in self.hidden]

    def encode(
        self,
        state: Any,
        to_act: Sequence[int],
        observe: Callable[[Any, int], np.ndarray],
    ) -> np.ndarray:
        """The state vector of ``state``: ``to_act`` seats, every seat's ``observe(state, seat)``
        and the hidden slices."""
        out = self.layout.new()
        for seat in to_act:
            out[self._to_act + seat] = 1.0
        size = self.observation.size
        for seat, start in enumerate(self._obs_start):
            out[start : start + size] = observe(state, seat)
        for where, values in self._hidden:
            out[where] = values(state)
        return out

    def observation_of(self, vector: np.ndarray, seat: int) -> np.ndarray:
        """The observation of ``seat`` inside a state vector (a copy)."""
        if vector.shape != (self.layout.size,):
            raise ValueError(
                f"state has shape {vector.shape}, the layout needs ({self.layout.size},)"
            )
        if not 0 <= seat < self.num_players:
            raise ValueError(f"seat {seat} is out of range 0..{self.num_players - 1}")
        start = self._obs_start[seat]
        return vector[start : start + self.observation.size].copy()

    def markdown_table(self) -> str:
        """The state layout as a Markdown table: one row per seat's observation block (its
        slices are the observation table's, under ``player_<i>/``), then the hidden slices."""
        lines = ["| slice | index | size | content |", "|---|---|---|---|"]

        def row(name: str, start: int, size: int, desc: str) -> None:
            index = str(start) if size == 1 else f"{start}–{start + size - 1}"
            lines.append(f"| `{name}` | {index} | {size} | {desc} |")

        row("to_act", self._to_act, self.num_players, self.layout.slices[0].description)
        size = self.observation.size
        for seat, start in enumerate(self._obs_start):
            row(
                f"player_{seat}/*",
                start,
                size,
                f"the observation of `player_{seat}` (the observation table, slice names "
                f"prefixed `player_{seat}/`)",
            )
        for h in self.hidden:
            sl = self.layout.offsets[h.slice.name]
            row(h.slice.name, sl.start, h.slice.size, h.slice.description)
        lines.append(f"| **total** | | **{self.layout.size}** | |")
        return "\n".join(lines)
