"""JSON normal form of results and policies, shared by the play loop and game records.

Apart from both so that the play loop (which normalises every episode's result) and the records
(which play episodes) need not import each other.
"""

from __future__ import annotations

import json
from typing import Any


def to_plain(value: Any) -> Any:
    """A numpy value as plain Python, for ``json.dumps``; anything else cannot be stored."""
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"cannot store {type(value).__name__} in a game record")


def normalise(value: Any) -> Any:
    """JSON round trip, so results compare equal however they were produced."""
    return json.loads(json.dumps(value, default=to_plain))
