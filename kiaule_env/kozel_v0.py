# ruff: noqa: E501  (the Markdown tables of the docstring are generated and keep one row a line)
"""Kozel (Goat): the 2 v 2 trick-taking game of RULES.md §1 (K1–K16), as a PettingZoo AEC env.

    from kiaule_env import kozel_v0
    env = kozel_v0.env(render_mode="ansi")
    env.reset(seed=42)

or ``pettingzoo.make("aec", "kiaule/kozel-v0")``. Four players ``player_0 … player_3`` sit
clockwise; ``player_0 + player_2`` (team 0) play against ``player_1 + player_3`` (team 1). The
rules, with every decision the specification left open, are in ``kiaule_env/kozel/RULES.md``.

Options (constructor keywords)
------------------------------

| keyword | default | values |
|---|---|---|
| `num_players` | `4` | only 4 (K1) |
| `deck` | `"36"` | only `"36"` (K2) |
| `trump_card` | `"middle"` | `"middle"`: the indicator stays in the middle of the stock; `"bottom"`: it goes face up to the bottom (drawn last) (K4) |
| `molodka` | `"any"` | `"any"`, `"trumps"` (only four trumps may claim), `None` (off) (K8) |
| `beat_partner` | `True` | `False`: a player whose partner owns the winning set may only discard (K6) |
| `eggs` | `None` | `None`: 60–60 gives no loss points; `"double"` (series only): the next decided game's loss points ×2^k after k eggs (K13) |
| `series` | `False` | `True`: an episode is a series, until a team has 12+ loss points (K14) |
| `reward` | `"loss_points"` | `"loss_points"`, `"win_loss"` (±1), `"card_points"` ((team points − 60) / 60) (K15) |
| `render_mode` | `None` | `"ansi"` (``render()`` returns the table from above), `"human"` (prints it), `"rgb_array"` (an image of the table for videos, every hand and discard face up; the `render` extra) |
| `max_cycles` | `None` | truncate after `max_cycles × 4` agent steps |

Bad values raise ``ValueError`` saying what is allowed.

Stacked decks: ``env.reset(seed=…, options={"deck": [36 card texts, top first]})`` fixes the deal
(K3: positions 0–15 go one at a time to the seats clockwise from the dealer's left, 16–35 are the
stock, top first; the indicator is deck position 26). In a series, ``options={"decks": [deck, …]}``
gives one deck per game; later games are shuffled from the seed. A deck that is not a permutation of
the 36-card deck raises ``ValueError`` naming the problem.

Spaces
------

``observe(agent)`` returns ``{"observation": float32[490], "action_mask": int8[47]}``; the mask
is all zeros for an agent who is not to act. The observation encodes only what that player knows
(his :class:`~kiaule_env.kozel.rules.View`, also ``env.unwrapped.view(agent)``), other players
relative to him: ``left`` is the next seat clockwise (he plays after me), ``partner`` sits
opposite, ``right`` plays before me. Card slices have 36 entries in the deck's canonical order
(clubs, diamonds, hearts, spades; each 6 7 8 9 10 J Q K A).

Observation:

| slice | index | size | content |
|---|---|---|---|
| `hand` | 0–35 | 36 | my cards (1 = in my hand) |
| `trump` | 36–39 | 4 | trump suit, one-hot C D H S (K4) |
| `indicator` | 40–75 | 36 | the trump indicator card, one-hot (K4) |
| `indicator_where` | 76–81 | 6 | where the indicator is, one-hot: in the stock / with me (held or discarded by me) / publicly tied to left / partner / right (drew it, not yet seen played) / seen face up |
| `indicator_depth` | 82 | 1 | its index from the top of the stock / 20 (0 if not there) |
| `stock_size` | 83 | 1 | cards left in the stock / 20 |
| `hand_sizes` | 84–87 | 4 | cards in hand / 4, me/left/partner/right |
| `phase` | 88–90 | 3 | one-hot: lead / respond (beat or discard) / molodka claim window (K8) |
| `cards_to_play` | 91–94 | 4 | one-hot number of cards each player plays this trick (1–4) |
| `leader` | 95–98 | 4 | the trick's leader (the claimant after a claim), one-hot me/left/partner/right |
| `claimed` | 99 | 1 | 1 if a molodka was claimed this trick (K8) |
| `trick_me` | 100–135 | 36 | face-up cards I put in the current trick (lead or beat) |
| `trick_left` | 136–171 | 36 | face-up cards left put in the current trick |
| `trick_partner` | 172–207 | 36 | face-up cards partner put in the current trick |
| `trick_right` | 208–243 | 36 | face-up cards right put in the current trick |
| `trick_discarded` | 244–247 | 4 | 1 if that player discarded face down this trick, me/left/partner/right |
| `trick_played` | 248–251 | 4 | 1 if that player has played in this trick, me/left/partner/right |
| `winning_seat` | 252–255 | 4 | owner of the currently winning set (K6), one-hot me/left/partner/right |
| `to_beat` | 256–291 | 36 | the currently winning set: the cards a beat must pair off (K6) |
| `declined` | 292–295 | 4 | 1 if that player declined a molodka claim this trick, me/left/partner/right |
| `seen` | 296–331 | 36 | cards seen face up this game that left the hands |
| `known_left` | 332–367 | 36 | cards public knowledge puts with left (K4 indicator, K8 returned lead): 1 = in his hand, 0.5 = in his hand or among his later face-down discards |
| `known_partner` | 368–403 | 36 | the same for partner |
| `known_right` | 404–439 | 36 | the same for right |
| `my_discards` | 440–475 | 36 | my own face-down discards this game |
| `points_known` | 476–477 | 2 | card points known in tricks taken, my team / other team, / 120: face-up cards plus my own discards (K11) |
| `tricks_taken` | 478–479 | 2 | tricks taken, my team / other team, / 9 |
| `cards_taken` | 480–481 | 2 | cards in the tricks taken, my team / other team, / 36 |
| `dealer` | 482–485 | 4 | this game's dealer, one-hot me/left/partner/right |
| `series_loss` | 486–487 | 2 | series loss points (K14), my team / other team, / 12 (0 outside series) |
| `eggs_streak` | 488 | 1 | consecutive eggs games just before this one (K13), min(k, 4) / 4 |
| `game_index` | 489 | 1 | games finished before this one in the series, min(g, 20) / 20 |
| **total** | | **490** | |

Actions (``Discrete(47)``). A card move picks a subset of the mover's hand sorted by suit
(C D H S) and then rank in the K2 order (6 7 8 9 J Q K 10 A); bit ``i`` of the subset is the
``i``-th card. ``env.unwrapped.legal_moves(agent)`` maps every legal action to its move text
(``lead 7S AS``, ``beat 8S 6H``, ``discard 9C 6D``, ``claim``, ``decline``).

| action | meaning |
|---|---|
| 0–14 | `lead C…`: lead the hand subset `a + 1` (bit i = i-th card of the sorted hand) (K5) |
| 15–29 | `beat C…`: beat with the hand subset `a − 14` (K6) |
| 30–44 | `discard C…`: discard the hand subset `a − 29` face down (K6) |
| 45 | `claim`: claim the lead with a molodka (K8) |
| 46 | `decline`: let the molodka claim pass (K8) |

Every decision is one agent step, including each ``claim``/``decline`` of the molodka window (K8).

Rewards
-------

Paid at the end of each game (every game of a series, K15): ``"loss_points"`` (default) gives
each member of the losing team −loss points (2, 4 or 6, K12; ×2^k with ``eggs="double"``) and
each winner +loss points; eggs (60–60) pay 0. ``"win_loss"``: ±1, eggs 0. ``"card_points"``:
(team card points − 60) / 60. Rewards are zero-sum.

Outcome
-------

At the end of the episode ``infos[agent]["result"]`` (the same for all agents) holds the K16
fields of the last game: ``team_points`` [team0, team1], ``loss_points`` [team0, team1],
``tricks`` [team0, team1], ``eggs`` (bool), ``trump`` (suit letter); in a series also
``series_loss_points`` [team0, team1] and ``games``. In the step that finishes any game,
``infos[agent]["game_result"]`` holds that game's outcome (in a series: after every game).

Illegal actions
---------------

``env()`` stacks PettingZoo's classic wrappers, like ``texas_holdem_v4``: an illegal action ends
the episode with −1 for the offender and 0 for the others. ``raw_env`` raises ``ValueError``
naming the action and the legal moves with their texts.

Version history
---------------

* v0: first release.
"""

