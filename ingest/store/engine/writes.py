"""A search engine's writes: pages put with ``helpers.streaming_bulk`` (bounded retries with
exponential backoff on 429) into the pages and the fingerprints index, verdicts written back
with the update API under ``if_seq_no``/``if_primary_term``, one document at a time or as one
``_bulk`` of conditional updates; partial updates, groups set and pages deleted in bulk."""

from __future__ import annotations

import logging
from collections import defaultdict, deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from neardup.ingest.store.base import GroupUpdate, PutResult, StoredDocument, now_iso
from neardup.ingest.store.engine.cluster import Cluster
from neardup.ingest.store.engine.dialect import TRANSIENT_STATUS, translate_errors, translated
from neardup.ingest.store.errors import DocumentNotFound, StoreUnavailable

__all__ = ["BulkWrites"]

log = logging.getLogger(__name__)
log.addHandler(logging.NullHandler())


class BulkWrites(Cluster):
    """The writes of :class:`~neardup.ingest.store.roles.EngineWrites`, in bulk requests."""

    def put(self, docs: Iterable[StoredDocument], overwrite: bool = True) -> Iterator[PutResult]:
        batch: list[StoredDocument] = []
        for doc in docs:
            batch.append(doc)
            if len(batch) >= self.chunk_size:
                yield from self._put_batch(batch, overwrite)
                batch = []
        if batch:
            yield from self._put_batch(batch, overwrite)

    def _put_batch(self, batch: list[StoredDocument], overwrite: bool) -> list[PutResult]:
        op = "index" if overwrite else "create"
        now = now_iso()
        actions = []
        for doc in batch:
            source = doc.to_source()
            if source["ingested_at"] is None:
                source["ingested_at"] = now
            actions.append({"_op_type": op, "_index": self.index, "_id": doc.id, "_source": source})
            actions.append({"_op_type": op, "_index": self.fingerprints_index, "_id": doc.id,
                            "_source": doc.fingerprints_source()})
        extra: dict[str, Any] = {}
        if self.refresh_writes:
            extra["refresh"] = self.refresh_writes
        by_id: dict[tuple[bool, str], deque[PutResult]] = defaultdict(deque)
        with translate_errors(self.dialect):
            for ok, item in self.dialect.helpers.streaming_bulk(
                self.client,
                actions,
                chunk_size=len(actions),
                max_retries=self.max_retries,
                initial_backoff=self.initial_backoff,
                max_backoff=self.max_backoff,
                raise_on_error=False,
                **extra,
            ):
                info = item.get(op, next(iter(item.values())))
                doc_id = str(info.get("_id"))
                if ok:
                    result = PutResult(doc_id, True, result=info.get("result"))
                elif info.get("status") == 409 and not overwrite:
                    result = PutResult(doc_id, True, result="noop")
                else:
                    result = PutResult(doc_id, False, error=_bulk_error(info))
                by_id[info.get("_index") == self.index, doc_id].append(result)
        out = []
        for doc in batch:
            page, terms = by_id.get((True, doc.id)), by_id.get((False, doc.id))
            if not page or not terms:  # not reported by the bulk helper (should not happen)
                out.append(PutResult(doc.id, False, error="no bulk response for this document"))
                continue
            result, indexed = page.popleft(), terms.popleft()
            # a page is written when both its documents are: one without its fingerprints
            # would never be a candidate
            out.append(result if indexed.ok or not result.ok else PutResult(
                doc.id, False, error=f"fingerprints not indexed: {indexed.error}"))
        failed = sum(not r.ok for r in out)
        if failed:
            log.warning("%d of %d documents failed to index into %s", failed, len(out), self.index)
        return out

    @translated
    def update_group(self, update: GroupUpdate, version: tuple[int, int] | None = None) -> bool:
        fields = update.fields(now_iso())
        params: dict[str, Any] = {}
        if version is not None:
            params["if_seq_no"], params["if_primary_term"] = version
        if self.refresh_writes:
            params["refresh"] = self.refresh_writes
        try:
            self.client.update(index=self.index, id=update.id, body={"doc": fields}, **params)
        except self.dialect.conflict:
            log.debug("version conflict writing the group of %s", update.id)
            return False
        except self.dialect.not_found as exc:
            raise DocumentNotFound(update.id) from exc
        return True

    @translated
    def update_groups(
        self, updates: Sequence[tuple[GroupUpdate, tuple[int, int] | None]]
    ) -> list[bool | Exception]:
        """One ``_bulk`` of partial updates, each conditional on its version when given."""
        if not updates:
            return []
        now = now_iso()
        body: list[dict[str, Any]] = []
        for update, version in updates:
            meta: dict[str, Any] = {"_index": self.index, "_id": update.id}
            if version is not None:
                meta["if_seq_no"], meta["if_primary_term"] = version
            body += [{"update": meta}, {"doc": update.fields(now)}]
        out: list[bool | Exception] = []
        results = self._bulk_updates(body, "group writes", refresh=True)
        for (update, _), (status, info) in zip(updates, results, strict=True):
            if status < 300:
                out.append(True)
            elif status == 409:
                log.debug("version conflict writing the group of %s", update.id)
                out.append(False)
            elif status == 404:
                out.append(DocumentNotFound(update.id))
            else:
                out.append(RuntimeError(f"{update.id}: {_bulk_error(info)}"))
        return out

    def _bulk_updates(
        self, body: list[dict[str, Any]], what: str, refresh: bool = False
    ) -> list[tuple[int, dict[str, Any]]]:
        """One ``_bulk`` of ``update`` operations: ``(status, item)`` of each, in order. An
        operation refused for a transient reason (429, 50x) raises
        :class:`~neardup.ingest.store.errors.StoreUnavailable` for the whole call: the updates are
        idempotent, the caller sends the lot again."""
        params: dict[str, Any] = {}
        if refresh and self.refresh_writes:
            params["refresh"] = self.refresh_writes
        out: list[tuple[int, dict[str, Any]]] = []
        transient = []
        for item in self.client.bulk(body=body, **params)["items"]:
            info = item.get("update", next(iter(item.values())))
            status = int(info.get("status", 500))
            if status in TRANSIENT_STATUS:
                transient.append(_bulk_error(info))
            out.append((status, info))
        if transient:
            raise StoreUnavailable(f"{len(transient)} {what} refused: {transient[0]}")
        return out

    @translated
    def merge_fields(self, docs: Sequence[StoredDocument]) -> list[PutResult]:
        if not docs:
            return []
        now = now_iso()
        body: list[dict[str, Any]] = []
        for doc in docs:
            source = {k: v for k, v in doc.to_source().items() if v is not None}
            source.setdefault("ingested_at", now)
            body += [{"update": {"_index": self.index, "_id": doc.id, "retry_on_conflict": 5}},
                     {"doc": source},
                     {"index": {"_index": self.fingerprints_index, "_id": doc.id}},
                     doc.fingerprints_source()]
        answers = self._bulk_updates(body, "writes")
        return [
            PutResult(doc.id, True, result=info.get("result")) if status < 300 and terms < 300
            else PutResult(doc.id, False, error=_bulk_error(info if status >= 300 else indexed))
            for doc, (status, info), (terms, indexed)
            in zip(docs, answers[::2], answers[1::2], strict=True)
        ]

    @translated
    def set_groups(self, groups: Mapping[str, str]) -> None:
        if not groups:
            return
        body: list[dict[str, Any]] = []
        for doc_id, root in groups.items():
            body += [{"update": {"_index": self.index, "_id": doc_id, "retry_on_conflict": 5}},
                     {"doc": {"dup_group": root}}]
        for status, info in self._bulk_updates(body, "group writes"):
            if status >= 300 and status != 404:
                log.warning("could not set the group of %s: %s", info.get("_id"), _bulk_error(info))

    @translated
    def delete(self, ids: Sequence[str]) -> int:
        """Remove pages from both indices (a page deleted); returns how many pages the pages
        index held."""
        if not ids:
            return 0
        body: list[dict[str, Any]] = []
        for doc_id in ids:
            body += [{"delete": {"_index": self.index, "_id": doc_id}},
                     {"delete": {"_index": self.fingerprints_index, "_id": doc_id}}]
        res = self.client.bulk(body=body)
        gone = 0
        for item in res.get("items", [])[::2]:
            info = item.get("delete", {})
            if info.get("result") == "deleted":
                gone += 1
        return gone


def _bulk_error(info: dict[str, Any]) -> str:
    error = info.get("error")
    if isinstance(error, dict):
        return f"{info.get('status')} {error.get('type')}: {error.get('reason')}"
    return f"{info.get('status')} {error}"
