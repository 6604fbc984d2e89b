"""The workers' refresh on a search engine (``EngineStore.refresh_written``): the fingerprints
index is refreshed at once; the pages index is left to its own refresh, waited for by its
shard copies' counts of external refreshes, and refreshed here only when that does not come in
time. A fake client stands in for the node; the real one:
tests/integration/test_workers_refresh_node.py."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

from neardup.ingest.store.opensearch import OpenSearchStore


def _stats(counts: dict[tuple[str, bool], int]) -> dict[str, Any]:
    shards: dict[str, list[dict[str, Any]]] = {}
    for (shard, primary), n in counts.items():
        shards.setdefault(shard, []).append({
            "routing": {"node": "n1" if primary else "n2", "primary": primary},
            "refresh": {"total": n + 7, "external_total": n},
        })
    return {"indices": {"news": {"shards": shards}}}


class _Indices:
    """``indices`` of a client whose pages index reports ``answers`` one read after another
    (the last one again once they run out)."""

    def __init__(self, answers: list[dict[tuple[str, bool], int]]) -> None:
        self.refreshed: list[str] = []
        self._answers: Iterator[dict[tuple[str, bool], int]] = iter(answers)
        self._last = answers[0]

    def refresh(self, index: str) -> None:
        self.refreshed.append(index)

    def stats(self, index: str, metric: str, level: str) -> dict[str, Any]:
        assert (index, metric, level) == ("news", "refresh", "shards")
        self._last = next(self._answers, self._last)
        return _stats(self._last)


def _store(indices: _Indices) -> OpenSearchStore:
    return OpenSearchStore(SimpleNamespace(indices=indices), "news")


def test_two_refreshes_of_every_copy_leave_the_pages_index_to_its_own() -> None:
    indices = _Indices([
        {("0", True): 4, ("0", False): 9},
        {("0", True): 5, ("0", False): 10},  # one each: it may have started before the call
        {("0", True): 6, ("0", False): 10},  # the replica not yet
        {("0", True): 6, ("0", False): 11},
    ])
    _store(indices).refresh_written(wait=10.0)
    assert indices.refreshed == ["news-fingerprints"]


def test_the_pages_index_is_refreshed_when_its_own_refresh_does_not_come() -> None:
    indices = _Indices([{("0", True): 4}, {("0", True): 5}])  # once, then no more writes
    _store(indices).refresh_written(wait=0.5)
    assert indices.refreshed == ["news-fingerprints", "news"]


def test_without_a_wait_both_are_refreshed_at_once() -> None:
    indices = _Indices([{("0", True): 4}])
    _store(indices).refresh_written()
    assert indices.refreshed == ["news-fingerprints", "news"]


def test_counts_that_cannot_be_told_apart_mean_a_refresh() -> None:
    class _Plain(_Indices):
        def stats(self, index: str, metric: str, level: str) -> dict[str, Any]:
            answer = super().stats(index, metric, level)
            for copies in answer["indices"]["news"]["shards"].values():
                for copy in copies:
                    del copy["refresh"]["external_total"]
            return answer

    indices = _Plain([{("0", True): 4}, {("0", True): 9}])
    _store(indices).refresh_written(wait=10.0)
    assert indices.refreshed == ["news-fingerprints", "news"]
