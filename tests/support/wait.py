"""The one way a test waits: poll a probe until what it sees is good enough.

A fixed sleep is either too short (a flaky test) or too long (a slow one), and a wait that
swallows every exception turns a typo into a timeout. :func:`wait_for` polls, lets through
only the transient errors it is told to expect (a service restarting), and on timeout fails
with the last value it saw and the last error it tolerated.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def wait_for(
    probe: Callable[[], T],
    what: str,
    timeout: float,
    *,
    until: Callable[[T], Any] = bool,
    tolerate: tuple[type[BaseException], ...] = (),
    interval: float = 0.2,
    describe: Callable[[T], str] = repr,
    context: Callable[[], str] | None = None,
) -> T:
    """Call ``probe()`` every ``interval`` seconds until ``until(value)`` is true; return that
    value.

    ``tolerate``: exception types ``probe`` may raise meanwhile (say, ``ConnectionError``
    while a node restarts); they are remembered and the polling goes on. Any other exception
    propagates at once. After ``timeout`` seconds an :class:`AssertionError` says ``what`` was
    awaited, the last value seen (as ``describe(value)`` puts it), the last tolerated error, and
    ``context()`` (say, the logs of the processes involved).

    >>> wait_for(iter([0, 1, 2]).__next__, "a count of 2", 5, until=lambda n: n >= 2, interval=0)
    2
    """
    deadline = time.monotonic() + timeout
    seen: list[T] = []
    error: BaseException | None = None
    while True:
        try:
            value = probe()
        except tolerate as exc:
            error = exc
        else:
            if until(value):
                return value
            seen[:] = [value]
        if time.monotonic() >= deadline:
            break
        time.sleep(interval)
    last = describe(seen[0])[:2000] if seen else "no value (every call raised)"
    message = f"timed out after {timeout:g} s waiting for {what}; last seen: {last}"
    if error is not None:
        message += f"; last error: {error!r}"
    if context is not None:
        message += "\n" + context()
    raise AssertionError(message)
