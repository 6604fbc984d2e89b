"""Decide a batch of accepted pages and index each one once, with its ``dup_group``.

Steps 2-3 of the method on the engine backend (docs/workers.md, "Deciding before indexing").
For a batch accepted by ingest (:mod:`neardup.verifier.registry`):

1. **Candidates** of each page: the pages sharing a usable fingerprint (same ``fp_config``,
   not stoplisted) — in the index (one unscored ``terms`` search for the whole batch) and
   among the accepted pages not yet searchable (the ``live`` batches in Redis, kept as an
   in-memory inverted index by each worker) — ranked by shared count, then ``(seq, id)``, at
   most ``k``.
2. **Verify** each page against its candidates (:func:`neardup.verifier.compare.compare`), skipping a
   candidate already in the page's group; a pair *joins* when the verdict says similar with
   a strong match (:func:`neardup.verifier.grouping.joins`).
3. **Group**: the joins go to the group forest in Redis in one atomic script; each page's
   ``dup_group`` is its component's root, the earliest member by ``(seq, id)``.
4. **Index** the batch once (one ``_bulk``), pages carrying their groups; rewrite the members
   of groups merged away (after a refresh, so every written member is found); then *settle*:
   read the roots again and rewrite any page whose group moved meanwhile.

Why the groups do not depend on workers, batches or arrival order: a page is visible to every
worker from acceptance until it is searchable in the index (it leaves ``live`` only after a
refresh that followed its write), and it is looked up after it was accepted; so of two pages
sharing a fingerprint, the one decided last sees the other, and their pair is verified unless
they are already in one group. The groups are the connected components of the joining pairs
among all candidate pairs: a function of the pages alone (as long as no page has more than
``k`` candidates and the stoplist does not change).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, KeysView, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from neardup.ingest.store.base import Store, StoredDocument, now_iso
from neardup.ingest.store.ranking import rank_candidates
from neardup.verifier import timings
from neardup.verifier.grouping import GROUPED, joins
from neardup.verifier.registry import Batch, Registry, stored_page

__all__ = ["DEFAULT_K", "LiveIndex", "Poison", "Refresher", "decide_batch"]

log = logging.getLogger(__name__)
log.addHandler(logging.NullHandler())

#: The most candidates a page is verified against (by shared fingerprints, then ``(seq, id)``).
DEFAULT_K = 100

#: The most index hits of a batch read whole at once; beyond that (a common fingerprint not
#: yet stoplisted), their fingerprints first and then the texts of the ranked candidates only.
MAX_WHOLE_READS = 1000

# poison(store, doc_id, error): record a page that cannot be handled (the dead-letter list).
Poison = Callable[[Store | None, str, str], None]


_P = TypeVar("_P", str, int)


class _Owners(Generic[_P]):
    """A batch's pages (ids, or positions) by fingerprint. Nearly every fingerprint is held by
    one page of the batch, so that mapping is built by C calls (``dict.fromkeys``), with the
    few held by several pages beside it."""

    __slots__ = ("more", "one")

    def __init__(self, pages: Sequence[tuple[_P, frozenset[str]]]) -> None:
        self.one: dict[str, _P] = {}
        for doc_id, terms in pages:
            self.one.update(dict.fromkeys(terms, doc_id))
        self.more: dict[str, list[_P]] = {}
        if sum(len(terms) for _, terms in pages) > len(self.one):
            seen: set[str] = set()
            several: set[str] = set()
            for _, terms in pages:
                several |= terms & seen
                seen |= terms
            for doc_id, terms in pages:
                for t in terms & several:
                    self.more.setdefault(t, []).append(doc_id)

    def of(self, term: str) -> Sequence[_P]:
        """The pages holding ``term``."""
        more = self.more.get(term)
        if more is not None:
            return more
        one = self.one.get(term)
        return () if one is None else (one,)

    def count(self, terms: Iterable[str]) -> Counter[_P]:
        """How many of ``terms`` (distinct) each page holds, counted in C."""
        common = self.one.keys() & terms
        counts = Counter(map(self.one.__getitem__, common))
        for t in common & self.more.keys() if self.more else ():
            last = self.one[t]  # counted above; the others holding it are not
            counts.update(p for p in self.more[t] if p != last)
        return counts


@dataclass(slots=True)
class _Live:
    id: str
    seq: int
    batch: str
    page: Mapping[str, Any]

    @property
    def text(self) -> str:
        content = self.page.get("content")
        return str(content if content is not None else self.page["body"])


@dataclass(slots=True)
class _LiveBatch:
    """One live batch as a worker holds it: its pages and which of them hold each
    fingerprint."""

    entries: list[_Live]
    owners: _Owners[int]  # fingerprint -> positions in entries
    accepted_at: float

    @property
    def all_fps(self) -> KeysView[str]:
        """Every fingerprint its pages hold."""
        return self.owners.one.keys()

    @property
    def shared(self) -> KeysView[str]:
        """The fingerprints two of its own pages share (asked by the batch's decider)."""
        return self.owners.more.keys()

    def holders(self, terms: Iterable[str]) -> dict[str, list[_Live]]:
        """``{fingerprint: the pages holding it}`` for ``terms``, which this batch holds."""
        e = self.entries
        return {t: [e[i] for i in self.owners.of(t)] for t in terms}


@dataclass(slots=True)
class LiveIndex:
    """A worker's view of the live batches, kept in step with ``live`` (batches come and go; a
    payload never changes). A lookup intersects the asked fingerprints with each batch's keys
    (:class:`_Owners`, built by C calls), so adding and dropping a batch costs little."""

    batches: dict[str, _LiveBatch] = field(default_factory=dict)  # batch key -> batch

    def sync(self, registry: Registry, keys: Sequence[str], loaded: Mapping[str, Batch]) -> None:
        """Drop the batches no longer live, load and index the new ones."""
        wanted = set(keys)
        for key in [k for k in self.batches if k not in wanted]:
            del self.batches[key]
        missing = [k for k in keys if k not in self.batches and k not in loaded]
        fresh = dict(loaded)
        fresh.update(registry.load(missing) if missing else {})
        for key in keys:
            if key not in self.batches and key in fresh:
                self._add(fresh[key])

    def _add(self, batch: Batch) -> None:
        entries = [_Live(str(p["id"]), batch.seq_of(i), batch.key, p)
                   for i, p in enumerate(batch.pages)]
        owners = _Owners([(i, frozenset(p.get("fingerprints") or ()))
                          for i, p in enumerate(batch.pages)])
        self.batches[batch.key] = _LiveBatch(entries, owners, batch.accepted_at)

    def pages(self, key: str) -> list[_Live] | None:
        b = self.batches.get(key)
        return None if b is None else b.entries

    def older_than(self, seconds: float) -> list[str]:
        """Live batches accepted more than ``seconds`` ago."""
        cut = time.time() - seconds
        return sorted(k for k, b in self.batches.items() if b.accepted_at < cut)


_LIVE: dict[tuple[int, str], LiveIndex] = {}


def live_index(registry: Registry) -> LiveIndex:
    """This process's :class:`LiveIndex` of the registry's index."""
    import os

    return _LIVE.setdefault((os.getpid(), registry.index), LiveIndex())


def decide_batch(
    store: Store,
    registry: Registry,
    key: str,
    compare_fn: Callable[[str, str], Any],
    k: int = DEFAULT_K,
    poison: Poison | None = None,
    live: LiveIndex | None = None,
    searchable: Callable[[float], None] | None = None,
) -> dict[str, int]:
    """Decide and index the batch ``key`` (see the module doc); idempotent. Returns counts.

    ``searchable(written_at)`` makes the batch searchable (a :class:`Refresher`'s
    ``written``, in the background); without it, the batch is refreshed before returning."""
    loaded = registry.load([key])
    batch = loaded.get(key)
    if batch is None:
        return {"gone": 1}  # already indexed, refreshed and dropped: a redelivered message
    live = live if live is not None else live_index(registry)
    t0 = time.perf_counter()
    live.sync(registry, registry.live(), loaded)
    timings.add("live", time.perf_counter() - t0)
    own = live.pages(key) or [
        _Live(str(p["id"]), batch.seq_of(i), key, p) for i, p in enumerate(batch.pages)
    ]
    stop = store.stoplist()
    docs = [stored_page(e.page, e.seq) for e in own]

    # 1. candidates: the live pages and the index
    shared: dict[str, dict[str, int]] = {d.id: {} for d in docs}
    seq_of: dict[str, int] = {d.id: d.seq for d in docs}
    live_text: dict[str, _Live] = {}
    terms_of = {d.id: frozenset(d.fingerprints).difference(stop) for d in docs}
    wanted: set[str] = set().union(*terms_of.values())
    by_config_docs: dict[str, list[tuple[str, frozenset[str]]]] = {}
    for d in docs:
        by_config_docs.setdefault(d.fp_config, []).append((d.id, terms_of[d.id]))
    mine = {c: _Owners(pages) for c, pages in by_config_docs.items()}  # the batch's own pages
    for live_key, live_batch in live.batches.items():
        common = live_batch.shared if live_key == key else live_batch.all_fps & wanted
        for t, others in (live_batch.holders(common).items() if common else ()):
            for other in others:
                held = mine.get(str(other.page.get("fp_config")))
                for doc_id in held.of(t) if held is not None else ():
                    if other.id != doc_id:
                        counts = shared[doc_id]
                        counts[other.id] = counts.get(other.id, 0) + 1
                        if other.id not in seq_of or other.seq < seq_of[other.id]:
                            seq_of[other.id] = other.seq
                        live_text.setdefault(other.id, other)
    t0 = time.perf_counter()
    hits = store.fingerprint_holders(  # the store sorts them: equal batches ask alike
        {c: o.one.keys() for c, o in mine.items() if o.one}, [d.id for d in docs],
        with_fingerprints=False,
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
        index_docs = store.mget(fresh, realtime=False) if fresh else {}
        held_by = {i: (d.fp_config, d.fingerprints) for i, d in index_docs.items()}
    else:
        held_by = {i: (f.get("fp_config"), f.get("fingerprints") or [])
                   for i, f in store.fields(fresh, ["fp_config", "fingerprints"]).items()}
    timings.add("cand_mget", time.perf_counter() - t0)
    for hit_id, hit_seq, config, _fps, _group in hits:
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
        index_docs = store.mget(unread, realtime=False) if unread else {}
        timings.add("cand_mget", time.perf_counter() - t0)

    def text_of(doc_id: str) -> str | None:
        if doc_id in live_text:
            return live_text[doc_id].text
        doc = index_docs.get(doc_id)
        return doc.verified_text if doc is not None and isinstance(doc.body, str) else None

    # 2. verify, skipping candidates already in the page's group
    involved = sorted({d.id for d in docs} | {c for cs in ranked.values() for c in cs})
    parent: dict[str, str] = dict(registry.roots(involved))

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
        for c in ranked[d.id]:
            if find(c) == find(d.id):
                continue
            other_text = text_of(c)
            if other_text is None:
                continue
            try:
                verdict = compare_fn(text, other_text)
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
    roots, best, merged = registry.union({x: seq_of[x] for x in names}, edges, ids)

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
    registry.note_members({d.id: str(d.dup_group) for d in out})
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
    rewritten = rewrite_merged(store, registry, merged)
    written.update(rewritten)
    settle(store, registry, written)
    t0 = time.perf_counter()
    written_at = registry.mark_written(key)
    if searchable is None:
        registry.refresh_and_prune(store.refresh, written_at)
    else:
        searchable(written_at)
    timings.add("searchable", time.perf_counter() - t0)
    grouped = sum(1 for d in out if d.status == GROUPED and d.id in written)
    return {"grouped": grouped, "errors": len(out) - grouped, "compared": compared,
            "joined": len(edges), "merged": len(merged), "rewritten": len(rewritten)}


class Refresher:
    """Makes the batches a worker wrote searchable, in the background: a thread that forces a
    refresh (:meth:`Registry.refresh_and_prune`: one at a time across workers, none when one
    started since the write) at most every ``every`` seconds, so the batches written meanwhile
    share it and the worker goes on deciding; at once when every live batch is written (none
    is on its way to share it: the end of a run, a quiet stream). A refresh that fails (the
    engine is down) is tried again; if the process dies first, the next refresh of any worker
    prunes the batch, and ``ingest --wait`` re-sends a batch that makes no progress."""

    def __init__(self, registry: Registry, refresh: Callable[[], None], every: float) -> None:
        self.registry, self.refresh, self.every = registry, refresh, every
        self._due = 0.0  # the latest write not yet known to be searchable
        self._cond = threading.Condition()
        self._last = 0.0  # when this thread last started a refresh
        threading.Thread(target=self._run, name="neardup-refresher", daemon=True).start()

    def written(self, at: float) -> None:
        """A batch was written at ``at``: have a refresh start after it."""
        with self._cond:
            self._due = max(self._due, at)
            self._cond.notify()

    def idle(self, timeout: float | None = None) -> bool:
        """Wait until every write told so far is searchable (tests; shutdown)."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._due, timeout)

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._due > 0)
                due = self._due
            try:  # at most one refresh every `every` seconds, of this worker and of all
                pause = max(self._last + self.every - time.monotonic(),
                            self.registry.last_refresh() + self.every - time.time())
                if pause > 0 and not self.registry.undecided_count():
                    pause = 0.0  # no other batch is on its way to share the refresh
                if pause > 0:
                    time.sleep(min(pause, self.every))
                self._last = time.monotonic()
                self.registry.refresh_and_prune(self.refresh, due)
            except Exception:  # noqa: BLE001 - the engine or the broker is away: again later
                log.warning("could not make written batches searchable; retrying", exc_info=True)
                time.sleep(1.0)
                continue
            with self._cond:
                if self._due == due:
                    self._due = 0.0
                    self._cond.notify_all()


def rewrite_merged(
    store: Store, registry: Registry, merged: Sequence[tuple[str, str]]
) -> dict[str, str]:
    """Point the indexed members of groups merged away at their root now. Only group ids that
    pages were indexed with can have members (a page of this batch that joined an older group
    was not written yet); their members are the pages noted before each write
    (:meth:`Registry.note_members`: a page noted after this read is settled by its writer,
    who reads the roots after writing), each rewritten to its current root by id — no
    refresh or search of the index."""
    losers = registry.written_roots(sorted({loser for loser, _ in merged}))
    if not losers:
        return {}
    out = registry.roots(registry.members_written(losers))
    _write_groups(store, registry, out)
    registry.forget_members(losers)
    return out


def settle(store: Store, registry: Registry, written: Mapping[str, str], rounds: int = 20) -> None:
    """Re-read the roots of the pages just written and rewrite those whose group moved meanwhile,
    until none did (a merge after this read is rewritten by whoever made it)."""
    pending = dict(written)
    for _ in range(rounds):
        if not pending:
            return
        now = registry.roots(sorted(pending))
        moved = {i: r for i, r in now.items() if r != pending[i]}
        if not moved:
            return
        _write_groups(store, registry, moved)
        pending = moved
    log.warning("groups of %d pages still moving after %d rounds", len(pending), rounds)


def _write_groups(store: Store, registry: Registry, groups: Mapping[str, str]) -> None:
    if groups:
        registry.note_members(groups)
        store.set_groups(groups)
