"""The workers' refresh on a real node (``EngineStore.refresh_written``): the pages written
before it are found by the candidate search and read by id as searches see them, the pages
index refreshing on its own schedule while writes go on, and refreshed by the call when its
schedule would not (``refresh_interval: -1``). The logic against a fake node:
tests/ingest/store/test_refresh_written.py."""

from __future__ import annotations

import base64
import hashlib
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from neardup.ingest.store.base import StoredDocument
from neardup.ingest.store.opensearch import OpenSearchStore


def _fingerprint(i: int) -> str:
    return base64.urlsafe_b64encode(hashlib.md5(str(i).encode()).digest()).decode()[:22]


def _page(i: int) -> StoredDocument:
    return StoredDocument(f"p{i}", f"page number {i}", [_fingerprint(i)], "cfg", i)


@pytest.fixture
def refreshed(os_store: OpenSearchStore) -> Iterator[list[str]]:
    """The indices the store's client refreshes (its own calls, to the real node)."""
    calls: list[str] = []
    real = os_store.client.indices.refresh

    def refresh(*args: Any, **kwargs: Any) -> Any:
        calls.append(str(kwargs.get("index")))
        return real(*args, **kwargs)

    os_store.client.indices.refresh = refresh
    yield calls
    os_store.client.indices.refresh = real


def _visible(store: OpenSearchStore, ids: list[str]) -> set[str]:
    return set(store.mget(ids, realtime=False))


def _written(store: OpenSearchStore, interval: str, n: int) -> list[str]:
    """Pages ``0..n-1`` written into the pages index refreshing every ``interval``: their ids."""
    store.client.indices.put_settings(index=store.index,
                                      body={"index": {"refresh_interval": interval}})
    pages = [_page(i) for i in range(n)]
    assert all(r.ok for r in store.put(pages))
    return [p.id for p in pages]


def test_while_writes_go_on_the_pages_index_refreshes_on_its_own(
    os_store: OpenSearchStore, refreshed: list[str]
) -> None:
    ids = _written(os_store, "200ms", 20)
    stop = threading.Event()

    def keep_writing() -> None:  # other workers' batches: the schedule keeps refreshing
        i = 1000
        while not stop.is_set():
            list(os_store.put([_page(i)]))
            i += 1
            stop.wait(0.02)

    writer = threading.Thread(target=keep_writing)
    writer.start()
    try:
        os_store.refresh_written(wait=30.0)
    finally:
        stop.set()
        writer.join()
    assert refreshed == [os_store.fingerprints_index]  # the pages index: its own schedule
    assert _visible(os_store, ids) == set(ids)
    holders = os_store.fingerprint_holders({"cfg": [_fingerprint(i) for i in range(20)]}, [])
    assert {h[0] for h in holders} == set(ids)


def test_without_a_schedule_the_call_refreshes_the_pages_index(
    os_store: OpenSearchStore, refreshed: list[str]
) -> None:
    ids = _written(os_store, "-1", 5)
    assert _visible(os_store, ids) == set()
    os_store.refresh_written(wait=1.0)
    assert refreshed == [os_store.fingerprints_index, os_store.index]
    assert _visible(os_store, ids) == set(ids)
