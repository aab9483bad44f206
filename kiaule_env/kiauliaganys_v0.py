"""Kiauliaganys (Swineherd): the suit-forcing shedding game of RULES §2 (G1–G14, G10a), 2–6
players.

There is no deal: the shuffled deck lies face down and one card starts the open fund (G2). On
his turn a player *matches* the suit of the fund's top card (the suit the previous player
*dragged*) with a card from his hand or by searching the face-down cards, then *drags* one more
card of any suit onto the fund, choosing the suit the next player must find (G3–G6). Once the
face-down cards are gone, a player who cannot (or will not) match takes the fund's top card
instead. Whoever empties his hand after the table is gone is out, safe; the last player left is
the swineherd (loser), unless his last turn sheds all his cards: he "caught the pig by the tail"
(G7–G8). A deal that repeats a position too often, or runs past a turn cap, ends with the
player holding the most cards as the swineherd (G10, G10a).

    from kiaule_env import kiauliaganys_v0
    env = kiauliaganys_v0.env(num_players=4, render_mode="ansi")

or ``pettingzoo.make("aec", "kiaule/kiauliaganys-v0")``. The game's rules document, with every
decision the specification leaves open, is ``kiaule_env/kiauliaganys/RULES.md``.

Options (constructor keywords)
------------------------------
- ``num_players`` 2–6 (default 4); ``deck`` ``"52"`` (default), ``"54"`` (two jokers) or
  ``"36"`` (2–4 players only) (G1).
- ``pips`` ``"points"`` (default: A 11, 10 10, K 4, Q 3, J 2, others and jokers 0) or
  ``"face"`` (numerals 2–10 at face value) for the piglets (G9).
- ``max_turns`` (default 1000): the turn cap of a deal (G10).
- ``repetition`` (default 3): once no face-down cards remain, the deal ends when the position at
  the start of a turn occurs for the ``repetition``-th time; the player holding the most cards is
  the swineherd (G10a). ``None`` turns the rule off; otherwise an int ≥ 2.
- ``match_years`` ``None`` (default: an episode is one deal) or N (``True`` = 20): an episode is
  a match; deals continue until a player has N years (G11).
- ``reward`` ``"win_loss"`` (default) or ``"years"`` (G12).
- ``must_play_from_hand`` (default False): no ``search`` while holding the required suit or a
  joker; ``blind_drag_only_when_empty_hand`` (default False): ``drag blind`` only with an empty
  hand (G13).
- ``render_mode`` ``"ansi"``/``"human"``/``"rgb_array"`` (an image of the table with every hand
  face up, for videos; the ``render`` extra)/``None``; ``max_cycles`` (default ``None``) truncates
  after ``max_cycles × num_players`` agent steps.

``reset(seed=…, options={"deck": [card texts, top first]})`` stacks a deal: position 0 starts the
open fund, the rest is the face-down table, drawn from the top (G2). A match takes
``options={"decks": [deck, deck, …]}``, one per deal; later deals are shuffled from the seed.

Turns and agent steps
---------------------
Every decision is one agent step, forced ones included (G7a): a turn is a *match* step
(``play C``, ``search`` or ``take``) and, after a match, a *drag* step by the same agent
(``drag C``, ``drag RJ H``, ``drag blind``). A ``search`` is one step: it draws until a card of
the required suit (or a joker) appears and puts it on the fund; if the face-down cards run out
first, the same agent decides again (``play C`` or ``take``). After a match with an empty hand
and no face-down cards left the turn ends at once (a one-card move). Players who are out stay in
``env.agents`` (with all-zero masks) until the episode ends; the G8 last turn may follow the same
player's own turn.

Spaces
------
``observation_space(agent)`` is a ``Dict`` of ``observation`` (``Box(0, 1, float32)``) and
``action_mask`` (``Box(0, 1, int8)``, all zeros when it is not the agent's decision). The
observation encodes the agent's view (his hand and what is public) with the other players
relative to him (relative seat r is r places to his left; 0 is himself); card slices are indexed
by deck position (suit by suit C D H S, ranks low to high, jokers last). Its size is fixed for a
player count n and deck size d: ``3d + 25 + 13n + n·d`` (441 for four players and 52 cards). For
the default configuration:

| slice | index | size | content |
|---|---|---|---|
| `hand` | 0–51 | 52 | my cards (one per deck position) |
| `fund_top` | 52–103 | 52 | top card of the open fund (G3) |
| `fund` | 104–155 | 52 | every card in the open fund, all seen face up |
| `required_suit` | 156–160 | 5 | required suit C D H S, or any (G3) |
| `phase` | 161–162 | 2 | the player to act is matching / dragging (G4–G6) |
| `last_turn` | 163 | 1 | the player to act makes the G8 last turn |
| `face_down` | 164 | 1 | face-down cards left / deck size |
| `fund_size` | 165 | 1 | cards in the open fund / deck size |
| `turns` | 166 | 1 | turns made this deal / max_turns (G10) |
| `repetition` | 167 | 1 | times this turn's starting position has occurred / repetition (G10a) |
| `to_act` | 168–171 | 4 | who decides now, by relative seat |
| `hand_sizes` | 172–175 | 4 | cards held / deck size, by relative seat |
| `out` | 176–179 | 4 | out of the deal, safe (G7), by relative seat |
| `had_turn` | 180–183 | 4 | has had a turn this deal (G7), by relative seat |
| `face_up` | 184–391 | 208 | cards taken face up from the fund, still held (G5), by relative seat |
| `not_suit` | 392–407 | 16 | cards known not of suit C D H S (G4) / deck size, by relative seat |
| `match_years` | 408–411 | 4 | match years / match_years target (G11), by relative seat |
| `match_chance` | 412–427 | 16 | chance he holds suit C D H S or a joker, by relative seat |
| `next_chance` | 428–431 | 4 | match_chance of the player my drag sets the suit for (G6) |
| `unseen` | 432–436 | 5 | cards of suit C D H S, and jokers, I have not seen / deck size |
| `search_length` | 437–440 | 4 | expected cards a search for C D H S picks up (G4) / deck size |
| **total** | | **441** | |

``face_up`` and ``not_suit`` are what a careful player tracks about each hand: the cards a player
took face up from the fund and still holds, and how many of his other cards are known not to be
of each suit because he picked them up while searching for it (a lower bound: +k for k cards
picked up; −1 when he plays an unseen card that is neither of that suit nor a joker).
``repetition`` is the G10a count of the position the current turn started from (public: once the
face-down cards are gone every change to a hand is a public play or take), 0 while face-down
cards remain or with ``repetition=None``.
The last four slices are the public card counting of ``kiaule_env.kiauliaganys.counting``,
derived from the same view (the quantities the rule-based agent reasons with): per player and
suit the chance that he holds a card of the suit or a joker (my own row: 1 where I hold one;
for the others a face-up card makes it 1; his
hidden cards are a uniform draw from the cards I have not seen, minus those ``not_suit`` rules
out), the same for the player my drag will set the suit for, the unseen cards per suit, and the
expected length of a search for each suit while face-down cards remain.

The action space is ``Discrete(2d + 3 + 3j)`` with j jokers (107 for 52 cards, 117 for 54, 75
for 36). For the default deck:

| action | meaning |
|---|---|
| 0–51 | `play C` by deck position (2C … AS; G4, G5) |
| 52–103 | `drag C`: drag suited card C (2C … AS; G6) |
| 104 | `search`: draw face-down cards until a match (G4) |
| 105 | `take`: take the fund's top card, the turn ends (G5, G7) |
| 106 | `drag blind`: drag the top face-down card (G6) |

``env.unwrapped.legal_moves(agent)`` maps the legal actions to move texts: ``play 10H``,
``search``, ``take``, ``drag QS``, ``drag RJ H``, ``drag blind``.

Rewards and outcome
-------------------
Per deal (G12): the swineherd −1, every other player +1/(n−1); no loser (the pig caught by the
tail, or nobody still in): 0 each. ``reward="years"``: the swineherd −years, the others 0.
Rewards are paid in the step that ends the deal.

``infos[agent]["result"]`` at the end (G14): ``loser`` (agent or ``None``), ``years`` (cards
left in his hand), ``piglets`` (their pips), ``capped`` (ended by ``max_turns``), ``turns``,
``caught_by_tail`` (agent or ``None``), ``repetition`` (ended by G10a; ``capped`` is then
False). In a match these describe the last deal, plus
``match_years`` (years per agent) and ``deals``; each deal's outcome is also
``infos[agent]["deal_result"]`` in the step it ends.

Illegal actions: ``env()`` follows PettingZoo's classic convention (the offender gets −1 and the
episode ends); ``raw_env`` raises ``ValueError`` naming the action and the legal moves.

Batched env
-----------
``kiaule_env.vector.make("kiauliaganys", num_envs=…, seed=…, **options)`` plays every option of
this env in compiled code (``kiaule_env/kiauliaganys/vector.py``), with the same observations,
masks, rewards and results. Each slot keeps its deal's exact G10a position history (the
positions since the last irreversible change) in a pool shared by the batch, which grows with
the batch's total history: a slot's state is a 2,200-byte row plus its share of the pool (about
5 KB a slot in all after long random four-player play at batch 1024). In a match (G11) the
batch reports no per-deal ``deal_result``; ``info["final_result"]`` is the match's ``result``.

Version history: v0, first release; G10a (repetition, default on; one more observation entry)
added within v0; the card-counting slices (29 entries for four players) added within v0.
Model files record their observation layout and are refused for another one.
"""

