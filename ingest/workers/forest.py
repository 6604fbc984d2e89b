"""The group forest the workers share: Redis, beside the broker.

The groups are the connected components of the joining pairs (:mod:`neardup.verifier.grouping`,
whose :class:`~neardup.verifier.grouping.GroupForest` is the in-memory twin of this one); every
worker joins into, and reads roots from, one forest per index, kept by
:class:`RedisGroupForest`:

* ``parent`` / ``pseq`` — the union-find: parent pointers and the ``seq`` of the pages that ever
  took part in a union; a page absent from it is its own root. Unions run as one Lua script,
  atomically, so concurrent workers never race on a merge. The root of a component is its
  earliest ``(seq, id)``.
* ``best`` — each joined page's closest match so far (its ``dup_of``).
* ``roots-written`` — the group ids pages were indexed with (a merge rewrites only their
  members); ``members:<group>`` — the pages indexed with ``group`` that are not its own page,
  noted before each write, so a merge finds them without searching the index.
* ``merged`` — the roots merged away whose members are not rewritten yet. A union adds its
  losers; the rewrite (:func:`~neardup.ingest.workers.writeback.rewrite_merged`) takes them
  out once it has written their members. A decision that fails between its union and that
  rewrite (the engine gone) leaves them here, and every later union hands them on: its retry
  finds the groups already joined and merges nothing itself.

Keys are prefixed ``neardup:<index>:`` like the staged batches' (:mod:`neardup.ingest.workers.staging`);
the Lua scripts are the ``forest_*.lua`` files beside this module.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from neardup.ingest.jsoncodec import dumps_str
from neardup.ingest.workers._redis import connect, hash_fields, key_prefix, script, text, transient

__all__ = ["RedisGroupForest"]


class RedisGroupForest:
    """The group forest of one index in Redis (see the module doc)."""

    def __init__(self, client: Any, index: str) -> None:
        self.redis = client
        self.index = index
        p = key_prefix(index)
        self.k_parent, self.k_pseq = p + "parent", p + "pseq"
        self.k_roots_written = p + "roots-written"
        self.k_best = p + "best"
        self.k_merged = p + "merged"
        self._members_prefix = p + "members:"
        self._union = script(client, "forest_union.lua")
        self._roots = script(client, "forest_roots.lua")

    @classmethod
    def from_url(cls, url: str, index: str) -> RedisGroupForest:
        return cls(connect(url), index)

    # -- joining and finding ---------------------------------------------------------------------

    @transient
    def union(
        self, seq: Mapping[str, int], edges: Sequence[tuple[str, str, float, float]],
        ask: Sequence[str],
    ) -> tuple[dict[str, str], dict[str, tuple[str, float, float]], list[tuple[str, str]]]:
        """Join the components of ``edges`` (``(a, b, resemble, contain)``, atomically);
        returns the roots of ``ask``, the best joined page of each of ``ask`` that has one
        (``(other, resemble, contain)``), and the roots merged away whose members are not
        rewritten yet, this call's and any earlier's, as ``(loser, its root now)``. ``seq``
        holds the seq of every id named (used for ids the forest does not know yet)."""
        raw = self._union(
            keys=[self.k_parent, self.k_pseq, self.k_best, self.k_merged],
            args=[dumps_str({"seq": dict(seq), "edges": [list(e) for e in edges],
                         "ask": list(ask) or ["\x00"]})],
        )
        data = json.loads(raw)
        wanted = set(ask)

        def as_dict(value: Any) -> dict[str, Any]:
            return value if isinstance(value, dict) else {}  # cjson: {} for an empty list

        roots = {str(k): str(v) for k, v in as_dict(data["roots"]).items() if k in wanted}
        best = {str(k): (str(v[0]), float(v[1]), float(v[2]))
                for k, v in as_dict(data.get("best")).items() if k in wanted}
        merged = [(str(a), str(b)) for a, b in data["merged"]] \
            if isinstance(data["merged"], list) else []
        return roots, best, merged

    @transient
    def roots(self, ids: Sequence[str]) -> dict[str, str]:
        """The current root of each id (itself when the forest does not know it)."""
        if not ids:
            return {}
        out = self._roots(keys=[self.k_parent], args=list(ids))
        return {i: (text(r))
                for i, r in zip(ids, out, strict=True)}

    @transient
    def seqs(self, ids: Sequence[str]) -> dict[str, int]:
        """The ``seq`` the forest holds of each of ``ids`` that ever took part in a union."""
        return hash_fields(self.redis, self.k_pseq, ids, int)

    # -- the groups pages were indexed with --------------------------------------------------

    @transient
    def note_members(self, groups: Mapping[str, str]) -> None:
        """Remember, before writing them, the groups pages are about to be indexed with
        (``{page id: group id}``): the group ids (``roots-written``) and, for a page that is
        not its own group, the page in ``members:<group>``. When a group is merged away, these
        are the pages to rewrite (:meth:`members_written`)."""
        if not groups:
            return
        by_group: dict[str, list[str]] = {}
        for page, group in groups.items():
            if page != group:
                by_group.setdefault(group, []).append(page)
        pipe = self.redis.pipeline(transaction=False)
        pipe.sadd(self.k_roots_written, *sorted(set(groups.values())))
        for group, pages in by_group.items():
            pipe.sadd(self._members_prefix + group, *pages)
        pipe.execute()

    @transient
    def members_written(self, groups: Sequence[str]) -> list[str]:
        """The pages noted as indexed with any of ``groups`` (each group's own page
        included), sorted."""
        if not groups:
            return []
        pipe = self.redis.pipeline(transaction=False)
        for group in groups:
            pipe.smembers(self._members_prefix + group)
        found = set(groups)
        for members in pipe.execute():
            found.update(text(m) for m in members)
        return sorted(found)

    @transient
    def forget_members(self, groups: Sequence[str]) -> None:
        """Drop the member lists of groups merged away (their members were rewritten; a page
        noted later is its writer's to settle)."""
        if groups:
            self.redis.delete(*[self._members_prefix + g for g in groups])

    @transient
    def merged_done(self, losers: Sequence[str]) -> None:
        """``losers`` (roots merged away) have their members rewritten: no union hands them on."""
        if losers:
            self.redis.srem(self.k_merged, *losers)

    @transient
    def written_roots(self, ids: Sequence[str]) -> list[str]:
        """Which of ``ids`` pages were indexed with as their group id."""
        if not ids:
            return []
        flags = self.redis.smismember(self.k_roots_written, list(ids))
        return [i for i, f in zip(ids, flags, strict=True) if f]

    @transient
    def forget(self, ids: Sequence[str], groups: Sequence[str]) -> None:
        """Take pages out of the forest, each its own group again, and forget the member lists
        of ``groups`` (a repair decides whole groups again: no page outside ``ids`` points into
        them)."""
        pipe = self.redis.pipeline(transaction=True)
        if ids:
            pipe.hdel(self.k_parent, *ids)
            pipe.hdel(self.k_pseq, *ids)
            pipe.hdel(self.k_best, *ids)
        if groups:
            pipe.srem(self.k_roots_written, *groups)
            pipe.delete(*[self._members_prefix + g for g in groups])
        pipe.execute()

    @transient
    def clear(self) -> None:
        """Forget this index's forest (a dropped index)."""
        keys = [self.k_parent, self.k_pseq, self.k_roots_written, self.k_best, self.k_merged]
        keys += [k for k in self.redis.scan_iter(self._members_prefix + "*", count=1000)]
        self.redis.delete(*keys)
