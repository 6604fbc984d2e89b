"""The registry on a real redis-server: the sequencer, the live set and when a batch leaves it,
and the group forest's atomic unions (verifier/registry.py)."""

from __future__ import annotations

import threading
import time
from typing import Any

from neardup.verifier.grouping import GroupForest
from neardup.verifier.registry import Registry


def page(i: str) -> dict[str, Any]:
    return {"id": i, "body": f"text {i}", "fingerprints": [f"fp-{i}"], "fp_config": "c"}


def test_batches_take_consecutive_seqs_and_stay_live_until_a_later_refresh(
    registry: Registry,
) -> None:
    k1, first1 = registry.accept([page("a"), page("b")])
    k2, first2 = registry.accept([page("c")])
    assert (first1, first2) == (1, 3)
    assert registry.live() == [k1, k2] and registry.pending(["a", "c", "x"]) == {"a", "c"}
    batch = registry.load([k1])[k1]
    assert [p["id"] for p in batch.pages] == ["a", "b"] and batch.seq_of(1) == 2

    refreshes: list[float] = []
    written = registry.mark_written(k1)
    registry.refresh_and_prune(lambda: refreshes.append(time.time()), written)
    assert refreshes and refreshes[0] >= written  # a refresh started after the write
    assert registry.live() == [k2] and registry.pending(["a", "b", "c"]) == {"c"}
    assert registry.load([k1]) == {}  # its payload is gone: a redelivery is a no-op
    # a refresh that started before a write does not make that write searchable
    written = registry.mark_written(k2)
    registry.redis.set(registry.k_refreshed, repr(written - 10))
    assert registry.prune() == 0 and registry.live() == [k2]
    registry.refresh_and_prune(lambda: None, written)
    assert registry.live() == []


def test_unions_keep_the_earliest_root_and_report_merges(registry: Registry) -> None:
    seq = {"a": 5, "b": 2, "c": 9, "d": 1}
    roots, best, merged = registry.union(seq, [("a", "c", 0.9, 0.95)], ["a", "c"])
    assert roots == {"a": "a", "c": "a"} and merged == [("c", "a")]
    assert best["c"] == ("a", 0.9, 0.95) and best["a"] == ("c", 0.9, 0.95)
    roots, best, merged = registry.union(seq, [("b", "c", 0.5, 0.6)], ["a", "b", "c"])
    assert roots == {"a": "b", "b": "b", "c": "b"} and merged == [("a", "b")]
    assert best["c"] == ("a", 0.9, 0.95)  # the closest match is kept
    assert registry.roots(["a", "c", "d", "zz"]) == {"a": "b", "c": "b", "d": "d", "zz": "zz"}


def test_concurrent_unions_build_the_sequential_forest(registry: Registry) -> None:
    """Eight threads joining random pairs at once give the components (and roots) of one
    union-find fed the same pairs in order: each union is one atomic script."""
    import random

    rng = random.Random(7)
    ids = [f"p{i:03d}" for i in range(300)]
    seq = {i: n for n, i in enumerate(ids)}
    pairs = [(rng.choice(ids), rng.choice(ids)) for _ in range(400)]
    chunks = [pairs[i::8] for i in range(8)]

    def run(chunk: list[tuple[str, str]]) -> None:
        for a, b in chunk:
            registry.union({a: seq[a], b: seq[b]}, [(a, b, 0.9, 0.9)], [a])

    threads = [threading.Thread(target=run, args=(c,)) for c in chunks]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    forest = GroupForest()
    for i in ids:
        forest.add(i, seq[i])
    for a, b in pairs:
        forest.union((a, b))
    assert registry.roots(ids) == {i: forest.find(i) for i in ids}


def test_a_live_batch_never_indexed_is_claimed_once_for_requeueing(registry: Registry) -> None:
    k1, _ = registry.accept([page("a")])
    k2, _ = registry.accept([page("b")])
    registry.mark_written(k2)
    assert registry.claim_stale([k1, k2], every=60) == [k1]  # k2 is indexed already
    assert registry.claim_stale([k1, k2], every=60) == []  # claimed: not twice in a row


def test_the_refresher_makes_written_batches_searchable_sharing_refreshes(
    registry: Registry,
) -> None:
    """Batches written within one interval share a refresh that started after the last of
    them; each leaves the live set, its pending pages with it; a failing refresh is retried."""
    from neardup.verifier.decide import Refresher

    started: list[float] = []
    failures = [1]

    def refresh() -> None:
        if failures:
            failures.pop()
            raise ConnectionError("engine away")
        started.append(time.time())

    keys = [registry.accept([page(f"r{i}")])[0] for i in range(5)]
    refresher = Refresher(registry, refresh, every=0.3)
    written = [registry.mark_written(k) for k in keys]
    for at in written:
        refresher.written(at)
    assert refresher.idle(timeout=10)
    assert registry.live() == [] and registry.pending([f"r{i}" for i in range(5)]) == set()
    assert 1 <= len(started) <= 2 and started[-1] >= max(written)
    # a later write waits for its own refresh, at least `every` after the previous one, while
    # another batch is on its way (accepted, not written) that could share it
    busy, _ = registry.accept([page("busy")])
    key, _ = registry.accept([page("late")])
    at = registry.mark_written(key)
    refresher.written(at)
    assert refresher.idle(timeout=10) and registry.live() == [busy]
    assert started[-1] >= at and started[-1] - started[-2] >= 0.29
    # with every live batch written, nothing would share the wait: the refresh starts at once
    at = registry.mark_written(busy)
    refresher.written(at)
    assert refresher.idle(timeout=10) and registry.live() == []
    assert started[-1] >= at and started[-1] - started[-2] < 0.2


def test_members_noted_before_a_write_are_what_a_merge_rewrites(registry: Registry) -> None:
    """A group's members are its own page and the pages noted under it; a group merged away
    has its list dropped once rewritten."""
    registry.note_members({"a": "a", "b": "a", "c": "a", "d": "d"})
    registry.note_members({"c": "a", "e": "d"})
    assert registry.written_roots(["a", "b", "d", "x"]) == ["a", "d"]
    assert registry.members_written(["a"]) == ["a", "b", "c"]
    assert registry.members_written(["a", "d"]) == ["a", "b", "c", "d", "e"]
    registry.forget_members(["a"])
    assert registry.members_written(["a"]) == ["a"]
