"""The Celery tasks: decide accepted batches and index their pages once, with ``dup_group``.

Steps 2-3 of the method on the engine backend. Ingest stages a batch in Redis
(:mod:`neardup.ingest.workers.staging`) and queues a ``neardup.decide_batch`` message carrying
its key (:func:`submit`); the task (:func:`decide_batch_task`) runs
:func:`neardup.ingest.workers.batch.decide_batch`. It re-reads everything and is idempotent (a
redelivered batch is decided and written again, to the same result; one already indexed and
dropped from Redis is a no-op), so ``acks_late`` is safe.

Failure policy:

- Transient store/broker trouble (:class:`~neardup.ingest.store.errors.StoreUnavailable`, connection
  errors) → the whole batch is retried with exponential backoff (capped at 30 s) and jitter
  (:func:`neardup.ingest.retry.backoff`), bounded by *time*, not by count: an outage (a restarting
  node) is waited out for :data:`OUTAGE_BUDGET` seconds from the batch's first failure.
- A page that cannot be verified or indexed (a poison page) is indexed with ``status=error``
  when it can be, and pushed to the dead-letter list (:func:`dead_letter_key`); the rest of
  the batch carries on. When the retries are exhausted every page of the batch is
  dead-lettered, and the batch is dropped from the live set (ingest's ``--wait`` reports it).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from celery import Task

from neardup.ingest.jsoncodec import dumps_str
from neardup.ingest.retry import TRANSIENT, backoff, retry_call
from neardup.ingest.store import open_store
from neardup.ingest.store.base import GroupUpdate, StoredDocument
from neardup.ingest.store.roles import EngineStore
from neardup.ingest.workers import timings
from neardup.ingest.workers._redis import key_prefix
from neardup.ingest.workers.app import app, broker_url, settings
from neardup.ingest.workers.batch import DEFAULT_K, IndexParts, decide_batch
from neardup.ingest.workers.changes import ChangeLog
from neardup.ingest.workers.forest import RedisGroupForest
from neardup.ingest.workers.gate import Gate, GateBusy, RepairRunning
from neardup.ingest.workers.live import live_index
from neardup.ingest.workers.refresher import Refresher
from neardup.ingest.workers.repair import mark_written, repair, repairs_pending
from neardup.ingest.workers.staging import BatchStaging
from neardup.verifier.compare import compare
from neardup.verifier.config import VerifyConfig

__all__ = [
    "OUTAGE_BUDGET",
    "STALE_AFTER",
    "dead_letter_key",
    "decide_batch_task",
    "mark_error",
    "open_forest",
    "open_gate",
    "queue_repair",
    "repair_task",
    "open_staging",
    "open_task_store",
    "publish_with_retry",
    "queue_consumers",
    "republish",
    "submit",
]

log = logging.getLogger(__name__)

# Seconds a batch keeps retrying through a store/broker outage, from the outage's first failure.
OUTAGE_BUDGET = settings.outage_budget
# Pages per accepted batch (NEARDUP_MESSAGE_BATCH): a batch is read in about three requests
# and indexed in one, so larger is cheaper, up to the visibility timeout.
MESSAGE_BATCH = settings.message_batch


def dead_letter_key() -> str:
    """The Redis list poison documents are pushed to (``NEARDUP_DEAD_LETTER``)."""
    return settings.dead_letter


# --- store access -----------------------------------------------------------------------------

_clients: dict[tuple[int, str, str], Any] = {}
_clients_lock = threading.RLock()  # re-entered: a forest shares its staging's client


def _per_process(kind: str, index: str | None, make: Callable[[str], Any]) -> Any:
    """One client of ``kind`` per process and index, made after fork by ``make(index)``."""
    index = index or settings.index
    key = (os.getpid(), kind, index)
    with _clients_lock:
        client = _clients.get(key)
        if client is None:
            client = _clients[key] = make(index)
        return client


def _task_store(index: str) -> EngineStore:
    store = open_store("engine", settings, index=index)
    store.observe_requests(lambda kind, seconds: timings.add("os" + kind, seconds))
    return store


def open_task_store(index: str | None) -> EngineStore:
    """This process's store for ``index`` (one client per process, created after fork)."""
    store: EngineStore = _per_process("store", index, _task_store)
    return store


def open_staging(index: str | None) -> BatchStaging:
    """This process's :class:`~neardup.ingest.workers.staging.BatchStaging` for ``index`` (on
    the broker)."""
    staging: BatchStaging = _per_process(
        "staging", index, lambda name: BatchStaging.from_url(broker_url(), name)
    )
    return staging


def open_forest(index: str | None) -> RedisGroupForest:
    """This process's :class:`~neardup.ingest.workers.forest.RedisGroupForest` for ``index``
    (on the broker, through its staging's client)."""
    forest: RedisGroupForest = _per_process(
        "forest", index, lambda name: RedisGroupForest(open_staging(name).redis, name)
    )
    return forest


