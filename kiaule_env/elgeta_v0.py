# ruff: noqa: E501  (the Markdown tables of the docstring are generated and keep one row a line)
"""Elgeta (Beggar) — ``kiaule/elgeta-v0``: a War-like game of 2–4 players, RULES §4 (E1–E10).

Each player has a face-down pile (E2: four players get one suit each — ``player_0`` ♠,
``player_1`` ♣, ``player_2`` ♦, ``player_3`` ♥; three players: one random suit is left out; two
players: red against black), shuffled. Every trick, each player still in turns up the top card
of his pile, starting with the previous trick's winner; the highest rank takes the trick (suits
are equal) and puts it under his pile in the order played. Tied highest cards make everybody add
another card, and only the newest round decides (E4). A player with no cards is a beggar and out
(E5, E7); the last player with cards wins. Project rules document: ``kiaule_env/elgeta/RULES.md``.

Elgeta has no decisions after the deal, so it serves as a faithful, very fast simulator and as
the simplest environment for testing agents and tooling. For whole-game studies use
:func:`kiaule_env.elgeta.rules.simulate` (no agent steps; it agrees with this env card by card).

Usage::

    from kiaule_env import elgeta_v0
    env = elgeta_v0.env(num_players=4, render_mode="ansi")
    env.reset(seed=0)
    # or a stacked deal: one pile per seat, top first
    env.reset(options={"piles": [["QS", "10S", ...], ["10D", ...], ["4H", ...], ["AC", ...]]})

Options (constructor keywords)
------------------------------

- ``num_players``: 2, 3 or 4 (default 4; E1).
- ``deck``: ``"52"`` (default), ``"36"`` or ``"32"``; never jokers (E1).
- ``max_tricks``: the trick cap (default 10000; E8). When reached, the player with the most cards
  wins (a tie for most cards is a draw); ``result["capped"] = True``.
- ``stop_on_all_aces``: end the game as soon as, after a trick, one player holds every ace in
  play; he wins (default ``False``; E8; ``result["all_aces"] = True``).
- ``render_mode``: ``None``, ``"ansi"`` (``render()`` returns the table as text) or ``"human"``
  (prints it); the table shows pile sizes, never the cards in a pile. ``"rgb_array"``:
  ``render()`` returns an ``(H, W, 3)`` ``uint8`` image of the table for videos, every pile face
  up from its top (the ``render`` extra).
- ``max_cycles``: PettingZoo truncation after ``max_cycles × num_players`` agent steps (default
  ``None``, off).

``reset(seed=…, options={"piles": [[card texts, top first] per seat]})`` fixes the deal: the
piles must hold exactly the cards in play (the whole deck with 2 or 4 players, the deck less one
whole suit with 3), each pile at least one card, distributed in any way; anything else is a
``ValueError`` naming the problem.

Agent steps
-----------

One agent step is one player putting one card on the table: ``play``, the only move (E3). The
players still in act in turn, clockwise from the trick's leader; a trick takes one step per
player still in, plus one per player still in with cards for every tie-break round (E4, E5).
Beggars are never selected but stay in ``env.agents`` until the game ends (their reward comes
at the end, E9). Repetition (E8) is detected at the start of every trick: the game is
deterministic after the deal, so a repeated position ends it at once as a draw with
``result["cycle"] = True``.

Spaces
------

- Action space: ``Discrete(1)``; action 0 is ``play``. The mask is ``[1]`` for the player to act
  and ``[0]`` for everybody else.
- Observation space: ``Dict(observation=Box(0, 1, (N,), float32), action_mask=Box(0, 1, (1,),
  int8))``. Per-player parts are in relative seat order (the observer first, then clockwise);
  card columns follow the deck's canonical order (clubs, diamonds, hearts, spades; each 2/6/7 up
  to A). Everything in Elgeta is public except the order of the dealt cards (E2), so the
  observation holds the set of each pile's unseen cards, and where every seen card lies. The
  table for the default configuration (4 players, 52 cards; ``observation_table(**kw)`` gives it
  for others):

| slice | index | size | content |
|---|---|---|---|
| `pile_sizes` | 0–3 | 4 | cards in each player's pile / 52 (relative seats: me, then clockwise) |
| `still_in` | 4–7 | 4 | 1 if the player is not a beggar (E5, E7) (relative seats: me, then clockwise) |
| `to_act` | 8–11 | 4 | one-hot: who plays the next card; all 0 when over (relative seats: me, then clockwise) |
| `leader` | 12–15 | 4 | one-hot: who played first in this trick (E3) (relative seats: me, then clockwise) |
| `unseen` | 16–223 | 208 | player-major 4×52: 1 if the card is in the player's unseen top part of the pile (the dealt cards not yet played: set public by E2, order unknown) |
| `known_depth` | 224–431 | 208 | player-major 4×52: (depth + 1) / 52 for a card known to lie in the player's pile, depth 0 = top (cards seen going under a pile, E6); 0 otherwise |
| `trick` | 432–639 | 208 | player-major 4×52: 1 if the player put the card into the current trick |
| `newest_round` | 640–691 | 52 | 1 for the cards of the trick's newest round (E4) |
| `tie_rounds` | 692 | 1 | tie-break rounds so far in this trick / 52 (E4) |
| `tricks` | 693 | 1 | tricks played / max_tricks (10000, E8) |
| **total** | | **694** | |

Actions
-------

| action | meaning |
|---|---|
| 0 | `play`: put the top card of your pile face up on the table (E3) |

Rewards
-------

Paid once, at the step that ends the game (E9): the winner +1, every other player
−1/(n−1) (beggars included); a draw (E5 nobody can add, E8 cycle, a capped game with a tie for
most cards) gives everybody 0. Rewards sum to zero.

Outcome
-------

At the end ``infos[agent]["result"]`` (the same for every agent) holds: ``winner`` (agent or
``None``), ``tricks`` (tricks played, counting one abandoned by an E5 draw), ``cycle``,
``capped``, ``beggars`` (agents in the order they became beggars; several after one trick in
that trick's playing order), and two more fields of this project: ``all_aces`` (ended by
``stop_on_all_aces``) and ``cards`` (pile sizes per seat at the end).

Illegal actions
---------------

``raw_env`` raises ``ValueError`` naming the action and the legal one. ``env()`` follows
PettingZoo's classic convention (``TerminateIllegalWrapper``): an illegal action ends the episode
with −1 for the offender and 0 for the others.

Version history
---------------

- v0: first release.
"""