from __future__ import annotations

from pettingzoo import AECEnv

from kiaule_env.core.aec import wrap_classic
from kiaule_env.core.game import GameDescriptor, OpenSpielBridge
from kiaule_env.kiauliaganys.env import KiauliaganysEnv
from kiaule_env.kiauliaganys.rules import Config


def _max_steps(config: Config) -> int | None:
    """G10: each turn a match step and a drag step; the G8 last turn adds one per seat; a
    match (G11) has no bound."""
    if config.match_years is not None:
        return None
    return 2 * config.max_turns + 2 * config.num_players


GAME = GameDescriptor(
    name="kiauliaganys",
    env_id="kiaule/kiauliaganys-v0",
    version=0,
    module=__name__,
    engine="kiaule_env.kiauliaganys.engine:Engine",
    api="aec",
    player_counts=(2, 3, 4, 5, 6),
    decks=("36", "52", "54"),
    teams=None,
    has_decisions=True,
    reward_range=(-1.0, 1.0),  # G12: swineherd −1, the others +1/(n−1)
    config=Config,
    max_steps=_max_steps,
    longest_game_reason=(
        "max_turns turns (G10, default 1000), each a match step and a drag step, and the G8 "
        "last turn; in practice far fewer: a position's third occurrence ends the deal (G10a); "
        "a match (G11) is unbounded"
    ),
    summary="shed cards by matching the required suit, then drag the suit the next must find",
    variants=(
        *({"num_players": n} for n in (2, 3, 4, 5, 6)),
        {"num_players": 4, "deck": "54"},
        {"num_players": 3, "deck": "36"},
        {"num_players": 4, "must_play_from_hand": True},
        {"num_players": 4, "match_years": 20},
        {"num_players": 6, "deck": "54", "blind_drag_only_when_empty_hand": True},
        {"num_players": 2, "deck": "36", "max_turns": 40, "pips": "face"},
    ),
    bench_options={"num_players": 4, "deck": "52"},
    benchmark_games=6000,
    benchmark_note="4 players, 52 cards; reward −1 swineherd, +1/3 others (G12)",
    small_options={"num_players": 3, "deck": "36"},
    openspiel=OpenSpielBridge(
        fixed={"match_years": None, "reward": "win_loss"},  # one deal; G12 ±1 returns
    ),
    vector="kiaule_env.kiauliaganys.vector:KiauliaganysVector",
    vector_policy="kiaule_env.kiauliaganys.vector_policy:HeuristicPolicy",
)

raw_env = KiauliaganysEnv


def env(**kwargs) -> AECEnv:
    """The AEC env with PettingZoo's classic wrappers (illegal action: −1, episode ends)."""
    return wrap_classic(raw_env(**kwargs))


def observation_table(**kwargs) -> str:
    """Markdown table of the observation layout for the given constructor keywords."""
    return GAME.observation_table(**kwargs)


def action_table(**kwargs) -> str:
    """Markdown table of the action indices for the given constructor keywords."""
    return GAME.action_table(**kwargs)


__all__ = ["GAME", "action_table", "env", "observation_table", "raw_env"]
