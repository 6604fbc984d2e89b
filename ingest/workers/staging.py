"""The accepted batches, from acceptance until the index shows their pages: Redis, beside the
broker.

A page is indexed once, already carrying its ``dup_group`` (docs/workers.md, "Deciding before
indexing"). Between acceptance and that write it is staged here, in Redis (the broker's
server, persisted with its append-only file), by :class:`BatchStaging`:

* ``seq`` — the sequencer: every accepted batch takes a block of numbers (``INCRBY``). A
  group's id is its earliest member by ``(seq, id)``.
* ``batch:<key>`` — an accepted batch's pages, as prepared by ingest (text, fingerprints,
  metadata): JSON, each page in its staged form
  (:meth:`~neardup.ingest.store.base.StoredDocument.to_staged`), and ``batch:<key>:ids`` its page ids (JSON); ``live`` — a sorted set of the
  batch keys not yet searchable (score: the batch's first seq); ``pending`` — page id → batch
  key, for pages asked about before they are decided. Accepting a batch writes them all in
  one script, so a batch is visible to every worker from the moment it is accepted until the
  index shows it.
* ``written`` — batch keys whose pages are indexed, with the time; a batch leaves ``live`` (and
  its payload is deleted) only once a refresh that started after that time has finished, so a
  worker that no longer finds it here finds it in the index. ``refreshed`` — when the last
  finished refresh started; ``refresh-lock`` — held by the one caller refreshing.

The group forest lives beside these keys (:mod:`neardup.ingest.workers.forest`). Keys are
prefixed ``neardup:<index>:``, so indices never mix; the Lua scripts are the ``staging_*.lua``
files beside this module.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from neardup.ingest.jsoncodec import dumps_bytes_fast, loads_fast
from neardup.ingest.store.base import StoredDocument, now_iso
from neardup.ingest.workers._redis import (
    connect,
    hash_fields,
    key_prefix,
    script,
    sorted_members,
    text,
    transient,
)

__all__ = ["BatchStaging", "StagedBatch", "batch_payload"]


@dataclass(frozen=True, slots=True)
class StagedBatch:
    """An accepted batch as read back from Redis (:meth:`BatchStaging.load`): its key, first
    seq and pages, each a :class:`~neardup.ingest.store.base.StoredDocument` not decided yet
    (``status: pending``, its ``seq`` its place in the batch).

    Stage: between acceptance and the index. Before it: the pages step 1 made
    (:class:`~neardup.ingest.store.base.StoredDocument`), accepted by
    :meth:`BatchStaging.accept`; after it: the same pages, decided by a worker
    (:func:`neardup.ingest.workers.batch.decide_batch`) and indexed. Shared by every decision
    of the process (:class:`~neardup.ingest.workers.live.LiveIndex`): read its pages, never
    change them."""

    key: str
    first_seq: int
    pages: list[StoredDocument]
    accepted_at: float
    mode: str = "index"  # "index": write whole pages; "update": tag pages in place (backfill)

    def seq_of(self, i: int) -> int:
        return self.first_seq + i


def batch_payload(pages: Sequence[StoredDocument], mode: str = "index") -> bytes:
    """The stored form of a batch: JSON, its pages in their staged form
    (:meth:`~neardup.ingest.store.base.StoredDocument.to_staged`; a page without
    ``ingested_at`` takes the time now). Uncompressed: a worker reads every batch once, and
    decompressing cost more than the bytes."""
    now = now_iso()
    return dumps_bytes_fast({"pages": [p.to_staged(now) for p in pages],
                             "accepted_at": time.time(), "mode": mode})


def _read_batch(key: str, first: int, blob: bytes | str) -> StagedBatch:
    """A batch as :func:`batch_payload` stored it: its pages parsed here, once."""
    data = loads_fast(blob)
    from_staged = StoredDocument.from_staged
    pages = [from_staged(p, first + i) for i, p in enumerate(data["pages"])]
    return StagedBatch(key, first, pages, float(data["accepted_at"]),
                       str(data.get("mode", "index")))


class BatchStaging:
    """The staged batches of one index in Redis (see the module doc)."""

    def __init__(self, client: Any, index: str) -> None:
        self.redis = client
        self.index = index
        p = key_prefix(index)
        self.k_seq, self.k_live, self.k_written = p + "seq", p + "live", p + "written"
        self.k_pending = p + "pending"
        self.k_refreshed, self.k_refresh_lock = p + "refreshed", p + "refresh-lock"
        self._batch_prefix = p + "batch:"
        self._accept = script(client, "staging_accept.lua")
        self._forget = script(client, "staging_forget.lua")
        self._set_max_script = script(client, "staging_set_max.lua")

    @classmethod
    def from_url(cls, url: str, index: str) -> BatchStaging:
        return cls(connect(url), index)

    def batch_key(self, key: str) -> str:
        return self._batch_prefix + key

    # -- accepting ------------------------------------------------------------------------------

    @transient
    def accept(self, pages: Sequence[StoredDocument], mode: str = "index") -> tuple[str, int]:
        """Store a batch of prepared pages and make it visible to the workers; returns
        ``(key, first seq)``."""
        key = uuid.uuid4().hex
        first = self._accept(
            keys=[self.k_seq, self.batch_key(key), self.k_live, self.k_pending,
                  self.batch_key(key) + ":ids"],
            args=[batch_payload(pages, mode), len(pages), key, *(p.id for p in pages)],
        )
        return key, int(first)

    @transient
    def load(self, keys: Sequence[str]) -> dict[str, StagedBatch]:
        """The batches of ``keys`` that are still stored (one ``MGET``), pages parsed."""
        if not keys:
            return {}
        pipe = self.redis.pipeline(transaction=False)
        pipe.mget([self.batch_key(k) for k in keys])
        pipe.zmscore(self.k_live, list(keys))
        blobs, firsts = pipe.execute()
        out = {}
        for key, blob, first in zip(keys, blobs, firsts, strict=True):
            if blob is None or first is None:
                continue
            out[key] = _read_batch(key, int(first), blob)
        return out

    @transient
    def live(self) -> list[str]:
        """The keys of the batches not yet searchable, oldest first."""
        return [text(k)
                for k in self.redis.zrange(self.k_live, 0, -1)]

    @transient
    def pending(self, ids: Sequence[str]) -> set[str]:
        """Which of ``ids`` are accepted and not yet searchable."""
        return set(hash_fields(self.redis, self.k_pending, ids, text))

    @transient
    def pending_pages(self, ids: Sequence[str]) -> dict[str, StoredDocument]:
        """The pages of ``ids`` that are accepted and not yet searchable, as accepted."""
        by_key: dict[str, set[str]] = {}
        for doc_id, key in hash_fields(self.redis, self.k_pending, ids, text).items():
            by_key.setdefault(key, set()).add(doc_id)
        found: dict[str, StoredDocument] = {}
        for key, batch in self.load(sorted(by_key)).items():
            for page in batch.pages:
                if page.id in by_key[key]:
                    found[page.id] = page
        return found

    @transient
    def undecided(self, offset: int, size: int) -> tuple[int, list[StoredDocument]]:
        """Pages accepted and not yet searchable, by id: ``(how many, a page of them)``."""
        ids = sorted(text(k)
                     for k in self.redis.hkeys(self.k_pending))
        wanted = ids[offset:offset + size]
        found = self.pending_pages(wanted)
        return len(ids), [found[i] for i in wanted if i in found]

    @transient
    def pending_count(self) -> int:
        """How many pages are accepted and not yet searchable."""
        return int(self.redis.hlen(self.k_pending))

    @transient
    def live_count(self) -> int:
        """How many batches are not yet searchable."""
        return int(self.redis.zcard(self.k_live))

    @transient
    def undecided_count(self) -> int:
        """How many live batches are not yet written (queued or being decided)."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.zcard(self.k_live)
        pipe.zcard(self.k_written)
        live, written = pipe.execute()
        return max(0, int(live) - int(written))

    @transient
    def undecided_before(self, seq: int) -> int:
        """How many live batches accepted before ``seq`` are not yet written."""
        keys = [text(k) for k in self.redis.zrangebyscore(self.k_live, "-inf", f"({seq}")]
        return len(keys) - len(self.written_of(keys)) if keys else 0

    def wait_for_room(self, max_live: int, budget: float) -> bool:
        """Block while ``max_live`` batches or more wait to be decided and written, at most
        ``budget`` seconds (backpressure: the workers' view of the live pages, Redis' memory
        and the time to searchable stay bounded; the batches written and waiting for a refresh
        do not count, for that wait is bounded by itself:
        :data:`neardup.ingest.workers.refresher.OWN_REFRESH_WAIT`); False when there is still
        no room."""
        deadline = time.monotonic() + budget
        delay = 0.01
        while self.undecided_count() >= max_live:
            if time.monotonic() > deadline:
                return False
            time.sleep(delay)
            delay = min(delay * 1.5, 0.2)
        return True

    @transient
    def live_of(self, keys: Iterable[str]) -> set[str]:
        """Which of ``keys`` are still live."""
        return sorted_members(self.redis, self.k_live, keys)

    @transient
    def written_of(self, keys: Iterable[str]) -> set[str]:
        """Which of ``keys`` are indexed (written) and not yet dropped."""
        return sorted_members(self.redis, self.k_written, keys)

    # -- from written to searchable -------------------------------------------------------------

    @transient
    def mark_written(self, key: str) -> float:
        """Record that the batch's pages are indexed; returns the time recorded."""
        now = time.time()
        self.redis.zadd(self.k_written, {key: now})
        return now

    @transient
    def refresh_and_prune(self, refresh: Any, written_at: float, budget: float = 120.0) -> int:
        """Make the batch written at ``written_at`` searchable and drop the searchable batches
        from ``live``: unless a refresh has started since ``written_at``, run one (one caller
        at a time, a lock; a caller that finds the lock taken waits for that refresh and looks
        again). Every batch written before the start of the last finished refresh is removed.
        Returns the number of batches removed."""
        deadline = time.monotonic() + budget
        delay = 0.005
        while float(self.redis.get(self.k_refreshed) or 0.0) <= written_at:
            if self.redis.set(self.k_refresh_lock, "1", nx=True, px=30_000):
                try:
                    started = time.time()
                    refresh()
                    self._set_max(self.k_refreshed, started)
                finally:
                    self.redis.delete(self.k_refresh_lock)
            elif time.monotonic() > deadline:
                break
            else:
                time.sleep(delay)
                delay = min(delay * 2, 0.1)
        return self.prune()

    @transient
    def last_refresh(self) -> float:
        """When the last finished refresh started (epoch seconds; 0 before the first)."""
        return float(self.redis.get(self.k_refreshed) or 0.0)

    def _set_max(self, key: str, value: float) -> None:
        self._set_max_script(keys=[key], args=[repr(value)])

    @transient
    def prune(self) -> int:
        last = float(self.redis.get(self.k_refreshed) or 0.0)
        done = self.redis.zrangebyscore(self.k_written, "-inf", f"({last!r}")
        if not done:
            return 0
        keys = [text(k) for k in done]
        self._drop(keys)
        return len(keys)

    @transient
    def claim_stale(self, keys: Sequence[str], every: float) -> list[str]:
        """Of ``keys`` (live batches accepted long ago), those not yet indexed whose decision
        nobody asked for again in the last ``every`` seconds; the caller queues them again."""
        written = self.written_of(keys)
        out = []
        for key in keys:
            if key not in written and self.redis.set(f"{self._batch_prefix}{key}:again", "1",
                                                     nx=True, px=int(every * 1000)):
                out.append(key)
        return out

    @transient
    def drop_batch(self, key: str) -> None:
        """Forget a batch (its pages were dead-lettered)."""
        self._drop([key])

    def _drop(self, keys: Sequence[str]) -> None:
        """Remove batches from the live set with their payloads and ``pending`` entries."""
        pipe = self.redis.pipeline(transaction=True)
        pipe.zrem(self.k_live, *keys)
        pipe.zrem(self.k_written, *keys)
        pipe.execute()
        for key in keys:
            self._forget(keys=[self.k_pending, self.batch_key(key), self.batch_key(key) + ":ids"],
                         args=[key])

    @transient
    def clear(self) -> None:
        """Forget this index's staged batches (a dropped index; its group forest is
        :meth:`neardup.ingest.workers.forest.RedisGroupForest.clear`'s)."""
        keys = [self.k_seq, self.k_live, self.k_written, self.k_pending,
                self.k_refreshed, self.k_refresh_lock]
        keys += [k for k in self.redis.scan_iter(self._batch_prefix + "*", count=1000)]
        self.redis.delete(*keys)
