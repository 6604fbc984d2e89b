"""Repairs: the index's groups and chrome masks brought back to ``dedup`` on the pages present.

A batch decision only adds pages (:mod:`neardup.ingest.workers.batch`). Everything else that
changes a group is a *repair*, run by a worker as the task ``neardup.repair``, alone (the
:class:`~neardup.ingest.workers.gate.Gate`: no decision runs meanwhile):

1. **Changes** (:mod:`neardup.ingest.workers.changes`), in arrival order: a new version of a
   page replaces the old one (the last to arrive wins), a delete removes the page from both
   indices; each takes its old text out of the chrome counts and puts its new one in.
2. **Chrome converges.** The counts only ever describe the pages counted so far, so a page
   masked early may have been masked with fewer lines than the counts now make chrome (or
   more, after deletes). Every page of a site whose counts changed since its pages were last
   masked is masked again with the counts now; a page whose mask changed gets its new
   content and fingerprints. This waits until no batch is undecided (a page still being
   decided would be masked with the counts of its ingest), and a site with a page counted but
   not yet in the index (an ingest still sending it) is looked at again by a later repair.
3. **Groups follow** (:mod:`neardup.ingest.regroup`): the pages changed, deleted or masked
   anew, and every member of the groups that held them, are decided again; groups outside are
   merged into when a page decided again joins them.
4. **Write**: deleted pages leave both indices; the pages decided again are written with their
   groups (the others' group fields, and the members of groups merged away, first; then
   whole, a page whose text or mask changed); the indices are refreshed; the changes are
   done.

A repair that fails is run again (its changes stay staged until it ends, and a page masked
anew is written last: until then, the next repair finds it to mask again). ``--wait`` waits
for the changes and the sites to be masked again (:func:`repairs_pending`).
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

from neardup.ingest.chrome import ChromeRule
from neardup.ingest.fingerprint import FingerprintConfig, index_terms
from neardup.ingest.pairs import page_site, site_verdict
from neardup.ingest.pipeline import chrome_site, kept_mask
from neardup.ingest.regroup import affected, redecide
from neardup.ingest.store.base import GroupUpdate, StoredDocument, fingerprint_terms, now_iso
from neardup.ingest.store.ranking import candidate_terms
from neardup.ingest.store.roles import EngineStore
from neardup.ingest.workers.batch import IndexParts
from neardup.ingest.workers.changes import ChangeLog
from neardup.ingest.workers.chrome_counts import SharedChromeCounts, counted_rules
from neardup.ingest.workers.gate import Gate
from neardup.ingest.workers.writeback import rewrite_merged
from neardup.verifier.grouping import GROUPED, joins

__all__ = ["mark_written", "repair", "repairs_pending", "wait_quiet"]

log = logging.getLogger(__name__)
log.addHandler(logging.NullHandler())

_READ = 1000  # pages a read asks for at once


# Changes one repair applies at most (the rest: the next repair, queued when it ends): a repair
# holds every decision back while it runs, so it stays short (~10 ms a change on two cores).
REPAIR_CHANGES = 1000


def _counts(client: Any, index: str) -> dict[str, SharedChromeCounts]:
    return {r.identity: SharedChromeCounts(client, index, r) for r in counted_rules(client, index)}


def repairs_pending(client: Any, index: str) -> dict[str, int]:
    """``{"changes", "sites"}``: the changes staged and the sites whose pages wait to be masked
    again (the work of a repair not yet done)."""
    sites = sum(c.dirty_count() for c in _counts(client, index).values())
    return {"changes": ChangeLog(client, index).count(), "sites": sites}


def mark_written(client: Any, index: str, pages: Sequence[StoredDocument]) -> None:
    """Mark the chrome sites of pages a batch just wrote, to be masked again by a repair: a
    page is masked when it is prepared, and the counts may have moved before its write (a
    repair that looked at its site before the page was in the index left it out)."""
    by_rule: dict[str, list[str]] = {}
    for d in pages:
        rule = _rule_of(d)
        if rule is not None:
            by_rule.setdefault(rule, []).append(d.id)
    for rule, ids in by_rule.items():
        counts = SharedChromeCounts(client, index, ChromeRule.from_identity(rule))
        counts.mark_dirty(set(counts.site_of(ids).values()))


def _rule_of(doc: StoredDocument) -> str | None:
    """The identity of the chrome rule a page was masked under (part of its ``fp_config``)."""
    _, plus, rule = doc.fp_config.partition("+")
    return rule if plus and rule.startswith("chrome") else None


def _mget(store: EngineStore, ids: Sequence[str]) -> dict[str, StoredDocument]:
    out: dict[str, StoredDocument] = {}
    for i in range(0, len(ids), _READ):
        out.update(store.mget(ids[i:i + _READ]))
    return out


def _unmark(swept: Sequence[tuple[SharedChromeCounts, str, int, str | None]]) -> None:
    """The sites swept, their pages written: each site's base is the version swept, and it is
    unmarked unless its counts moved meanwhile."""
    for counter, site, version, low in swept:
        counter.swept(site, version, low)


def _remask(counts: SharedChromeCounts, site: str, doc: StoredDocument) -> StoredDocument | None:
    """``doc`` masked with the counts now (as :func:`neardup.ingest.pipeline.mask_chrome`
    masks a plain-text page, with the site :func:`~neardup.ingest.pipeline.chrome_site`
    gives it), or None when its mask and site are unchanged."""
    masked = counts.mask(site, doc.body)
    content = kept_mask(masked, doc.body)
    new_site = chrome_site(doc.site, masked != doc.body)
    if content == doc.content and new_site == doc.site:
        return None
    config = FingerprintConfig.from_identity(doc.fp_config)
    return dataclasses.replace(doc, content=content, site=new_site,
                               fingerprints=index_terms(doc.body, config, content=content))


def repair(parts: IndexParts, changes: ChangeLog, sweep: bool = False) -> dict[str, int]:
    """One repair of the index (see the module doc); the caller holds the gate. Returns what it
    did: ``changes``, ``deleted``, ``remasked``, ``redecided``, ``compared``, ``joined``, or
    ``waiting`` when batches accepted before a change are not written yet. The sites are
    masked again once no change is left for the next repair, and when no batch is undecided
    or with ``sweep`` (``--wait`` asking: a batch
    whose message was lost stays undecided for a while; when it is written its sites are
    marked again, so sweeping before is only work done twice)."""
    store, staging, forest, compare_fn = parts.store, parts.staging, parts.forest, parts.compare
    client = staging.redis
    snap = changes.snapshot(REPAIR_CHANGES)
    latest = max((c.seq for c in snap), default=0)
    if snap and staging.undecided_before(latest + 1):
        return {"waiting": 1}
    # the sites are swept once the changes are all applied: a sweep reads every page of a site
    # whose counts moved, and each chunk of changes moves them again
    sweep = (sweep or staging.undecided_count() == 0) and changes.count() <= len(snap)
    counts = _counts(client, staging.index)
    store.refresh()

    # 1. the changes, in arrival order
    current = _mget(store, sorted({c.id for c in snap}))
    latest_doc: dict[str, StoredDocument | None] = dict(current)
    new_docs: dict[str, StoredDocument] = {}
    touched: set[str] = set()
    removed: set[str] = set()
    for c in snap:
        old = latest_doc.get(c.id)
        touched.add(c.id)
        if c.op == "regroup":
            continue
        if old is not None:
            rule = _rule_of(old)
            if rule in counts:
                counts[rule].forget_pages([(c.id, old.body)])
        if c.op == "delete":
            removed.add(c.id)
            new_docs.pop(c.id, None)
            latest_doc[c.id] = None
        elif c.doc is not None:
            doc = c.doc
            doc.seq = c.seq
            new_docs[c.id] = doc
            removed.discard(c.id)
            latest_doc[c.id] = doc
            rule = _rule_of(doc)
            if c.counted is not None and rule in counts:
                counts[rule].observe_pages([(c.id, c.counted, None, doc.body)])
            elif c.counted is not None and rule is not None:
                counts[rule] = SharedChromeCounts(client, staging.index,
                                                  ChromeRule.from_identity(rule))
                counts[rule].observe_pages([(c.id, c.counted, None, doc.body)])

    # 2. chrome: the pages of the sites whose counts changed, masked again
    remasked: dict[str, StoredDocument] = {}
    # (counts, site, version, low mark): unmarked once written (durable)
    swept: list[tuple[SharedChromeCounts, str, int, str | None]] = []
    skipped = 0
    if sweep:
        for counter in counts.values():
            for site in counter.dirty():
                version, base, low = counter.sweep_state(site)  # before the counts are read
                if low is not None and int(low) >= version and base in (None, version):
                    # every page masked since the last sweep saw these counts: nothing to read
                    swept.append((counter, site, version, low))
                    skipped += 1
                    continue
                ids = counter.site_pages(site)
                found = {i: new_docs[i] for i in ids if i in new_docs}
                rest = [i for i in ids if i not in found and i not in removed]
                found.update(_mget(store, rest))
                counter.prefetch_texts(site, [d.body for d in found.values()])
                for doc_id, doc in found.items():
                    new = _remask(counter, site, doc)
                    if new is not None:
                        remasked[doc_id] = new
                counter.forget()
                if len(found) == len([i for i in ids if i not in removed]):
                    swept.append((counter, site, version, low))
                # else a page counted and not in the index yet (in flight): the site stays
                # marked, for the next repair
    new_docs.update(remasked)
    touched.update(remasked)
    if not touched:
        changes.done(snap)
        _unmark(swept)
        return {"changes": len(snap), "remasked": 0, "redecided": 0, "sites_skipped": skipped}

    # 3. the groups that held them, decided again
    old_of = {**_mget(store, sorted(touched - set(current))), **current}
    groups = {d.dup_group for d in old_of.values() if d.dup_group}
    # a page deleted behind neardup's back: the forest still knows its group
    gone = sorted((touched | removed) - set(old_of))
    groups |= {r for i, r in forest.roots(gone).items()} if gone else set()
    members: dict[str, StoredDocument] = {}
    for g in sorted(groups):
        for m in store.group_members(g):
            members[m.id] = m
    todo = affected(touched | removed, lambda i: old_of[i].dup_group if i in old_of else None,
                    lambda _gs: members.keys(), removed) | (set(members) - removed)
    docs: dict[str, StoredDocument] = {}
    for i in sorted(todo):
        d = new_docs.get(i) or members.get(i) or old_of.get(i)
        if d is not None:
            docs[i] = d
    missing = [i for i in todo if i not in docs]
    docs.update(_mget(store, missing))
    todo = set(docs)
    stop = store.stoplist()
    terms = {i: set(fingerprint_terms(candidate_terms(d.fingerprints, stop))) for i, d in docs.items()}
    by_config: dict[str, set[str]] = {}
    for i, d in docs.items():
        by_config.setdefault(d.fp_config, set()).update(terms[i])
    hits = store.fingerprint_holders({c: sorted(t) for c, t in by_config.items() if t},
                                     sorted(todo | removed))
    others = _mget(store, sorted({h for h, _, _ in hits} - todo - removed))
    other_terms = {i: set(fingerprint_terms(candidate_terms(d.fingerprints, stop)))
                   for i, d in others.items()}
    everyone = {**others, **docs}
    order = {i: (d.seq, i) for i, d in everyone.items()}
    holders: dict[tuple[str, str], set[str]] = {}
    for pool, pool_terms in ((docs, terms), (others, other_terms)):
        for i, d in pool.items():
            for t in pool_terms[i]:
                holders.setdefault((d.fp_config, t), set()).add(i)

    def candidates(doc_id: str) -> set[str]:
        d = docs[doc_id]
        out: set[str] = set()
        for t in terms[doc_id]:
            out |= holders.get((d.fp_config, t), set())
        return out

    roots = forest.roots(sorted(others))
    # the order of the groups' roots too: a candidate's group joins by its root's (seq, id)
    unordered = sorted({r for r in roots.values() if r not in order})
    seqs = forest.seqs(unordered)
    seqs.update((i, d.seq) for i, d in _mget(store, [r for r in unordered if r not in seqs]).items())
    order.update((r, (seqs.get(r, 0), r)) for r in unordered)
    compared = 0

    def verify(later: str, earlier: str) -> tuple[bool, float, float]:
        nonlocal compared
        a, b = everyone[later], everyone[earlier]
        ta, tb = a.verified_text, b.verified_text
        v = site_verdict(compare_fn(ta, tb), ta, tb, page_site(a) == page_site(b) != "",
                         compare_fn)
        compared += 1
        return joins(v), float(v.resemble), float(v.contain)

    forest.forget(sorted(todo | removed), sorted(groups))
    edges = redecide(todo, order, candidates, lambda i: roots.get(i, i), verify)

    # 4. write
    seq = {i: d.seq for i, d in everyone.items()}
    root_of, best, merged = forest.union(
        seq, [(e.later, e.earlier, e.resemble, e.contain) for e in edges], sorted(todo))
    now = now_iso()
    whole: list[StoredDocument] = []
    updates: list[tuple[GroupUpdate, tuple[int, int] | None]] = []
    for i, d in sorted(docs.items()):
        group = root_of.get(i, i)
        dup_of = resemble = contain = None
        if group != i and i in best:
            dup_of, resemble, contain = best[i]
        if i in new_docs:
            d.dup_group, d.dup_of, d.resemble, d.contain = group, dup_of, resemble, contain
            d.status, d.error, d.grouped_at = GROUPED, None, now
            whole.append(d)
        else:
            updates.append((GroupUpdate(i, group, dup_of, resemble, contain), None))
    forest.note_members({i: root_of.get(i, i) for i in docs})
    if removed:
        store.delete(sorted(removed))
    # the others' groups first, the pages masked anew last: a repair that fails before its
    # end is run again, and finds those pages still to mask (and their groups to decide) only
    # while their new text is unwritten
    for result in store.update_groups(updates):
        if isinstance(result, Exception):
            log.warning("repair: %s", result)
    rewrite_merged(store, forest, merged)
    failed = [r for r in store.put(whole, overwrite=True) if not r.ok]
    store.refresh()
    if failed:
        raise RuntimeError(f"repair: {len(failed)} pages not written: {failed[0].error}")
    changes.done(snap)
    _unmark(swept)
    return {"changes": len(snap), "deleted": len(removed), "remasked": len(remasked),
            "sites_skipped": skipped,
            "redecided": len(todo), "compared": compared, "joined": len(edges)}


def wait_quiet(client: Any, index: str, timeout: float, poll: float = 0.1,
               kick: Callable[[], None] | None = None, kick_every: float = 5.0,
               idle: float | None = None) -> bool:
    """Wait until no change or site waits for a repair (``kick()``: queue one again, every
    ``kick_every`` seconds without progress); False after ``timeout`` seconds, or after
    ``idle`` seconds without progress (the work pending moved, or a repair holds the gate:
    its lease says it is alive)."""
    gate = Gate(client, index)
    now = time.monotonic()
    deadline = now + timeout
    last, since, moved = None, now, now
    while True:
        pending = repairs_pending(client, index)
        if not any(pending.values()):
            return True
        now = time.monotonic()
        if pending != last:
            last, since, moved = pending, now, now
        elif gate.repair_running():
            moved = now
        elif kick is not None and now - since > kick_every:
            kick()
            since = now
        if now > deadline or (idle is not None and now - moved > idle):
            return False
        time.sleep(poll)
