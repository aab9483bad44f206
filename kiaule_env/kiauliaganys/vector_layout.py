"""The row layout of the batched Kiauliaganys env (:mod:`kiaule_env.kiauliaganys.vector`) and
of its G10a pool (:mod:`kiaule_env.kiauliaganys.vector_history`): word offsets that the env's
kernels, the pool's and :mod:`kiaule_env.kiauliaganys.vector_policy` read, so a module of their
own (``vector`` re-exports them under the same names).

A row starts with the information-set bookkeeping that the compiled twin leaves out (``x``: the
row's first :data:`EXTRA_WORDS` words):

=================  ======  ===============================================================
name (``X_…``)     size    content
=================  ======  ===============================================================
``FACE_UP``        6       per seat, the cards taken face up from the fund, still held (G5),
                           a bit mask of deck positions
``NOT_SUIT``       24      per seat and suit, cards known not of the suit (G4), the
                           engine's ``not_suit`` lower bound
``YEARS``          6       per seat, match years (G11)
``DEALS``          1       deals finished in the episode
``DEALER``         1       this deal's dealer (the next deal of a match starts from him)
``RNG``            ...     the episode's generator (:mod:`kiaule_env.vector.rng`): the
                           later deals of a match are shuffled from it, as the engine does
``MARK``           1       the G10a marker of the records the slot keeps
                           (:func:`kiaule_env.kiauliaganys.vector_history._marker`)
``NEWEST``         1       the slot's newest G10a record in the pool (-1: none)
``SHOWN_HAND``     1       the hand the observation's hand slice holds now
``SHOWN_TOP``      1       the card its fund-top slice marks now (-1: none)
``SHOWN_FUND``     1       the cards its fund slice holds now
``SHOWN_UP``       6       per relative seat, the face-up cards its slice holds now
=================  ======  ===============================================================

then the compiled twin's array (:mod:`kiaule_env.kiauliaganys.compiled`'s layout). It has no
history room (its ``CAPACITY`` is 0, so its ``apply`` leaves the G10a count to the batched env)
and is followed by :data:`KEY`'s ``KEY_WORDS`` words, the G10a key of the row's position in the
twin's packing (``_pack_key_into``): its card fields kept by every move, its position fields
written when a turn's start is counted. A record of the pool is a packed key's
``KEY_WORDS`` words, then :data:`RECORD_EXTRA` columns (``R_…``); the free stack (``int32``)
starts with the number of free records (:data:`FREE_COUNT`); an index entry is
``fingerprint << 32 | record + 1``.

numba compiles these constants into the kernels that read them, so those kernels are stamped
with this file (:func:`kiaule_env.vector.kernels.kernel_decorator`): an edit here recompiles
them.
"""

from __future__ import annotations

from kiaule_env.kiauliaganys import compiled as C
from kiaule_env.vector import rng

# the bookkeeping before the twin's part of a row (``x``: the row's first EXTRA_WORDS words)
X_FACE_UP = 0
X_NOT_SUIT = X_FACE_UP + C.MAX_SEATS
X_YEARS = X_NOT_SUIT + 4 * C.MAX_SEATS
X_DEALS = X_YEARS + C.MAX_SEATS
X_DEALER = X_DEALS + 1
X_RNG = X_DEALER + 1
X_MARK = X_RNG + rng.RNG_WORDS  # the G10a marker (vector_history._marker) of the records kept
X_NEWEST = X_MARK + 1  # the slot's newest G10a record in the pool (-1: none)
# what the slot's observation holds now in its bit slices (each step writes what changed)
X_SHOWN_HAND = X_NEWEST + 1  # the hand in the hand slice
X_SHOWN_TOP = X_SHOWN_HAND + 1  # the card marked as the fund's top (-1: none)
X_SHOWN_FUND = X_SHOWN_TOP + 1  # the fund's cards
X_SHOWN_UP = X_SHOWN_FUND + 1  # per relative seat, the face-up cards in its slice
#: words of the bookkeeping, the first of a row (the twin's array follows)
EXTRA_WORDS = X_SHOWN_UP + C.MAX_SEATS

_KEY_WORDS = C.key_words(C.MAX_CARDS)  # the most words a packed G10a key has
#: in the twin's part of a row, the G10a key of its position, kept move by move (``KEY_WORDS``
#: words where the twin's own arrays start their history: a row's twin array has none)
KEY = C.HISTORY

# a G10a record of the pool: its key's ``KEY_WORDS`` words, then these columns (after the key)
R_TALLY = 0  # the slot whose history it is << 32 | the position's occurrences
R_NEXT = 1  # the slot's next older record, or the next free record (-1: none)
#: columns of a record besides the key
RECORD_EXTRA = 2
# the pool's free records (``_free``, int32): their number, then the records, a stack
FREE_COUNT = 0
_FINGERPRINT = 0x7FFFFFFF  # an index entry: fingerprint << 32 | record + 1 (0: empty)
_RECORD_BITS = 0xFFFFFFFF
_COUNT_BITS = 0xFFFFFFFF  # a record's count in its tally word
