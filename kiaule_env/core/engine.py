"""The engine contract: what every game's rules engine offers, with the same names everywhere.

A game's engine (``kiaule_env/<game>/engine.py``, class ``Engine``) is built from the game's
constructor keywords and holds no episode state: every method takes the episode's ``state`` (the
game's own ``rules.State``), which carries everything an episode needs, its chance generator
and the stacked decks still to come included, so that ``clone`` gives a fully independent
episode. The env base, the play loop, records, tournaments, soak and the search agents use only
this contract (``docs/ARCHITECTURE.md``).

Conventions:

* seats are ``0 … num_players − 1``; agents are ``player_<seat>``;
* ``to_act(state)`` is the tuple of seats deciding now: one seat in the turn-based games, every
  seat still in for Pig's simultaneous steps (``simultaneous = True``), ``()`` once over;
* actions are the codec's indices into ``Discrete(num_actions)``; ``legal_actions`` lists them
  ascending; ``apply(state, actions)`` takes one legal action per seat of ``to_act`` in that
  order, mutates ``state`` and returns the reward delta of every seat (``num_players`` floats);
* ``view(state, seat)`` is the seat's information set; ``observe`` is its encoded vector (the
  game's :class:`ObservationEncoder` on that view: nothing else reaches an observation);
* ``encode_state(state)`` is the global state vector for centralized critics and PettingZoo's
  ``state()`` (layout ``state_layout``, :mod:`kiaule_env.core.state`);
* ``result(state)`` is the outcome dict of a finished episode (RULES §0 "Outcome"), JSON-able;
* ``ending(result)`` says whether a finished episode was decided by play or ended by a rule cap;
* ``step_info(state)`` is what the latest ``apply`` adds to every agent's ``info`` (a finished
  game of a series, deal of a match, round of a full game), or ``None``; a fresh episode, a clone
  of a fresh episode and a sampled state report ``None``;
* ``deck`` is the :class:`~kiaule_env.cards.Deck` one deal permutes: the cards a stacked deal
  names and :meth:`Engine.random_deal` shuffles (one member, whatever the rules module calls it);
* ``random_deal(rng)`` returns reset options with one key (``"deck"``, ``"decks"``, or a form of
  the game's own such as Elgeta's ``"piles"``) whose value is a list of card texts, or a list of
  such lists (one per deal, or per pile); ``reset(options=random_deal(rng))`` plays that deal;
* ``card_locations(state)`` says where every card is, as far as the game tells cards apart:
  named places (``"hand 0"``, ``"stock"``, …) and their cards, a place whose order does not
  matter sorted, an ordered one in order (tests compare states through it, never through
  the rules module's field names);
* ``check_invariants`` raises ``AssertionError`` describing a broken invariant (soak, tests).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from kiaule_env.cards import Deck
from kiaule_env.core.frames import Table
from kiaule_env.core.layout import ObservationLayout


@runtime_checkable
class ObservationEncoder(Protocol):
    """A view → observation vector, with its documented layout of named slices."""

    layout: ObservationLayout

    def encode(self, view: Any) -> np.ndarray: ...


@runtime_checkable
class ActionCodec(Protocol):
    """Action indices ↔ move texts, masks, and the generated action table."""

    num_actions: int
    #: the move text of every action where it does not depend on the state (Pig, Kiauliaganys,
    #: Elgeta), or None where it does (Kozel's card moves name cards of the mover's hand); error
    #: messages name an illegal action with it
    texts: Sequence[str] | None

    def mask(self, actions: Sequence[int]) -> np.ndarray: ...

    def markdown_table(self) -> str: ...


@runtime_checkable
class Engine(Protocol):
    """The rules engine of one game configuration; see the module docstring."""

    config: Any
    num_players: int
    num_actions: int
    simultaneous: bool
    #: keys ``reset(options=…)`` accepts (RULES §0 stacked decks)
    option_keys: frozenset[str]
    encoder: ObservationEncoder
    codec: ActionCodec
    #: the layout of :meth:`encode_state` (``kiaule_env.core.state``)
    state_layout: ObservationLayout
    #: the cards one deal permutes (stacked decks, :meth:`random_deal`, the OpenSpiel deal)
    deck: Deck

    def new_episode(self, rng: np.random.Generator, options: Mapping[str, Any]) -> Any:
        """A new episode's state; ``options`` are key-checked reset options (stacked decks)."""
        ...

    def random_deal(self, rng: np.random.Generator) -> dict[str, Any]:
        """Reset options of a uniformly random stacked deal drawn from ``rng`` (tournaments
        replay it seat-rotated): one key, its value a list of card texts or a list of such
        lists (see the module docstring)."""
        ...

    def to_act(self, state: Any) -> tuple[int, ...]: ...

    def legal_actions(self, state: Any, seat: int) -> Sequence[int]: ...

    def apply(self, state: Any, actions: Sequence[int]) -> Sequence[float]: ...

    def is_over(self, state: Any) -> bool: ...

    def result(self, state: Any) -> dict[str, Any]: ...

    def step_info(self, state: Any) -> dict[str, Any] | None:
        """What the latest :meth:`apply` adds to every agent's ``info``, or ``None``."""
        ...

    def card_locations(self, state: Any) -> dict[str, tuple[int, ...]]:
        """Where every card is: named places and their card ids (see the module docstring).

        Two states with equal locations hold the same cards in the same places; the
        conformance suite's state test compares states with it."""
        ...

    @staticmethod
    def ending(result: Mapping[str, Any]) -> str:
        """How an episode with this result ended: ``"play"``, or the rule cap that ended it
        (``"cap"``, ``"repetition"``, ``"max_passes"``, ``"cycle"``, …)."""
        ...

    def view(self, state: Any, seat: int) -> Any: ...

    def observe(self, state: Any, seat: int) -> np.ndarray: ...

    def encode_state(self, state: Any) -> np.ndarray:
        """The global state vector of ``state`` (layout ``state_layout``): who acts, every
        seat's observation, the face-down order no seat knows (``kiaule_env.core.state``)."""
        ...

    def clone(self, state: Any) -> Any: ...

    def action_text(self, state: Any, seat: int, action: int) -> str: ...

    @staticmethod
    def masked_text(text: str) -> str | None:
        """A move text as the seats other than the mover may know it (the cards they may not
        see as ``▒``), or ``None`` when the whole move is public. Transcripts of human play,
        the demo and the replay viewer show other seats' moves through it
        (:func:`text_seen_by`)."""
        ...

    def parse_action(self, state: Any, seat: int, text: str) -> int: ...

    def check_invariants(self, state: Any) -> None: ...

    def render(self, state: Any) -> str: ...

    def table(self, state: Any) -> Table:
        """The table as the omniscient onlooker sees it, for ``render_mode="rgb_array"``
        (drawn by :func:`kiaule_env.core.frames.draw`)."""
        ...

    def sample_state(self, view: Any, rng: np.random.Generator) -> Any:
        """A full state drawn exactly uniformly from those consistent with ``view``.

        (Determinization.)

        ``view`` is ``self.view(state, seat)`` of some state: everything ``view.seat`` may know.
        The result is a state the engine can play on (``to_act``, ``legal_actions``, ``apply``,
        ``clone``, ``check_invariants``) with ``self.view(sampled, view.seat) == view``, the
        same observation and mask for that seat, and the cards that seat cannot locate placed
        uniformly at random among all placements consistent with what it knows (the game's
        ``RULES.md`` says exactly which, and which history the view does not carry). Its chance
        generator is fresh (drawn from ``rng``), its stacked decks empty, its ``step_info`` None.
        Search agents (information-set MCTS, PIMC) call this many times per move.
        """
        ...

    def resample_hidden(self, state: Any, seat: int, rng: np.random.Generator) -> Any:
        """Another state with the same information set for ``seat`` (hidden cards redealt).

        Used by the conformance suite's information-set test: observation, mask and view of
        ``seat`` must not change.
        """
        ...


