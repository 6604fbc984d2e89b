"""Order-independence: any task order, any interleaving, the same groups as sequential.

A random "world" (earlier candidates + a symmetric similarity oracle) is grouped three ways:
sequentially with :func:`assign_groups`; by a random-order scheduler that re-queues documents
whose earlier candidates are pending (what the Celery task does); and by threads running the
real write-back (:func:`verifier.worker.process_document`) on an embedded store, where merges
race for real.
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass

import pytest

from ingest.store.base import StoredDocument
from ingest.store.embedded import EmbeddedStore
from verifier.grouping import Decision, Peer, assign_groups, decide
from verifier.worker import process_document, verify_ids


@dataclass(frozen=True)
class V:
    similar: bool
    resemble: float = 0.5
    contain: float = 0.5


def world(seed: int, n: int = 60, k: int = 4) -> tuple[list[str], dict[str, list[str]], set]:
    rng = random.Random(seed)
    ids = [f"d{i:03d}" for i in range(n)]
    earlier = {d: sorted(rng.sample(ids[:i], min(i, rng.randint(0, k)))) for i, d in enumerate(ids)}
    similar = {frozenset(p) for p in ((rng.choice(ids), rng.choice(ids)) for _ in range(n * 3))}
    return ids, earlier, similar


def sim(similar: set, a: str, b: str) -> V:
    return V(frozenset((a, b)) in similar)


def sequential(ids, earlier, similar) -> dict[str, str]:
    decisions: dict[str, Decision] = {}
    seq = {d: i for i, d in enumerate(ids)}
    for d in ids:
        peers = [
            Peer(c, seq[c], "grouped", decisions[c].dup_of, seq.get(decisions[c].dup_of or ""))
            for c in earlier[d]
        ]
        decisions[d] = decide(seq[d], d, peers, lambda r, d=d: sim(similar, d, r))
    return assign_groups([(d, seq[d]) for d in ids], decisions)


@pytest.mark.parametrize("seed", range(20))
def test_random_task_order_gives_sequential_groups(seed: int) -> None:
    ids, earlier, similar = world(seed)
    seq = {d: i for i, d in enumerate(ids)}
    rng = random.Random(seed + 1000)
    queue = ids[:]
    rng.shuffle(queue)
    decisions: dict[str, Decision] = {}
    while queue:
        d = queue.pop(rng.randrange(len(queue)))
        peers = [
            Peer(c, seq[c], "pending")
            if c not in decisions
            else Peer(c, seq[c], "grouped", decisions[c].dup_of, seq.get(decisions[c].dup_of or ""))
            for c in earlier[d]
        ]
        decision = decide(seq[d], d, peers, lambda r, d=d: sim(similar, d, r))
        if decision.ready:
            decisions[d] = decision
        else:
            queue.append(d)
    assert assign_groups([(d, seq[d]) for d in ids], decisions) == sequential(ids, earlier, similar)


def _store_world(ids, earlier) -> EmbeddedStore:
    store = EmbeddedStore()
    fps: dict[str, list[str]] = {d: [f"self-{d}"] for d in ids}
    for d, cs in earlier.items():
        for c in cs:  # one shared term per candidate edge
            fps[d].append(f"e-{c}-{d}")
            fps[c].append(f"e-{c}-{d}")
    docs = [StoredDocument(d, d, fps[d], "cfg", i) for i, d in enumerate(ids)]
    assert all(r.ok for r in store.put(docs))
    return store


@pytest.mark.parametrize("seed", range(8))
def test_threads_writing_back_give_sequential_groups(seed: int) -> None:
    ids, earlier, similar = world(seed, n=50)
    store = _store_world(ids, earlier)
    rng = random.Random(seed)
    queue = ids[:]
    rng.shuffle(queue)
    lock = threading.Lock()
    failures: list[BaseException] = []

    def work() -> None:
        while True:
            with lock:
                if not queue:
                    return
                d = queue.pop(0)
            try:
                outcome = process_document(store, d, lambda a, b: sim(similar, a, b), k=8)
            except BaseException as exc:  # pragma: no cover - reported below
                failures.append(exc)
                return
            if outcome == "wait":
                with lock:
                    queue.insert(rng.randrange(len(queue) + 1), d)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures
    got = {d.id: d.dup_group for d in store.mget(ids).values()}
    assert got == sequential(ids, earlier, similar)
    assert all(d.status == "grouped" for d in store.mget(ids).values())


def test_redelivered_task_is_a_noop() -> None:
    ids, earlier, similar = world(3, n=20)
    store = _store_world(ids, earlier)
    for d in ids:
        assert process_document(store, d, lambda a, b: sim(similar, a, b), k=8) == "grouped"
    before = {d.id: (d.dup_group, d.version) for d in store.mget(ids).values()}
    for d in ids:
        assert process_document(store, d, lambda a, b: sim(similar, a, b), k=8) == "noop"
    assert {d.id: (d.dup_group, d.version) for d in store.mget(ids).values()} == before


@pytest.mark.parametrize("seed", range(10))
def test_batches_written_in_bulk_give_sequential_groups(seed: int) -> None:
    """:func:`verifier.worker.verify_ids` (prefetched reads, decisions fed forward within a
    batch, bulk conditional writes, batched settling and merges) run by 4 threads on random
    batches — some documents in two batches at once, as after a redelivery — gives the
    sequential groups."""
    ids, earlier, similar = world(seed, n=80)
    store = _store_world(ids, earlier)
    rng = random.Random(seed)
    shuffled = ids[:]
    rng.shuffle(shuffled)
    queue: list[list[str]] = []
    i = 0
    while i < len(shuffled):
        size = rng.randint(1, 12)
        queue.append(shuffled[i : i + size])
        i += size
    for _ in range(4):  # twins: the same documents in another batch
        queue.insert(rng.randrange(len(queue) + 1), rng.sample(ids, 6))
    lock = threading.Lock()
    failures: list[BaseException] = []
    outcomes: list[str] = []

    def work() -> None:
        while True:
            with lock:
                if not queue:
                    return
                batch = queue.pop(0)
            try:
                done, waiting = verify_ids(store, batch, lambda a, b: sim(similar, a, b), k=8)
            except BaseException as exc:  # pragma: no cover - reported below
                failures.append(exc)
                return
            with lock:
                outcomes.extend(done.values())
                if waiting:
                    queue.insert(rng.randrange(len(queue) + 1), waiting)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures
    assert "error" not in outcomes
    got = store.mget(ids)
    assert all(d.status == "grouped" for d in got.values())
    assert {d.id: d.dup_group for d in got.values()} == sequential(ids, earlier, similar)


def test_batch_redelivered_is_a_noop() -> None:
    ids, earlier, similar = world(5, n=30)
    store = _store_world(ids, earlier)
    done, waiting = verify_ids(store, ids, lambda a, b: sim(similar, a, b), k=8)
    assert not waiting and set(done.values()) == {"grouped"}
    before = {d.id: (d.dup_group, d.version) for d in store.mget(ids).values()}
    done, waiting = verify_ids(store, ids[::-1], lambda a, b: sim(similar, a, b), k=8)
    assert not waiting and set(done.values()) == {"noop"}
    assert {d.id: (d.dup_group, d.version) for d in store.mget(ids).values()} == before
    assert {d: g for d, (g, _) in before.items()} == sequential(ids, earlier, similar)