from __future__ import annotations

from typing import Any

from kiaule_env.core.aec import wrap_classic
from kiaule_env.core.game import GameDescriptor, OpenSpielBridge
from kiaule_env.elgeta.env import ElgetaEnv
from kiaule_env.elgeta.rules import Config


def _max_steps(config: Config) -> int | None:
    """E8: at most max_tricks tricks, each at most every card played once."""
    return config.max_tricks * config.deck_cards.size


GAME = GameDescriptor(
    name="elgeta",
    env_id="kiaule/elgeta-v0",
    version=0,
    module=__name__,
    engine="kiaule_env.elgeta.engine:Engine",
    api="aec",
    player_counts=(2, 3, 4),
    decks=("32", "36", "52"),
    teams=None,
    has_decisions=False,
    reward_range=(-1.0, 1.0),  # E9: the winner +1, the others −1/(n−1)
    config=Config,
    max_steps=_max_steps,
    longest_game_reason=(
        "max_tricks tricks (E8 cap, default 10,000), each at most every card played once; a "
        "repeated position ends it (E8)"
    ),
    summary="War-like: no decisions after the deal, the highest card takes the trick",
    variants=(
        {"num_players": 2, "deck": "32"},
        {"num_players": 3, "deck": "36"},
        {"num_players": 4, "deck": "52"},
        {"num_players": 2, "deck": "52", "stop_on_all_aces": True},
        {"num_players": 3, "deck": "32", "max_tricks": 60},
        {"num_players": 4, "deck": "32"},
    ),
    bench_options={"num_players": 4, "deck": "52"},
    benchmark_games=400,
    small_options={"num_players": 2, "deck": "32"},
    openspiel=OpenSpielBridge(deal="kiaule_env.elgeta.chance:ElgetaDeal"),  # E2 piles
    vector="kiaule_env.elgeta.vector:ElgetaVector",
    benchmark_note=(
        "4 players; no decisions (E3: the only move is `play`), so every agent must score "
        "exactly the same — a check of the duplicate-deal fairness"
    ),
)

raw_env = ElgetaEnv


def env(**kwargs: Any):
    """The Elgeta AEC env with PettingZoo's classic wrappers (see the module docstring)."""
    return wrap_classic(raw_env(**kwargs))


def observation_table(**kwargs: Any) -> str:
    """The observation layout as Markdown for the game keywords ``kwargs`` (default config)."""
    return GAME.observation_table(**kwargs)


def action_table(**kwargs: Any) -> str:
    """The action table as Markdown (the same for every configuration)."""
    return GAME.action_table(**kwargs)


__all__ = ["GAME", "action_table", "env", "observation_table", "raw_env"]
