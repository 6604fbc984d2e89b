"""What the batch staging (:mod:`.staging`), the group forest (:mod:`.forest`) and the chrome
counts (:mod:`.chrome_counts`) share of Redis: the connection, an index's key prefix, the Lua
scripts kept beside this module (read with :mod:`importlib.resources`, so they ship as package
data), reading the members of a hash or a sorted set, and a broker outage as a transient
error."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache, wraps
from importlib.resources import files
from typing import Any, TypeVar

import redis

__all__ = ["connect", "hash_fields", "key_prefix", "script", "sorted_members", "text",
           "transient"]

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")

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


def hash_fields(client: Any, key: str, fields: Iterable[str],
                value: Callable[[Any], T]) -> dict[str, T]:
    """The fields among ``fields`` that the hash ``key`` holds, with ``value`` of each (one
    ``HMGET``)."""
    names = list(fields)
    if not names:
        return {}
    got = client.hmget(key, names)
    return {f: value(v) for f, v in zip(names, got, strict=True) if v is not None}


def sorted_members(client: Any, key: str, members: Iterable[str]) -> set[str]:
    """Which of ``members`` the sorted set ``key`` holds (one ``ZMSCORE``)."""
    names = list(members)
    if not names:
        return set()
    scores = client.zmscore(key, names)
    return {m for m, s in zip(names, scores, strict=True) if s is not None}


def key_prefix(index: str) -> str:
    """The prefix of every key of ``index``, so indices never mix."""
    return f"neardup:{index}:"


@cache
def _lua(name: str) -> str:
    return files("neardup.ingest.workers").joinpath(name).read_text(encoding="utf-8")


def script(client: Any, name: str, *uses: str) -> Any:
    """The Lua script ``name`` (a file beside this module) registered on ``client``, after the
    files of the local functions it uses (``uses``, files beside it too)."""
    return client.register_script("".join(_lua(u) + "\n" for u in uses) + _lua(name))
