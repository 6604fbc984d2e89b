"""A search engine's stoplist and fingerprint frequencies: the stoplist in its own index,
``<index>-stoplist`` (one document per fingerprint), read through a short-lived cache so a worker
does not fetch it for every document; frequencies counted from the pages' ``fingerprints`` in two
passes of a scroll (:mod:`neardup.ingest.store.frequencies`)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable, Iterator
from typing import Any

from neardup.ingest.store.base import StoplistEntry, now_iso
from neardup.ingest.store.engine.cluster import Cluster
from neardup.ingest.store.engine.dialect import translate_errors, translated
from neardup.ingest.store.frequencies import frequent_fingerprints

__all__ = ["StoplistIndex"]

# A bound on the terms of a page, for the frequencies' first pass (16 rotations of 7 buckets
# and the body hash make 113; a larger profile is seen in the pass, which then runs again).
_TERMS_PER_PAGE_BOUND = 128


class StoplistIndex(Cluster):
    """The stoplist of :class:`~neardup.ingest.store.roles.Stoplist` in the stoplist index."""

    _stoplist_cache: tuple[float, frozenset[str]] | None = None

    def drop(self) -> None:
        super().drop()
        self._stoplist_cache = None

    @translated
    def document_count(self) -> int:
        return int(self.client.count(index=self.index)["count"])

    @translated
    def fingerprint_frequencies(self, min_count: int) -> dict[str, tuple[int, int]]:
        """Exact: two passes over the pages' own ``fingerprints`` (a scroll), the first keeping
        a bounded summary of the frequent ones (:mod:`neardup.ingest.store.frequencies`). The
        fingerprints index keeps no doc values, which a ``terms`` aggregation would need and
        every write would pay for."""
        return frequent_fingerprints(
            self._fingerprints_and_sites, min_count,
            self.document_count() * _TERMS_PER_PAGE_BOUND,
        )

    def _fingerprints_and_sites(self) -> Iterator[tuple[list[str], str | None]]:
        with translate_errors(self.dialect):
            for hit in self.dialect.helpers.scan(
                self.client, index=self.index, query={"query": {"match_all": {}}},
                _source_includes=["fingerprints", "site"], size=self.page, scroll="5m",
            ):
                source = hit.get("_source") or {}
                fps = source.get("fingerprints")
                site = source.get("site")
                yield ([str(f) for f in fps] if isinstance(fps, list) else [],
                       str(site) if site else None)

    @translated
    def set_stoplist(self, fingerprints: Iterable[str | StoplistEntry]) -> None:
        """Replace the stoplist: write the new entries under a fresh generation, then delete
        every other generation (readers meanwhile see a superset, never an empty list)."""
        self._create_index(self.stoplist_index)
        generation = uuid.uuid4().hex
        computed_at = now_iso()

        def actions() -> Iterator[dict[str, Any]]:
            for item in fingerprints:
                entry = item if isinstance(item, StoplistEntry) else StoplistEntry(item)
                yield {
                    "_op_type": "index",
                    "_index": self.stoplist_index,
                    "_id": entry.fingerprint,
                    "_source": {
                        "fingerprint": entry.fingerprint,
                        "count": entry.count,
                        "sites": entry.sites,
                        "reason": entry.reason,
                        "generation": generation,
                        "computed_at": computed_at,
                    },
                }

        for _ok, _item in self.dialect.helpers.streaming_bulk(
            self.client,
            actions(),
            chunk_size=self.chunk_size,
            max_retries=self.max_retries,
            initial_backoff=self.initial_backoff,
            max_backoff=self.max_backoff,
            raise_on_error=True,
        ):
            pass
        self.client.indices.refresh(index=self.stoplist_index)
        # _delete_by_query lives in the reindex module, which minimal distributions lack:
        # find the stale entries with search_after and delete them in bulk instead.
        stale = self._read_stoplist(
            with_source=False,
            query={"bool": {"must_not": [{"term": {"generation": generation}}]}},
        )
        if stale:
            self.dialect.helpers.bulk(
                self.client,
                (
                    {"_op_type": "delete", "_index": self.stoplist_index, "_id": e.fingerprint}
                    for e in stale
                ),
                chunk_size=self.chunk_size,
                raise_on_error=False,
            )
        self.client.indices.refresh(index=self.stoplist_index)
        self._stoplist_cache = None

    def stoplist(self) -> frozenset[str]:
        cached = self._stoplist_cache
        now = time.monotonic()
        if cached is not None and cached[0] > now:
            return cached[1]
        with translate_errors(self.dialect):
            fps = frozenset(e.fingerprint for e in self._read_stoplist(with_source=False))
        self._stoplist_cache = (now + self.stoplist_ttl, fps)
        return fps

    @translated
    def stoplist_entries(self) -> list[StoplistEntry]:
        entries = self._read_stoplist(with_source=True)
        return sorted(entries, key=lambda e: (-(e.count or 0), e.fingerprint))

    def _read_stoplist(
        self, with_source: bool, query: dict[str, Any] | None = None
    ) -> list[StoplistEntry]:
        body: dict[str, Any] = {
            "size": self.page,
            "query": query or {"match_all": {}},
            "sort": [{"fingerprint": {"order": "asc"}}],
            "_source": ["count", "sites", "reason"] if with_source else False,
            "track_total_hits": False,
        }
        entries: list[StoplistEntry] = []
        while True:
            try:
                hits = self.client.search(index=self.stoplist_index, body=body)["hits"]["hits"]
            except self.dialect.not_found:
                return []  # no stoplist index yet: nothing is stoplisted
            for h in hits:
                src = h.get("_source") or {}
                entries.append(
                    StoplistEntry(h["_id"], src.get("count"), src.get("sites"), src.get("reason"))
                )
            if len(hits) < self.page:
                return entries
            body["search_after"] = hits[-1]["sort"]
