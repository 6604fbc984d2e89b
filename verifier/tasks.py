"""Celery tasks: verify documents against group representatives and write ``dup_group`` back.

Steps 2-3 of the method on the OpenSearch backend. A task carries document *ids* only and
re-reads everything (the world may have changed since it was queued); it is idempotent — a
document that is no longer ``pending`` is left alone — so redelivery is harmless and
``acks_late`` is safe. The decision itself is :func:`verifier.grouping.decide`; this module is
the I/O around it (store reads, write-back with optimistic concurrency, merges, retries).

Failure policy:

- Transient store/broker trouble (:class:`~ingest.store.errors.StoreUnavailable`, connection
  errors) → the whole batch is retried with exponential backoff (capped at 30 s) and jitter.
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

import json
import logging
import os
import random
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from celery import Task

from ingest.store.base import GroupUpdate, Store, StoredDocument
from ingest.store.errors import StoreUnavailable
from verifier.celery_app import app, broker_url
from verifier.grouping import GROUPED, PENDING, Decision, Peer, decide

__all__ = [
    "OUTAGE_BUDGET",
    "dead_letter_key",
    "earlier_candidates",
    "enqueue",
    "process_document",
    "retry_countdown",
    "verify",
    "verify_batch",
    "write_decision",
]

log = logging.getLogger(__name__)
log.addHandler(logging.NullHandler())

# Seconds a batch keeps retrying through a store/broker outage, from the outage's first failure.
OUTAGE_BUDGET = float(os.environ.get("NEARDUP_OUTAGE_BUDGET", "900"))
# A document waits this many times (≈ an hour at the capped countdown) for earlier candidates.
MAX_WAITS = int(os.environ.get("NEARDUP_MAX_WAITS", "1500"))
DEFAULT_K = 20
TRANSIENT: tuple[type[BaseException], ...] = (StoreUnavailable, ConnectionError, TimeoutError)


def dead_letter_key() -> str:
    """The Redis list poison documents are pushed to (``NEARDUP_DEAD_LETTER``)."""
    return os.environ.get("NEARDUP_DEAD_LETTER", "neardup.dead")


# --- store access -----------------------------------------------------------------------------

_stores: dict[tuple[int, str], Store] = {}
_stores_lock = threading.Lock()


def open_task_store(index: str | None) -> Store:
    """This process's store for ``index`` (one client per process, created after fork)."""
    from ingest.store import open_store

    index = index or os.environ.get("NEARDUP_INDEX", "pages")
    key = (os.getpid(), index)
    with _stores_lock:
        store = _stores.get(key)
        if store is None:
            store = open_store("opensearch", index=index)
            _stores[key] = store
        return store


def earlier_candidates(store: Store, doc: StoredDocument, k: int) -> list[str]:
    """Ids of the top-``k`` candidates of ``doc`` among the documents before it in ``(seq, id)``.

    Restricting the ranking to earlier documents makes the set independent of what was indexed
    later (the embedded dedup queries before it indexes a document, which is the same thing).
    On OpenSearch a ``range`` filter on ``seq`` does it in the query; for another store the
    top ``4k`` are fetched and filtered, which is exact unless more than ``3k`` later documents
    outrank the earlier ones.
    """
    key = (doc.seq, doc.id)
    from ingest.store.opensearch import OpenSearchStore, translate_errors

    if isinstance(store, OpenSearchStore):
        from ingest.query import build_candidate_query, candidate_terms

        terms = candidate_terms(doc.fingerprints, store.stoplist())
        if not terms:
            return []
        body = build_candidate_query(terms, (), k + 8, doc.id, doc.fp_config)
        body["query"]["bool"]["filter"].append({"range": {"seq": {"lte": doc.seq}}})
        with translate_errors():
            hits = store.client.search(index=store.index, body=body)["hits"]["hits"]
        # sort values are [shared, seq, id] (ingest.query.CANDIDATE_SORT)
        ranked = [(h["_id"], int(h["sort"][1])) for h in hits]
    else:
        found = store.candidates(doc, 4 * k)
        docs = store.mget([c.id for c in found], with_fingerprints=False)
        ranked = [(c.id, docs[c.id].seq) for c in found if c.id in docs]
    return [i for i, seq in ranked if (seq, i) < key][:k]


def _get(store: Store, doc_id: str) -> StoredDocument:
    doc = store.get(doc_id)
    if doc is None:
        raise LookupError(f"document {doc_id!r} vanished during grouping")
    return doc


