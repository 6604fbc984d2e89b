"""A search engine's groups and reads: pages by id (``get``, ``mget``), a group's members, the
whole-index scans, and what only a search engine reads — full-text search collapsed on
``dup_group``, the group aggregations, the index's overview (the request bodies are
:mod:`neardup.ingest.store.query`'s)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from neardup.ingest.store import query
from neardup.ingest.store.base import StoredDocument
from neardup.ingest.store.engine.cluster import Cluster
from neardup.ingest.store.engine.dialect import translate_errors, translated

__all__ = ["IndexReads"]

# The pages without a group (``neardup backfill``'s).
_UNTAGGED = {"query": {"bool": {"must_not": [{"exists": {"field": "dup_group"}}]}}}


class IndexReads(Cluster):
    """The reads of :class:`~neardup.ingest.store.roles.EngineReads`, from the pages index."""

    @translated
    def get(self, doc_id: str) -> StoredDocument | None:
        try:
            hit = self.client.get(index=self.index, id=doc_id)
        except self.dialect.not_found:
            return None
        if not hit.get("found"):
            return None
        return StoredDocument.from_source(hit["_source"], _version(hit))

    @translated
    def mget(
        self, ids: Iterable[str], with_fingerprints: bool = True, realtime: bool = True
    ) -> dict[str, StoredDocument]:
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return {}
        params: dict[str, Any] = {} if with_fingerprints else {"_source_excludes": "fingerprints"}
        if not realtime:
            params["realtime"] = False
        try:
            res = self.client.mget(index=self.index, body={"ids": wanted}, **params)
        except self.dialect.not_found:
            return {}
        found = {}
        for hit in res["docs"]:
            if hit.get("found"):
                found[hit["_id"]] = StoredDocument.from_source(hit["_source"], _version(hit))
        return found

    @translated
    def existing(self, ids: Sequence[str]) -> set[str]:
        if not ids:
            return set()
        try:
            res = self.client.mget(index=self.index, body={"ids": list(ids)}, _source="false")
        except self.dialect.not_found:
            return set()
        return {hit["_id"] for hit in res["docs"] if hit.get("found")}

    @translated
    def fields(self, ids: Sequence[str], fields: Sequence[str]) -> dict[str, dict[str, Any]]:
        res = self.client.mget(
            index=self.index, body={"ids": list(ids)}, _source_includes=",".join(fields)
        )
        return {h["_id"]: h.get("_source") or {} for h in res["docs"] if h.get("found")}

    @translated
    def group_members(self, group_id: str) -> list[StoredDocument]:
        body: dict[str, Any] = {
            "size": self.page,
            "query": {"term": {"dup_group": group_id}},
            "sort": [{"seq": {"order": "asc"}}, {"id": {"order": "asc"}}],
            "seq_no_primary_term": True,
            "track_total_hits": False,
        }
        return [StoredDocument.from_source(h["_source"], _version(h)) for h in self._paged(body)]

    @translated
    def collapsed_search(
        self, query_text: str, size: int = 10, inner_hits_size: int = 5
    ) -> list[dict[str, Any]]:
        body = query.build_collapse_search(query_text, size=size,
                                           inner_hits_size=inner_hits_size)
        return list(self.client.search(index=self.index, body=body)["hits"]["hits"])

    @translated
    def top_groups(self, query_text: str, size: int = 10) -> list[dict[str, Any]]:
        """The best ``WINDOW_FACTOR`` × ``size`` hits, the first of each group kept
        (:func:`~neardup.ingest.store.query.parse_window`); the engine's collapse when they
        hold fewer than ``size`` groups and more hits follow."""
        window = min(query.MAX_WINDOW, query.WINDOW_FACTOR * size)
        res = self.client.search(index=self.index,
                                 body=query.build_window_query(query_text, window))
        top, complete = query.parse_window(res, size, window)
        if complete:
            return top
        return [{"id": h["_id"], "dup_group": str(h["_source"][query.GROUP_FIELD]),
                 "score": h.get("_score")}
                for h in self.collapsed_search(query_text, size=size, inner_hits_size=0)]

    @translated
    def group_details(
        self, query_text: str, group_ids: Sequence[str], members: int = 5,
        shown: Sequence[str] = (),
    ) -> dict[str, dict[str, Any]]:
        if not group_ids:
            return {}
        body = query.build_group_details_query(query_text, group_ids, members, shown)
        try:
            res = self.client.search(index=self.index, body=body)
        except self.dialect.not_found:
            return {}
        return query.parse_group_details(res)

    @translated
    def largest_groups(self, size: int, min_size: int = 2) -> dict[str, Any]:
        try:
            res = self.client.search(
                index=self.index, body=query.build_largest_groups_query(size, min_size)
            )
        except self.dialect.not_found:
            return {"groups": [], "grouped_documents": 0, "group_count": 0}
        return query.parse_largest_groups(res)

    @translated
    def group_sizes(self, group_ids: Sequence[str]) -> dict[str, int]:
        if not group_ids:
            return {}
        try:
            res = self.client.search(index=self.index,
                                     body=query.build_group_sizes_query(group_ids))
        except self.dialect.not_found:
            return {}
        return query.parse_group_sizes(res)

    @translated
    def find(
        self, text: str | None = None, state: str | None = None, offset: int = 0, size: int = 20
    ) -> tuple[int, list[StoredDocument]]:
        short = self._short_pages() if state == "short" else ()
        body = query.build_find_query(text, state, offset, size, short)
        try:
            res = self.client.search(index=self.index, body=body)
        except self.dialect.not_found:
            return 0, []
        hits = res.get("hits", {})
        total = hits.get("total", {})
        count = int(total.get("value", 0) if isinstance(total, dict) else total or 0)
        return count, [StoredDocument.from_source(h["_source"]) for h in hits.get("hits", [])]

    def _short_pages(self) -> list[str]:
        """Ids of the pages too short to fingerprint (their only term is their body hash), the
        first :data:`~neardup.ingest.store.query.MAX_WINDOW` in ingest order."""
        try:
            res = self.client.search(index=self.fingerprints_index,
                                     body=query.build_short_query())
        except self.dialect.not_found:
            return []
        return [str(h["_id"]) for h in res["hits"]["hits"]]

    @translated
    def overview(self) -> dict[str, Any] | None:
        try:
            res = self.client.search(index=self.index,
                                     body=query.build_index_overview_query())
        except self.dialect.not_found:
            return None
        return query.parse_index_overview(res)

    def untagged(self, size: int = 500) -> Iterator[tuple[str, dict[str, Any]]]:
        with translate_errors(self.dialect):
            for hit in self.dialect.helpers.scan(self.client, index=self.index, query=_UNTAGGED,
                                                 size=size, scroll="5m"):
                yield str(hit["_id"]), dict(hit.get("_source") or {})

    @translated
    def count_untagged(self) -> int:
        return int(self.client.count(index=self.index, body=_UNTAGGED)["count"])

    def fingerprinted_ids(self) -> Iterator[str]:
        """Every id the fingerprints index holds (a page deleted from the pages index behind
        neardup's back keeps its document there)."""
        with translate_errors(self.dialect):
            for hit in self.dialect.helpers.scan(
                self.client, index=self.fingerprints_index, query={"query": {"match_all": {}}},
                size=5000, scroll="5m", _source=False, docvalue_fields=["id"]):
                yield str(hit["_id"])

    def group_ids(self) -> Iterator[tuple[str, str]]:
        """``(id, dup_group)`` of every page of the pages index that carries a group."""
        grouped = {"query": {"exists": {"field": "dup_group"}}}
        with translate_errors(self.dialect):
            for hit in self.dialect.helpers.scan(self.client, index=self.index, query=grouped,
                                                 size=5000, scroll="5m",
                                                 _source=["dup_group"]):
                group = (hit.get("_source") or {}).get("dup_group")
                if group:
                    yield str(hit["_id"]), str(group)


def _version(hit: dict[str, Any]) -> tuple[int, int] | None:
    if "_seq_no" in hit and "_primary_term" in hit:
        return (int(hit["_seq_no"]), int(hit["_primary_term"]))
    return None
