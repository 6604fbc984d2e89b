"""The one retry policy for transient failures (a node restarting, a broker blip).

Exponential backoff with jitter, bounded by time: the wait before retry ``n`` (0-based) is
uniform in ``[½, 1] × min(initial × 2**n, cap)`` seconds (:func:`backoff`), and the retries stop
once ``budget`` seconds have passed since the first attempt — an outage is waited out for a
duration, however many attempts that takes. :func:`retry_call` runs the loop (with tenacity);
a Celery task that retries itself (``self.retry``) takes its countdown from :func:`backoff`.
opensearch-py's own transport and bulk retries are left to it.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from typing import TypeVar

from tenacity import RetryCallState, Retrying, retry_if_exception_type, stop_after_delay
from tenacity.wait import wait_base

from neardup.ingest.store.errors import StoreUnavailable

__all__ = ["TRANSIENT", "backoff", "retry_call"]

log = logging.getLogger(__name__)

T = TypeVar("T")

# What "transient" means for a caller of the store or the broker.
TRANSIENT: tuple[type[BaseException], ...] = (StoreUnavailable, ConnectionError, TimeoutError)


def backoff(
    retries: int,
    initial: float = 0.5,
    cap: float = 10.0,
    rng: Callable[[], float] = random.random,
) -> float:
    """Seconds to wait before retry number ``retries`` (0 for the first retry): uniform in
    ``[½, 1] × min(initial × 2**retries, cap)``.

    >>> backoff(0, initial=1.0, cap=30.0, rng=lambda: 1.0), backoff(9, initial=1.0, cap=30.0, rng=lambda: 0.0)
    (1.0, 15.0)
    """
    return (0.5 + 0.5 * rng()) * min(initial * 2.0 ** min(retries, 30), cap)


class _Backoff(wait_base):
    def __init__(self, initial: float, cap: float) -> None:
        self.initial, self.cap = initial, cap

    def __call__(self, retry_state: RetryCallState) -> float:
        return backoff(retry_state.attempt_number - 1, self.initial, self.cap)


def retry_call(
    call: Callable[[], T],
    budget: float,
    on: tuple[type[BaseException], ...] = (StoreUnavailable,),
    initial: float = 0.5,
    cap: float = 10.0,
    before_retry: Callable[[BaseException, float], None] | None = None,
) -> T:
    """``call()``, again after each failure of a type in ``on`` (waits of :func:`backoff`),
    until it succeeds or ``budget`` seconds have passed since the first attempt; then the last
    failure is raised. ``before_retry(exc, wait_s)`` runs before each wait (to log, or to drop
    broken connections)."""

    def before_sleep(state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome is not None else None
        wait_s = state.next_action.sleep if state.next_action is not None else 0.0
        if before_retry is not None and exc is not None:
            before_retry(exc, wait_s)
        else:
            log.debug("retrying %r in %.1f s after %r", call, wait_s, exc)

    retrying = Retrying(
        retry=retry_if_exception_type(on),
        stop=stop_after_delay(budget),
        wait=_Backoff(initial, cap),
        before_sleep=before_sleep,
        reraise=True,
    )
    return retrying(call)