#: how a card another seat may not see is written in a move text (:meth:`Engine.masked_text`)
HIDDEN_CARD = "▒"


def text_seen_by(engine: Engine, text: str, mover: int, viewer: int | None) -> str:
    """``mover``'s move ``text`` as ``viewer`` may know it: whole to the mover himself and to
    the omniscient onlooker (``viewer`` None), else with what only the mover sees masked
    (:meth:`Engine.masked_text`: Kozel's face-down discards, K6; Pig's passed card, P2)."""
    if viewer is None or viewer == mover:
        return text
    masked = engine.masked_text(text)
    return text if masked is None else masked


def legal_text(engine: Engine, state: Any, seat: int) -> str:
    """``"a (text), b (text), …"`` of the legal actions of ``seat``, for error messages."""
    legal = engine.legal_actions(state, seat) if seat in engine.to_act(state) else ()
    return ", ".join(f"{a} ({engine.action_text(state, seat, a)})" for a in legal) or "none"


def check_action(engine: Engine, state: Any, seat: int, action: Any, legal: Sequence[int]) -> int:
    """``action`` as an int if it is one of ``legal``, else a ``ValueError`` naming the legal ones.

    Refuses bools and non-integers (numpy integers are fine), with what was given.
    """
    agent = f"player_{seat}"
    n = engine.num_actions
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise ValueError(
            f"{agent}: action must be an integer index into Discrete({n}), got {action!r}"
        )
    action = int(action)
    if action not in legal:
        if 0 <= action < n:
            texts = engine.codec.texts  # static move texts, where the game has them
            shown = f" ({texts[action]})" if texts is not None else ""
            what = f"action {action}{shown} is illegal now"
        else:
            what = f"action {action} is outside Discrete({n})"
        raise ValueError(f"{agent}: {what}; legal moves: {legal_text(engine, state, seat)}")
    return action


