"""Celery tasks: verify documents against group representatives and write ``dup_group`` back.

Steps 2-3 of the method on the OpenSearch backend. A task carries document *ids* only and
re-reads everything (the world may have changed since it was queued); it is idempotent — a
document that is no longer ``pending`` is left alone — so redelivery is harmless and
``acks_late`` is safe. The decision itself is :func:`verifier.grouping.decide`; the reads,
the write-back with optimistic concurrency and the merges are :mod:`verifier.worker`; this
module is the Celery side: settings, the retries, re-queueing and the dead-letter list.

Failure policy:

- Transient store/broker trouble (:class:`~ingest.store.errors.StoreUnavailable`, connection
  errors) → the whole batch is retried with exponential backoff (capped at 30 s) and jitter
  (:func:`ingest.retry.backoff`).
  The retries are bounded by *time*, not by count: an outage (a restarting OpenSearch node) is
  waited out for :data:`OUTAGE_BUDGET` seconds from the batch's first failure, however many attempts
  that takes, so healthy documents are not dead-lettered because a node took a minute to come
  back. The batch is idempotent, so a partial first attempt is fine.
- A document whose earlier candidates are still pending is re-queued with a short countdown.
  That is waiting, not failing: it does not count against the retries.
- Anything else raised while handling one document (a poison document: extraction, verifier
  or data error) → that document is marked ``status=error`` with the message and pushed to the
  dead-letter list (:func:`dead_letter_key`); the rest of the batch carries on. When retries
  are exhausted, every document of the batch still pending gets the same treatment.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from celery import Task

from ingest.errors import DocumentError
from ingest.records import Limits, dumps, validate_id
from ingest.retry import TRANSIENT, backoff, retry_call
from ingest.store import open_store
from ingest.store.base import Store
from verifier import timings
from verifier.celery_app import app, broker_url, settings
from verifier.compare import compare
from verifier.config import VerifyConfig
from verifier.grouping import PENDING
from verifier.worker import DEFAULT_K, mark_error_in_store, verify_ids

__all__ = [
    "OUTAGE_BUDGET",
    "dead_letter_key",
    "checked_ids",
    "enqueue",
    "mark_error",
    "open_task_store",
    "publish_with_retry",
    "queue_consumers",
    "verify",
    "verify_batch",
]

log = logging.getLogger(__name__)
log.addHandler(logging.NullHandler())

# Seconds a batch keeps retrying through a store/broker outage, from the outage's first failure.
OUTAGE_BUDGET = settings.outage_budget
# A document waits this many times (≈ an hour at the capped countdown) for earlier candidates.
MAX_WAITS = settings.max_waits
# Documents per verify_batch message (NEARDUP_MESSAGE_BATCH): a batch is read in three
# requests and written in about one, so larger is cheaper, up to the visibility timeout.
MESSAGE_BATCH = settings.message_batch


def dead_letter_key() -> str:
    """The Redis list poison documents are pushed to (``NEARDUP_DEAD_LETTER``)."""
    return settings.dead_letter


# --- store access -----------------------------------------------------------------------------

_stores: dict[tuple[int, str], Store] = {}
_stores_lock = threading.Lock()


def open_task_store(index: str | None) -> Store:
    """This process's store for ``index`` (one client per process, created after fork)."""
    index = index or settings.index
    key = (os.getpid(), index)
    with _stores_lock:
        store = _stores.get(key)
        if store is None:
            store = open_store(
                "engine", settings, index=index, batch_query_hits=BATCH_QUERY_HITS
            )
            store.observe_requests(lambda kind, seconds: timings.add("os" + kind, seconds))
            _stores[key] = store
        return store


# The most matching documents one batch candidate search may return (beyond, the batch takes
# the per-document queries; ingest.store.engine).
BATCH_QUERY_HITS = settings.batch_query_hits


# The input rules of every path (ingest.records): the ids a message carries, the pages read back.
LIMITS = Limits.from_settings(settings)


def mark_error(store: Store | None, doc_id: str, error: str) -> None:
    """Dead-letter a poison document: ``status=error`` on the document (best effort) and a
    JSON record on the dead-letter list."""
    error = error[:2000]
    mark_error_in_store(store, doc_id, error)
    _dead_letter({"id": doc_id, "error": error, "at": time.time()})


