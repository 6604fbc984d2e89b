"""What the HTTP service reads back: a page and what became of it, a group, the largest
groups, a lookup of pages, the index's overview, a group explained member by member.

:class:`PageReads` reads the store and, for pages accepted and not decided yet, the queue of
accepted batches (:class:`~neardup.ingest.server.broker.BatchQueue`); the inspector's
explanations compare texts with the verifier (:func:`neardup.verifier.compare.compare`).
Everything here is synchronous and runs in the server's thread pool.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from neardup.ingest.server.broker import BatchQueue
from neardup.ingest.server.inspector import (
    document_summary,
    document_with_status,
    page_status,
    segments,
    snippet,
    spans_of,
    thresholds,
    verdict_json,
)
from neardup.ingest.store.base import StoredDocument
from neardup.ingest.store.errors import Unsupported
from neardup.ingest.store.query import MAX_GROUPS
from neardup.ingest.store.roles import EngineConnection, EngineReads, Store
from neardup.verifier.compare import compare
from neardup.verifier.config import VerifyConfig

__all__ = ["PageReads", "default_compare", "index_name"]

log = logging.getLogger(__name__)
log.addHandler(logging.NullHandler())


class PageReads:
    """The reads behind ``GET /documents/{id}``, ``GET /groups/{id}`` and the inspector's API.

    ``store`` holds the decided pages; ``queue()`` gives the queue of accepted batches (asked
    when needed: the service opens it on first use), which holds the pages not decided yet;
    ``compare(a_text, b_text) -> Verdict`` (with ``a_span``/``b_span``) explains a group
    (default: :func:`default_compare` of ``profile``). The lookup, the overview, the list of
    largest groups and the size of a page's group need a search engine's reads
    (:class:`~neardup.ingest.store.roles.EngineReads`); without them, a page's group size is
    unknown and the others raise :class:`~neardup.ingest.store.errors.Unsupported`.
    """

    def __init__(
        self,
        store: Store,
        queue: Callable[[], BatchQueue],
        *,
        profile: str = "web",
        compare: Callable[[str, str], Any] | None = None,
    ) -> None:
        self.store = store
        self._search = store if isinstance(store, EngineReads) else None
        self._queue = queue
        self.profile = profile
        self._compare = compare

    @property
    def index(self) -> str:
        return index_name(self.store)

    @property
    def queue(self) -> BatchQueue:
        return self._queue()

    def document(self, doc_id: str) -> dict[str, Any] | None:
        """The page's summary with its ``state`` and the ``explanation`` of it."""
        doc = self.store.get(doc_id)
        if doc is None:
            if doc_id in self.queue.pending([doc_id]):
                return {"id": doc_id, "status": "pending", "dup_group": None,
                        **page_status({"id": doc_id, "status": "pending"}, (), None)}
            return None
        return {**document_with_status(doc, self._group_sizes([doc])[doc.id]),
                "settled": self.settled()}

    def settled(self) -> bool | None:
        """Whether the index's groups are settled: no change staged and no site waiting to be
        masked again, so no repair can move a page's ``dup_group`` (None: the broker does not
        answer)."""
        try:
            return not any(self.queue.repairs_pending().values())
        except Exception:  # the broker is down: unknown
            return None

    def _group_sizes(self, docs: Sequence[StoredDocument]) -> dict[str, int | None]:
        groups = sorted({d.dup_group for d in docs if d.dup_group and d.status != "pending"})
        # a store without aggregations: sizes unknown
        sizes = self._search.group_sizes(groups) if groups and self._search else {}
        return {d.id: sizes.get(d.dup_group) if d.dup_group else None for d in docs}

    def lookup(
        self, text: str | None, state: str | None, offset: int = 0, size: int = 20
    ) -> dict[str, Any]:
        """The inspector's lookup: pages by id, URL or text
        (:meth:`~neardup.ingest.store.roles.EngineReads.find`), or every page in ``state``, a
        page of ``size`` from ``offset``, each with its state explained."""
        if state == "pending":  # accepted, not decided: not in the index yet
            total, waiting = self.queue.undecided(offset, size)
            return {"total": total, "offset": offset, "size": size,
                    "pages": [document_with_status(d, None) for d in waiting]}
        total, docs = self.search("the lookup").find(text or None, state or None, offset, size)
        sizes = self._group_sizes(docs)
        return {
            "total": total,
            "offset": offset,
            "size": size,
            "pages": [document_with_status(d, sizes[d.id]) for d in docs],
        }

    def overview(self) -> dict[str, Any]:
        """Pages per status, the group-size histogram, duplicates per site
        (:meth:`~neardup.ingest.store.roles.EngineReads.overview`); ``exists`` False when there
        is no index yet."""
        found = self.search("the overview").overview()
        if found is None:
            return {"index": self.index, "exists": False, "documents": 0, "status": {},
                    "group_count": 0, "size_histogram": [], "duplicates_by_site": []}  # fmt: skip
        try:  # pages accepted and not decided yet live beside the index, on the broker
            undecided = self.queue.pending_count()
        except Exception as exc:
            log.warning("could not count the undecided pages: %r", exc)
            undecided = 0
        if undecided:
            status = dict(found.get("status") or {})
            status["pending"] = status.get("pending", 0) + undecided
            found = {**found, "status": status,
                     "documents": int(found.get("documents") or 0) + undecided}
        return {"index": self.index, "exists": True, **found}

    def search(self, what: str) -> EngineReads:
        """The store's search-engine reads, which ``what`` needs."""
        if self._search is None:
            raise Unsupported(f"{what} needs a search engine; {self.store!r} has no full-text "
                              "search or aggregations")
        return self._search

    def _group(self, group_id: str) -> tuple[StoredDocument, list[StoredDocument]] | None:
        members = self.store.group_members(group_id)
        if not members:
            return None
        rep = next((m for m in members if m.id == group_id), None)
        if rep is None:  # the representative is being rewritten by a merge: earliest member
            rep = members[0]
        return rep, [m for m in members if m is not rep]

    def group(self, group_id: str) -> dict[str, Any] | None:
        found = self._group(group_id)
        if found is None:
            return None
        rep, others = found
        return {
            "id": group_id,
            "size": len(others) + 1,
            "representative": document_summary(rep),
            "members": [document_summary(m) for m in others],
            "settled": self.settled(),
        }

    def largest_groups(self, size: int, min_size: int = 2, offset: int = 0) -> dict[str, Any]:
        """A page of the largest groups (``size`` from ``offset``; at most ``MAX_GROUPS``
        deep: a terms aggregation ordered by size cannot be paged further), each with its
        representative's title, URL, site and the beginning of its main content."""
        out = self.search("the largest groups").largest_groups(min(offset + size, MAX_GROUPS),
                                                               min_size)
        out["groups"] = out["groups"][offset : offset + size]
        out["settled"] = self.settled()
        reps = self.store.mget([g["id"] for g in out["groups"]], with_fingerprints=False)
        for g in out["groups"]:
            rep = reps.get(g["id"])
            g["title"] = rep.title if rep else None
            g["url"] = rep.url if rep else None
            g["site"] = rep.site if rep else None
            # the main content: an HTML page's text without its site's header and navigation
            g["snippet"] = snippet(rep.verified_text) if rep else None
        out["index"] = self.index
        out["offset"] = offset
        out["size"] = size
        return out

    def explain(self, group_id: str, limit: int = 20) -> dict[str, Any] | None:
        """The group with, for each member, the verifier's verdict against the representative
        and both texts cut into segments around the trustable LCS region(s)."""
        found = self._group(group_id)
        if found is None:
            return None
        rep, others = found
        if self._compare is None:
            self._compare = default_compare(self.profile)
        compare = self._compare
        members = []
        for m in others[:limit]:
            entry: dict[str, Any] = {"document": document_summary(m)}
            try:
                verdict = compare(rep.verified_text, m.verified_text)
            except Exception as exc:  # one bad pair must not hide the rest of the group
                log.warning("compare(%s, %s) failed: %r", rep.id, m.id, exc)
                entry["error"] = f"{type(exc).__name__}: {exc}"
                entry["representative_segments"] = segments(rep.verified_text, None)
                entry["member_segments"] = segments(m.verified_text, None)
            else:
                entry["verdict"] = verdict_json(verdict)
                # The texts compared: the main content (spans refer to it).
                entry["representative_segments"] = segments(
                    rep.verified_text, spans_of(verdict, "a"), words=True
                )
                entry["member_segments"] = segments(
                    m.verified_text, spans_of(verdict, "b"), words=True
                )
            members.append(entry)
        return {
            "id": group_id,
            "size": len(others) + 1,
            "representative": document_summary(rep),
            "members": members,
            "truncated": len(others) > limit,
            "thresholds": thresholds(VerifyConfig.profile(self.profile)),
        }


def index_name(store: Store) -> str:
    """The pages index of ``store`` (``pages`` for a store that names none)."""
    return store.index if isinstance(store, EngineConnection) else "pages"


def default_compare(profile: str = "web") -> Callable[[str, str], Any]:
    """:func:`neardup.verifier.compare.compare` with the profile's config, as the workers call it."""

    config = VerifyConfig.profile(profile)
    return lambda a, b: compare(a, b, config)
