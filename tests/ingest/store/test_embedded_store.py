"""EmbeddedStore semantics (the contract the OpenSearch store is held to in
tests/integration/test_backends_agree.py)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from neardup.ingest.errors import ConfigError
from neardup.ingest.store import open_store
from neardup.ingest.store.base import Candidate, GroupUpdate, StoplistEntry, StoredDocument
from neardup.ingest.store.embedded import EmbeddedStore
from neardup.ingest.store.errors import DocumentNotFound


def doc(
    i: str, fps: list[str], seq: int, cfg: str = "c", site: str | None = None
) -> StoredDocument:
    return StoredDocument(i, f"body of {i}", fps, cfg, seq, site=site)


@pytest.fixture
def store() -> EmbeddedStore:
    s = open_store("embedded")
    assert isinstance(s, EmbeddedStore)
    return s


def test_round_trip(store: EmbeddedStore) -> None:
    d = StoredDocument("x", "正文", ["f1", "f2"], "cfg", 7, url="http://a/", site="a", title="t")
    [r] = store.put([d])
    assert r.ok and r.result == "created"
    got = store.get("x")
    assert got is not None and got.version == (1, 1)
    assert got.to_source() | {"ingested_at": None} == d.to_source()
    assert got.ingested_at is not None
    assert store.get("nope") is None
    assert list(store.mget(["nope", "x"])) == ["x"]
    assert store.mget(["x"], with_fingerprints=False)["x"].fingerprints == []


def test_put_overwrite_and_noop(store: EmbeddedStore) -> None:
    list(store.put([doc("a", ["f"], 1)]))
    assert [r.result for r in store.put([doc("a", ["g"], 1)], overwrite=False)] == ["noop"]
    assert store.get("a").fingerprints == ["f"]  # type: ignore[union-attr]
    assert [r.result for r in store.put([doc("a", ["g"], 1)])] == ["updated"]
    assert store.get("a").version == (2, 1)  # type: ignore[union-attr]
    # postings follow the overwrite
    list(store.put([doc("b", ["f"], 2), doc("c", ["g"], 3)]))
    assert store.candidates(doc("q", ["f"], 9)) == [Candidate("b", 1)]  # a no longer has f
    assert store.candidates(doc("q", ["g"], 9)) == [Candidate("a", 1), Candidate("c", 1)]
    bad = list(store.put([doc("", ["f"], 1)]))
    assert not bad[0].ok


def test_candidates_order_and_filters(store: EmbeddedStore) -> None:
    list(
        store.put(
            [
                doc("late", ["a", "b"], 9),
                doc("early", ["a", "b"], 1),
                doc("z-same-seq", ["a"], 5),
                doc("a-same-seq", ["a"], 5),
                doc("other-config", ["a", "b"], 0, cfg="other"),
                doc("q", ["a", "b", "c"], 10),
            ]
        )
    )
    q = doc("q", ["b", "a", "a", "c"], 10)
    assert store.candidates(q) == [
        Candidate("early", 2),
        Candidate("late", 2),
        Candidate("a-same-seq", 1),
        Candidate("z-same-seq", 1),
    ]
    assert store.candidates(q, k=1) == [Candidate("early", 2)]
    with pytest.raises(ConfigError):
        store.candidates(q, k=0)


def test_zero_fingerprints_and_stoplist(store: EmbeddedStore) -> None:
    list(store.put([doc("a", ["x", "y"], 1), doc("empty", [], 2)]))
    assert store.candidates(doc("empty", [], 2)) == []
    store.set_stoplist([StoplistEntry("x", 5, 1, "concentrated")])
    assert store.candidates(doc("q", ["x", "y"], 3)) == [Candidate("a", 1)]
    store.set_stoplist(["x", "y"])
    assert store.candidates(doc("q", ["x", "y"], 3)) == []
    assert store.stoplist_entries() == [StoplistEntry("x"), StoplistEntry("y")]
    store.set_stoplist([])
    assert store.candidates(doc("q", ["x", "y"], 3)) == [Candidate("a", 2)]


def test_update_group_versions(store: EmbeddedStore) -> None:
    list(store.put([doc("a", [], 1), doc("b", [], 2)]))
    seen = store.get("b")
    assert seen is not None
    assert store.update_group(GroupUpdate("b", "a", "a", 0.4, 0.8), seen.version)
    assert not store.update_group(GroupUpdate("b", "b", None, None, None), seen.version)
    assert store.update_group(GroupUpdate("a", "a", None, None, None))
    got = store.get("b")
    assert got is not None and (got.dup_group, got.dup_of, got.status) == ("a", "a", "grouped")
    assert got.grouped_at is not None
    assert [m.id for m in store.group_members("a")] == ["a", "b"]
    with pytest.raises(DocumentNotFound):
        store.update_group(GroupUpdate("zz", "zz", None, None, None))


def test_frequencies_count_documents_and_sites(store: EmbeddedStore) -> None:
    list(
        store.put(
            [
                doc("1", ["t", "u"], 1, site="s1"),
                doc("2", ["t", "t"], 2, site="s1"),
                doc("3", ["t"], 3, site="s2"),
                doc("4", ["t", "u"], 4),
            ]
        )
    )
    assert store.fingerprint_frequencies(2) == {"t": (4, 2), "u": (2, 1)}
    assert store.fingerprint_frequencies(3) == {"t": (4, 2)}


def test_file_backed_store_persists(tmp_path: Path) -> None:
    path = tmp_path / "pages.db"
    first = EmbeddedStore(path)
    list(first.put([doc("a", ["f"], 1)]))
    first.set_stoplist(["s"])
    first.close()
    again = EmbeddedStore(path)
    assert again.get("a") is not None and again.stoplist() == {"s"}
    assert again.install() == {"schema": "unchanged"}
    again.close()


def test_threads_share_one_store(store: EmbeddedStore) -> None:
    def work(n: int) -> None:
        for i in range(50):
            list(store.put([doc(f"{n}-{i}", ["common", f"{n}"], n * 100 + i)]))
            store.candidates(doc("q", ["common"], 0), k=5)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.fingerprint_frequencies(1)["common"] == (200, 0)


def test_unknown_backend() -> None:
    with pytest.raises(ConfigError, match="embedded, engine, opensearch, elasticsearch"):
        open_store("solr")