from __future__ import annotations

from pettingzoo import AECEnv

from kiaule_env.core.aec import wrap_classic
from kiaule_env.core.game import GameDescriptor, OpenSpielBridge
from kiaule_env.kozel.env import KozelEnv
from kiaule_env.kozel.rules import Config

#: K12/K15: the largest return of one seat in a single game, per reward
_UTILITY = {"loss_points": 6.0, "win_loss": 1.0, "card_points": 1.0}


def _max_steps(config: Config) -> int | None:
    """K5–K8: a game is 9 tricks of at most 4 plays and 3 claim decisions; a series has no
    bound (K13 eggs games pay no loss points)."""
    return None if config.series else 63


__all__ = ["GAME", "action_table", "env", "observation_table", "raw_env"]

GAME = GameDescriptor(
    name="kozel",
    env_id="kiaule/kozel-v0",
    version=0,
    module=__name__,
    engine="kiaule_env.kozel.engine:Engine",
    api="aec",
    player_counts=(4,),
    decks=("36",),
    teams=((0, 2), (1, 3)),  # K1
    has_decisions=True,
    reward_range=(-6.0, 6.0),  # K12 loss points of one game; a series pays every game
    config=Config,
    max_steps=_max_steps,
    longest_game_reason=(
        "one game: 9 tricks of at most 4 plays and 3 claim/decline decisions each (63 "
        "decisions, K5–K8); a series (K14) ends when a team reaches 12 loss points, after "
        "any number of eggs games (K13)"
    ),
    summary="2 v 2 trick-taking with trump, multi-card leads and face-down discards",
    variants=(
        {},
        {"trump_card": "bottom"},
        {"molodka": "trumps"},
        {"molodka": None, "beat_partner": False},
        {"series": True},
        {"series": True, "eggs": "double", "reward": "win_loss"},
        {"reward": "card_points"},
    ),
    benchmark_games=16000,
    benchmark_note="2 v 2, one agent per team (K1); single games (K15 loss points)",
    vector="kiaule_env.kozel.vector:KozelVector",
    vector_policy="kiaule_env.kozel.vector_policy:HeuristicPolicy",
    openspiel=OpenSpielBridge(
        fixed={"series": False},  # K14: one game, every random event in its deal
        hidden=("num_players", "deck", "eggs"),  # K1, K2: one value; K13: series only
        utility=lambda engine: _UTILITY[engine.config.reward],
    ),
)

raw_env = KozelEnv


def env(**kwargs) -> AECEnv:
    """The Kozel AEC env with PettingZoo's classic wrappers (see the module docstring)."""
    return wrap_classic(raw_env(**kwargs))


def observation_table(**kwargs) -> str:
    """The observation layout as a Markdown table (the same for every option)."""
    return GAME.observation_table(**kwargs)


def action_table(**kwargs) -> str:
    """The action space as a Markdown table (generated from the codec)."""
    return GAME.action_table(**kwargs)
