"""The batch staging on a real redis-server: the sequencer, the live set and when a batch leaves
it (ingest/workers/staging.py), and the refresher that makes written batches searchable
(ingest/workers/refresher.py)."""

from __future__ import annotations

import time

from neardup.ingest.jsoncodec import loads_fast
from neardup.ingest.store.base import StoredDocument
from neardup.ingest.workers.refresher import OWN_REFRESH_WAIT, Refresher
from neardup.ingest.workers.staging import BatchStaging


def page(i: str) -> StoredDocument:
    return StoredDocument(id=i, body=f"text {i}", fingerprints=[f"fp-{i}"], fp_config="c", seq=0)


def test_batches_take_consecutive_seqs_and_stay_live_until_a_later_refresh(
    staging: BatchStaging,
) -> None:
    k1, first1 = staging.accept([page("a"), page("b")])
    k2, first2 = staging.accept([page("c")])
    assert (first1, first2) == (1, 3)
    assert staging.live() == [k1, k2] and staging.pending(["a", "c", "x"]) == {"a", "c"}
    batch = staging.load([k1])[k1]
    assert [p.id for p in batch.pages] == ["a", "b"] and batch.seq_of(1) == 2
    assert [p.seq for p in batch.pages] == [1, 2]

    refreshes: list[float] = []
    written = staging.mark_written(k1)
    staging.refresh_and_prune(lambda: refreshes.append(time.time()), written)
    assert refreshes and refreshes[0] >= written  # a refresh started after the write
    assert staging.live() == [k2] and staging.pending(["a", "b", "c"]) == {"c"}
    assert staging.load([k1]) == {}  # its payload is gone: a redelivery is a no-op
    # a refresh that started before a write does not make that write searchable
    written = staging.mark_written(k2)
    staging.redis.set(staging.k_refreshed, repr(written - 10))
    assert staging.prune() == 0 and staging.live() == [k2]
    staging.refresh_and_prune(lambda: None, written)
    assert staging.live() == []


def test_backpressure_counts_the_batches_not_yet_written(staging: BatchStaging) -> None:
    """A written batch waiting for a refresh leaves room: ingest waits only on the batches the
    workers have yet to decide."""
    first, _ = staging.accept([page("w1")])
    staging.accept([page("w2")])
    assert not staging.wait_for_room(2, budget=0.2)  # two undecided
    staging.mark_written(first)
    assert staging.live_count() == 2  # still live: not refreshed
    assert staging.wait_for_room(2, budget=0.2)


def test_a_live_batch_never_indexed_is_claimed_once_for_requeueing(staging: BatchStaging) -> None:
    k1, _ = staging.accept([page("a")])
    k2, _ = staging.accept([page("b")])
    staging.mark_written(k2)
    assert staging.claim_stale([k1, k2], every=60) == [k1]  # k2 is indexed already
    assert staging.claim_stale([k1, k2], every=60) == []  # claimed: not twice in a row


def test_the_refresher_makes_written_batches_searchable_sharing_refreshes(
    staging: BatchStaging,
) -> None:
    """Batches written within one interval share a refresh that started after the last of
    them; each leaves the live set, its pending pages with it; a failing refresh is retried."""
    started: list[float] = []
    waits: list[float] = []  # how long each refresh may wait for the engine's own
    failures = [1]

    def refresh(wait: float) -> None:
        if failures:
            failures.pop()
            raise ConnectionError("engine away")
        started.append(time.time())
        waits.append(wait)

    keys = [staging.accept([page(f"r{i}")])[0] for i in range(5)]
    refresher = Refresher(staging, refresh, every=0.3)
    written = [staging.mark_written(k) for k in keys]
    for at in written:
        refresher.written(at)
    assert refresher.idle(timeout=10)
    assert staging.live() == [] and staging.pending([f"r{i}" for i in range(5)]) == set()
    assert 1 <= len(started) <= 2 and started[-1] >= max(written)
    # a later write waits for its own refresh, at least `every` after the previous one, while
    # another batch is on its way (accepted, not written) that could share it
    busy, _ = staging.accept([page("busy")])
    key, _ = staging.accept([page("late")])
    at = staging.mark_written(key)
    refresher.written(at)
    assert refresher.idle(timeout=10) and staging.live() == [busy]
    assert started[-1] >= at and started[-1] - started[-2] >= 0.29
    assert waits[-1] == OWN_REFRESH_WAIT  # the engine's own refresh keeps coming meanwhile
    # with every live batch written, nothing would share the wait: the refresh starts at once
    at = staging.mark_written(busy)
    refresher.written(at)
    assert refresher.idle(timeout=10) and staging.live() == []
    assert started[-1] >= at and started[-1] - started[-2] < 0.2
    assert waits[-1] == 0.0  # no write is coming: the engine's own may not


# A batch as the version before staged pages were StoredDocuments wrote it (its page_payload):
# batches may be in flight during an upgrade.
_OLD_BATCH = (
    b'{"pages":[{"id":"o1","body":"whole text","content":"main text","fingerprints":["f1","f2"],'
    b'"fp_config":"web:1","url":"https://a.example/1","site":"a.example","title":"One",'
    b'"ingested_at":"2024-05-01T10:00:00.000+00:00"},{"id":"o2","body":"plain","content":null,'
    b'"fingerprints":[],"fp_config":"web:1","url":null,"site":null,"title":null,'
    b'"ingested_at":"2024-05-01T10:00:00.000+00:00"}],"accepted_at":1714557600.5,"mode":"update"}'
)


def test_a_batch_staged_by_the_previous_version_reads_the_same(staging: BatchStaging) -> None:
    key = "0ldbatch"
    first = staging._accept(
        keys=[staging.k_seq, staging.batch_key(key), staging.k_live, staging.k_pending,
              staging.batch_key(key) + ":ids"],
        args=[_OLD_BATCH, 2, key, "o1", "o2"],
    )
    batch = staging.load([key])[key]
    assert (batch.first_seq, batch.accepted_at, batch.mode) == (int(first), 1714557600.5, "update")
    at = "2024-05-01T10:00:00.000+00:00"
    assert batch.pages == [
        StoredDocument(id="o1", body="whole text", content="main text", fingerprints=["f1", "f2"],
                       fp_config="web:1", seq=int(first), url="https://a.example/1",
                       site="a.example", title="One", ingested_at=at),
        StoredDocument(id="o2", body="plain", fingerprints=[], fp_config="web:1",
                       seq=int(first) + 1, ingested_at=at),
    ]
    assert all(p.status == "pending" and p.dup_group is None for p in batch.pages)
    assert staging.pending_pages(["o2", "x"]) == {"o2": batch.pages[1]}
    # and what this version stages has the same keys, in the same order
    new_key, _ = staging.accept(batch.pages, "update")
    old, new = (loads_fast(staging.redis.get(staging.batch_key(k))) for k in (key, new_key))
    assert [list(p) for p in new["pages"]] == [list(p) for p in old["pages"]]
    assert new["pages"] == old["pages"] and new["mode"] == "update"
