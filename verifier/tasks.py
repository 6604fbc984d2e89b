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

import dataclasses
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
        body = candidate_search(store, doc, k)
        if body is None:
            return []
        with translate_errors():
            hits = store.client.search(index=store.index, body=body)["hits"]["hits"]
        return rank_hits(doc, hits, k)
    else:
        found = store.candidates(doc, 4 * k)
        docs = store.mget([c.id for c in found], with_fingerprints=False)
        ranked = [(c.id, docs[c.id].seq) for c in found if c.id in docs]
    return [i for i, seq in ranked if (seq, i) < key][:k]


def candidate_search(store: Any, doc: StoredDocument, k: int) -> dict[str, Any] | None:
    """The search body of ``doc``'s earlier candidates on OpenSearch (None: no usable term)."""
    from ingest.query import build_candidate_query, candidate_terms

    terms = candidate_terms(doc.fingerprints, store.stoplist())
    if not terms:
        return None
    body = build_candidate_query(terms, (), k + 8, doc.id, doc.fp_config)
    body["query"]["bool"]["filter"].append({"range": {"seq": {"lte": doc.seq}}})
    return body


def rank_hits(doc: StoredDocument, hits: list[dict[str, Any]], k: int) -> list[str]:
    """The top-``k`` of candidate hits that come before ``doc`` in ``(seq, id)``."""
    key = (doc.seq, doc.id)
    # sort values are [shared, seq, id] (ingest.query.CANDIDATE_SORT)
    ranked = [(h["_id"], int(h["sort"][1])) for h in hits]
    return [i for i, seq in ranked if (seq, i) < key][:k]


def prefetch(
    store: Store, ids: Sequence[str], k: int
) -> tuple[dict[str, StoredDocument], dict[str, list[str]], dict[str, StoredDocument]]:
    """A batch's reads in three requests: its documents (``mget``), the candidate queries of
    the pending ones (``msearch``) and every candidate (``mget``, bodies without
    fingerprints). Returns ``(docs, candidate ids per pending doc, candidates)``; a document
    whose query failed is left out of the second map (it takes the one-by-one path)."""
    from ingest.store.opensearch import OpenSearchStore, translate_errors

    docs = store.mget(ids)
    pending = [d for d in docs.values() if d.status == PENDING]
    cand_ids: dict[str, list[str]] = {}
    if isinstance(store, OpenSearchStore):
        searches: list[dict[str, Any]] = []
        asked: list[StoredDocument] = []
        for d in pending:
            body = candidate_search(store, d, k)
            if body is None:
                cand_ids[d.id] = []
            else:
                searches += [{"index": store.index}, body]
                asked.append(d)
        if searches:
            with translate_errors():
                responses = store.client.msearch(body=searches)["responses"]
            for d, res in zip(asked, responses, strict=True):
                if "error" not in res:
                    cand_ids[d.id] = rank_hits(d, res["hits"]["hits"], k)
    else:
        for d in pending:
            cand_ids[d.id] = earlier_candidates(store, d, k)
    wanted = {c for cs in cand_ids.values() for c in cs}
    cands = store.mget(sorted(wanted), with_fingerprints=False) if wanted else {}
    return docs, cand_ids, cands


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


def decide_and_write(
    store: Store,
    doc: StoredDocument,
    cands: dict[str, StoredDocument],
    compare_fn: Callable[[str, str], Any],
) -> tuple[str | None, Decision]:
    """Decide ``doc`` from its earlier candidates ``cands`` and write the decision.

    Returns ``("grouped" | "wait" | None, decision)``; None: ``doc`` changed since it was read.
    """
    rep_ids = {c.dup_of for c in cands.values() if c.dup_of is not None}
    reps = dict(cands)
    missing = [r for r in rep_ids if r not in reps]
    if missing:
        reps.update(store.mget(missing, with_fingerprints=False))
    peers = [
        Peer(c.id, c.seq, c.status, c.dup_of, reps[c.dup_of].seq if c.dup_of in reps else None)
        for c in cands.values()
        if c.dup_of is None or c.dup_of in reps  # a vanished representative: skip
    ]
    decision = decide(doc.seq, doc.id, peers, lambda r: compare_fn(doc.body, reps[r].body))
    if not decision.ready:
        return "wait", decision
    return (GROUPED if write_decision(store, doc, decision) else None), decision


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
        outcome, _ = decide_and_write(store, doc, cands, compare_fn)
        if outcome is not None:
            return outcome
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


def _prefetched_document(
    store: Store,
    doc_id: str,
    docs: dict[str, StoredDocument],
    cand_ids: dict[str, list[str]],
    cands: dict[str, StoredDocument],
    compare_fn: Callable[[str, str], Any],
    k: int,
) -> str:
    """:func:`process_document` from the batch's prefetched reads; a decision that would wait
    (the reads may be stale) or a write conflict falls back to fresh reads."""
    doc = docs.get(doc_id)
    if doc is None or doc.status != PENDING:
        return "noop"  # status only ever moves away from pending
    if doc_id not in cand_ids:
        return process_document(store, doc_id, compare_fn, k)
    peers = {c: cands[c] for c in cand_ids[doc_id] if c in cands}
    outcome, decision = decide_and_write(store, doc, peers, compare_fn)
    if outcome != GROUPED:
        return process_document(store, doc_id, compare_fn, k)
    # later documents of this batch see this one decided
    cands[doc_id] = dataclasses.replace(doc, status=GROUPED, dup_of=decision.dup_of,
                                        fingerprints=[])
    return GROUPED


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
    docs, cand_ids, cands = prefetch(store, ids, k)
    # In (seq, id) order, so a document sees the decisions of earlier ones of its own batch.
    order = sorted(ids, key=lambda i: (docs[i].seq, i) if i in docs else (-1, i))
    for doc_id in order:
        try:
            outcome = _prefetched_document(store, doc_id, docs, cand_ids, cands, compare_fn, k)
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
