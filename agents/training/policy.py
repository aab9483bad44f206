"""A trained MaskablePPO policy as a small numpy function, and the agent that plays it.

Opponent snapshots in the training pool and learned agents in tournaments ask the policy for one
action at a time. A torch forward pass for a single observation costs far more in call overhead
than the arithmetic of a small MLP, so the actor network is copied into numpy arrays once and
evaluated here: this keeps opponents cheap inside the training wrapper (the wrapper must not
dominate training time) and makes learned agents fast in tournaments.

Only the actor is copied (``mlp_extractor.policy_net`` + ``action_net`` of SB3's
``MlpPolicy`` with a flatten feature extractor); the value network is not needed to act.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.base import Decision

ACTIVATIONS = ("tanh", "relu")


@dataclass
class NumpyPolicy:
    """The actor of a masked MLP policy: ``layers`` of (weight, bias) then the action head."""

    layers: list[tuple[np.ndarray, np.ndarray]]
    head: tuple[np.ndarray, np.ndarray]
    activation: str = "tanh"

    def __post_init__(self) -> None:
        if self.activation not in ACTIVATIONS:
            raise ValueError(
                f"activation {self.activation!r} is not supported; choose one of {ACTIVATIONS}"
            )

    @property
    def obs_size(self) -> int:
        first = self.layers[0][0] if self.layers else self.head[0]
        return int(first.shape[1])

    @property
    def num_actions(self) -> int:
        return int(self.head[0].shape[0])

    def logits(self, observation: np.ndarray) -> np.ndarray:
        """Unmasked action logits for one observation vector."""
        h = np.asarray(observation, dtype=np.float32)
        relu = self.activation == "relu"
        for weight, bias in self.layers:
            h = weight @ h + bias
            h = np.maximum(h, 0.0) if relu else np.tanh(h)
        return self.head[0] @ h + self.head[1]

    def probabilities(self, observation: np.ndarray, mask: np.ndarray) -> dict[int, float]:
        """The masked softmax over the legal actions, ``action -> probability``."""
        legal = np.flatnonzero(mask)
        if len(legal) == 0:
            raise ValueError("no legal action in the mask")
        z = self.logits(observation)[legal].astype(np.float64)
        p = np.exp(z - z.max())
        p /= p.sum()
        return {int(a): float(q) for a, q in zip(legal, p, strict=True)}

    def act(
        self,
        observation: np.ndarray,
        mask: np.ndarray,
        rng: np.random.Generator | None = None,
        deterministic: bool = True,
    ) -> int:
        """A legal action: the most probable one, or a sample of the masked softmax."""
        legal = np.flatnonzero(mask)
        if len(legal) == 0:
            raise ValueError("no legal action in the mask")
        if len(legal) == 1:
            return int(legal[0])
        z = self.logits(observation)[legal]
        if deterministic or rng is None:
            return int(legal[int(np.argmax(z))])
        p = np.exp(z - z.max())
        p /= p.sum()
        return int(legal[rng.choice(len(legal), p=p)])

    # ------------------------------------------------------------------ (de)serialisation
    def to_arrays(self) -> dict[str, np.ndarray]:
        """Flat ``name -> array`` dict (picklable, ``np.savez``-able)."""
        out: dict[str, np.ndarray] = {}
        for i, (w, b) in enumerate(self.layers):
            out[f"w{i}"], out[f"b{i}"] = w, b
        out["head_w"], out["head_b"] = self.head
        out["activation"] = np.array(self.activation)
        return out

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray]) -> NumpyPolicy:
        layers = []
        i = 0
        while f"w{i}" in arrays:
            layers.append(
                (np.asarray(arrays[f"w{i}"], np.float32), np.asarray(arrays[f"b{i}"], np.float32))
            )
            i += 1
        head = (np.asarray(arrays["head_w"], np.float32), np.asarray(arrays["head_b"], np.float32))
        return cls(layers, head, str(arrays["activation"]))

    @classmethod
    def from_state_dict(cls, state: Mapping[str, Any], activation: str) -> NumpyPolicy:
        """Copy the actor out of an SB3 ``MaskableActorCriticPolicy`` state dict."""

        def arr(key: str) -> np.ndarray:
            value = state[key]
            value = value.detach().cpu().numpy() if hasattr(value, "detach") else value
            return np.array(value, dtype=np.float32)

        prefix = "mlp_extractor.policy_net."
        indices = sorted(
            {int(k[len(prefix) :].split(".")[0]) for k in state if k.startswith(prefix)}
        )
        layers = [(arr(f"{prefix}{i}.weight"), arr(f"{prefix}{i}.bias")) for i in indices]
        if "action_net.weight" not in state:
            raise ValueError("not a MaskablePPO MlpPolicy state dict: no 'action_net.weight'")
        return cls(layers, (arr("action_net.weight"), arr("action_net.bias")), activation)

    @classmethod
    def from_sb3(cls, policy: Any) -> NumpyPolicy:
        """Copy the actor of a live SB3 policy (e.g. ``model.policy``) as a frozen snapshot."""
        return cls.from_state_dict(policy.state_dict(), activation_name(policy.activation_fn))


def activation_name(activation_fn: Any) -> str:
    """``"tanh"`` or ``"relu"`` for a torch activation class; ``ValueError`` otherwise."""
    name = getattr(activation_fn, "__name__", str(activation_fn)).lower()
    if name not in ACTIVATIONS:
        raise ValueError(f"activation {name!r} is not supported; use torch.nn.Tanh or nn.ReLU")
    return name


class PolicyAgent:
    """An agent that plays a :class:`NumpyPolicy` from the observation vector and mask alone.

    ``expected`` (obs size, number of actions) comes with the policy; a decision of another shape
    (another game or player count) is refused with ``ValueError`` rather than misread.
    """

    #: the training wrapper may skip building views and move texts for this agent
    observation_only = True

    def __init__(
        self,
        policy: NumpyPolicy,
        name: str = "snapshot",
        seed: int | None = 0,
        deterministic: bool = False,
        describe: str | None = None,
    ):
        self.policy = policy
        self.name = name
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)
        self._describe = describe or name

    def reset(self) -> None:
        pass

    def reseed(self, seed: int | None) -> None:
        """Restart the sampling generator (tournaments re-seed agents per game)."""
        self.rng = np.random.default_rng(seed)

    def act(self, decision: Decision) -> int:
        obs, mask = decision.observation, decision.action_mask
        if len(obs) != self.policy.obs_size or len(mask) != self.policy.num_actions:
            raise ValueError(
                f"{self._describe} expects observations of size {self.policy.obs_size} and "
                f"{self.policy.num_actions} actions, but {decision.agent} has observation size "
                f"{len(obs)} and {len(mask)} actions: the model was trained for another game or "
                "player count"
            )
        return self.policy.act(obs, mask, self.rng, self.deterministic)
