"""Site-chrome counts shared by every ingest process of an index, in Redis.

``neardup dedup`` counts the lines of its whole input before it masks a page
(:mod:`neardup.ingest.chrome`). A pipeline has no whole input: ``neardup ingest`` runs, the
HTTP service and ``backfill`` feed one index, one after the other or at once. They keep the
counts where the batches and the groups are: in the broker's Redis, under the index's prefix
and the chrome rule's identity (pages masked by two rules never share counts).

* **Line counts**: a plain count-min sketch (:class:`RedisSketch`, the cells and hashes of
  :class:`~neardup.ingest.sketch.SketchCounter` with ``conservative=False``) in one Redis
  string, read and raised with ``BITFIELD`` (32-bit cells that saturate). Additions are sums,
  so the counts do not depend on the order in which processes add pages; 4 rows of 2^22 cells
  take 64 MB of Redis whatever the number of pages.
* **Pages per site**: a hash, one field per site.
* **Pages counted**: a set of page ids, so a page ingested twice (a re-run, a retry) is
  counted once.

:class:`SharedChromeCounts` is a :class:`~neardup.ingest.chrome.ChromeCounts` over them: the
preparing code masks with it exactly as with the in-memory counts (``prepare_document(...,
chrome=counts)``). Counting a list of pages is one atomic script call (``chrome_observe.lua``:
a page joins the set of counted ids only with its counts, so a retried call counts nothing
twice); reading a page's counts is one script call (``chrome_read.lua``, ``BITFIELD_RO``), and
:meth:`SharedChromeCounts.prefetch` reads those of a chunk of pages at once (``neardup ingest``
of a file: 256 pages). Both wait out a broker outage for ``budget`` seconds
(:func:`neardup.ingest.retry.retry_call`). What a page counts with, and how an input or a
file is counted into them, is the counting pass's (:mod:`neardup.ingest.chrome_pass`).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Collection, Iterable, Iterator, Sequence
from typing import Any

from neardup.ingest import sketch
from neardup.ingest.chrome import ChromeCounts, ChromeRule, page_hashes, site_key
from neardup.ingest.chrome_pass import Item, Row, chrome_text, count_file, observe_input
from neardup.ingest.crawl import IdFrom
from neardup.ingest.records import DEFAULT_LIMITS, Limits, Page
from neardup.ingest.retry import TRANSIENT, retry_call
from neardup.ingest.workers._redis import connect, hash_fields, key_prefix, script, text, transient

__all__ = [
    "RedisSketch", "SharedChromeCounts", "chrome_keys", "chrome_page_keys", "chrome_sweep_keys",
    "counted_rules", "observe_file",
]


def chrome_keys(index: str, rule: ChromeRule) -> tuple[str, str, str]:
    """The Redis keys of ``index``'s counts under ``rule``: cells, pages per site, page ids."""
    base = f"{key_prefix(index)}chrome:{rule.identity}:"
    return base + "cells", base + "pages", base + "seen"


def chrome_page_keys(index: str, rule: ChromeRule) -> tuple[str, str, str]:
    """The Redis keys of ``index``'s counted pages under ``rule``: each page's site (a hash),
    the sites whose counts changed since their pages were last masked (a set), and the prefix
    of each site's set of counted pages."""
    base = f"{key_prefix(index)}chrome:{rule.identity}:"
    return base + "site-of", base + "dirty", base + "site:"


def chrome_sweep_keys(index: str, rule: ChromeRule) -> tuple[str, str, str]:
    """The Redis hashes that tell a repair whether a marked site's pages need masking again:
    each site's count version (+1 each page counted or taken out), the version its pages were
    last all masked at by a repair (its base), and the lowest version a page of it was masked
    at since (its low mark)."""
    base = f"{key_prefix(index)}chrome:{rule.identity}:"
    return base + "version", base + "base", base + "low"


def chrome_rules_key(index: str) -> str:
    """The Redis set of the rules (identities) ``index``'s pages were counted under."""
    return f"{key_prefix(index)}chrome-rules"


