"""Pig (``kiaule/pig-v0``): the four-of-a-kind passing race, a simultaneous-move game.

Rules: RULES.md §3 (P1–P10) and ``kiaule_env/pig/RULES.md`` (the project's decisions where
RULES.md is silent). Every player holds four cards; all pass one card to the left at the same
time until someone holds four of a kind and touches his nose; the last to touch is the pig.

    from kiaule_env import pig_v0
    env = pig_v0.parallel_env(num_players=4)          # native ParallelEnv
    observations, infos = env.reset(seed=0)
    aec = pig_v0.env(num_players=4, game="full")      # AEC version (classic wrappers)

Both are registered with PettingZoo: ``pettingzoo.make("parallel", "kiaule/pig-v0")`` and
``pettingzoo.make("aec", "kiaule/pig-v0")``.

Versions and APIs
-----------------
* ``parallel_env(**kw)``: the native ``ParallelEnv``. One ``step(actions)`` is one passing round
  for every player still in (P2); every agent in ``env.agents`` must act every step (there is
  always at least one legal move). Eliminated players leave ``env.agents`` in the step they are
  eliminated (P5); the episode ends when ``env.agents`` is empty.
* ``env(**kw)``: the AEC version, PettingZoo's ``parallel_to_aec`` conversion (agents choose one
  after another in seat order; the parallel step runs after the last), wrapped like
  ``texas_holdem_v4.env()``; ``raw_env(**kw)`` is the same without the wrappers. In a full game
  an eliminated player stays in ``env.agents``, terminated and not selected, until the game is
  over, when every agent is stepped with ``None`` (RULES.md D13): libraries that end the episode
  when the selected agent is done (Tianshou) see the whole game and every reward.
* Extras on ``parallel_env`` and ``env().unwrapped``: ``legal_moves(agent) -> {action: text}``,
  ``view(agent)`` (the player's information set), ``state`` (the engine state) and
  ``check_invariants()``.

Keywords (RULES §3; bad values raise ``ValueError`` saying what is allowed)
------------------------------------------------------------------------
* ``num_players`` 3–13 (default 4; at most 12 with ``stock``). The deck is the top
  ``num_players`` ranks (A, K, Q, … downwards) in all four suits (P1).
* ``game``: ``"round"`` (default; an episode is one round) or ``"full"`` (rounds until one player
  is left; the pig leaves and the lowest rank leaves the deck, P5).
* ``stock=True``: the full 52-card deck; the dealer draws from a stock and his right discards
  (P6).
* ``letters=True`` (with ``game="full"``): three lives P-I-G (P7).
* ``tokens=True``: ``token`` replaces ``nose``: m−1 tokens, the player without one is the loser
  (P8).
* ``false_nose``: ``None`` (default: ``nose`` needs four of a kind) or ``"pig"`` (a touch without
  four of a kind makes the toucher the pig at once, P3).
* ``max_passes`` (default 200): a round with this many passes and no nose ends with no pig (P4).
* ``max_race_steps`` (default 20): the nose race is cut short after this many steps and the pig
  drawn among those who have not touched (P3).
* ``render_mode``: ``None``, ``"ansi"`` (``render()`` returns the table as text) or ``"human"``
  (prints it); hands are shown face down. ``"rgb_array"``: ``render()`` returns an
  ``(H, W, 3)`` ``uint8`` image of the table for videos, every hand face up (the ``render``
  extra).
* ``max_cycles`` (default ``None``): truncates the episode after this many parallel steps.

Reset options (RULES §0)
------------------------
``reset(seed=…, options={"deck": [card texts, top first]})`` stacks the deal of a round;
``options={"decks": [deck, deck, …]}`` one deck per round of a full game, in order (each a
permutation of the starting deck; cards of removed ranks are skipped; later rounds are shuffled
from the seed). Position i goes to the (i mod m)-th player still in, counting clockwise from the
dealer's left; with ``stock`` the rest is the stock, top first. The dealer of the first round is
the last seat. Same-step touches are ordered by a draw from the env's seeded generator (P3), so a
seed and stacked decks fix a whole game.

Spaces
------
Actions: ``Discrete(R + 2)`` for every agent, R = ranks of the starting deck (P4):

| action | meaning |
|---|---|
| 0–3 | `pass R`, R = J Q K A: pass that rank, lowest suit first (P2) |
| 4 | `nose`: touch the nose (P3), with four of a kind (any: `false_nose`) or in the race |
| 5 | `wait`: only in the race (P3); the only move after `nose` |

Observation: ``{"observation": float32 vector, "action_mask": int8 vector}``. Seats are relative
to the observer (0 = me, 1 = my left, …). The size is fixed per player count and variant; the
default ``num_players=4``:

| slice | index | size | content |
|---|---|---|---|
| `hand` | 0–3 | 4 | my cards per rank (J..A, low to high), count / 4 |
| `ranks_in_play` | 4–7 | 4 | 1 for each rank in this round's deck (P5 rank removal) |
| `last_passed` | 8–11 | 4 | one-hot rank of the card I passed in the latest passing step |
| `last_received` | 12–15 | 4 | one-hot rank of the card I received in the latest passing step |
| `passed` | 16–19 | 4 | share of this round's passes in which I passed each rank |
| `received` | 20–23 | 4 | share of this round's passes in which I received each rank |
| `players_in` | 24–27 | 4 | 1 if the player is still in; seats relative to me (0 = me, 1 = left) |
| `dealer` | 28–31 | 4 | one-hot dealer of this round, relative seats |
| `touched` | 32–35 | 4 | 1 if the player has touched his nose this round, relative seats |
| `race` | 36 | 1 | 1 once passing has stopped (someone played `nose`, P3/P8) |
| `passes` | 37 | 1 | passing steps this round / max_passes (P4) |
| `race_steps` | 38 | 1 | race steps after the first touch / max_race_steps (P3) |
| **total** | | **39** | |

With ``game="full", stock=True, letters=True, tokens=True`` (every variant slice present;
``stock`` makes every rank slice 13 long):

| slice | index | size | content |
|---|---|---|---|
| `hand` | 0–12 | 13 | my cards per rank (2..A, low to high), count / 4 |
| `ranks_in_play` | 13–25 | 13 | 1 for each rank in this round's deck (P5 rank removal) |
| `last_passed` | 26–38 | 13 | one-hot rank of the card I passed in the latest passing step |
| `last_received` | 39–51 | 13 | one-hot rank of the card I received in the latest passing step |
| `passed` | 52–64 | 13 | share of this round's passes in which I passed each rank |
| `received` | 65–77 | 13 | share of this round's passes in which I received each rank |
| `players_in` | 78–81 | 4 | 1 if the player is still in; seats relative to me (0 = me, 1 = left) |
| `dealer` | 82–85 | 4 | one-hot dealer of this round, relative seats |
| `touched` | 86–89 | 4 | 1 if the player has taken a token this round, relative seats |
| `race` | 90 | 1 | 1 once passing has stopped (someone played `token`, P3/P8) |
| `passes` | 91 | 1 | passing steps this round / max_passes (P4) |
| `race_steps` | 92 | 1 | race steps after the first touch / max_race_steps (P3) |
| `letters` | 93–96 | 4 | letters of P-I-G turned over / 3 (P7), relative seats |
| `stock_size` | 97 | 1 | cards in the stock / 52 (P6) |
| `discard_size` | 98 | 1 | cards in the discard pile / 52 (P6) |
| `tokens_left` | 99 | 1 | tokens still in the middle / (n − 1) (P8) |
| **total** | | **100** | |

Rewards (P9)
------------
``game="round"``: the pig −1, every other player +1/(n−1); a capped round (P4) 0 for all.
``game="full"``: no per-round rewards; each eliminated player −1/(n−1) in the step he is
eliminated (n = players at the start), the winner +1. Rewards sum to zero.

Outcome (P10)
-------------
``infos[agent]["result"]`` at the end, the same dict for all agents: ``pig`` (agent or ``None``),
``first_nose`` (agent or ``None``), ``passes``, ``capped``, ``race_cut`` (the race was cut short
by ``max_race_steps``); with ``game="full"`` these describe the last round, plus ``winner``,
``eliminated`` (agents in order), ``rounds`` and, with ``letters``, ``letters`` (per seat). Each
round's outcome (the first five fields plus ``round``, its index from 0) is also in
``infos[agent]["round_result"]`` in the step it ends.

Illegal actions
---------------
``parallel_env`` and ``raw_env`` raise ``ValueError`` naming the action and the legal ones (RULES
§0). ``env()`` follows PettingZoo's classic convention: the offender gets −1, the others 0, and
the episode ends. PettingZoo's ``parallel_seed_test`` samples actions without masks, so the
project tests seeding with its own masked test.

Version history
---------------
* v0: initial release.
"""

