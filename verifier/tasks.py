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
from ingest.store.errors import DocumentNotFound, StoreUnavailable
from verifier.celery_app import app, broker_url, settings
from verifier.grouping import GROUPED, PENDING, Decision, Peer, decide

__all__ = [
    "OUTAGE_BUDGET",
    "dead_letter_key",
    "decide_document",
    "earlier_candidates",
    "enqueue",
    "process_document",
    "publish_with_retry",
    "resolve_roots",
    "retry_countdown",
    "settle_many",
    "verify",
    "verify_batch",
    "verify_ids",
    "write_decision",
]

log = logging.getLogger(__name__)
log.addHandler(logging.NullHandler())

# Seconds a batch keeps retrying through a store/broker outage, from the outage's first failure.
OUTAGE_BUDGET = settings.outage_budget
# A document waits this many times (≈ an hour at the capped countdown) for earlier candidates.
MAX_WAITS = settings.max_waits
DEFAULT_K = 20
# Documents per verify_batch message (NEARDUP_MESSAGE_BATCH): a batch is read in three
# requests and written in about one, so larger is cheaper, up to the visibility timeout.
MESSAGE_BATCH = settings.message_batch
TRANSIENT: tuple[type[BaseException], ...] = (StoreUnavailable, ConnectionError, TimeoutError)


def dead_letter_key() -> str:
    """The Redis list poison documents are pushed to (``NEARDUP_DEAD_LETTER``)."""
    return settings.dead_letter


# --- store access -----------------------------------------------------------------------------

_stores: dict[tuple[int, str], Store] = {}
_stores_lock = threading.Lock()


def open_task_store(index: str | None) -> Store:
    """This process's store for ``index`` (one client per process, created after fork)."""
    from ingest.store import open_store

    index = index or settings.index
    key = (os.getpid(), index)
    with _stores_lock:
        store = _stores.get(key)
        if store is None:
            store = open_store("opensearch", settings, index=index)
            _time_requests(store)
            _stores[key] = store
        return store


# --- phase timings ----------------------------------------------------------------------------
# Each batch returns (and Celery logs) the seconds it spent per kind of request and verifying,
# so a run's time can be broken down from the worker logs (bench/pipeline.py does).

_timing = threading.local()


def _timings() -> dict[str, float] | None:
    return getattr(_timing, "current", None)


def _add_time(name: str, seconds: float, n: int = 1) -> None:
    current = _timings()
    if current is not None:
        current[f"{name}_s"] = current.get(f"{name}_s", 0.0) + seconds
        current[f"{name}_n"] = current.get(f"{name}_n", 0) + n


def _endpoint(method: str, url: str) -> str:
    """A request's kind: ``_mget``, ``_msearch``, ``_bulk``, ``_update``, ``_search``, ..."""
    parts = [p for p in url.split("?")[0].split("/") if p]
    for p in reversed(parts):
        if p.startswith("_"):
            return p
    return method.lower()