class RedisSketch:
    """A plain count-min sketch of 64-bit keys in one Redis string (``depth`` rows of
    ``width`` saturating 32-bit cells): the cells of
    ``SketchCounter(width, depth, conservative=False)`` (:mod:`neardup.ingest.sketch`)."""

    def __init__(self, client: Any, key: str, width: int = 1 << 22, depth: int = 4) -> None:
        self._mults = sketch.multipliers(width, depth)
        self._redis, self.key, self.width, self.depth = client, key, width, depth
        self.budget = 600.0  # seconds a read waits out a broker outage
        self._cache: dict[int, int] = {}  # counts read ahead (prefetch)
        self._read_script = script(client, "chrome_read.lua")

    def offsets(self, key: int) -> list[int]:
        """The cells of ``key`` (in 32-bit cells from the start of the string), one a row."""
        w = self.width
        return [row * w + c for row, c in enumerate(sketch.cells(key, self._mults, w))]

    def cells_text(self, keys: Iterable[int]) -> str:
        """The cells (:meth:`offsets`) of each of ``keys`` (0 skipped), as one string of decimal
        numbers separated by spaces: one argument of a script
        (:func:`neardup.ingest.sketch.cells_text`)."""
        found: str = sketch.cells_text(keys, self._mults, self.width)
        return found

    def cells(self, key: int) -> list[str]:
        """The ``BITFIELD`` offsets (``#n``) of ``key``, one a row."""
        return [f"#{c}" for c in self.offsets(key)]

    def add_ops(self, keys: Iterable[int], pipe: Any) -> None:
        """Queue on ``pipe`` one ``BITFIELD`` that adds 1 to each key."""
        args: list[Any] = ["OVERFLOW", "SAT"]
        for key in keys:
            for cell in self.cells(key):
                args += ["INCRBY", "u32", cell, 1]
        if len(args) > 2:
            pipe.execute_command("BITFIELD", self.key, *args)

    @transient
    def add(self, key: int) -> None:
        pipe = self._redis.pipeline(transaction=False)
        self.add_ops([key], pipe)
        pipe.execute()

    def get_many(self, keys: Sequence[int]) -> list[int]:
        """The count of each key (0 for key 0, a blank line), one round trip (retried through a
        broker outage)."""
        cache = self._cache
        if cache and all(k in cache for k in keys if k):  # read ahead: no round trip
            return [cache[k] if k else 0 for k in keys]
        return retry_call(transient(lambda: self._get_many(keys)), budget=self.budget,
                          on=TRANSIENT)

    def _get_many(self, keys: Sequence[int]) -> list[int]:
        cache = self._cache
        missing = [k for k in keys if k and k not in cache]
        if not missing:
            return [cache[k] if k else 0 for k in keys]
        found = dict(zip(missing, self._read(missing), strict=True))
        return [(cache[k] if k in cache else found[k]) if k else 0 for k in keys]

    def _read(self, keys: Sequence[int]) -> list[int]:
        """The counts of ``keys`` (none 0), one script call (``chrome_read.lua``: the cells go
        as one argument and the counts come back as one, not one a cell)."""
        cells = self.cells_text(keys)
        return [int(n) for n in text(self._read_script(keys=[self.key],
                                                        args=[self.depth, cells])).split()]

    def prefetch(self, keys: Iterable[int]) -> None:
        """Read the counts of ``keys`` in one round trip (retried through a broker outage) and
        answer them from memory until the next :meth:`prefetch` or :meth:`forget`: the counts
        of a chunk of pages, read before they are masked one by one."""
        wanted = sorted({k for k in keys if k})
        read = retry_call(transient(lambda: self._read(wanted) if wanted else []),
                          budget=self.budget, on=TRANSIENT)
        self._cache = dict(zip(wanted, read, strict=True))

    def forget(self) -> None:
        """Drop the counts :meth:`prefetch` read: read them from Redis again."""
        self._cache = {}

    def get(self, key: int) -> int:
        return self.get_many([key])[0]


