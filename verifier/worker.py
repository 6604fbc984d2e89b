"""The verifier's write-back protocol against a :class:`~ingest.store.base.Store`.

Steps 2-3 of the method around the pure rule (:func:`verifier.grouping.decide`): read a
document and its earlier candidates, decide, write the verdict back with optimistic
concurrency, merge groups a document bridges, and settle documents written into a group that
was merged meanwhile. Everything here takes ids or plain documents and a store; the Celery
tasks (:mod:`verifier.tasks`) only call :func:`verify_ids`. Every function is idempotent:
a document that is no longer ``pending`` is left alone, so a redelivered batch is harmless.

A document that cannot be handled (a poison document: extraction, verifier or data error) is
handed to ``poison(store, doc_id, error)`` — by default :func:`mark_error_in_store`; the
workers also push it to the dead-letter list — and the rest of the batch carries on.
Transient store trouble (:data:`ingest.retry.TRANSIENT`) is raised for the whole batch.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ingest.errors import DocumentError
from ingest.records import DEFAULT_LIMITS, Limits, check_stored
from ingest.retry import TRANSIENT
from ingest.store.base import GroupUpdate, Store, StoredDocument
from ingest.store.errors import DocumentNotFound
from verifier import timings
from verifier.grouping import GROUPED, PENDING, Decision, Peer, decide

__all__ = [
    "DEFAULT_K",
    "Poison",
    "decide_and_write",
    "decide_document",
    "find_root",
    "link_roots",
    "mark_error_in_store",
    "prefetch",
    "process_document",
    "resolve_roots",
    "rewrite_merged",
    "settle_many",
    "verify_ids",
    "write_decision",
]

log = logging.getLogger(__name__)
log.addHandler(logging.NullHandler())

DEFAULT_K = 20

# poison(store, doc_id, error): record a document that cannot be handled.
Poison = Callable[[Store, str, str], None]


def mark_error_in_store(store: Store | None, doc_id: str, error: str) -> None:
    """``status=error`` with the message on the document (best effort: the store may be what
    failed)."""
    error = error[:2000]
    if store is not None:
        try:
            store.update_group(GroupUpdate(doc_id, doc_id, None, None, None, "error", error))
        except Exception:
            log.exception("could not mark %r as error", doc_id)


# --- reads ------------------------------------------------------------------------------------


def prefetch(
    store: Store,
    ids: Sequence[str],
    k: int,
    limits: Limits = DEFAULT_LIMITS,
    rejected: dict[str, DocumentError] | None = None,
) -> tuple[dict[str, StoredDocument], dict[str, list[str]], dict[str, StoredDocument]]:
    """A batch's reads in about three requests: its documents (``mget``), the earlier
    candidates of the pending ones (:meth:`~ingest.store.base.Store.earlier_candidates_many`)
    and every candidate (``mget``, bodies without fingerprints). Returns ``(docs, candidate
    ids per pending doc, candidates)``; a document whose query failed is left out of the
    second map (it takes the one-by-one path). A document the verifier cannot take
    (:func:`ingest.records.check_stored`: written by another pipeline without a text, too
    large) is left out and put in ``rejected`` with its error."""
    docs = store.mget(ids)
    for doc_id, doc in list(docs.items()):
        if doc.status != PENDING:
            continue  # left alone anyway
        try:
            check_stored(doc, limits)
        except DocumentError as exc:
            del docs[doc_id]
            if rejected is not None:
                rejected[doc_id] = exc
    pending = [d for d in docs.values() if d.status == PENDING]
    t0 = time.perf_counter()
    cand_ids = store.earlier_candidates_many(pending, k) if pending else {}
    timings.add("batch_query", time.perf_counter() - t0)
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
    return decide(doc.seq, doc.id, peers, lambda r: compare_fn(doc.verified_text, reps[r].verified_text))


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
        cand_ids = store.earlier_candidates(doc, k)
        cands = store.mget(cand_ids, with_fingerprints=False) if cand_ids else {}
        outcome, _ = decide_and_write(store, doc, cands, compare_fn)
        if outcome is not None:
            return outcome
        # doc changed under us (a redelivered twin got there first?): read it again.
    raise RuntimeError(f"{doc_id}: could not write its group after 100 attempts")


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

    def __init__(
        self,
        store: Store,
        compare_fn: Callable[[str, str], Any],
        k: int,
        poison: Poison = mark_error_in_store,
    ) -> None:
        self.store = store
        self.poison = poison
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
            timings.add("fallback", time.perf_counter() - t0)

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
        # A bad page (the input layer's error: its type and message); anything else names
        # the exception.
        error = f"{exc.type}: {exc.message}" if isinstance(exc, DocumentError) else (
            f"{type(exc).__name__}: {exc}"
        )
        self.poison(self.store, doc_id, error)
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
    store: Store,
    ids: Sequence[str],
    compare_fn: Callable[[str, str], Any],
    k: int = DEFAULT_K,
    poison: Poison = mark_error_in_store,
    limits: Limits = DEFAULT_LIMITS,
) -> tuple[dict[str, str], list[str]]:
    """Decide and write a batch of documents: ``({id: outcome}, ids that must wait)``.
    ``poison(store, doc_id, error)`` records a document that cannot be handled.

    First from the batch's prefetched reads (three requests), decisions written in bulk; the
    documents that had to wait (their reads may be stale: an earlier candidate decided
    meanwhile by another worker) once more from fresh reads, after this batch's own writes.
    """
    writer = _BatchWriter(store, compare_fn, k, poison)
    outcomes = writer.outcomes
    todo = list(ids)
    for _attempt in range(2):
        rejected: dict[str, DocumentError] = {}
        docs, cand_ids, cands = prefetch(store, todo, k, limits, rejected)
        for doc_id, exc in rejected.items():
            writer._poison(doc_id, exc)
        todo = [i for i in todo if i not in rejected]
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
