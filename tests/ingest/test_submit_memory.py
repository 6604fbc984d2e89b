"""``neardup ingest`` keeps only the live batches' pages in memory (:class:`Submitter`), and
still accepts again a page the index lost."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import pytest
from support.fakes import FakeBatchQueue, FakeStaging

from neardup.ingest import submit
from neardup.ingest.store.base import PutResult, StoredDocument
from neardup.ingest.store.embedded import EmbeddedStore
from neardup.ingest.submit import Submitter, wait_for_groups


def _page(i: int) -> StoredDocument:
    return StoredDocument(id=f"p{i}", body=f"page {i}", fingerprints=[f"f{i}"], fp_config="c",
                          seq=i)


class _LosingStore(EmbeddedStore):
    """Forgets ``lost`` the first time they are written (their batch's data was lost)."""

    def __init__(self, lost: set[str]) -> None:
        super().__init__()
        self.lost = set(lost)

    def put(self, docs: Iterable[StoredDocument], overwrite: bool = True) -> Iterator[PutResult]:
        docs = list(docs)
        kept = [d for d in docs if d.id not in self.lost]
        self.lost -= {d.id for d in docs}
        yield from super().put(kept, overwrite)
        yield from (PutResult(d.id, True) for d in docs if d not in kept)


@pytest.fixture(autouse=True)
def _no_broker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(submit.tasks, "republish", lambda *a, **k: None)


def test_pages_of_batches_the_index_holds_are_forgotten_as_they_leave() -> None:
    store = EmbeddedStore()
    submitter = Submitter(store, FakeStaging(FakeBatchQueue(store)))
    for b in range(20):
        submitter.submit([_page(b * 50 + i) for i in range(50)])
    assert len(submitter.ids) == 20 and sum(map(len, submitter.ids.values())) == 1000
    assert sum(map(len, submitter.batches.values())) == 0  # nothing held but ids
    out = wait_for_groups(submitter, timeout=10)
    assert out["indexed"] == 1000 and out["resent"] == 0 and out["failed"] == 0


def test_a_page_the_index_lost_is_accepted_again() -> None:
    store = _LosingStore({"p7", "p60"})
    queue = FakeBatchQueue(store)
    submitter = Submitter(store, FakeStaging(queue))
    for b in range(2):
        submitter.submit([_page(b * 50 + i) for i in range(50)])
    held = sorted(p.id for pages in submitter.batches.values() for p in pages)
    assert held == ["p60", "p7"]  # the rest forgotten
    out = wait_for_groups(submitter, timeout=10)
    assert out["indexed"] == 100 and out["resent"] == 2 and out["failed"] == 0
    assert queue.count("p7") == queue.count("p60") == 2
    assert set(store.existing([f"p{i}" for i in range(100)])) == {f"p{i}" for i in range(100)}