def _refresher(index: str | None, staging: BatchStaging, store: EngineStore) -> Refresher:
    """This process's :class:`~neardup.ingest.workers.refresher.Refresher` for ``index``."""
    refresher: Refresher = _per_process(
        "refresher", index,
        lambda _name: Refresher(staging, store.refresh_written, settings.refresh_every),
    )
    return refresher


def mark_error(store: EngineStore | None, doc_id: str, error: str) -> None:
    """Dead-letter a poison page: ``status=error`` on the page when it is indexed (best
    effort) and a JSON record on the dead-letter list."""
    error = error[:2000]
    if store is not None:
        try:
            store.update_group(GroupUpdate(doc_id, doc_id, None, None, None, "error", error))
        except Exception:
            log.debug("could not mark %r as error", doc_id, exc_info=True)
    _dead_letter({"id": doc_id, "error": error, "at": time.time()})


def _dead_letter(record: dict[str, Any]) -> None:
    try:
        import redis

        client = redis.Redis.from_url(broker_url())
        client.lpush(dead_letter_key(), dumps_str(record))
    except Exception:
        log.exception("could not push %r to the dead-letter list", record.get("id"))


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


class _DecideBatchTask(Task):  # type: ignore[misc]  # celery ships no types
    # Transient errors are retried by the task itself, bounded by OUTAGE_BUDGET;
    # max_retries bounds anything else that asks for a retry.
    max_retries = None
    acks_late = True
    reject_on_worker_lost = True

    def on_failure(self, exc, task_id, args, kwargs, einfo) -> None:  # type: ignore[no-untyped-def]
        # Retries exhausted, or an unexpected error outside the per-page guard: every page of
        # the batch is dead-lettered, and the batch leaves the live set.
        key = args[0] if args else kwargs.get("key")
        index = kwargs.get("index") or (args[1] if len(args) > 1 else None)
        if not isinstance(key, str):
            _dead_letter({"id": None, "error": f"decide message without a batch key: {key!r}"[:2000],
                          "type": "parse_exception", "at": time.time()})
            return
        try:
            staging = open_staging(index)
            batch = staging.load([key]).get(key)
        except Exception:
            log.exception("could not read batch %s to dead-letter it", key)
            return
        if batch is None:
            return
        for page in batch.pages:
            _dead_letter({"id": page.id, "error": f"gave up: {exc!r}"[:2000],
                          "at": time.time()})
        try:
            staging.drop_batch(key)
        except Exception:
            log.exception("could not drop batch %s", key)


# The registered name is a wire contract (deployed workers, queued messages): never rename it.
@app.task(bind=True, base=_DecideBatchTask, name="neardup.decide_batch")  # type: ignore[untyped-decorator]
def decide_batch_task(
    self: Task,
    key: str,
    index: str | None = None,
    profile: str = "web",
    k: int = DEFAULT_K,
    outage_since: float | None = None,
) -> dict[str, Any]:
    """Decide the accepted batch ``key`` and index its pages. Returns outcome counts and the
    batch's timings (``<phase>_s`` seconds, ``<phase>_n`` calls)."""
    phases = timings.start()
    t0 = time.perf_counter()
    try:
        if not isinstance(key, str) or not key.isalnum():
            _dead_letter({"id": None, "error": f"decide message with no batch key: {key!r}"[:2000],
                          "type": "parse_exception", "at": time.time()})
            return {}
        staging = open_staging(index)
        store = open_task_store(index)
        with open_gate(index).deciding():
            parts = IndexParts(store, staging, open_forest(index), _compare_fn(profile))
            counts: dict[str, Any] = dict(decide_batch(
                parts, key, k,
                poison=mark_error, searchable=_refresher(index, staging, store).written,
                written_hook=lambda pages: mark_written(staging.redis, staging.index, pages),
            ))
        counts["requeued"] = _requeue_stale(self, staging, profile, k)
        counts["repair"] = int(_repair_if_due(self, staging, profile, k))
        phases["batch_s"] = time.perf_counter() - t0
        counts.update((name, round(v, 4)) for name, v in phases.items())
        return counts
    except TRANSIENT as exc:  # retry the whole (idempotent) batch until the outage budget is spent
        since = outage_since if outage_since is not None else time.time()
        if time.time() - since > OUTAGE_BUDGET:
            raise  # → on_failure: the batch's pages are dead-lettered
        log.warning("batch %s: %s; retrying", key, exc)
        raise self.retry(
            exc=exc,
            countdown=backoff(self.request.retries, initial=1.0, cap=30.0),
            kwargs={"index": index, "profile": profile, "k": k, "outage_since": since},
        ) from exc
    finally:
        timings.stop()


def open_gate(index: str | None) -> Gate:
    """This process's :class:`~neardup.ingest.workers.gate.Gate` for ``index``."""
    gate: Gate = _per_process("gate", index, lambda name: Gate(open_staging(name).redis, name))
    return gate


def _queue_of(task: Task) -> str | None:
    info = task.request.delivery_info
    return info.get("routing_key") if info else None


