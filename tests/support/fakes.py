"""Stand-ins for the workers' side, for unit tests (the integration tests run the real broker
and workers)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from neardup.ingest import submit
from neardup.ingest.store.base import StoredDocument
from neardup.ingest.store.roles import EngineWrites


class FakeBatchQueue(list[str]):
    """The queue of accepted batches (:class:`neardup.ingest.server.broker.BatchQueue`) without a
    broker. Records the ids of the pages submitted, in order; ``fail`` makes the next submit raise
    like a dead broker. With a ``store``, it plays a trivial worker: every accepted page is
    indexed at once as a group of its own; without one, pages stay pending."""

    fail = False

    def __init__(self, store: Any = None) -> None:
        super().__init__()
        self.store = store
        self.pages: list[StoredDocument] = []
        self.batches = 0
        self.changes: list[Mapping[str, Any]] = []  # every change staged, in order

    def submit(self, pages: list[StoredDocument], *args: Any, **kwargs: Any) -> str:
        if self.fail:
            raise ConnectionError("broker down")
        self.extend(p.id for p in pages)
        self.pages.extend(pages)
        self.batches += 1
        if self.store is not None:
            docs = [StoredDocument(
                id=p.id, body=p.body, fingerprints=list(p.fingerprints),
                fp_config=p.fp_config, seq=self.batches * 100_000 + i, url=p.url,
                site=p.site, title=p.title, content=p.content,
                dup_group=p.id, status="grouped",
            ) for i, p in enumerate(pages)]
            assert all(r.ok for r in self.store.put(docs))
        return f"batch{self.batches}"

    def stage_changes(self, changes: Sequence[Mapping[str, Any]]) -> None:
        """Changes (new versions, deletes): with a ``store``, applied at once (a new version
        indexed as a group of its own, a delete removed); without one, the undecided pages
        change."""
        if self.fail:
            raise ConnectionError("broker down")
        self.changes.extend(changes)
        for c in changes:
            if self.store is not None:
                if c["op"] == "delete":
                    _delete(self.store, c["id"])
                else:
                    p = c["doc"]
                    assert all(r.ok for r in self.store.put([StoredDocument(
                        id=p.id, body=p.body, fingerprints=list(p.fingerprints),
                        fp_config=p.fp_config, seq=(self.batches + 1) * 100_000, url=p.url,
                        site=p.site, title=p.title, content=p.content,
                        dup_group=p.id, status="grouped")]))
            elif c["op"] == "delete":
                self.pages = [p for p in self.pages if p.id != c["id"]]
                while c["id"] in self:
                    self.remove(c["id"])
            else:
                self.pages.append(c["doc"])

    def wait_repaired(self, budget: float) -> None:
        return None

    def repairs_pending(self) -> dict[str, int]:
        return {"changes": 0, "sites": 0}  # changes are applied as they are staged

    def pending(self, ids: Sequence[str]) -> set[str]:
        if self.store is not None:
            return set()
        return set(ids) & set(self)

    def pending_count(self) -> int:
        return 0 if self.store is not None else len(set(self))

    def pending_pages(self, ids: Sequence[str]) -> dict[str, StoredDocument]:
        if self.store is not None:
            return {}
        latest = {p.id: p for p in self.pages}
        return {i: latest[i] for i in ids if i in latest}

    def undecided(self, offset: int, size: int) -> tuple[int, list[StoredDocument]]:
        if self.store is not None:
            return 0, []
        latest = {p.id: p for p in self.pages}
        ids = sorted(latest)
        return len(ids), [latest[i] for i in ids[offset:offset + size]]

    def wait_searchable(self, keys: Sequence[str] | None, budget: float) -> None:
        return None


def _delete(store: Any, doc_id: str) -> None:
    """Remove a page from ``store`` (the embedded store has no delete of its own)."""
    if isinstance(store, EngineWrites):
        store.delete([doc_id])
    else:
        with store._lock:
            store._db.execute("DELETE FROM postings WHERE id = ?", (doc_id,))
            store._db.execute("DELETE FROM docs WHERE id = ?", (doc_id,))


class FakeStaging:
    """The batch staging as ``neardup ingest`` sees it when batches are indexed at once."""

    index = "pages"

    def __init__(self, pipe: FakeBatchQueue | None = None) -> None:
        self.pipe = pipe if pipe is not None else FakeBatchQueue()

    def accept(self, pages: list[StoredDocument], mode: str = "index") -> tuple[str, int]:
        return self.pipe.submit(pages), 1

    def live_count(self) -> int:
        return 0

    def wait_for_room(self, max_live: int, budget: float) -> bool:
        return True

    def live_of(self, keys: Any) -> set[str]:
        return set()


def fake_cli_pipeline(monkeypatch: Any, store: Any) -> FakeBatchQueue:
    """Make ``neardup ingest`` (:mod:`neardup.ingest.submit`) accept into a
    :class:`FakeBatchQueue` indexing into ``store``."""
    pipe = FakeBatchQueue(store)
    monkeypatch.setattr(submit, "open_store", lambda *a, **k: store)
    monkeypatch.setattr(submit.BatchStaging, "from_url", lambda *a, **k: FakeStaging(pipe))
    monkeypatch.setattr(submit.tasks, "republish", lambda *a, **k: None)
    return pipe
