"""Deciding one batch: its pages' groups, and each page indexed once with its ``dup_group``.

Steps 2-3 of the method on the engine backend (docs/workers.md, "Deciding before indexing").
For a batch accepted by ingest (staged in Redis: :mod:`neardup.ingest.workers.staging`):

1. **Candidates** of each page: the pages sharing a usable fingerprint (same ``fp_config``,
   not stoplisted) — in the index (one unscored ``terms`` search for the whole batch) and
   among the accepted pages not yet searchable (the ``live`` batches in Redis, kept as an
   in-memory inverted index by each worker: :mod:`neardup.ingest.workers.live`) — ranked by
   shared count, then ``(seq, id)``, at most ``k``.
2. **Verify** each page against its candidates (:func:`neardup.verifier.compare.compare`), skipping a
   candidate already in the page's group; a pair *joins* when the verdict says similar with
   a strong match (:func:`neardup.verifier.grouping.joins`).
3. **Group**: the joins go to the group forest in Redis in one atomic script
   (:mod:`neardup.ingest.workers.forest`); each page's ``dup_group`` is its component's root,
   the earliest member by ``(seq, id)``.
4. **Index** the batch once (one ``_bulk``), pages carrying their groups; rewrite the members
   of groups merged away (by id: the members noted before each write); then *settle*: read
   the roots again and rewrite any page whose group moved meanwhile
   (:mod:`neardup.ingest.workers.writeback`); hand the batch to be made searchable
   (:mod:`neardup.ingest.workers.refresher`).

Why the groups do not depend on workers, batches or arrival order: a page is visible to every
worker from acceptance until it is searchable in the index (it leaves ``live`` only after a
refresh that followed its write), and it is looked up after it was accepted; so of two pages
sharing a fingerprint, the one accepted last sees the other when its batch is decided
(whatever the order of the decisions: the other's batch, accepted before, is live or
searchable by then), and their pair is verified unless they are already in one group. A
decision therefore looks only at the live batches accepted before its own (and at its own):
those accepted after it look at it. The groups are the connected components of the joining pairs
among all candidate pairs: a function of the pages alone (as long as no page has more than
``k`` candidates and the stoplist does not change).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from operator import attrgetter
from typing import Any

from neardup.ingest.pairs import page_site, site_verdict
from neardup.ingest.store.base import StoredDocument, now_iso
from neardup.ingest.store.ranking import rank_candidates
from neardup.ingest.store.roles import EngineStore
from neardup.ingest.workers import timings
from neardup.ingest.workers.forest import RedisGroupForest
from neardup.ingest.workers.live import LiveIndex, Owners, live_index
from neardup.ingest.workers.staging import BatchStaging
from neardup.ingest.workers.writeback import rewrite_merged, settle
from neardup.verifier.grouping import GROUPED, joins

__all__ = ["DEFAULT_K", "MAX_WHOLE_READS", "IndexParts", "Poison", "decide_batch"]

#: The most candidates a page is verified against (by shared fingerprints, then ``(seq, id)``).
DEFAULT_K = 100

#: The most index hits of a batch read whole at once; beyond that (a common fingerprint not
#: yet stoplisted), their fingerprints first and then the texts of the ranked candidates only.
MAX_WHOLE_READS = 1000

# poison(store, doc_id, error): record a page that cannot be handled (the dead-letter list).
Poison = Callable[[EngineStore | None, str, str], None]

_FIELDS = attrgetter(*(f.name for f in fields(StoredDocument)))


def _own_docs(pages: Sequence[StoredDocument]) -> list[StoredDocument]:
    """Copies of a staged batch's pages for its decision to set their groups on: the staged
    pages are the live index's, shared by every decision of the process."""
    return [StoredDocument(*_FIELDS(p)) for p in pages]


def _read(store: EngineStore, ids: Sequence[str]) -> dict[str, StoredDocument]:
    """The pages ``ids`` (found by the candidate search) as searches see them
    (``realtime=False``: no refresh of the pages index for them). Their batches left the live
    set once the pages index's refresh had shown them; one that has not (a copy of the pages
    index joined since, say) is read in real time instead."""
    found = store.mget(ids, realtime=False) if ids else {}
    late = [i for i in ids if i not in found]
    if late:
        found.update(store.mget(late))
        timings.add("cand_late", 0.0, len(late))
    return found


