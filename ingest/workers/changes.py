"""Changes to pages already accepted: new versions, deletes, regroupings — staged in Redis until
a repair has applied them (:mod:`neardup.ingest.workers.repair`).

A page is accepted once, in a batch (:mod:`neardup.ingest.workers.staging`). What comes after
— the page sent again with another text, the page deleted, a page whose group must be checked
(``neardup backfill --repair``) — is a *change*, kept here, durable like a batch, until a
repair has decided the pages it touches again:

* ``changes`` — a sorted set of change ids, scored by the change's ``seq``: the same sequencer
  as the batches' (``seq``, ``INCRBY``), so the changes and the batches have one order, that of
  their arrival at the broker. **The last version wins**: of two versions of a page, the one
  that arrived last is the page.
* ``change:<id>`` — the change, JSON: ``{"op": "put" | "delete" | "regroup", "id", "doc"}``
  (``doc``: the new version as ingest prepared it, staged form; ``counted``: its chrome site
  when it is a plain-text page that the chrome counts count).

Staging a change is one script call (``changes_stage.lua``); a repair reads the changes present,
applies them and only then removes them, so a repair that dies is done again.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from neardup.ingest.jsoncodec import dumps_str, loads_fast
from neardup.ingest.store.base import StoredDocument, now_iso
from neardup.ingest.workers._redis import key_prefix, script, text, transient

__all__ = ["Change", "ChangeLog"]

OPS = ("put", "delete", "regroup")


@dataclass(frozen=True, slots=True)
class Change:
    """One staged change: ``op`` on page ``id``, in arrival order ``seq``; ``doc`` is the new
    version of a ``put`` (its ``seq`` the change's), ``counted`` its chrome site when the chrome
    counts count it."""

    key: str
    seq: int
    op: str
    id: str
    doc: StoredDocument | None = None
    counted: str | None = None


class ChangeLog:
    """The staged changes of one index (see the module doc)."""

    def __init__(self, client: Any, index: str) -> None:
        self.redis = client
        p = key_prefix(index)
        self.k_seq, self.k_changes, self._prefix = p + "seq", p + "changes", p + "change:"
        self._stage = script(client, "changes_stage.lua")

    @transient
    def stage(self, changes: Sequence[Mapping[str, Any]]) -> list[int]:
        """Stage ``changes`` (each ``{"op", "id"}``, a ``put`` with its ``doc``, a
        :class:`~neardup.ingest.store.base.StoredDocument`, and ``counted``); returns their
        seqs, in order."""
        if not changes:
            return []
        now = now_iso()
        args: list[Any] = []
        for c in changes:
            op = c["op"]
            if op not in OPS:
                raise ValueError(f"unknown change {op!r}")
            doc = c.get("doc")
            payload = {"op": op, "id": str(c["id"]), "counted": c.get("counted"),
                       "doc": doc.to_staged(now) if doc is not None else None}
            args += [uuid.uuid4().hex, dumps_str(payload)]
        seqs = self._stage(keys=[self.k_seq, self.k_changes], args=[self._prefix, *args])
        return [int(s) for s in seqs]

    @transient
    def snapshot(self, limit: int = 10_000) -> list[Change]:
        """The staged changes, oldest first (at most ``limit``)."""
        found = self.redis.zrange(self.k_changes, 0, limit - 1, withscores=True)
        if not found:
            return []
        keys = [text(k) for k, _ in found]
        blobs = self.redis.mget([self._prefix + k for k in keys])
        out = []
        for key, (_, score), blob in zip(keys, found, blobs, strict=True):
            if blob is None:
                continue
            data = loads_fast(blob)
            seq = int(score)
            doc = StoredDocument.from_staged(data["doc"], seq) if data.get("doc") else None
            out.append(Change(key, seq, str(data["op"]), str(data["id"]), doc,
                              data.get("counted")))
        return out

    @transient
    def done(self, changes: Sequence[Change]) -> None:
        """Forget changes a repair has applied."""
        if not changes:
            return
        pipe = self.redis.pipeline(transaction=True)
        pipe.zrem(self.k_changes, *[c.key for c in changes])
        pipe.delete(*[self._prefix + c.key for c in changes])
        pipe.execute()

    @transient
    def count(self) -> int:
        """How many changes wait for a repair."""
        return int(self.redis.zcard(self.k_changes))

    @transient
    def clear(self) -> None:
        keys = [self.k_changes]
        keys += [k for k in self.redis.scan_iter(self._prefix + "*", count=1000)]
        self.redis.delete(*keys)