class SharedChromeCounts(ChromeCounts):
    """:class:`~neardup.ingest.chrome.ChromeCounts` kept in Redis for ``index``, shared by
    every process that opens it with the same rule.

    ``warmup`` is the online rule (docs/chrome.md): a site with fewer than ``T`` pages counted
    judges its lines by the warm-up share; without it such a site has no chrome yet.
    """

    def __init__(self, client: Any, index: str, rule: ChromeRule | None = None,
                 warmup: bool = False, width: int = 1 << 22, depth: int = 4,
                 budget: float = 600.0) -> None:
        rule = rule or ChromeRule()
        cells, self._pages_key, self._seen_key = chrome_keys(index, rule)
        self._site_of_key, self._dirty_key, self._site_prefix = chrome_page_keys(index, rule)
        self._rules_key = chrome_rules_key(index)
        self._ver_key, self._base_key, self._low_key = chrome_sweep_keys(index, rule)
        self._noted: set[str] = set()  # sites whose masking this object has noted
        self.sketch = RedisSketch(client, cells, width, depth)
        super().__init__(rule, self.sketch, warmup=warmup)
        self._redis = client
        self._observe = script(client, "chrome_observe.lua", "chrome_cells.lua")
        self._forget_script = script(client, "chrome_forget.lua", "chrome_cells.lua")
        self._noted_script = script(client, "chrome_noted.lua")
        self._swept_script = script(client, "chrome_swept.lua")
        self.budget = self.sketch.budget = budget
        self._site_pages: dict[str, int] = {}  # pages per site read ahead (prefetch)
        # line hashes and key lengths of the pages read ahead, by site and text
        self._hashed: dict[tuple[str, str], tuple[list[int], list[int]]] = {}

    def observe_pages(self, pages: Sequence[Row]) -> int:
        """Count each ``(id, site, url, text)`` not counted before (by id; a page without an id
        is not counted); return how many were new. One atomic script call
        (``chrome_observe.lua``) a list, retried through a broker outage
        (:func:`neardup.ingest.retry.retry_call`): a retry counts nothing twice."""
        pages = [p for p in pages if p[0]]
        if not pages:
            return 0
        args: list[Any] = [len(pages), self.rule.identity]
        for doc_id, site, url, body in pages:
            s = site_key(site, url)
            args += [doc_id, s, self._cells(s, body)]
        keys = self._page_keys() + [self._rules_key, self._ver_key]
        return int(retry_call(transient(lambda: self._observe(keys=keys, args=args)),
                              budget=self.budget, on=TRANSIENT))

    def _cells(self, site: str, body: str) -> str:
        hashes = set(page_hashes(site, body, self.rule.fold_digits)[0])
        hashes.discard(0)
        return self.sketch.cells_text(hashes)

    def _page_keys(self) -> list[str]:
        return [self.sketch.key, self._pages_key, self._seen_key, self._site_of_key,
                self._dirty_key, self._site_prefix]

    def forget_pages(self, pages: Sequence[tuple[str, str]]) -> int:
        """Take each ``(id, text it was counted with)`` back out of the counts (a page
        deleted, or replaced by a new version): the counts become those of the pages present,
        and the page's site is marked for masking again. A page not counted is skipped.
        Returns how many were taken out."""
        sites = self.site_of([doc_id for doc_id, _ in pages])
        args: list[Any] = [0]
        for doc_id, body in pages:
            site = sites.get(doc_id)
            if site is not None:
                args += [doc_id, self._cells(site, body)]
                args[0] += 1
        if not args[0]:
            return 0
        keys = self._page_keys() + [self._ver_key]
        return int(retry_call(transient(lambda: self._forget_script(keys=keys, args=args)),
                              budget=self.budget, on=TRANSIENT))

    @transient
    def site_of(self, ids: Sequence[str]) -> dict[str, str]:
        """The chrome site each of ``ids`` was counted under (the pages counted only)."""
        return hash_fields(self._redis, self._site_of_key, ids, text)

    @transient
    def site_pages(self, site: str) -> list[str]:
        """The ids of the pages of ``site`` counted, sorted."""
        return sorted(text(i) for i in self._redis.smembers(self._site_prefix + site))

    def note_masking(self, sites: Collection[str]) -> None:
        """Note, before their counts are read, that pages of ``sites`` are masked with the
        counts as they are now (once a site for this object: a later mask uses counts at
        least as recent), so that a repair can tell a site whose pages all saw its final
        counts (:meth:`sweep_state`)."""
        new = sorted(set(sites) - self._noted)
        if not new:
            return
        keys = [self._ver_key, self._low_key]
        retry_call(transient(lambda: self._noted_script(keys=keys, args=new)),
                   budget=self.budget, on=TRANSIENT)
        self._noted.update(new)

    def mask(self, site: str, text: str,
             hashes: tuple[Sequence[int], Sequence[int]] | None = None) -> str:
        if site not in self._noted:
            self.note_masking([site])
        return super().mask(site, text, hashes)

    @transient
    def sweep_state(self, site: str) -> tuple[int, int | None, str | None]:
        """``(version, base, low mark)`` of ``site`` (None: not set). Its pages need no
        masking again when the low mark is set and at least the version, and the base is the
        version or unset: every page masked since the last sweep saw the counts as they are,
        and the pages before it were masked with them by that sweep."""
        pipe = self._redis.pipeline(transaction=True)
        pipe.hget(self._ver_key, site)
        pipe.hget(self._base_key, site)
        pipe.hget(self._low_key, site)
        ver, base, low = pipe.execute()
        return (int(ver or 0), int(base) if base is not None else None,
                text(low) if low is not None else None)

    def swept(self, site: str, version: int, low: str | None) -> None:
        """The pages of ``site`` are masked with the counts of ``version``: unmark it unless
        its counts moved since (see ``chrome_swept.lua``; ``low``: the low mark
        :meth:`sweep_state` read)."""
        keys = [self._base_key, self._low_key, self._dirty_key, self._ver_key]
        retry_call(transient(lambda: self._swept_script(keys=keys,
                                                        args=[site, version, low or ""])),
                   budget=self.budget, on=TRANSIENT)

    @transient
    def dirty(self) -> list[str]:
        """The sites whose counts changed since their pages were last masked (a repair
        unmarks them once their pages are written: :meth:`swept`)."""
        return sorted(text(s) for s in self._redis.smembers(self._dirty_key))

    @transient
    def mark_dirty(self, sites: Collection[str]) -> None:
        if sites:
            self._redis.sadd(self._dirty_key, *sites)

    @transient
    def dirty_count(self) -> int:
        return int(self._redis.scard(self._dirty_key))

    def _observe_hashes(self, site: str, hashes: Collection[int]) -> None:
        pipe = self._redis.pipeline(transaction=False)
        self.sketch.add_ops(hashes, pipe)
        pipe.hincrby(self._pages_key, site, 1)
        transient(pipe.execute)()

    def pages(self, site: str) -> int:
        if site in self._site_pages:
            return self._site_pages[site]
        n = retry_call(transient(lambda: self._redis.hget(self._pages_key, site)),
                       budget=self.budget, on=TRANSIENT)
        return int(n) if n is not None else 0

    def prefetch(self, pages: Iterable[Page], limits: Limits = DEFAULT_LIMITS) -> None:
        """Read the counts that masking ``pages`` needs — their lines' (:func:`chrome_text`) and
        their sites' page counts — in two round trips, and answer them from memory until the
        next :meth:`prefetch` or :meth:`forget` (masking a chunk of pages one by one would ask
        Redis three times a page). The counts are those of the moment of the call: for a file
        whose pages were all counted first (the two-pass rule), the same as reading them
        page by page."""
        fold = self.rule.fold_digits
        hashes: set[int] = set()
        sites: set[str] = set()
        hashed = self._hashed = {}
        for page in pages:
            body = chrome_text(page, limits)
            if body is None:
                continue
            s = site_key(page.site, page.url)
            sites.add(s)
            hashed[s, body] = page_hashes(s, body, fold)
            hashes.update(hashed[s, body][0])
        hashes.discard(0)
        names = sorted(sites)
        self.note_masking(names)  # before the counts are read
        counts = retry_call(transient(lambda: self._redis.hmget(self._pages_key, names))
                            if names else list, budget=self.budget, on=TRANSIENT)
        self._site_pages = {s: int(n) if n is not None else 0
                            for s, n in zip(names, counts, strict=True)}
        self.sketch.prefetch(hashes)

    def prefetch_texts(self, site: str, texts: Iterable[str]) -> None:
        """:meth:`prefetch` for pages given as their counted texts, all of ``site`` (a repair
        masking a site's indexed pages again)."""
        fold = self.rule.fold_digits
        self.forget()
        hashed = {(site, t): page_hashes(site, t, fold) for t in texts}
        hashes = {h for found, _ in hashed.values() for h in found}
        hashes.discard(0)
        pages = self.pages(site)
        self.sketch.prefetch(hashes)
        self._hashed, self._site_pages = hashed, {site: pages}
        self._noted.add(site)  # a repair's masking: it sets the site's base (swept)

    def forget(self) -> None:
        """Drop what :meth:`prefetch` read."""
        self._site_pages, self._hashed = {}, {}
        self.sketch.forget()

    def _page_hashes(self, site: str, text: str) -> tuple[list[int], list[int]]:
        known = self._hashed.get((site, text))  # a page prefetched: its hashes are known
        return known if known is not None else super()._page_hashes(site, text)

    @transient
    def sites(self) -> dict[str, int]:
        return {text(k): int(v) for k, v in self._redis.hgetall(self._pages_key).items()}

    def merge(self, other: ChromeCounts) -> None:
        raise TypeError("shared counts grow by observing pages, not by merging")

    @transient
    def reset(self) -> None:
        """Forget every count of this index under this rule."""
        keys = [self.sketch.key, self._pages_key, self._seen_key, self._site_of_key,
                self._dirty_key]
        keys += list(self._redis.scan_iter(self._site_prefix + "*", count=1000))
        self._redis.delete(*keys)
        self._redis.srem(self._rules_key, self.rule.identity)


