"""The embedded backend and each engine's (OpenSearch 2 and 3, Elasticsearch 8 and 9: the
``engine`` fixture) give the same answers on the same corpus (the embedded backend's promise: "same algorithms,
same results on the same input"): candidates, the stoplist, grouping."""

from __future__ import annotations

import pytest

from neardup.ingest.stoplist import StoplistConfig, refresh_stoplist
from neardup.ingest.store.base import GroupUpdate, StoredDocument
from neardup.ingest.store.embedded import EmbeddedStore
from neardup.ingest.store.roles import EngineStore


@pytest.fixture
def both(
    engine_store: EngineStore, stored_corpus: list[StoredDocument]
) -> tuple[EmbeddedStore, EngineStore]:
    embedded = EmbeddedStore()
    for store in (embedded, engine_store):
        results = list(store.put(stored_corpus))
        assert all(r.ok for r in results)
    engine_store.refresh()
    return embedded, engine_store


def _all_candidates(store, docs: list[StoredDocument], k: int) -> dict[str, list[tuple[str, int]]]:
    return {d.id: [(c.id, c.shared) for c in store.candidates(d, k=k)] for d in docs}


def test_same_candidates_for_every_document(
    both: tuple[EmbeddedStore, EngineStore], stored_corpus: list[StoredDocument]
) -> None:
    embedded, remote = both
    for k in (20, 3):  # a small k makes the tie-break (seq, then id) decide membership
        want = _all_candidates(embedded, stored_corpus, k)
        got = _all_candidates(remote, stored_corpus, k)
        assert got == want
    assert sum(map(len, want.values())) > len(stored_corpus)  # not trivially empty


def test_same_frequencies_stoplist_and_candidates_under_it(
    both: tuple[EmbeddedStore, EngineStore], stored_corpus: list[StoredDocument]
) -> None:
    embedded, remote = both
    assert remote.fingerprint_frequencies(3) == embedded.fingerprint_frequencies(3)
    # Thresholds scaled to ~300 documents so that the rule stops something.
    config = StoplistConfig(max_count=8, concentrated_count=4, max_sites=6)
    stopped_embedded = refresh_stoplist(embedded, config)
    stopped_remote = refresh_stoplist(remote, config)
    assert stopped_remote == stopped_embedded
    assert stopped_remote, "the corpus has template fingerprints to stop"
    assert remote.stoplist() == embedded.stoplist()
    want = _all_candidates(embedded, stored_corpus, 20)
    assert _all_candidates(remote, stored_corpus, 20) == want
    stop = embedded.stoplist()
    fps = {d.id: set(d.fingerprints) for d in stored_corpus}
    for doc in stored_corpus:  # shared counts only non-stoplisted fingerprints
        for cid, shared in want[doc.id]:
            assert shared == len((fps[doc.id] - stop) & fps[cid]) >= 1


def test_same_groups_after_the_same_write_back(
    both: tuple[EmbeddedStore, EngineStore], corpus: list[dict]
) -> None:
    embedded, remote = both
    for d in corpus:
        rep = d["twin_of"] or d["id"]
        for store in (embedded, remote):
            seen = store.get(d["id"])
            assert seen is not None
            update = GroupUpdate(d["id"], rep, d["twin_of"], None, None)
            assert store.update_group(update, seen.version)
            if d["seq"] % 10 == 0:  # a stale version is refused by both
                stale = GroupUpdate(d["id"], "x", None, None, None)
                assert not store.update_group(stale, seen.version)
    remote.refresh()
    for rep in ("a000", "a001", "a003", "s000"):
        assert [m.id for m in remote.group_members(rep)] == [
            m.id for m in embedded.group_members(rep)
        ]
