"""Groups kept up to date in memory while pages are added, changed and deleted.

:func:`neardup.dedup` groups a whole set of pages at once. :class:`IncrementalDedup` holds a
set that changes — :meth:`~IncrementalDedup.put` a page (new, or a new version of one it
holds: the last put wins), :meth:`~IncrementalDedup.delete` one — and after each change its
groups and chrome masks are those :func:`neardup.dedup` gives on the pages present, taken in
the order they were last put (the rule the workers follow on an index,
:mod:`neardup.ingest.workers.repair`; both apply :mod:`neardup.ingest.regroup`):

* **Chrome converges.** Line counts are sums over the pages present: a page put adds its
  lines, a page deleted or replaced takes its old lines back. Every page of a site whose
  counts changed is masked again with the counts as they are now, and the pages whose mask
  changed are decided again.
* **Groups follow.** A page put, replaced, deleted or masked anew, and every member of the
  groups that held it, are decided again (:func:`neardup.ingest.regroup.affected`,
  :func:`~neardup.ingest.regroup.redecide`): a group whose representative goes gets the
  earliest page left, and pages joined only through a page that went part.

Exact when no page has more than ``k`` candidates (``neardup dedup`` verifies the top ``k``);
no stoplist (a fresh embedded index has none either).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from neardup.ingest.chrome import (
    DEFAULT_MIN_PAGES,
    ChromeCounts,
    ChromeRule,
    ExactCounter,
    site_key,
)
from neardup.ingest.extract import document_texts
from neardup.ingest.pairs import page_site, site_verdict
from neardup.ingest.pipeline import chrome_site, fingerprint_config, mask_page, prepare_document
from neardup.ingest.records import DEFAULT_LIMITS, Page, clean_text, validate_page
from neardup.ingest.regroup import affected, redecide
from neardup.ingest.store.base import StoredDocument
from neardup.verifier.compare import compare
from neardup.verifier.config import VerifyConfig
from neardup.verifier.grouping import joins

__all__ = ["IncrementalDedup", "PageGroup"]


@dataclass(frozen=True, slots=True)
class PageGroup:
    """A page's group now: ``dup_group`` (its representative's id, its own for a
    representative), ``dup_of`` (the page it was joined to that it resembles most; None for a
    representative) and their rates."""

    id: str
    dup_group: str
    dup_of: str | None = None
    resemble: float | None = None
    contain: float | None = None


class IncrementalDedup:
    """The groups of a changing set of pages, in memory (see the module doc).

    >>> story = ("The river flooded the old town on Monday night. Residents were moved to "
    ...          "the school on the hill, where volunteers served soup until morning.")
    >>> live = IncrementalDedup()
    >>> live.put({"id": "a", "text": story})
    >>> live.put({"id": "b", "text": story + " Repairs start next week."})
    >>> live.groups()
    {'a': 'a', 'b': 'a'}
    >>> live.delete("a")
    True
    >>> live.groups()
    {'b': 'b'}
    """

    def __init__(self, *, profile: str = "web", chrome: bool = True,
                 chrome_min_pages: int = DEFAULT_MIN_PAGES) -> None:
        self.config = fingerprint_config(profile)
        self.verify_config = VerifyConfig.profile(profile)
        self.counts = ChromeCounts(ChromeRule(min_pages=chrome_min_pages), ExactCounter(),
                                   warmup=False) if chrome else None
        self._seq = 0
        self._pages: dict[str, Page] = {}
        self._docs: dict[str, StoredDocument] = {}
        # id -> (chrome site, counted text, masked: its content is that text less its chrome)
        self._counted: dict[str, tuple[str, str, bool]] = {}
        self._site_pages: dict[str, set[str]] = {}
        self._postings: dict[tuple[str, str], set[str]] = {}
        self._group: dict[str, str] = {}
        self._members: dict[str, set[str]] = {}
        self._best: dict[str, tuple[str, float, float]] = {}
        self.redecided = 0  # pages decided again in all (each put, delete or new mask)

    # -- changes ------------------------------------------------------------------------------

    def put(self, page: Page | Mapping[str, Any]) -> None:
        """Add a page, or replace the page of its id (the last put wins: its order is now the
        latest). A page that is not valid raises :class:`~neardup.ingest.errors.DocumentError`
        and changes nothing."""
        page = page if isinstance(page, Page) else validate_page(page)
        doc = prepare_document(page, self._seq + 1, self.config, chrome=self.counts)
        self._seq += 1
        doc_id = doc.id
        dirty: set[str] = set()
        if doc_id in self._pages:
            dirty |= self._forget(doc_id)
        self._pages[doc_id] = page
        counted = self._countable(page)
        if counted is not None and self.counts is not None:
            self.counts.observe_text(counted[0], counted[1])
            self._counted[doc_id] = counted
            self._site_pages.setdefault(counted[0], set()).add(doc_id)
            dirty.add(counted[0])
        self._index(doc)
        self._converge({doc_id}, set(), dirty)

    def delete(self, page_id: str) -> bool:
        """Remove the page ``page_id``; False when no page has that id."""
        if page_id not in self._pages:
            return False
        dirty = self._forget(page_id)
        del self._pages[page_id]
        self._converge(set(), {page_id}, dirty)
        return True

    # -- reading ------------------------------------------------------------------------------

    def groups(self) -> dict[str, str]:
        """``{page id: dup_group}`` of every page present."""
        return {i: self._group.get(i, i) for i in self._docs}

    def __len__(self) -> int:
        return len(self._docs)

    def __iter__(self) -> Iterator[PageGroup]:
        """Every page's :class:`PageGroup`, in the order the pages were last put."""
        for doc in sorted(self._docs.values(), key=lambda d: (d.seq, d.id)):
            group = self._group.get(doc.id, doc.id)
            best = self._best.get(doc.id) if group != doc.id else None
            yield PageGroup(doc.id, group, *(best or (None, None, None)))

    def document(self, page_id: str) -> StoredDocument | None:
        """The page as it is fingerprinted and verified now (its ``content``: the chrome
        mask of the counts now)."""
        return self._docs.get(page_id)

    # -- inside -------------------------------------------------------------------------------

    def _countable(self, page: Page) -> tuple[str, str, bool] | None:
        """``(chrome site, text, masked)`` of a plain-text page (what the chrome counts count;
        ``masked``: its content is its text less its chrome, as
        :func:`~neardup.ingest.pipeline.prepare_document` makes it)."""
        if self.counts is None or page.field == "html":
            return None
        texts = document_texts(page.document(), max_bytes=DEFAULT_LIMITS.max_doc_bytes)
        masked = texts.content is None or texts.content == texts.text
        return site_key(page.site, page.url), clean_text(texts.text, page.id), masked

    def _forget(self, doc_id: str) -> set[str]:
        """Take a page's old version out of the counts and the candidate postings (its group
        is the regrouping's); returns the chrome sites whose counts changed."""
        self._unindex(doc_id)
        counted = self._counted.pop(doc_id, None)
        if counted is None or self.counts is None:
            return set()
        self.counts.forget_text(counted[0], counted[1])
        self._site_pages[counted[0]].discard(doc_id)
        return {counted[0]}

    def _index(self, doc: StoredDocument) -> None:
        self._docs[doc.id] = doc
        for f in set(doc.fingerprints):
            self._postings.setdefault((doc.fp_config, f), set()).add(doc.id)

    def _unindex(self, doc_id: str) -> None:
        doc = self._docs.pop(doc_id, None)
        if doc is None:
            return
        for f in set(doc.fingerprints):
            holders = self._postings.get((doc.fp_config, f))
            if holders is not None:
                holders.discard(doc_id)
                if not holders:
                    del self._postings[doc.fp_config, f]

    def _remask(self, sites: Iterable[str]) -> set[str]:
        """Mask every page of ``sites`` with the counts now; the pages whose mask changed."""
        changed: set[str] = set()
        if self.counts is None:
            return changed
        for site in sorted(sites):
            for doc_id in sorted(self._site_pages.get(site, ())):
                doc, page = self._docs[doc_id], self._pages[doc_id]
                _, text, masked = self._counted[doc_id]
                if not masked:
                    continue
                content, carries = mask_page(self.counts, page, text)
                if content == doc.content and chrome_site(doc.site, carries) == doc.site:
                    continue
                new = prepare_document(page, doc.seq, self.config, chrome=self.counts)
                self._unindex(doc_id)
                self._index(new)
                changed.add(doc_id)
        return changed

    def _converge(self, touched: set[str], removed: set[str], dirty: set[str]) -> None:
        touched |= self._remask(dirty)
        todo = affected(touched | removed, self._group.get,
                        lambda gs: {m for g in gs for m in self._members.get(g, ())}, removed)
        for doc_id in todo | removed:  # each one group again
            group = self._group.pop(doc_id, None)
            if group is not None:
                self._members.pop(group, None)
            self._best.pop(doc_id, None)
        docs = self._docs
        order = {i: (d.seq, i) for i, d in docs.items()}

        def candidates(doc_id: str) -> set[str]:
            doc = docs[doc_id]
            out: set[str] = set()
            for f in set(doc.fingerprints):
                out |= self._postings.get((doc.fp_config, f), set())
            return out

        def verify(later: str, earlier: str) -> tuple[bool, float, float]:
            a, b = docs[later], docs[earlier]
            ta, tb = a.verified_text, b.verified_text
            config = self.verify_config
            v = site_verdict(compare(ta, tb, config), ta, tb,
                             page_site(a) == page_site(b) != "",
                             lambda x, y: compare(x, y, config))
            return joins(v), float(v.resemble), float(v.contain)

        edges = redecide(todo, order, candidates, lambda i: self._group.get(i, i), verify)
        self.redecided += len(todo)
        for e in edges:
            self._join(e.later, e.earlier, order)
            for x, y in ((e.later, e.earlier), (e.earlier, e.later)):
                if x not in self._best or e.resemble > self._best[x][1]:
                    self._best[x] = (y, e.resemble, e.contain)

    def _join(self, a: str, b: str, order: Mapping[str, tuple[int, str]]) -> None:
        ga, gb = self._group.get(a, a), self._group.get(b, b)
        if ga == gb:
            return
        keep, lose = (ga, gb) if order[ga] <= order[gb] else (gb, ga)
        moved = self._members.pop(lose, {lose})
        members = self._members.setdefault(keep, {keep})
        for m in moved:
            self._group[m] = keep
        members |= moved
        self._group[keep] = keep
