"""The group forest on a real redis-server: atomic unions that keep the earliest root, and the
members noted before each write (ingest/workers/forest.py)."""

from __future__ import annotations

import threading

from neardup.ingest.workers.forest import RedisGroupForest
from neardup.verifier.grouping import GroupForest


def test_unions_keep_the_earliest_root_and_report_merges(forest: RedisGroupForest) -> None:
    seq = {"a": 5, "b": 2, "c": 9, "d": 1}
    roots, best, merged = forest.union(seq, [("a", "c", 0.9, 0.95)], ["a", "c"])
    assert roots == {"a": "a", "c": "a"} and merged == [("c", "a")]
    assert best["c"] == ("a", 0.9, 0.95) and best["a"] == ("c", 0.9, 0.95)
    forest.merged_done(["c"])  # its members rewritten
    roots, best, merged = forest.union(seq, [("b", "c", 0.5, 0.6)], ["a", "b", "c"])
    assert roots == {"a": "b", "b": "b", "c": "b"} and merged == [("a", "b")]
    assert best["c"] == ("a", 0.9, 0.95)  # the closest match is kept
    assert forest.roots(["a", "c", "d", "zz"]) == {"a": "b", "c": "b", "d": "d", "zz": "zz"}
    # a merge not rewritten yet (the decision that made it failed) is handed on by every union,
    # with its root now, until it is done
    roots, best, merged = forest.union(seq, [("d", "b", 0.7, 0.7)], ["d"])
    assert sorted(merged) == [("a", "d"), ("b", "d")]
    forest.merged_done(["a", "b"])
    assert forest.union(seq, [], ["a"])[::2] == ({"a": "d"}, [])


def test_concurrent_unions_build_the_sequential_forest(forest: RedisGroupForest) -> None:
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
            forest.union({a: seq[a], b: seq[b]}, [(a, b, 0.9, 0.9)], [a])

    threads = [threading.Thread(target=run, args=(c,)) for c in chunks]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    memory = GroupForest()
    for i in ids:
        memory.add(i, seq[i])
    for a, b in pairs:
        memory.union((a, b))
    assert forest.roots(ids) == {i: memory.find(i) for i in ids}


def test_members_noted_before_a_write_are_what_a_merge_rewrites(forest: RedisGroupForest) -> None:
    """A group's members are its own page and the pages noted under it; a group merged away
    has its list dropped once rewritten."""
    forest.note_members({"a": "a", "b": "a", "c": "a", "d": "d"})
    forest.note_members({"c": "a", "e": "d"})
    assert forest.written_roots(["a", "b", "d", "x"]) == ["a", "d"]
    assert forest.members_written(["a"]) == ["a", "b", "c"]
    assert forest.members_written(["a", "d"]) == ["a", "b", "c", "d", "e"]
    forest.forget_members(["a"])
    assert forest.members_written(["a"]) == ["a"]