def counted_rules(client: Any, index: str) -> list[ChromeRule]:
    """The chrome rules ``index``'s pages were counted under (usually one)."""
    names = sorted(text(r) for r in transient(client.smembers)(chrome_rules_key(index)))
    out = []
    for name in names:
        try:
            out.append(ChromeRule.from_identity(name))
        except ValueError:
            continue
    return out


def _count_shared(url: str, index: str, rule: ChromeRule, limits: Limits,
                  items: Iterator[Item]) -> int:
    return observe_input(SharedChromeCounts(connect(url), index, rule), items, limits)


def observe_file(
    url: str, index: str, rule: ChromeRule, path: str | os.PathLike[str],
    limits: Limits = DEFAULT_LIMITS, id_from: IdFrom = "record", processes: int = 1,
) -> int:
    """:func:`~neardup.ingest.chrome_pass.observe_input` of an input file (JSONL or WARC, not
    stdin) into ``index``'s counts on the Redis at ``url``; with ``processes > 1`` each
    process counts every ``processes``-th record (:func:`~neardup.ingest.chrome_pass.count_file`):
    the same counts (sums, each page once), in a fraction of the time (the counting pass is
    the ingest's first, when its workers have nothing to do yet). Returns how many pages were
    new to the counts."""
    work = functools.partial(_count_shared, url, index, rule, limits)
    return sum(count_file(work, path, limits, id_from, processes))