def find_root(store: Store, rep_id: str) -> StoredDocument:
    """The current root of a representative's group (follows merged ``dup_group`` pointers)."""
    doc = _get(store, rep_id)
    for _ in range(10_000):
        if doc.dup_group in (None, doc.id):
            return doc
        doc = _get(store, doc.dup_group)
    raise RuntimeError(f"dup_group pointers from {rep_id!r} do not end")


def _rewrite(store: Store, docs: Iterable[StoredDocument], target: str) -> list[str]:
    ids = []
    for m in docs:
        if m.dup_group == target:
            continue
        store.update_group(
            GroupUpdate(m.id, target, m.dup_of, m.resemble, m.contain, status=m.status, error=m.error)
        )
        ids.append(m.id)
    return ids


def _settle(store: Store, ids: list[str], target: str) -> None:
    """After writing ``ids`` into group ``target``: if ``target`` has been merged meanwhile,
    follow it. Whoever merged it rewrote the members *it could see*; this catches the rest."""
    for _ in range(10_000):
        root = find_root(store, target)
        if root.id == target or not ids:
            return
        target = root.id
        docs = store.mget(ids, with_fingerprints=False)
        _rewrite(store, docs.values(), target)
    raise RuntimeError("group merges do not settle")


def write_decision(store: Store, doc: StoredDocument, decision: Decision) -> bool:
    """Write ``decision`` for ``doc`` (read with its version). False if ``doc`` changed meanwhile.

    Merges are written before the document itself, so a crash in between leaves ``doc``
    pending and its redelivered task redoes them (they are idempotent).
    """
    if decision.is_representative:
        update = GroupUpdate(doc.id, doc.id, None, None, None)
        return store.update_group(update, version=doc.version)
    while True:
        roots = {r.id: r for r in (find_root(store, rep) for rep in decision.similar_reps)}
        target = min(roots.values(), key=lambda r: (r.seq, r.id))
        merged = [r for r in roots.values() if r.id != target.id]
        if all(
            store.update_group(
                GroupUpdate(r.id, target.id, r.dup_of, r.resemble, r.contain), version=r.version
            )
            for r in merged
        ):
            break
        # A conflict: someone merged one of these roots first; find the roots again.
    if merged:
        store.refresh()
        for r in merged:
            moved = _rewrite(store, store.group_members(r.id), target.id)
            _settle(store, moved, target.id)
    update = GroupUpdate(doc.id, target.id, decision.dup_of, decision.resemble, decision.contain)
    if not store.update_group(update, version=doc.version):
        return False
    _settle(store, [doc.id], target.id)
    return True


# --- one document ----------------------------------------------------------------------------


def process_document(
    store: Store,
    doc_id: str,
    compare_fn: Callable[[str, str], Any],
    k: int = DEFAULT_K,
) -> str:
    """Decide and write one document. Returns ``grouped``, ``noop`` (not pending / missing) or
    ``wait`` (an earlier candidate is still pending). ``compare_fn(text, rep_text)``."""
    for _ in range(100):
        doc = store.get(doc_id)
        if doc is None or doc.status != PENDING:
            return "noop"
        cand_ids = earlier_candidates(store, doc, k)
        cands = store.mget(cand_ids, with_fingerprints=False) if cand_ids else {}
        rep_ids = {c.dup_of for c in cands.values() if c.dup_of is not None}
        reps = dict(cands)
        missing = [r for r in rep_ids if r not in reps]
        if missing:
            reps.update(store.mget(missing, with_fingerprints=False))
        peers = [
            Peer(
                c.id,
                c.seq,
                c.status,
                c.dup_of,
                reps[c.dup_of].seq if c.dup_of in reps else None,
            )
            for c in cands.values()
            if c.dup_of is None or c.dup_of in reps  # a vanished representative: skip
        ]

        def against(
            rep_id: str, doc: StoredDocument = doc, reps: dict[str, StoredDocument] = reps
        ) -> Any:
            return compare_fn(doc.body, reps[rep_id].body)

        decision = decide(doc.seq, doc.id, peers, against)
        if not decision.ready:
            return "wait"
        if write_decision(store, doc, decision):
            return GROUPED
        # doc changed under us (a redelivered twin got there first?): read it again.
    raise RuntimeError(f"{doc_id}: could not write its group after 100 attempts")