def _dead_letter(record: dict[str, Any]) -> None:
    try:
        import redis

        client = redis.Redis.from_url(broker_url())
        client.lpush(dead_letter_key(), dumps(record))
    except Exception:
        log.exception("could not push %r to the dead-letter list", record.get("id"))


def checked_ids(ids: Any) -> list[str]:
    """The ids of a message that are ids (:func:`ingest.records.validate_id`); the others are
    dead-lettered with the reason (a message not written by neardup, or corrupted): they can
    be neither read nor marked in the index."""
    if isinstance(ids, str | bytes) or not isinstance(ids, list | tuple):
        log.error("a verify message must carry a list of ids, got %s", type(ids).__name__)
        _dead_letter({"id": None, "error": f"message without a list of ids: {ids!r}"[:2000],
                      "type": "parse_exception", "at": time.time()})
        return []
    good: list[str] = []
    for raw in ids:
        try:
            good.append(validate_id(raw, LIMITS))
        except DocumentError as exc:
            log.error("a verify message carries an invalid id: %s", exc)
            _dead_letter({"id": None, "error": f"invalid id in a verify message: {exc.message}",
                          "type": exc.type, "at": time.time()})
    return good


# --- Celery tasks --------------------------------------------------------------------------


def _compare_fn(profile: str) -> Callable[[str, str], Any]:

    config = VerifyConfig.profile(profile)

    def timed_compare(a: str, b: str) -> Any:
        t0 = time.perf_counter()
        try:
            return compare(a, b, config)
        finally:
            timings.add("verify", time.perf_counter() - t0)

    return timed_compare


class _VerifyTask(Task):  # type: ignore[misc]  # celery ships no types
    # Transient errors are retried by verify_batch itself, bounded by OUTAGE_BUDGET;
    # max_retries bounds anything else that asks for a retry.
    max_retries = None
    acks_late = True
    reject_on_worker_lost = True

    def on_failure(self, exc, task_id, args, kwargs, einfo) -> None:  # type: ignore[no-untyped-def]
        # Retries exhausted, or an unexpected error outside the per-document guard.
        ids = list(args[0]) if args else list(kwargs.get("ids", []))
        index = kwargs.get("index") or (args[1] if len(args) > 1 else None)
        try:
            store: Store | None = open_task_store(index)
        except Exception:
            store = None
        for doc_id in ids:
            try:
                doc = store.get(doc_id) if store is not None else None
            except Exception:
                doc = None
            if doc is None or doc.status == PENDING:
                mark_error(store, doc_id, f"gave up after {self.request.retries} retries: {exc!r}")


@app.task(bind=True, base=_VerifyTask, name="neardup.verify_batch")  # type: ignore[untyped-decorator]
def verify_batch(
    self: Task,
    ids: list[str],
    index: str | None = None,
    profile: str = "web",
    k: int = DEFAULT_K,
    waits: int = 0,
    outage_since: float | None = None,
) -> dict[str, int]:
    """Verify a batch of documents; re-queue those that must wait. Returns outcome counts
    and the batch's timings (``<phase>_s`` seconds, ``<phase>_n`` calls)."""
    phases = timings.start()
    t0 = time.perf_counter()
    try:
        counts: dict[str, Any] = dict(_verify_batch(self, ids, index, profile, k, waits))
        phases["batch_s"] = time.perf_counter() - t0
        counts.update((key, round(v, 4)) for key, v in phases.items())
        return counts
    except TRANSIENT as exc:  # retry the whole (idempotent) batch until the outage budget is spent
        since = outage_since if outage_since is not None else time.time()
        if time.time() - since > OUTAGE_BUDGET:
            raise  # → on_failure: the documents still pending are dead-lettered
        log.warning("batch of %d: %s; retrying", len(ids), exc)
        raise self.retry(
            exc=exc,
            countdown=backoff(self.request.retries, initial=1.0, cap=30.0),
            kwargs={"index": index, "profile": profile, "k": k, "waits": waits,
                    "outage_since": since},
        ) from exc
    finally:
        timings.stop()


