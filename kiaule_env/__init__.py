"""kiaule-env: PettingZoo environments for Kozel, Kiauliaganys, Pig and Elgeta.

Importing the package registers every environment in PettingZoo's registry::

    import pettingzoo, kiaule_env
    env = pettingzoo.make("aec", "kiaule/kozel-v0")

and the versioned modules work in PettingZoo's module style::

    from kiaule_env import kozel_v0
    env = kozel_v0.env(render_mode="ansi")
"""

from __future__ import annotations

from pettingzoo import register

__version__ = "0.1.0"

#: env id -> versioned module, for every game of the suite.
ENV_MODULES: dict[str, str] = {
    "kiaule/kozel-v0": "kiaule_env.kozel_v0",
    "kiaule/kiauliaganys-v0": "kiaule_env.kiauliaganys_v0",
    "kiaule/pig-v0": "kiaule_env.pig_v0",
    "kiaule/elgeta-v0": "kiaule_env.elgeta_v0",
}

for _env_id, _module in ENV_MODULES.items():
    register("aec", _env_id, f"{_module}:env")
register("parallel", "kiaule/pig-v0", "kiaule_env.pig_v0:parallel_env")
