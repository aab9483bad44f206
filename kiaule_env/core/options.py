"""Validation of constructor keywords and ``reset(options=…)`` shared by every game (RULES §0)."""

from __future__ import annotations

import ast
import dataclasses
import inspect
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

import numpy as np

from kiaule_env.cards import CARD_TEXTS, Deck


def check_choice(name: str, value: Any, allowed: Collection[Any]) -> Any:
    """Return ``value`` if it is one of ``allowed``, else a ``ValueError`` listing the choices."""
    if value not in allowed:
        shown = ", ".join(repr(a) for a in allowed)
        raise ValueError(f"{name}={value!r} is not allowed; choose one of {shown}")
    return value


def is_integer(value: Any) -> bool:
    """``value`` is a Python or numpy integer, and not a bool (``True`` is no player count)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def check_int(name: str, value: Any, low: int, high: int | None = None) -> int:
    """``value`` as an ``int`` if it is an integer (numpy integers too) in ``[low, high]``,
    else a clear ``ValueError``."""
    if not is_integer(value):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    value = int(value)
    if value < low or (high is not None and value > high):
        bound = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise ValueError(f"{name}={value} is out of range; it must be {bound}")
    return value


def check_bool(name: str, value: Any) -> bool:
    """``value`` as a ``bool`` if it is ``True`` or ``False`` (numpy's too), else ``ValueError``."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_render_mode(render_mode: Any, allowed: Collection[str]) -> str | None:
    """Return ``render_mode`` if it is ``None`` or one of ``allowed`` (the env's metadata)."""
    if render_mode is not None and render_mode not in allowed:
        raise ValueError(
            f"render_mode={render_mode!r} is not supported; choose one of {list(allowed)} or None"
        )
    return render_mode


def check_max_cycles(max_cycles: Any) -> int | None:
    """Return ``max_cycles`` if it is ``None`` (off) or a positive integer."""
    if max_cycles is not None and (not is_integer(max_cycles) or max_cycles < 1):
        raise ValueError(f"max_cycles must be a positive integer or None, got {max_cycles!r}")
    return None if max_cycles is None else int(max_cycles)


PETTINGZOO_PROBE_KEY = "options"


def check_option_keys(options: Mapping[str, Any] | None, allowed: Collection[str]) -> dict:
    """Return ``options`` as a dict after refusing keys the game does not know."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise ValueError(f"options must be a dict, got {type(options).__name__}")
    # pettingzoo.test.api_test probes the reset signature with options={"options": 1}: that one
    # key is ignored, every other unknown key is refused.
    options = {k: v for k, v in options.items() if k != PETTINGZOO_PROBE_KEY}
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ValueError(
            f"unknown reset option(s) {', '.join(map(repr, unknown))}; "
            f"this game accepts {', '.join(map(repr, sorted(allowed))) or 'none'}"
        )
    return dict(options)


def stacked_decks(options: Mapping[str, Any], deck: Deck, multi_deal: bool) -> list[list[int]]:
    """Parse ``options["deck"]`` / ``options["decks"]`` into validated card-id lists (RULES §0).

    ``deck`` fixes the first (or only) deal; ``decks`` one deck per deal in order, and is only
    meaningful for episodes with several deals (``multi_deal``), but a one-element ``decks`` is
    accepted everywhere. Giving both is an error.
    """
    if "deck" in options and "decks" in options:
        raise ValueError("give either options['deck'] or options['decks'], not both")
    if "deck" in options:
        return [deck.parse_permutation(options["deck"], what="options['deck']")]
    if "decks" not in options:
        return []
    decks = options["decks"]
    if isinstance(decks, str) or not isinstance(decks, Sequence):
        raise ValueError("options['decks'] must be a list of decks, each a list of card texts")
    if not multi_deal and len(decks) > 1:
        raise ValueError(
            f"options['decks'] has {len(decks)} decks but an episode of this configuration is a "
            "single deal; use options['deck'] or enable the multi-deal mode"
        )
    return [deck.parse_permutation(d, what=f"options['decks'][{i}]") for i, d in enumerate(decks)]


def shuffled_texts(deck: Deck, rng: np.random.Generator) -> list[str]:
    """One uniformly shuffled deck as card texts, top first (RULES §0 stacked deck)."""
    return [CARD_TEXTS[c] for c in deck.shuffled(rng)]


def decks_option(deck: Deck, rng: np.random.Generator, deals: int) -> dict[str, Any]:
    """``{"deck": …}`` for one deal, ``{"decks": […]}`` for an episode of several deals."""
    if deals <= 1:
        return {"deck": shuffled_texts(deck, rng)}
    return {"decks": [shuffled_texts(deck, rng) for _ in range(deals)]}


class CheckedKeywords:
    """Mixin for envs: an unknown constructor keyword is a ``ValueError`` listing the allowed
    ones (Python's own error would be a ``TypeError``), raised before anything is built."""

    def __new__(cls, *args: Any, **kwargs: Any):
        check_keywords(cls, kwargs)
        return super().__new__(cls)


def rule_keywords(config: type) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Decorator of an env's ``__init__(self, *, <env keywords>, **options)``: its signature
    (``help``, ``inspect``, :class:`CheckedKeywords`) becomes the rules ``Config``'s fields, with
    their types and defaults, followed by the env's own keywords, all keyword-only. The
    defaults are written once, in the ``Config``; ``options`` go to the engine, which validates
    them there."""

    def decorate(init: Callable[..., None]) -> Callable[..., None]:
        signature = inspect.signature(init)
        params = list(signature.parameters.values())
        own = [p for p in params[1:] if p.kind is inspect.Parameter.KEYWORD_ONLY]
        rules = [
            inspect.Parameter(
                f.name, inspect.Parameter.KEYWORD_ONLY, default=f.default, annotation=f.type
            )
            for f in dataclasses.fields(config)
        ]
        init.__signature__ = signature.replace(parameters=[params[0], *rules, *own])
        return init

    return decorate


def check_keywords(cls: type, kwargs: Mapping[str, Any]) -> None:
    """Refuse keywords that ``cls.__init__`` does not take, naming the allowed ones."""
    params = inspect.signature(cls.__init__).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return  # forwards its keywords to a constructor that checks them
    allowed = [n for n, p in params.items() if n != "self" and p.kind is not p.VAR_POSITIONAL]
    unknown = sorted(set(kwargs) - set(allowed))
    if unknown:
        raise ValueError(
            f"unknown keyword(s) {', '.join(map(repr, unknown))} for {cls.__name__}; "
            f"allowed: {', '.join(allowed)}"
        )


def check_seed(seed: Any) -> int | None:
    """Return ``seed`` if it is ``None`` or a non-negative integer (a bool is not a seed)."""
    if seed is not None and (not is_integer(seed) or seed < 0):
        raise ValueError(f"seed must be a non-negative integer or None, got {seed!r}")
    return None if seed is None else int(seed)


class NotResetError(RuntimeError):
    """An env was used before its first ``reset()``."""

    def __init__(self, what: str):
        super().__init__(f"{what} called before reset(); call env.reset(seed=...) first")


def check_agent(mapping: Mapping[str, int], agent: Any) -> int:
    """The seat of ``agent``; a ``ValueError`` naming the agents otherwise."""
    seat = mapping.get(agent) if isinstance(agent, str) else None
    if seat is None:
        raise ValueError(f"unknown agent {agent!r}; the agents are {', '.join(mapping)}")
    return seat


def require_reset(state: Any, what: str) -> None:
    """Refuse ``what`` (``"step()"``, …) with :class:`NotResetError` while ``state`` is None."""
    if state is None:
        raise NotResetError(what)


def seat_of(mapping: Mapping[str, int], state: Any, agent: Any, what: str) -> int:
    """The seat of ``agent`` for ``what``: refused before reset and for unknown names."""
    require_reset(state, what)
    return check_agent(mapping, agent)


def parse_value(text: str) -> Any:
    """A ``KEY=VALUE`` value: ``true``/``false``/``none`` (any case), a Python literal (numbers,
    strings, lists, dicts), else the bare word as a string (``trump_card=bottom``)."""
    lowered = text.strip().lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered in ("none", "null"):
        return None
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return text
