"""A store whose engine is asked at first use: what :func:`neardup.ingest.store.open_store` returns for
``engine`` when no engine answers at connect (``neardup serve`` and the workers start before the
node, and report it unavailable until it answers, like any outage)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from neardup.ingest.store.roles import EngineStore

__all__ = ["LazyStore"]


class LazyStore(EngineStore):
    """Every method opens the real store first (``opener()``: detection, then the backend),
    once it can; until then it raises :class:`StoreUnavailable` as the engine would. ``index``
    is the pages index it will open."""

    def __init__(self, opener: Callable[[], EngineStore], index: str) -> None:
        self._opener = opener
        self.index = index
        self._store: EngineStore | None = None
        self._lock = threading.Lock()
        self._observers: list[Callable[[str, float], None]] = []

    def _resolve(self) -> EngineStore:
        with self._lock:
            if self._store is None:
                store = self._opener()  # StoreUnavailable while nothing answers
                for callback in self._observers:
                    store.observe_requests(callback)
                self._store = store
            return self._store

    def observe_requests(self, callback: Callable[[str, float], None]) -> None:
        if self._store is None:
            self._observers.append(callback)
        else:
            self._store.observe_requests(callback)

    def product_headers(self) -> dict[str, str]:
        # never a request of its own: asked on every answer of neardup serve
        return {} if self._store is None else self._store.product_headers()

    def close(self) -> None:
        if self._store is not None:
            self._store.close()


def _delegate(name: str) -> Callable[..., Any]:
    def method(self: LazyStore, *args: Any, **kwargs: Any) -> Any:
        return getattr(self._resolve(), name)(*args, **kwargs)

    method.__name__ = name
    method.__doc__ = getattr(EngineStore, name).__doc__
    return method


# Everything else of every role goes to the real store.
for _role in EngineStore.__mro__:
    for _name in [n for n in vars(_role) if not n.startswith("_") and callable(vars(_role)[n])]:
        if _name not in vars(LazyStore):
            setattr(LazyStore, _name, _delegate(_name))
LazyStore.__abstractmethods__ = frozenset()
