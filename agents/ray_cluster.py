"""Connecting to Ray: the running session, a cluster at an address, or a new local Ray.

Shared by the tournament's Ray backend and RLlib training, so that neither reaches into the
other's layer. Ray is optional (the ``ray`` extra): every failure is a
:class:`BackendUnavailable` with one line saying what to do.
"""

from __future__ import annotations

import socket
from typing import Any

from kiaule_env.extras import install_hint

#: seconds to wait for a TCP connection to ``--address`` before saying it cannot be reached
CONNECT_TIMEOUT_S = 5.0


class BackendUnavailable(RuntimeError):
    """The execution backend cannot run: Ray is not installed, or its cluster is unreachable."""


def import_ray() -> Any:
    """The ``ray`` module; :class:`BackendUnavailable` (one line) when it is not installed."""
    try:
        import ray
    except ImportError:
        raise BackendUnavailable(
            f"the ray backend needs Ray, which is not installed; {install_hint('ray')} "
            "(or use --backend local)"
        ) from None
    return ray


def _check_reachable(address: str) -> None:
    """Fail fast (one line) when ``host:port`` (or ``ray://host:port``) takes no connection;
    ``ray.init`` itself retries for a minute or more before giving up."""
    target = address.removeprefix("ray://")
    host, sep, port = target.rpartition(":")
    if not sep or not port.isdigit():
        return  # "auto", "local" and the like: Ray's own lookup decides
    try:
        socket.create_connection((host or "127.0.0.1", int(port)), CONNECT_TIMEOUT_S).close()
    except OSError as exc:
        raise BackendUnavailable(
            f"cannot reach the Ray cluster at --address {address}: {exc.strerror or exc} "
            "(start it with `ray start --head` and give the address it prints)"
        ) from None


def connect(address: str | None = None, num_cpus: int | None = None) -> Any:
    """Connect to Ray: the running session if any, else the cluster at ``address``, else a new
    local Ray with ``num_cpus`` CPUs (default: all). Returns the ``ray`` module."""
    ray = import_ray()
    if ray.is_initialized():
        return ray
    if address is not None and not isinstance(address, str):
        raise TypeError(f"address must be a string like 'host:6379' or None, got {address!r}")
    if address:
        _check_reachable(address)
    kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
    if address:
        kwargs["address"] = address
    else:
        kwargs["num_cpus"] = num_cpus
    try:
        ray.init(**kwargs)
    except (ConnectionError, RuntimeError, ValueError, TimeoutError) as exc:
        where = f"the Ray cluster at --address {address}" if address else "a local Ray"
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise BackendUnavailable(f"cannot start or reach {where}: {first}") from None
    return ray


def cluster_cpus(ray: Any) -> int:
    """The CPUs of the connected cluster (the default number of actors)."""
    return max(1, int(ray.cluster_resources().get("CPU", 1)))