def _time_requests(store: Any) -> None:
    transport = getattr(getattr(store, "client", None), "transport", None)
    if transport is None or getattr(transport, "_neardup_timed", False):
        return
    perform = transport.perform_request

    def timed(method: str, url: str, *args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return perform(method, url, *args, **kwargs)
        finally:
            _add_time("os" + _endpoint(method, url), time.perf_counter() - t0)

    transport.perform_request = timed
    transport._neardup_timed = True


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
    from ingest.store.query import build_candidate_query, candidate_terms

    terms = candidate_terms(doc.fingerprints, store.stoplist())
    if not terms:
        return None
    body = build_candidate_query(terms, (), k + 8, doc.id, doc.fp_config)
    body["query"]["bool"]["filter"].append({"range": {"seq": {"lte": doc.seq}}})
    return body


# batch_candidates: the most matching documents one search may return, and terms it may ask for
# (index.max_terms_count is 65,536); beyond either, the batch takes the per-document queries.
BATCH_QUERY_HITS = settings.batch_query_hits
BATCH_QUERY_TERMS = 60_000


def batch_candidates(
    store: Any, docs: Sequence[StoredDocument], k: int
) -> dict[str, list[str]] | None:
    """The earlier candidates of a whole batch from one search per fingerprint config: every
    document (up to the batch's last ``seq``) holding any usable fingerprint of the batch, with
    its fingerprints (doc values) and ``seq``; the shared counts and the ranking — shared
    desc, seq, id, among documents before each one — are done here, the rule of
    :meth:`ingest.store.base.Store.candidates`. None when the batch is too wide for one search
    (more than :data:`BATCH_QUERY_HITS` matches, or too many terms): the caller then asks one
    query per document. One terms filter and no scoring cost the node far less than a scored
    query of ~50-100 clauses per document."""
    from ingest.store.opensearch import translate_errors
    from ingest.store.query import candidate_terms

    stop = store.stoplist()
    out: dict[str, list[str]] = {}
    by_config: dict[str, list[tuple[StoredDocument, list[str]]]] = {}
    for d in docs:
        terms = candidate_terms(d.fingerprints, stop)
        if terms:
            by_config.setdefault(d.fp_config, []).append((d, terms))
        else:
            out[d.id] = []
    for config, group in by_config.items():
        holders: dict[str, list[str]] = {}  # usable fingerprint -> batch documents holding it
        for d, terms in group:
            for t in terms:
                holders.setdefault(t, []).append(d.id)
        if len(holders) > BATCH_QUERY_TERMS:
            return None
        body = {
            "size": BATCH_QUERY_HITS,
            "query": {"bool": {
                "filter": [
                    {"terms": {"fingerprints": sorted(holders)}},
                    {"term": {"fp_config": config}},
                    {"range": {"seq": {"lte": max(d.seq for d, _ in group)}}},
                ],
                # the batch's own documents: their fingerprints are at hand (below)
                "must_not": [{"ids": {"values": [d.id for d, _ in group]}}],
            }},
            "_source": False,
            "docvalue_fields": ["seq", "fingerprints"],
            "track_total_hits": False,
        }
        with translate_errors():
            hits = store.client.search(index=store.index, body=body)["hits"]["hits"]
        if len(hits) >= BATCH_QUERY_HITS:
            return None
        seq_of: dict[str, int] = {d.id: d.seq for d, _ in group}
        shared: dict[str, dict[str, int]] = {d.id: {} for d, _ in group}
        for ids_with_term in holders.values():  # candidates within the batch
            if len(ids_with_term) > 1:
                for doc_id in ids_with_term:
                    counts = shared[doc_id]
                    for other in ids_with_term:
                        if other != doc_id:
                            counts[other] = counts.get(other, 0) + 1
        for h in hits:
            hit_id = h["_id"]
            fields = h.get("fields", {})
            seq_of[hit_id] = int(fields["seq"][0])
            for fp in set(fields.get("fingerprints", ())):
                for doc_id in holders.get(fp, ()):
                    counts = shared[doc_id]
                    counts[hit_id] = counts.get(hit_id, 0) + 1
        for d, _ in group:
            key = (d.seq, d.id)
            ranked = sorted(
                (-n, seq_of[c], c) for c, n in shared[d.id].items() if (seq_of[c], c) < key
            )
            out[d.id] = [c for _, _, c in ranked[:k]]
    return out


def scored_candidate_search(store: Any, doc: StoredDocument, k: int) -> dict[str, Any] | None:
    """:func:`candidate_search` sorted by score alone, with each hit's ``seq``: the node can
    then skip documents that cannot enter the top (the full sort scores every match). The
    ties are broken here, by :func:`rank_scored_hits`, which says when that is exact."""
    body = candidate_search(store, doc, k)
    if body is not None:
        body["sort"] = [{"_score": {"order": "desc"}}]
        body["docvalue_fields"] = ["seq"]
    return body


def rank_scored_hits(
    doc: StoredDocument, hits: list[dict[str, Any]], k: int, size: int
) -> list[str] | None:
    """The top-``k`` earlier candidates from hits of :func:`scored_candidate_search`, ordered
    as the full sort would (shared desc, seq, id) — or None when the hits do not prove it: the
    node returned ``size`` hits and the ``k``-th kept one scores no more than the lowest hit
    (a document left out could tie with it and come before it)."""
    key = (doc.seq, doc.id)
    ranked = sorted(
        (-float(h["_score"]), int(h["fields"]["seq"][0]), h["_id"]) for h in hits
    )
    kept = [(score, seq, i) for score, seq, i in ranked if (seq, i) < key][:k]
    if len(hits) >= size:
        lowest = min(float(h["_score"]) for h in hits)
        if len(kept) < k or -kept[-1][0] <= lowest:
            return None
    return [i for _, _, i in kept]


def rank_hits(doc: StoredDocument, hits: list[dict[str, Any]], k: int) -> list[str]:
    """The top-``k`` of candidate hits that come before ``doc`` in ``(seq, id)``."""
    key = (doc.seq, doc.id)
    # sort values are [shared, seq, id] (ingest.store.query.CANDIDATE_SORT)
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
    if isinstance(store, OpenSearchStore) and pending:
        t0 = time.perf_counter()
        found = batch_candidates(store, pending, k)
        _add_time("batch_query", time.perf_counter() - t0)
        if found is not None:
            cand_ids = found
            pending = []  # answered: no per-document queries
    if isinstance(store, OpenSearchStore):
        searches: list[dict[str, Any]] = []
        asked: list[tuple[StoredDocument, int]] = []
        for d in pending:
            body = scored_candidate_search(store, d, k)
            if body is None:
                cand_ids[d.id] = []
            else:
                searches += [{"index": store.index}, body]
                asked.append((d, body["size"]))
        if searches:
            with translate_errors():
                responses = store.client.msearch(body=searches)["responses"]
            unsure: list[StoredDocument] = []
            for (d, size), res in zip(asked, responses, strict=True):
                if "error" not in res:
                    ranked = rank_scored_hits(d, res["hits"]["hits"], k, size)
                    if ranked is None:
                        unsure.append(d)
                    else:
                        cand_ids[d.id] = ranked
            if unsure:  # ties at the cut: the fully sorted query
                searches = []
                for d in unsure:
                    searches += [{"index": store.index}, candidate_search(store, d, k)]
                with translate_errors():
                    responses = store.client.msearch(body=searches)["responses"]
                for d, res in zip(unsure, responses, strict=True):
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
    """Move ``docs`` into group ``target`` (one bulk request); returns the ids rewritten."""
    updates: list[tuple[GroupUpdate, tuple[int, int] | None]] = [
        (GroupUpdate(m.id, target, m.dup_of, m.resemble, m.contain, status=m.status,
                     error=m.error), None)
        for m in docs
        if m.dup_group != target
    ]
    for result in store.update_groups(updates):
        if isinstance(result, Exception):
            raise result
    return [u.id for u, _ in updates]


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


def link_roots(store: Store, decision: Decision) -> tuple[str, list[StoredDocument]]:
    """Step 1 of a duplicate's write: the current roots of ``decision.similar_reps``, every
    root but the earliest linked to it (conditional writes; on a conflict, find again).
    Returns ``(target root id, the roots linked)``."""
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
            return target.id, merged
        # A conflict: someone merged one of these roots first; find the roots again.


def rewrite_merged(store: Store, merged: Sequence[StoredDocument], target: str) -> None:
    """Step 2 (after a refresh that follows the links): the members of the merged groups."""
    for r in merged:
        moved = _rewrite(store, store.group_members(r.id), target)
        _settle(store, moved, target)


def write_decision(store: Store, doc: StoredDocument, decision: Decision) -> bool:
    """Write ``decision`` for ``doc`` (read with its version). False if ``doc`` changed meanwhile.

    Merges are written before the document itself, so a crash in between leaves ``doc``
    pending and its redelivered task redoes them (they are idempotent).
    """
    if decision.is_representative:
        update = GroupUpdate(doc.id, doc.id, None, None, None)
        return store.update_group(update, version=doc.version)
    target, merged = link_roots(store, decision)
    if merged:
        store.refresh()
        rewrite_merged(store, merged, target)
    return _write_duplicate(store, doc, decision, target)


def _write_duplicate(store: Store, doc: StoredDocument, decision: Decision, target: str) -> bool:
    """Step 3: the document itself, conditional on the version it was read with, then settled."""
    update = GroupUpdate(doc.id, target, decision.dup_of, decision.resemble, decision.contain)
    if not store.update_group(update, version=doc.version):
        return False
    _settle(store, [doc.id], target)
    return True


# --- one document ----------------------------------------------------------------------------


def decide_document(
    store: Store,
    doc: StoredDocument,
    cands: dict[str, StoredDocument],
    compare_fn: Callable[[str, str], Any],
) -> Decision:
    """Decide ``doc`` from its earlier candidates ``cands`` (reads missing representatives)."""
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
    return decide(doc.seq, doc.id, peers, lambda r: compare_fn(doc.body, reps[r].body))


def decide_and_write(
    store: Store,
    doc: StoredDocument,
    cands: dict[str, StoredDocument],
    compare_fn: Callable[[str, str], Any],
) -> tuple[str | None, Decision]:
    """Decide ``doc`` from its earlier candidates ``cands`` and write the decision.

    Returns ``("grouped" | "wait" | None, decision)``; None: ``doc`` changed since it was read.
    """
    decision = decide_document(store, doc, cands, compare_fn)
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

    def timed_compare(a: str, b: str) -> Any:
        t0 = time.perf_counter()
        try:
            return compare(a, b, config)
        finally:
            _add_time("verify", time.perf_counter() - t0)

    return timed_compare


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
    """Verify a batch of documents; re-queue those that must wait. Returns outcome counts
    and the batch's timings (``<phase>_s`` seconds, ``<phase>_n`` calls)."""
    timings: dict[str, float] = {}
    _timing.current = timings
    t0 = time.perf_counter()
    try:
        counts: dict[str, Any] = dict(_verify_batch(self, ids, index, profile, k, waits))
        timings["batch_s"] = time.perf_counter() - t0
        counts.update((key, round(v, 4)) for key, v in timings.items())
        return counts
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
    finally:
        _timing.current = None


def resolve_roots(store: Store, rep_ids: Iterable[str]) -> dict[str, StoredDocument]:
    """:func:`find_root` of several representatives with one realtime ``mget`` per level of
    ``dup_group`` pointers. A representative that vanished is absent from the result."""
    roots: dict[str, StoredDocument] = {}
    at = {r: r for r in rep_ids}  # representative -> the node reached so far
    for _ in range(10_000):
        if not at:
            return roots
        found = store.mget(sorted(set(at.values())), with_fingerprints=False)
        nxt: dict[str, str] = {}
        for rep, node in at.items():
            doc = found.get(node)
            if doc is None:
                continue
            if doc.dup_group in (None, doc.id):
                roots[rep] = doc
            else:
                nxt[rep] = doc.dup_group
        at = nxt
    raise RuntimeError("dup_group pointers do not end")


def settle_many(store: Store, by_target: dict[str, list[str]]) -> None:
    """:func:`_settle` for many written documents at once: ``{target: ids written into it}``.
    While a target has been merged meanwhile, the documents follow it (bulk rewrites)."""
    for _ in range(10_000):
        if not by_target:
            return
        roots = resolve_roots(store, by_target)
        moved = {t: ids for t, ids in by_target.items() if t in roots and roots[t].id != t}
        if not moved:
            return
        docs = store.mget([i for ids in moved.values() for i in ids], with_fingerprints=False)
        updates: list[tuple[GroupUpdate, tuple[int, int] | None]] = []
        nxt: dict[str, list[str]] = {}
        for t, ids in moved.items():
            target = roots[t].id
            for i in ids:
                m = docs.get(i)
                if m is None:
                    continue
                if m.dup_group != target:
                    updates.append((GroupUpdate(m.id, target, m.dup_of, m.resemble, m.contain,
                                                status=m.status, error=m.error), None))
                nxt.setdefault(target, []).append(i)
        for result in store.update_groups(updates):
            if isinstance(result, Exception) and not isinstance(result, DocumentNotFound):
                raise result
        by_target = nxt
    raise RuntimeError("group merges do not settle")


class _BatchWriter:
    """The write-back of one batch: decisions are buffered and written as one ``_bulk`` of
    updates conditional on the version each document was read with.

    A decision may rest on the in-memory decisions of earlier documents of the same batch;
    such a document is deferred to the next round (after the flush), so it is decided only on
    writes that succeeded (a conflicting write is redone from fresh reads, and so are the
    documents that depended on it). Duplicates are written into the current root of their
    representative's group — from the batch's reads when they show a root — and settled once
    per pass (:func:`settle_many`: a realtime read of the targets, rewrites if one was merged
    meanwhile). Documents that bridge groups take the steps of :func:`write_decision` (links,
    one refresh for all of them, rewrites, the document, settling).
    """

    def __init__(self, store: Store, compare_fn: Callable[[str, str], Any], k: int) -> None:
        self.store = store
        self.compare_fn = compare_fn
        self.k = k
        self.buffer: list[tuple[StoredDocument, Decision]] = []
        self.buffered: set[str] = set()
        self.planned: set[str] = set()  # decided from in-memory reads in this batch
        self.failed: set[str] = set()  # ...whose stored outcome is not the planned one
        self.outcomes: dict[str, str] = {}
        self.known: dict[str, StoredDocument] = {}  # the batch's reads (and its decisions)
        self.to_settle: dict[str, list[str]] = {}

    def add(self, doc: StoredDocument, decision: Decision) -> None:
        self.buffer.append((doc, decision))
        self.buffered.add(doc.id)
        self.planned.add(doc.id)

    def fresh(self, doc_id: str) -> str:
        """Decide and write ``doc_id`` from fresh reads (the one-by-one path)."""
        self.flush()
        t0 = time.perf_counter()
        try:
            return process_document(self.store, doc_id, self.compare_fn, self.k)
        finally:
            _add_time("fallback", time.perf_counter() - t0)

    def flush(self) -> None:
        items, self.buffer, self.buffered = self.buffer, [], set()
        if not items:
            return
        try:
            self._flush(items)
        except TRANSIENT:
            raise  # the whole batch is retried (idempotent)
        except Exception as exc:  # never leave a document of the batch without an outcome
            for doc, _ in items:
                if self.outcomes.get(doc.id) in (None, "wait"):
                    self._poison(doc.id, exc)

    def _flush(self, items: list[tuple[StoredDocument, Decision]]) -> None:
        store = self.store
        # Roots of the representatives: from this batch's reads when they show a root (if
        # it has been merged since, the settling below moves the documents on), else fresh.
        reps = {r for _, d in items for r in d.similar_reps}
        roots = {r: r for r in reps if r in self.known and self.known[r].dup_group in (None, r)}
        unknown = reps - roots.keys()
        if unknown:
            roots.update((r, root.id) for r, root in resolve_roots(store, unknown).items())
        writes: list[tuple[GroupUpdate, tuple[int, int] | None]] = []
        written: list[tuple[StoredDocument, Decision]] = []
        one_by_one: list[tuple[StoredDocument, Decision]] = []
        for doc, d in items:
            if d.is_representative:
                writes.append((GroupUpdate(doc.id, doc.id, None, None, None), doc.version))
                written.append((doc, d))
                continue
            if any(r not in roots for r in d.similar_reps):  # vanished: the slow path says so
                one_by_one.append((doc, d))
                continue
            targets = {roots[r] for r in d.similar_reps}
            if len(targets) > 1:  # bridges groups: merges first
                one_by_one.append((doc, d))
                continue
            target = targets.pop()
            update = GroupUpdate(doc.id, target, d.dup_of, d.resemble, d.contain)
            writes.append((update, doc.version))
            written.append((doc, d))
        to_settle: dict[str, list[str]] = {}  # settled once per pass (self.settle)
        redo: list[tuple[StoredDocument, Decision]] = []
        for (update, _), (doc, d), result in zip(
            writes, written, store.update_groups(writes), strict=True
        ):
            if result is True:
                self.outcomes[doc.id] = GROUPED
                if not d.is_representative:
                    to_settle.setdefault(update.dup_group, []).append(doc.id)
            elif result is False:
                redo.append((doc, d))
            else:
                self._poison(doc.id, result)
        for target, settle_ids in to_settle.items():
            self.to_settle.setdefault(target, []).extend(settle_ids)
        # Documents that bridge groups: links first, one refresh for all, then the rewrites of
        # the merged groups and the documents themselves (write_decision, steps batched).
        linked: list[tuple[StoredDocument, Decision, str, list[StoredDocument]]] = []
        for doc, d in one_by_one:
            try:
                linked.append((doc, d, *link_roots(store, d)))
            except TRANSIENT:
                raise
            except Exception as exc:
                self._poison(doc.id, exc)
        if any(merged for *_, merged in linked):
            store.refresh()
        for doc, d, target, merged in linked:
            try:
                rewrite_merged(store, merged, target)
                if _write_duplicate(store, doc, d, target):
                    self.outcomes[doc.id] = GROUPED
                else:
                    redo.append((doc, d))
            except TRANSIENT:
                raise
            except Exception as exc:
                self._poison(doc.id, exc)
        for doc, d in redo:  # a conflict: a twin task (redelivery) got there first?
            try:
                self.outcomes[doc.id] = process_document(store, doc.id, self.compare_fn, self.k)
            except TRANSIENT:
                raise
            except Exception as exc:
                self._poison(doc.id, exc)
                continue
            now = store.get(doc.id)
            if now is None or now.status != GROUPED or now.dup_of != d.dup_of:
                self.failed.add(doc.id)
            if self.outcomes[doc.id] == GROUPED:
                self.outcomes[doc.id] = "redone"

    def settle(self) -> None:
        """Settle the documents the bulk writes put into a group (:func:`settle_many`): one
        realtime read of their targets for the whole pass."""
        to_settle, self.to_settle = self.to_settle, {}
        if not to_settle:
            return
        try:
            settle_many(self.store, to_settle)
        except TRANSIENT:
            raise
        except Exception as exc:
            for ids in to_settle.values():
                for i in ids:
                    self._poison(i, exc)

    def _poison(self, doc_id: str, exc: BaseException) -> None:
        log.error("poison document %r: %r", doc_id, exc)
        mark_error(self.store, doc_id, f"{type(exc).__name__}: {exc}")
        self.outcomes[doc_id] = "error"
        self.failed.add(doc_id)


def _plan(
    writer: _BatchWriter,
    doc_id: str,
    docs: dict[str, StoredDocument],
    cand_ids: dict[str, list[str]],
    cands: dict[str, StoredDocument],
    deferred: set[str],
) -> str | None:
    """Decide one document of the batch from the prefetched reads and buffer its write.
    Returns its outcome, None when the write is buffered (the outcome comes with the flush),
    or ``defer`` when an earlier candidate's decision is buffered or deferred in this round."""
    doc = docs.get(doc_id)
    if doc is None or doc.status != PENDING:
        if doc is not None and doc.status == GROUPED and doc.dup_group not in (None, doc.id):
            # A redelivery: its first run may have died between write and settling.
            writer.to_settle.setdefault(doc.dup_group, []).append(doc.id)
        return "noop"  # status only ever moves away from pending
    if doc_id not in cand_ids:  # its candidate query failed: one by one
        return writer.fresh(doc_id)
    peers = {c: cands[c] for c in cand_ids[doc_id] if c in cands}
    if any(c in writer.buffered or c in deferred for c in peers):
        return "defer"  # decide only on writes that succeeded: after this round's flush
    if any(c in writer.failed for c in peers):
        return writer.fresh(doc_id)
    decision = decide_document(writer.store, doc, peers, writer.compare_fn)
    if not decision.ready:
        return "wait"  # maybe stale reads: the batch reads the waiting ones again
    writer.add(doc, decision)
    # later documents of this batch see this one decided
    cands[doc_id] = dataclasses.replace(doc, status=GROUPED, dup_of=decision.dup_of,
                                        fingerprints=[])
    return None


def verify_ids(
    store: Store, ids: Sequence[str], compare_fn: Callable[[str, str], Any], k: int = DEFAULT_K
) -> tuple[dict[str, str], list[str]]:
    """Decide and write a batch of documents: ``({id: outcome}, ids that must wait)``.

    First from the batch's prefetched reads (three requests), decisions written in bulk; the
    documents that had to wait (their reads may be stale: an earlier candidate decided
    meanwhile by another worker) once more from fresh reads, after this batch's own writes.
    """
    writer = _BatchWriter(store, compare_fn, k)
    outcomes = writer.outcomes
    todo = list(ids)
    for _attempt in range(2):
        docs, cand_ids, cands = prefetch(store, todo, k)
        writer.known = cands
        # In (seq, id) order, so a document sees the decisions of earlier ones of its batch.
        # Rounds: a document whose earlier candidate's write is still buffered is deferred to
        # the next round, after the flush; a round ends with one bulk write.
        order = sorted(todo, key=lambda i: (docs[i].seq, i) if i in docs else (-1, i))
        while order:
            deferred: set[str] = set()
            for doc_id in order:
                try:
                    outcome = _plan(writer, doc_id, docs, cand_ids, cands, deferred)
                except TRANSIENT:
                    raise
                except Exception as exc:
                    writer._poison(doc_id, exc)
                    continue
                if outcome == "defer":
                    deferred.add(doc_id)
                elif outcome is not None:
                    outcomes[doc_id] = outcome
            writer.flush()
            order = [i for i in order if i in deferred]
        writer.settle()
        todo = [i for i in todo if outcomes.get(i) == "wait"]
        if not todo:
            break
    return outcomes, todo


def _verify_batch(
    self: Task, ids: list[str], index: str | None, profile: str, k: int, waits: int
) -> dict[str, int]:
    store = open_task_store(index)
    outcomes, waiting = verify_ids(store, ids, _compare_fn(profile), k)
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
            _add_time("requeue", time.perf_counter() - t0)
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


def publish_with_retry(send: Callable[[], Any], budget: float | None = None) -> Any:
    """``send()`` (a publish), again and again while the broker is unreachable, for up to
    ``budget`` seconds (:data:`OUTAGE_BUDGET`) — a worker's re-queue of the documents that
    wait. Celery's own publish retries cover connection errors only; while a Redis server
    restarts, kombu can also fail otherwise (an ``AttributeError`` from a half-closed
    channel), and a worker must not give its batch up (dead-letter healthy documents) for
    that. (:func:`enqueue` keeps Celery's bounded retries: the HTTP service answers 503 when
    the broker is down.)"""
    budget = OUTAGE_BUDGET if budget is None else budget
    start, delay = time.monotonic(), 0.5
    while True:
        try:
            return send()
        except Exception as exc:
            if time.monotonic() - start > budget:
                raise
            log.warning("publish failed (%r); retrying in %.1f s", exc, delay)
            try:  # start over with fresh broker connections
                app.pool.force_close_all()
            except Exception:
                log.debug("closing the producer pool failed", exc_info=True)
            time.sleep(delay)
            delay = min(delay * 2, 10.0)