class RulesEngine:
    """Shared part of the four engines: the contract's methods that only delegate to the game's
    rules module (``rules``: ``result``, ``ending``, ``view``, ``clone``, ``check_invariants``)
    and to its encoder. A game's ``Engine`` subclasses it and adds what is its own."""

    #: the game's rules module (``kiaule_env.<game>.rules``)
    rules: ClassVar[ModuleType]
    encoder: ObservationEncoder

    def _build(self, config: Any, encoder: Any, codec: Any, state_encoder: Any, deck: Deck) -> None:
        """Set the configuration, its encoders and its deck (every engine's constructor calls
        this)."""
        self.config = config
        self.deck = deck
        self.num_players = config.num_players
        self.encoder = encoder
        self.codec = codec
        self.num_actions = codec.num_actions
        self.state_encoder = state_encoder
        self.state_layout = state_encoder.layout
        self._no_reward = (0.0,) * self.num_players

    def result(self, state: Any) -> dict[str, Any]:
        return self.rules.result(state)

    @classmethod
    def ending(cls, result: Mapping[str, Any]) -> str:
        """How an episode with this result ended (the game's ``rules.ending``)."""
        return cls.rules.ending(result)

    def step_info(self, state: Any) -> dict[str, Any] | None:
        """The state's ``step_info`` field: a game relying on this default keeps what its
        ``apply`` reports there (and ``None`` in a fresh, cloned-fresh or sampled state)."""
        return state.step_info

    @staticmethod
    def masked_text(text: str) -> str | None:
        """``None``: by default every move text is public (a game with hidden moves says
        otherwise)."""
        return None

    def view(self, state: Any, seat: int) -> Any:
        return self.rules.view(state, seat)

    def observe(self, state: Any, seat: int) -> np.ndarray:
        return self.encoder.encode(self.rules.view(state, seat))

    def clone(self, state: Any) -> Any:
        return self.rules.clone(state)

    def check_invariants(self, state: Any) -> None:
        self.rules.check_invariants(state)

    def encode_state(self, state: Any) -> np.ndarray:
        """The global state vector (:mod:`kiaule_env.core.state`, layout ``state_layout``)."""
        return self.state_encoder.encode(state, self.to_act(state), self.observe)
