"""The order of a tournament's agents, best first, shared by the report and the plots.

Apart from both so that the plots (drawn by the report) need not import the report back.
"""

from __future__ import annotations

import math
from typing import Any


def ranked(summary: dict[str, Any]) -> list[str]:
    """Agents best first: by mean reward (the paired estimate), then OpenSkill ordinal.

    The mean reward over duplicate deals is the primary, order-free figure; OpenSkill ratings
    depend on the order games are rated in and serve as a second opinion and tie-break.
    """
    agents = summary["agents"]

    def key(a: str) -> tuple[float, float]:
        s = agents[a]
        mean = s["mean_reward"] if s["mean_reward"] is not None else -math.inf
        return (-mean, -(s["rating"]["ordinal"] or 0.0))

    return sorted(agents, key=key)