from __future__ import annotations

from typing import Any

from kiaule_env.core.aec import wrap_classic
from kiaule_env.core.game import GameDescriptor, OpenSpielBridge
from kiaule_env.pig.env import PigAECEnv, PigParallelEnv
from kiaule_env.pig.rules import Config


def _max_steps(config: Config) -> int | None:
    """P4, P3: a round's passing steps, race steps and the two that open and close the race;
    a full game (P5) has no bound."""
    return None if config.full else config.max_passes + config.max_race_steps + 2


GAME = GameDescriptor(
    name="pig",
    env_id="kiaule/pig-v0",
    version=0,
    module=__name__,
    engine="kiaule_env.pig.engine:Engine",
    api="parallel",
    player_counts=tuple(range(3, 14)),
    decks=("n ranks", "52 with stock"),
    teams=None,
    has_decisions=True,
    reward_range=(-1.0, 1.0),  # P9: the pig −1, the others +1/(n−1)
    config=Config,
    max_steps=_max_steps,
    longest_game_reason=(
        "a round: max_passes passing steps (P4, default 200), max_race_steps race steps "
        "(P3, default 20) and the steps that start and end the race; a full game (P5) is "
        "unbounded: capped rounds decide nothing"
    ),
    summary="everyone passes a card left at once to collect four of a kind, then the nose race",
    variants=(
        {"num_players": 4},
        {"num_players": 3},
        {"num_players": 8, "game": "full"},
        {"num_players": 4, "stock": True},
        {"num_players": 5, "game": "full", "letters": True},
        {"num_players": 4, "tokens": True},
        {"num_players": 13},
        {"num_players": 12, "stock": True},
        {"num_players": 4, "false_nose": "pig", "max_race_steps": 3},
        {"num_players": 6, "game": "full", "tokens": True, "false_nose": "pig"},
        {"num_players": 3, "game": "full", "stock": True, "max_passes": 20},
    ),
    bench_options={"num_players": 4},
    benchmark_games=4000,
    benchmark_note="4 players, one round; reward −1 pig, +1/3 others (P9)",
    small_options={"num_players": 3},
    vector="kiaule_env.pig.vector:PigVector",
    vector_policy="kiaule_env.pig.vector_policy:HeuristicPolicy",
    openspiel=OpenSpielBridge(
        fixed={"game": "round"},  # P5: one round, every random event a chance node
        hidden=("letters",),  # P7: full games only
    ),
)

__all__ = ["GAME", "action_table", "env", "observation_table", "parallel_env", "raw_env"]

#: keywords of the documented "every variant" observation table
ALL_VARIANTS: dict[str, Any] = {"game": "full", "stock": True, "letters": True, "tokens": True}


class raw_env(PigAECEnv):
    """The AEC version without wrappers (illegal actions raise ``ValueError``)."""


def parallel_env(**kwargs: Any) -> PigParallelEnv:
    """The native ``ParallelEnv`` (keywords in the module docstring)."""
    return PigParallelEnv(**kwargs)


def env(**kwargs: Any):
    """The AEC version with PettingZoo's classic wrappers (keywords in the module docstring)."""
    return wrap_classic(raw_env(**kwargs))


def observation_table(**kwargs: Any) -> str:
    """Markdown table of the observation layout for these constructor keywords."""
    return GAME.observation_table(**kwargs)


def action_table(**kwargs: Any) -> str:
    """Markdown table of the action indices for these constructor keywords."""
    return GAME.action_table(**kwargs)
