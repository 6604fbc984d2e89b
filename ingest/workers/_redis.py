"""What the batch staging (:mod:`.staging`) and the group forest (:mod:`.forest`) share of
Redis: the connection, an index's key prefix, the Lua scripts kept beside this module (read
with :mod:`importlib.resources`, so they ship as package data), and a broker outage as a
transient error."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache, wraps
from importlib.resources import files
from typing import Any, TypeVar

import redis

__all__ = ["connect", "key_prefix", "script", "text", "transient"]

F = TypeVar("F", bound=Callable[..., Any])

# A broker restarting or unreachable: the callers' transient errors (neardup.ingest.retry.TRANSIENT).
_REDIS_DOWN = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError,
               redis.exceptions.BusyLoadingError)


def transient(func: F) -> F:
    """``func`` with a broker outage raised as :class:`ConnectionError` (retried by callers)."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except _REDIS_DOWN as exc:
            raise ConnectionError(f"broker unreachable: {exc}") from exc

    return wrapper  # type: ignore[return-value]


def text(value: Any) -> str:
    """A Redis reply (bytes) as text."""
    return value.decode() if isinstance(value, bytes) else str(value)


def connect(url: str) -> Any:
    """A client of the Redis at ``url`` (the broker's server)."""
    return redis.Redis.from_url(url, socket_timeout=30, socket_connect_timeout=10,
                                health_check_interval=30)


def key_prefix(index: str) -> str:
    """The prefix of every key of ``index``, so indices never mix."""
    return f"neardup:{index}:"


@cache
def _lua(name: str) -> str:
    return files("neardup.ingest.workers").joinpath(name).read_text(encoding="utf-8")


def script(client: Any, name: str) -> Any:
    """The Lua script ``name`` (a file beside this module) registered on ``client``."""
    return client.register_script(_lua(name))
