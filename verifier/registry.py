"""The pages accepted but not yet searchable, and the group forest: Redis, beside the broker.

A page is indexed once, already carrying its ``dup_group`` (docs/workers.md, "Deciding before
indexing"). Between acceptance and that write it lives here, in Redis (the broker's server,
persisted with its append-only file):

* ``seq`` — the sequencer: every accepted batch takes a block of numbers (``INCRBY``). A
  group's id is its earliest member by ``(seq, id)``.
* ``batch:<key>`` — an accepted batch's pages, as prepared by ingest (text, fingerprints,
  metadata), JSON, and ``batch:<key>:ids`` its page ids (JSON); ``live`` — a sorted set of the
  batch keys not yet searchable (score: the batch's first seq); ``pending`` — page id → batch
  key, for pages asked about before they are decided. Accepting a batch writes them all in
  one script, so a batch is visible to every worker from the moment it is accepted until the
  index shows it.
* ``written`` — batch keys whose pages are indexed, with the time; a batch leaves ``live`` (and
  its payload is deleted) only once a refresh that started after that time has finished, so a
  worker that no longer finds it here finds it in the index.
* ``parent`` / ``pseq`` — the group forest (union-find): parent pointers and the ``seq`` of the
  pages that ever took part in a union; a page absent from it is its own root. Unions run as
  one Lua script, atomically, so concurrent workers never race on a merge. The root of a
  component is its earliest ``(seq, id)``. ``best`` — each joined page's closest match so far
  (its ``dup_of``); ``roots-written`` — the group ids pages were indexed with (a merge rewrites
  only their members); ``members:<group>`` — the pages indexed with ``group`` that are not
  its own page, noted before each write, so a merge finds them without searching the index.

Keys are prefixed ``neardup:<index>:``, so indices never mix.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import wraps
from typing import Any, TypeVar

import redis
from neardup.ingest.records import dumps, dumps_fast, loads_fast
from neardup.ingest.store.base import StoredDocument, now_iso

__all__ = ["Batch", "Registry", "batch_payload", "page_payload", "stored_page"]

# KEYS: seq, batch:<key>, live, pending, batch:<key>:ids. ARGV: payload, n, key, id1 ... idn.
_ACCEPT = """
local base = redis.call('INCRBY', KEYS[1], tonumber(ARGV[2]))
local first = base - tonumber(ARGV[2]) + 1
redis.call('SET', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[3], first, ARGV[3])
local ids = {}
for i = 4, #ARGV do
  redis.call('HSET', KEYS[4], ARGV[i], ARGV[3])
  ids[#ids + 1] = ARGV[i]
end
redis.call('SET', KEYS[5], cjson.encode(ids))
return first
"""

# KEYS: pending, batch:<key>, batch:<key>:ids. ARGV: key. Forget the page ids still pointing at
# batch ``key`` in ``pending``, and delete the batch (its ids are read from the ids key, or from
# the payload for a batch accepted without one).
_FORGET = """
local ids = redis.call('GET', KEYS[3])
if ids then
  ids = cjson.decode(ids)
else
  ids = {}
  local blob = redis.call('GET', KEYS[2])
  if blob then
    for _, page in ipairs(cjson.decode(blob)['pages']) do ids[#ids + 1] = tostring(page['id']) end
  end
end
for _, id in ipairs(ids) do
  if redis.call('HGET', KEYS[1], id) == ARGV[1] then redis.call('HDEL', KEYS[1], id) end
end
redis.call('DEL', KEYS[2], KEYS[3])
return 1
"""

# KEYS: parent, pseq, best. ARGV[1]: JSON {"seq": {id: seq}, "edges": [[a, b, resemble,
# contain], ...], "ask": [ids]}. Returns JSON {"roots": {id: root} for ask, "best": {id:
# [other, resemble, contain]} for ask, "merged": [[loser, root], ...]}. ``best`` keeps, for
# every page, the joined page it resembles most so far (either side of the pair may have been
# the one verifying).
_UNION = """
local P, S, B = KEYS[1], KEYS[2], KEYS[3]
local a = cjson.decode(ARGV[1])
local given = a.seq
local function seqof(x)
  local s = redis.call('HGET', S, x)
  if s then return tonumber(s) end
  return tonumber(given[x])
end
local function find(x)
  local r = x
  local p = redis.call('HGET', P, r)
  while p and p ~= r do r = p; p = redis.call('HGET', P, r) end
  local y = x
  while y ~= r do
    local nx = redis.call('HGET', P, y)
    redis.call('HSET', P, y, r)
    y = nx
  end
  return r
end
local function before(x, y)
  local sx, sy = seqof(x), seqof(y)
  if sx ~= sy then return sx < sy end
  return x < y
end
local function keep(x, y, res, con)
  local old = redis.call('HGET', B, x)
  if old then
    local o = cjson.decode(old)
    if o[2] >= res then return end
  end
  redis.call('HSET', B, x, cjson.encode({y, res, con}))
end
local losers = {}
for _, e in ipairs(a.edges) do
  keep(e[1], e[2], e[3], e[4])
  keep(e[2], e[1], e[3], e[4])
  local ra, rb = find(e[1]), find(e[2])
  if ra ~= rb then
    for _, r in ipairs({ra, rb}) do
      if redis.call('HSETNX', P, r, r) == 1 then redis.call('HSET', S, r, given[r]) end
    end
    local win, lose = ra, rb
    if before(rb, ra) then win, lose = rb, ra end
    redis.call('HSET', P, lose, win)
    table.insert(losers, lose)
  end
end
local roots = {}
local best = {}
for _, x in ipairs(a.ask) do
  roots[x] = find(x)
  local b = redis.call('HGET', B, x)
  if b then best[x] = cjson.decode(b) end
end
local merged = {}
for _, l in ipairs(losers) do table.insert(merged, {l, find(l)}) end
return cjson.encode({roots = roots, best = best, merged = merged})
"""

_ROOTS = """
local P = KEYS[1]
local out = {}
for i, x in ipairs(ARGV) do
  local r = x
  local p = redis.call('HGET', P, r)
  while p and p ~= r do r = p; p = redis.call('HGET', P, r) end
  out[i] = r
end
return out
"""


F = TypeVar("F", bound=Callable[..., Any])

# A broker restarting or unreachable: the callers' transient errors (neardup.ingest.retry.TRANSIENT).
_REDIS_DOWN = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError,
               redis.exceptions.BusyLoadingError)


def _transient(func: F) -> F:
    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except _REDIS_DOWN as exc:
            raise ConnectionError(f"broker unreachable: {exc}") from exc

    return wrapper  # type: ignore[return-value]


def _text(value: Any) -> str:
    """A Redis reply (bytes) as text."""
    return value.decode() if isinstance(value, bytes) else str(value)


@dataclass(frozen=True, slots=True)
class Batch:
    """An accepted batch: its key, first seq and pages (``id``, ``body``, ``content``,
    ``fingerprints``, ``fp_config``, ``url``, ``site``, ``title``, ``ingested_at``)."""

    key: str
    first_seq: int
    pages: list[dict[str, Any]]
    accepted_at: float
    mode: str = "index"  # "index": write whole pages; "update": tag pages in place (backfill)

    def seq_of(self, i: int) -> int:
        return self.first_seq + i


def page_payload(doc: Any, ingested_at: str | None = None) -> dict[str, Any]:
    """A prepared page (:class:`~neardup.ingest.store.base.StoredDocument`) as a batch carries it."""
    return {"id": doc.id, "body": doc.body, "content": doc.content,
            "fingerprints": list(doc.fingerprints), "fp_config": doc.fp_config, "url": doc.url,
            "site": doc.site, "title": doc.title,
            "ingested_at": doc.ingested_at or ingested_at or now_iso()}


def stored_page(page: Mapping[str, Any], seq: int = 0) -> StoredDocument:
    """A page as a batch carries it (:func:`page_payload`), back as a
    :class:`~neardup.ingest.store.base.StoredDocument`: not decided yet (``status: pending``)."""
    return StoredDocument(
        id=str(page["id"]), body=str(page.get("body") or ""),
        fingerprints=list(page.get("fingerprints") or ()), fp_config=str(page.get("fp_config")),
        seq=seq, url=page.get("url"), site=page.get("site"), title=page.get("title"),
        content=page.get("content"), ingested_at=page.get("ingested_at"),
    )


def batch_payload(pages: Sequence[Mapping[str, Any]], mode: str = "index") -> bytes:
    """The stored form of a batch: JSON (uncompressed: a worker reads every batch once, and
    decompressing cost more than the bytes)."""
    return dumps_fast({"pages": list(pages), "accepted_at": time.time(), "mode": mode})


class Registry:
    """The Redis side of one index (see the module doc)."""

    def __init__(self, client: Any, index: str) -> None:
        self.redis = client
        self.index = index
        p = f"neardup:{index}:"
        self.k_seq, self.k_live, self.k_written = p + "seq", p + "live", p + "written"
        self.k_parent, self.k_pseq = p + "parent", p + "pseq"
        self.k_roots_written = p + "roots-written"
        self.k_pending = p + "pending"
        self.k_best = p + "best"
        self.k_refreshed, self.k_refresh_lock = p + "refreshed", p + "refresh-lock"
        self._batch_prefix = p + "batch:"
        self._members_prefix = p + "members:"
        self._accept = client.register_script(_ACCEPT)
        self._forget = client.register_script(_FORGET)
        self._union = client.register_script(_UNION)
        self._roots = client.register_script(_ROOTS)

    @classmethod
    def from_url(cls, url: str, index: str) -> Registry:
        return cls(redis.Redis.from_url(url, socket_timeout=30, socket_connect_timeout=10,
                                        health_check_interval=30), index)

    def batch_key(self, key: str) -> str:
        return self._batch_prefix + key

    # -- accepting ------------------------------------------------------------------------------

    @_transient
    def accept(self, pages: Sequence[Mapping[str, Any]], mode: str = "index") -> tuple[str, int]:
        """Store a batch and make it visible to the workers; returns ``(key, first seq)``."""
        key = uuid.uuid4().hex
        first = self._accept(
            keys=[self.k_seq, self.batch_key(key), self.k_live, self.k_pending,
                  self.batch_key(key) + ":ids"],
            args=[batch_payload(pages, mode), len(pages), key, *(str(p["id"]) for p in pages)],
        )
        return key, int(first)

    @_transient
    def load(self, keys: Sequence[str]) -> dict[str, Batch]:
        """The batches of ``keys`` that are still stored (one ``MGET``)."""
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
            data = loads_fast(blob)
            out[key] = Batch(key, int(first), data["pages"], float(data["accepted_at"]),
                             str(data.get("mode", "index")))
        return out

    @_transient
    def live(self) -> list[str]:
        """The keys of the batches not yet searchable, oldest first."""
        return [_text(k)
                for k in self.redis.zrange(self.k_live, 0, -1)]

    @_transient
    def pending(self, ids: Sequence[str]) -> set[str]:
        """Which of ``ids`` are accepted and not yet searchable."""
        if not ids:
            return set()
        found = self.redis.hmget(self.k_pending, list(ids))
        return {i for i, k in zip(ids, found, strict=True) if k is not None}

    @_transient
    def pending_pages(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The pages of ``ids`` that are accepted and not yet searchable, as accepted."""
        if not ids:
            return {}
        keys = self.redis.hmget(self.k_pending, list(ids))
        by_key: dict[str, set[str]] = {}
        for doc_id, key in zip(ids, keys, strict=True):
            if key is not None:
                by_key.setdefault(_text(key),
                                  set()).add(doc_id)
        found: dict[str, dict[str, Any]] = {}
        for key, batch in self.load(sorted(by_key)).items():
            for page in batch.pages:
                if str(page["id"]) in by_key[key]:
                    found[str(page["id"])] = page
        return found

    @_transient
    def undecided(self, offset: int, size: int) -> tuple[int, list[dict[str, Any]]]:
        """Pages accepted and not yet searchable, by id: ``(how many, a page of them)``."""
        ids = sorted(_text(k)
                     for k in self.redis.hkeys(self.k_pending))
        wanted = ids[offset:offset + size]
        found = self.pending_pages(wanted)
        return len(ids), [found[i] for i in wanted if i in found]

    @_transient
    def pending_count(self) -> int:
        """How many pages are accepted and not yet searchable."""
        return int(self.redis.hlen(self.k_pending))

    @_transient
    def live_count(self) -> int:
        """How many batches are not yet searchable."""
        return int(self.redis.zcard(self.k_live))

    @_transient
    def undecided_count(self) -> int:
        """How many live batches are not yet written (queued or being decided)."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.zcard(self.k_live)
        pipe.zcard(self.k_written)
        live, written = pipe.execute()
        return max(0, int(live) - int(written))

    def wait_for_room(self, max_live: int, budget: float) -> bool:
        """Block while ``max_live`` batches or more wait to be searchable, at most ``budget``
        seconds (backpressure: the workers' view of the live pages, Redis' memory and the time
        to searchable stay bounded); False when there is still no room."""
        deadline = time.monotonic() + budget
        delay = 0.01
        while self.live_count() >= max_live:
            if time.monotonic() > deadline:
                return False
            time.sleep(delay)
            delay = min(delay * 1.5, 0.2)
        return True

    @_transient
    def live_of(self, keys: Iterable[str]) -> set[str]:
        """Which of ``keys`` are still live."""
        keys = list(keys)
        if not keys:
            return set()
        scores = self.redis.zmscore(self.k_live, keys)
        return {k for k, s in zip(keys, scores, strict=True) if s is not None}

    @_transient
    def written_of(self, keys: Iterable[str]) -> set[str]:
        keys = list(keys)
        if not keys:
            return set()
        scores = self.redis.zmscore(self.k_written, keys)
        return {k for k, s in zip(keys, scores, strict=True) if s is not None}

    # -- the group forest --------------------------------------------------------------------

    @_transient
    def union(
        self, seq: Mapping[str, int], edges: Sequence[tuple[str, str, float, float]],
        ask: Sequence[str],
    ) -> tuple[dict[str, str], dict[str, tuple[str, float, float]], list[tuple[str, str]]]:
        """Join the components of ``edges`` (``(a, b, resemble, contain)``, atomically);
        returns the roots of ``ask``, the best joined page of each of ``ask`` that has one
        (``(other, resemble, contain)``), and the roots merged away as ``(loser, its root
        now)``. ``seq`` holds the seq of every id named (used for ids the forest does not know
        yet)."""
        raw = self._union(
            keys=[self.k_parent, self.k_pseq, self.k_best],
            args=[dumps({"seq": dict(seq), "edges": [list(e) for e in edges],
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

    @_transient
    def roots(self, ids: Sequence[str]) -> dict[str, str]:
        """The current root of each id (itself when the forest does not know it)."""
        if not ids:
            return {}
        out = self._roots(keys=[self.k_parent], args=list(ids))
        return {i: (_text(r))
                for i, r in zip(ids, out, strict=True)}

    # -- from written to searchable -------------------------------------------------------------

    @_transient
    def mark_written(self, key: str) -> float:
        """Record that the batch's pages are indexed; returns the time recorded."""
        now = time.time()
        self.redis.zadd(self.k_written, {key: now})
        return now

    @_transient
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

    @_transient
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
            found.update(_text(m) for m in members)
        return sorted(found)

    @_transient
    def forget_members(self, groups: Sequence[str]) -> None:
        """Drop the member lists of groups merged away (their members were rewritten; a page
        noted later is its writer's to settle)."""
        if groups:
            self.redis.delete(*[self._members_prefix + g for g in groups])

    @_transient
    def written_roots(self, ids: Sequence[str]) -> list[str]:
        """Which of ``ids`` pages were indexed with as their group id."""
        if not ids:
            return []
        flags = self.redis.smismember(self.k_roots_written, list(ids))
        return [i for i, f in zip(ids, flags, strict=True) if f]

    @_transient
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

    @_transient
    def last_refresh(self) -> float:
        """When the last finished refresh started (epoch seconds; 0 before the first)."""
        return float(self.redis.get(self.k_refreshed) or 0.0)

    def _set_max(self, key: str, value: float) -> None:
        self.redis.eval(
            "local v = tonumber(redis.call('GET', KEYS[1]) or '0') "
            "if tonumber(ARGV[1]) > v then redis.call('SET', KEYS[1], ARGV[1]) end return 1",
            1, key, repr(value),
        )

    @_transient
    def prune(self) -> int:
        last = float(self.redis.get(self.k_refreshed) or 0.0)
        done = self.redis.zrangebyscore(self.k_written, "-inf", f"({last!r}")
        if not done:
            return 0
        keys = [_text(k) for k in done]
        self._drop(keys)
        return len(keys)

    @_transient
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

    @_transient
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

    @_transient
    def clear(self) -> None:
        """Forget everything of this index (a dropped index)."""
        keys = [self.k_seq, self.k_live, self.k_written, self.k_parent, self.k_pseq,
                self.k_roots_written, self.k_pending, self.k_best,
                self.k_refreshed, self.k_refresh_lock]
        for prefix in (self._batch_prefix, self._members_prefix):
            keys += [k for k in self.redis.scan_iter(prefix + "*", count=1000)]
        self.redis.delete(*keys)