def mark_error(store: Store | None, doc_id: str, error: str) -> None:
    """Dead-letter a poison document: ``status=error`` on the document (best effort) and a
    JSON record on the dead-letter list."""
    error = error[:2000]
    if store is not None:
        try:
            store.update_group(GroupUpdate(doc_id, doc_id, None, None, None, "error", error))
        except Exception:  # the store may be what failed; the dead-letter list still records it
            log.exception("could not mark %r as error", doc_id)
    try:
        import redis

        client = redis.Redis.from_url(broker_url())
        record = {"id": doc_id, "error": error, "at": time.time()}
        client.lpush(dead_letter_key(), json.dumps(record, ensure_ascii=False))
    except Exception:
        log.exception("could not push %r to the dead-letter list", doc_id)


# --- Celery tasks --------------------------------------------------------------------------


def _compare_fn(profile: str) -> Callable[[str, str], Any]:
    from verifier.compare import compare
    from verifier.config import VerifyConfig

    config = VerifyConfig.profile(profile)
    return lambda a, b: compare(a, b, config)


def retry_countdown(retries: int, rng: Callable[[], float] = random.random) -> float:
    """Exponential backoff with jitter: uniform in [½, 1] × min(2**retries, 30) seconds."""
    return (0.5 + 0.5 * rng()) * min(2.0 ** min(retries, 10), 30.0)


class _VerifyTask(Task):
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


@app.task(bind=True, base=_VerifyTask, name="neardup.verify_batch")
def verify_batch(
    self: Task,
    ids: list[str],
    index: str | None = None,
    profile: str = "web",
    k: int = DEFAULT_K,
    waits: int = 0,
    outage_since: float | None = None,
) -> dict[str, int]:
    """Verify a batch of documents; re-queue those that must wait. Returns outcome counts."""
    try:
        return _verify_batch(self, ids, index, profile, k, waits)
    except TRANSIENT as exc:  # retry the whole (idempotent) batch until the outage budget is spent
        since = outage_since if outage_since is not None else time.time()
        if time.time() - since > OUTAGE_BUDGET:
            raise  # → on_failure: the documents still pending are dead-lettered
        log.warning("batch of %d: %s; retrying", len(ids), exc)
        raise self.retry(
            exc=exc,
            countdown=retry_countdown(self.request.retries),
            kwargs={"index": index, "profile": profile, "k": k, "waits": waits,
                    "outage_since": since},
        ) from exc


def _verify_batch(
    self: Task, ids: list[str], index: str | None, profile: str, k: int, waits: int
) -> dict[str, int]:
    store = open_task_store(index)
    compare_fn = _compare_fn(profile)
    counts: dict[str, int] = {}
    waiting: list[str] = []
    for doc_id in ids:
        try:
            outcome = process_document(store, doc_id, compare_fn, k)
        except TRANSIENT:
            raise
        except Exception as exc:
            log.exception("poison document %r", doc_id)
            mark_error(store, doc_id, f"{type(exc).__name__}: {exc}")
            outcome = "error"
        if outcome == "wait":
            waiting.append(doc_id)
        counts[outcome] = counts.get(outcome, 0) + 1
    if waiting:
        if waits >= MAX_WAITS:
            for doc_id in waiting:
                mark_error(store, doc_id, f"earlier candidates still pending after {waits} waits")
        else:
            countdown = min(0.2 * 1.5 ** min(waits, 10), 5.0)
            verify_batch.apply_async(
                (waiting,),
                {"index": index, "profile": profile, "k": k, "waits": waits + 1},
                countdown=countdown,
                queue=self.request.delivery_info.get("routing_key") if self.request.delivery_info else None,
            )
    return counts


@app.task(bind=True, base=_VerifyTask, name="neardup.verify")
def verify(
    self: Task, doc_id: str, index: str | None = None, profile: str = "web", k: int = DEFAULT_K
) -> dict[str, int]:
    """Verify one document (see :func:`verify_batch`)."""
    return verify_batch.run([doc_id], index=index, profile=profile, k=k)


def enqueue(
    ids: Sequence[str],
    index: str,
    profile: str = "web",
    k: int = DEFAULT_K,
    batch: int = 32,
    queue: str | None = None,
) -> int:
    """Queue ``verify_batch`` messages for ``ids`` (in order, ``batch`` ids each); returns the
    number of messages. Publishing retries while the broker is unreachable."""
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