def _repair_if_due(task: Task, staging: BatchStaging, profile: str, k: int) -> bool:
    """After a batch: queue a repair when changes wait for one, or when this was the last
    undecided batch and sites wait to be masked again (best effort: ``--wait`` asks too)."""
    try:
        pending = repairs_pending(staging.redis, staging.index)
        if pending["changes"] or (pending["sites"] and staging.undecided_count() == 0):
            return queue_repair(staging, profile, k, _queue_of(task))
    except Exception:
        log.exception("could not look for repairs")
    return False


def queue_repair(staging: BatchStaging, profile: str = "web", k: int = DEFAULT_K,
                 queue: str | None = None, force: bool = False) -> bool:
    """Queue one ``neardup.repair`` of ``staging``'s index unless one is queued already (a
    flag in Redis, cleared when a repair starts); True when queued. ``force`` (``--wait``
    asking): queued anyway, and it masks the marked sites again even while batches are
    undecided."""
    flag = key_prefix(staging.index) + "repair-queued"
    if not staging.redis.set(flag, "1", nx=True, px=60_000) and not force:
        return False
    repair_task.apply_async((), {"index": staging.index, "profile": profile, "k": k,
                                 "sweep": force}, queue=queue, retry=True)
    return True


# The registered name is a wire contract (deployed workers, queued messages): never rename it.
@app.task(bind=True, name="neardup.repair", acks_late=True, reject_on_worker_lost=True,  # type: ignore[untyped-decorator]
          max_retries=None)
def repair_task(self: Task, index: str | None = None, profile: str = "web",
                k: int = DEFAULT_K, sweep: bool = False) -> dict[str, Any]:
    """Apply the staged changes and mask again the sites whose counts changed
    (:func:`neardup.ingest.workers.repair.repair`), alone on the index; again later while
    batches accepted before a change are undecided or another repair runs."""
    staging = open_staging(index)
    staging.redis.delete(key_prefix(staging.index) + "repair-queued")
    phases = timings.start()
    t0 = time.perf_counter()
    try:
        with open_gate(index).repairing():
            parts = IndexParts(open_task_store(index), staging, open_forest(index),
                               _compare_fn(profile))
            done = repair(parts, ChangeLog(staging.redis, staging.index), sweep)
    except RepairRunning:
        # the repair running looks for work left once it has left the gate (below), and a
        # killed one's message comes back: this one is not needed
        log.info("repair of %s not needed: another repair runs", staging.index)
        return {"skipped": "another repair runs"}
    except (GateBusy, *TRANSIENT) as exc:  # type: ignore[misc]
        log.info("repair of %s put off: %s", staging.index, exc)
        raise self.retry(exc=exc, countdown=backoff(min(self.request.retries, 6),
                                                    initial=0.2, cap=5.0),
                         kwargs={"index": index, "profile": profile, "k": k,
                                 "sweep": sweep}) from exc
    finally:
        timings.stop()
    if done.get("waiting"):
        raise self.retry(countdown=0.2, kwargs={"index": index, "profile": profile, "k": k,
                                                "sweep": sweep})
    pending = repairs_pending(staging.redis, staging.index)
    if pending["changes"] or (pending["sites"] and staging.undecided_count() == 0):
        queue_repair(staging, profile, k, _queue_of(self))
    phases["repair_s"] = time.perf_counter() - t0
    out: dict[str, Any] = dict(done)
    out.update((name, round(v, 4)) for name, v in phases.items())
    return out


# A live batch still not indexed this long after its acceptance lost its message (a broker that
# restarted without its data, a publish that never happened): whichever worker notices queues
# it again. Twice the visibility timeout: a message held by a busy or dead worker comes back
# by itself before that.
STALE_AFTER = 2 * settings.visibility_timeout


def _requeue_stale(task: Task, staging: BatchStaging, profile: str, k: int) -> int:
    try:
        stale = staging.claim_stale(live_index(staging).older_than(STALE_AFTER), STALE_AFTER)
        queue = task.request.delivery_info.get("routing_key") if task.request.delivery_info \
            else None
        for key in stale:
            log.warning("batch %s accepted long ago is not indexed: queued again", key)
            republish(staging, key, profile, k, queue)
        return len(stale)
    except Exception:  # best effort: the next batch looks again
        log.exception("could not look for stale batches")
        return 0


def submit(
    staging: BatchStaging,
    pages: Sequence[StoredDocument],
    profile: str = "web",
    k: int = DEFAULT_K,
    queue: str | None = None,
    mode: str = "index",
) -> str:
    """Accept ``pages`` (prepared: text, fingerprints, metadata) as one batch and queue its
    decision; returns the batch key. Publishing retries while the broker is unreachable."""
    key, _ = staging.accept(pages, mode)
    decide_batch_task.apply_async(
        (key,), {"index": staging.index, "profile": profile, "k": k}, queue=queue, retry=True
    )
    return key


def republish(
    staging: BatchStaging, key: str, profile: str = "web", k: int = DEFAULT_K,
    queue: str | None = None,
) -> None:
    """Queue the decision of an accepted batch again (its message may have been lost)."""
    decide_batch_task.apply_async(
        (key,), {"index": staging.index, "profile": profile, "k": k}, queue=queue, retry=True
    )


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