@dataclass(frozen=True, slots=True)
class IndexParts:
    """What deciding pages of an index works with — a batch's decision (:func:`decide_batch`)
    and a repair's (:func:`neardup.ingest.workers.repair.repair`): the index's store, its
    batches and its group forest in Redis, and the verifier (``compare``, a pair of texts to
    a verdict)."""

    store: EngineStore
    staging: BatchStaging
    forest: RedisGroupForest
    compare: Callable[[str, str], Any]


def decide_batch(
    parts: IndexParts,
    key: str,
    k: int = DEFAULT_K,
    poison: Poison | None = None,
    live: LiveIndex | None = None,
    searchable: Callable[[float], None] | None = None,
    written_hook: Callable[[Sequence[StoredDocument]], None] | None = None,
) -> dict[str, int]:
    """Decide and index the batch ``key`` (see the module doc); idempotent. Returns counts.

    ``written_hook(pages)`` is told the pages written (the repairs mask their sites again).
    ``searchable(written_at)`` makes the batch searchable (a
    :class:`~neardup.ingest.workers.refresher.Refresher`'s ``written``, in the background); without it, the batch is refreshed before returning."""
    store, staging, forest, compare_fn = parts.store, parts.staging, parts.forest, parts.compare
    loaded = staging.load([key])
    batch = loaded.get(key)
    if batch is None:
        return {"gone": 1}  # already indexed, refreshed and dropped: a redelivered message
    live = live if live is not None else live_index(staging)
    t0 = time.perf_counter()
    live.sync(staging, staging.live(), loaded)
    timings.add("live", time.perf_counter() - t0)
    stop = store.stoplist()
    docs = _own_docs(live.pages(key) or batch.pages)

    # 1. candidates: the live pages and the index
    shared: dict[str, dict[str, int]] = {d.id: {} for d in docs}
    seq_of: dict[str, int] = {d.id: d.seq for d in docs}
    live_text: dict[str, StoredDocument] = {}
    terms_of = {d.id: frozenset(d.fingerprints).difference(stop) for d in docs}
    wanted: set[str] = set().union(*terms_of.values())
    by_config_docs: dict[str, list[tuple[str, frozenset[str]]]] = {}
    for d in docs:
        by_config_docs.setdefault(d.fp_config, []).append((d.id, terms_of[d.id]))
    mine = {c: Owners(pages) for c, pages in by_config_docs.items()}  # the batch's own pages
    for live_key, live_batch in live.batches.items():
        if live_batch.first_seq > batch.first_seq:
            continue  # accepted after this one: its decision sees this batch (module doc)
        common = live_batch.shared if live_key == key else live_batch.all_fps & wanted
        for t, others in (live_batch.holders(common).items() if common else ()):
            for other in others:
                held = mine.get(other.fp_config)
                for doc_id in held.of(t) if held is not None else ():
                    if other.id != doc_id:
                        counts = shared[doc_id]
                        counts[other.id] = counts.get(other.id, 0) + 1
                        if other.id not in seq_of or other.seq < seq_of[other.id]:
                            seq_of[other.id] = other.seq
                        live_text.setdefault(other.id, other)
    t0 = time.perf_counter()
    hits = store.fingerprint_holders(  # the store sorts them: equal batches ask alike
        {c: o.one.keys() for c, o in mine.items() if o.one}, [d.id for d in docs]
    )
    timings.add("batch_query", time.perf_counter() - t0)
    timings.add("batch_hits", 0.0, len(hits))
    # The hits' fingerprints come with their sources, which the verifier reads anyway (found
    # by a search, so no refresh is needed; the whole source, because filtering fields out
    # costs the engine more, as it parses and rewrites each source, than reading them costs
    # here). Many hits (a common fingerprint not yet stoplisted): their fingerprints first,
    # then the texts of the ranked candidates only.
    fresh = sorted({hit_id for hit_id, *_ in hits if hit_id not in live_text})
    t0 = time.perf_counter()
    index_docs: dict[str, StoredDocument] = {}
    held_by: dict[str, tuple[str | None, Sequence[str]]]
    whole = len(fresh) <= MAX_WHOLE_READS
    if whole:
        index_docs = _read(store, fresh)
        held_by = {i: (d.fp_config, d.fingerprints) for i, d in index_docs.items()}
    else:
        held_by = {i: (f.get("fp_config"), f.get("fingerprints") or [])
                   for i, f in store.fields(fresh, ["fp_config", "fingerprints"]).items()}
    timings.add("cand_mget", time.perf_counter() - t0)
    for hit_id, hit_seq, config in hits:
        if hit_id in live_text:
            continue  # the live copy is the newer one
        hit_config, fps = held_by.get(hit_id, (None, ()))
        held = mine.get(config)
        if held is None or hit_config != config:
            continue  # gone, or rewritten, since the search
        seq_of.setdefault(hit_id, hit_seq)
        for doc_id, n in held.count(fps).items():
            if doc_id != hit_id:
                shared[doc_id][hit_id] = shared[doc_id].get(hit_id, 0) + n
    ranked = {
        d.id: [c.id for c in rank_candidates(shared[d.id], k, seq_of)] for d in docs
    }
    if not whole:
        unread = sorted({c for cs in ranked.values() for c in cs if c not in live_text})
        t0 = time.perf_counter()
        index_docs = _read(store, unread)
        timings.add("cand_mget", time.perf_counter() - t0)

    def doc_of(doc_id: str) -> StoredDocument | None:
        if doc_id in live_text:
            return live_text[doc_id]
        doc = index_docs.get(doc_id)
        return doc if doc is not None and isinstance(doc.body, str) else None

    # 2. verify, skipping candidates already in the page's group
    involved = sorted({d.id for d in docs} | {c for cs in ranked.values() for c in cs})
    parent: dict[str, str] = dict(forest.roots(involved))

    def find(x: str) -> str:
        r = parent.setdefault(x, x)
        while parent.setdefault(r, r) != r:
            r = parent[r]
        parent[x] = r
        return r

    edges: list[tuple[str, str, float, float]] = []
    failed: dict[str, str] = {}
    compared = 0
    for d in docs:
        text = d.verified_text
        site = page_site(d)
        for c in ranked[d.id]:
            if find(c) == find(d.id):
                continue
            cand = doc_of(c)
            if cand is None:
                continue
            other_text = cand.verified_text
            try:
                verdict = site_verdict(compare_fn(text, other_text), text, other_text,
                                       site == page_site(cand) != "", compare_fn)
            except Exception as exc:  # a poison pair: this page alone
                failed[d.id] = f"{type(exc).__name__}: {exc}"
                break
            compared += 1
            if joins(verdict):
                edges.append((d.id, c, float(verdict.resemble), float(verdict.contain)))
                parent[find(c)] = find(d.id)

    # 3. group: the forest in Redis
    ids = [d.id for d in docs if d.id not in failed]
    edges = [e for e in edges if e[0] not in failed]
    names = {x for e in edges for x in e[:2]} | set(ids)
    roots, best, merged = forest.union({x: seq_of[x] for x in names}, edges, ids)

    # 4. index once; rewrite merged groups; settle
    now = now_iso()
    out: list[StoredDocument] = []
    for d in docs:
        if d.id in failed:
            d.dup_group, d.status, d.error = d.id, "error", failed[d.id][:2000]
        else:
            d.dup_group, d.status = roots[d.id], GROUPED
            if d.id in best and d.dup_group != d.id:  # a representative is no one's duplicate
                d.dup_of, d.resemble, d.contain = best[d.id]
        d.grouped_at = now
        out.append(d)
    t0 = time.perf_counter()
    written: dict[str, str] = {}
    forest.note_members({d.id: str(d.dup_group) for d in out})
    results = store.merge_fields(out) if batch.mode == "update" else store.put(out, overwrite=True)
    for doc, result in zip(out, results, strict=True):
        if result.ok:
            written[doc.id] = str(doc.dup_group)
        elif poison is not None:
            poison(store, doc.id, result.error or "could not be indexed")
    timings.add("index", time.perf_counter() - t0)
    for doc_id, error in failed.items():
        if poison is not None:
            poison(None, doc_id, error)
    if written_hook is not None:
        written_hook([d for d in out if d.id in written])
    rewritten = rewrite_merged(store, forest, merged)
    written.update(rewritten)
    settle(store, forest, written)
    t0 = time.perf_counter()
    written_at = staging.mark_written(key)
    if searchable is None:
        staging.refresh_and_prune(store.refresh, written_at)
    else:
        searchable(written_at)
    timings.add("searchable", time.perf_counter() - t0)
    grouped = sum(1 for d in out if d.status == GROUPED and d.id in written)
    return {"grouped": grouped, "errors": len(out) - grouped, "compared": compared,
            "joined": len(edges), "merged": len(merged), "rewritten": len(rewritten)}