def _verify_batch(
    self: Task, ids: list[str], index: str | None, profile: str, k: int, waits: int
) -> dict[str, int]:
    ids = checked_ids(ids)
    if not ids:
        return {}
    store = open_task_store(index)
    outcomes, waiting = verify_ids(store, ids, _compare_fn(profile), k, poison=mark_error,
                                   limits=LIMITS)
    counts: dict[str, int] = {}
    for outcome in outcomes.values():
        counts[outcome] = counts.get(outcome, 0) + 1
    if waiting:
        if waits >= MAX_WAITS:
            for doc_id in waiting:
                mark_error(store, doc_id, f"earlier candidates still pending after {waits} waits")
        else:
            countdown = min(0.2 * 1.5 ** min(waits, 10), 5.0)
            t0 = time.perf_counter()
            publish_with_retry(lambda: verify_batch.apply_async(
                (waiting,),
                {"index": index, "profile": profile, "k": k, "waits": waits + 1},
                countdown=countdown,
                queue=self.request.delivery_info.get("routing_key") if self.request.delivery_info else None,
            ))
            timings.add("requeue", time.perf_counter() - t0)
    return counts


@app.task(bind=True, base=_VerifyTask, name="neardup.verify")  # type: ignore[untyped-decorator]
def verify(
    self: Task, doc_id: str, index: str | None = None, profile: str = "web", k: int = DEFAULT_K
) -> dict[str, int]:
    """Verify one document (see :func:`verify_batch`)."""
    counts: dict[str, int] = verify_batch.run([doc_id], index=index, profile=profile, k=k)
    return counts


def enqueue(
    ids: Sequence[str],
    index: str,
    profile: str = "web",
    k: int = DEFAULT_K,
    batch: int | None = None,
    queue: str | None = None,
) -> int:
    """Queue ``verify_batch`` messages for ``ids`` (in order, ``batch`` ids each); returns the
    number of messages. Publishing retries while the broker is unreachable. ``batch``
    defaults to :data:`MESSAGE_BATCH`."""
    batch = batch or MESSAGE_BATCH
    n = 0
    for i in range(0, len(ids), batch):
        verify_batch.apply_async(
            (list(ids[i : i + batch]),),
            {"index": index, "profile": profile, "k": k},
            queue=queue,
            retry=True,
        )
        n += 1
    return n


def queue_consumers(queue: str | None = None, timeout: float = 1.0) -> list[str]:
    """Names of the workers that answer within ``timeout`` seconds and consume ``queue``
    (default: the configured one). Empty: no worker runs — or every one is too busy to answer
    (a ``solo`` worker answers between tasks), so callers ask only when nothing progresses."""
    queue = queue or settings.queue
    try:
        replies = app.control.inspect(timeout=timeout).active_queues() or {}
    except Exception:  # broker unreachable: nobody can be seen consuming
        return []
    return sorted(
        worker for worker, queues in replies.items()
        if any(q.get("name") == queue for q in queues or ())
    )


def publish_with_retry(send: Callable[[], Any], budget: float | None = None) -> Any:
    """``send()`` (a publish), again and again while the broker is unreachable, for up to
    ``budget`` seconds (:data:`OUTAGE_BUDGET`) — a worker's re-queue of the documents that
    wait. Celery's own publish retries cover connection errors only; while a Redis server
    restarts, kombu can also fail otherwise (an ``AttributeError`` from a half-closed
    channel), and a worker must not give its batch up (dead-letter healthy documents) for
    that. (:func:`enqueue` keeps Celery's bounded retries: the HTTP service answers 503 when
    the broker is down.)"""

    def start_over(exc: BaseException, wait_s: float) -> None:
        log.warning("publish failed (%r); retrying in %.1f s", exc, wait_s)
        try:  # start over with fresh broker connections
            app.pool.force_close_all()
        except Exception:
            log.debug("closing the producer pool failed", exc_info=True)

    return retry_call(
        send,
        budget=OUTAGE_BUDGET if budget is None else budget,
        on=(Exception,),
        before_retry=start_over,
    )
