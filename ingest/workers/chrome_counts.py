"""Site-chrome counts shared by every ingest process of an index, in Redis.

``neardup dedup`` counts the lines of its whole input before it masks a page
(:mod:`neardup.ingest.chrome`). A pipeline has no whole input: ``neardup ingest`` runs, the
HTTP service and ``backfill`` feed one index, one after the other or at once. They keep the
counts where the batches and the groups are: in the broker's Redis, under the index's prefix
and the chrome rule's identity (pages masked by two rules never share counts).

* **Line counts**: a plain count-min sketch (:class:`RedisSketch`, the cells and hashes of
  :class:`~neardup.ingest.chrome.SketchCounter` with ``conservative=False``) in one Redis
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
(:func:`neardup.ingest.retry.retry_call`).
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from types import ModuleType
from typing import Any

from neardup.ingest.chrome import (
    ChromeCounts,
    ChromeRule,
    SketchCounter,
    page_hashes,
    site_key,
)
from neardup.ingest.crawl import IdFrom, read_input
from neardup.ingest.errors import DocumentError
from neardup.ingest.extract import document_texts
from neardup.ingest.records import (
    DEFAULT_LIMITS,
    Limits,
    Page,
    clean_text,
    decode_record,
    validate_page,
)
from neardup.ingest.retry import TRANSIENT, retry_call
from neardup.ingest.workers._redis import connect, key_prefix, script, text, transient
from neardup.verifier.implementation import select

# The compiled cells (ingest/_text.pyx ``sketch_cells``), or None where the reference runs
# (``NEARDUP_IMPL``): :meth:`RedisSketch.offsets`, joined.
_compiled: ModuleType | None = select("neardup.ingest._text", None)

__all__ = [
    "DEFAULT_MAX_AGE", "DEFAULT_MAX_WAIT", "RedisSketch", "SharedChromeCounts", "chrome_keys",
    "chrome_page_keys", "chrome_sweep_keys", "chrome_text", "counted_rules", "delayed_input",
    "observe_file",
    "observe_input",
]

_MASK64 = 0xFFFFFFFFFFFFFFFF


def chrome_text(page: Page, limits: Limits = DEFAULT_LIMITS) -> str | None:
    """The text of a page that chrome counts count (as
    :func:`neardup.ingest.pipeline.chrome_counts` does): a plain-text page's extracted text;
    None for an HTML page (not counted) or one that cannot be read (its preparing reports
    why)."""
    if page.field == "html":
        return None
    try:
        texts = document_texts(page.document(), max_bytes=limits.max_doc_bytes)
        return clean_text(texts.text, page.id)
    except Exception:  # noqa: BLE001 - any failure: the preparing step reports it
        return None


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
    ``SketchCounter(width, depth, conservative=False)``."""

    def __init__(self, client: Any, key: str, width: int = 1 << 22, depth: int = 4) -> None:
        if width < 1 or not 1 <= depth <= len(SketchCounter._MULTIPLIERS):
            raise ValueError("width >= 1 and 1 <= depth <= 6")
        self._redis, self.key, self.width, self.depth = client, key, width, depth
        self.budget = 600.0  # seconds a read waits out a broker outage
        self._mults = SketchCounter._MULTIPLIERS[:depth]
        self._cache: dict[int, int] = {}  # counts read ahead (prefetch)
        self._read_script = script(client, "chrome_read.lua")

    def offsets(self, key: int) -> list[int]:
        """The cells of ``key`` (in 32-bit cells from the start of the string), one a row."""
        w = self.width
        out = []
        for row, m in enumerate(self._mults):
            h = (key * m) & _MASK64
            out.append(row * w + (h ^ (h >> 29)) % w)
        return out

    def cells_text(self, keys: Iterable[int]) -> str:
        """The cells (:meth:`offsets`) of each of ``keys`` (0 skipped), as one string of decimal
        numbers separated by spaces: one argument of a script (compiled:
        :func:`neardup.ingest._text.sketch_cells`)."""
        if _compiled is not None:
            return str(_compiled.sketch_cells(keys, self._mults, self.width))
        offsets = self.offsets
        return " ".join(str(c) for key in keys if key for c in offsets(key))

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
        self._observe = script(client, "chrome_observe.lua")
        self._forget_script = script(client, "chrome_forget.lua")
        self._noted_script = script(client, "chrome_noted.lua")
        self._swept_script = script(client, "chrome_swept.lua")
        self.budget = self.sketch.budget = budget
        self._site_pages: dict[str, int] = {}  # pages per site read ahead (prefetch)
        # line hashes and key lengths of the pages read ahead, by site and text
        self._hashed: dict[tuple[str, str], tuple[list[int], list[int]]] = {}

    def observe_pages(self, pages: Sequence[tuple[str, str | None, str | None, str]]) -> int:
        """Count each ``(id, site, url, text)`` not counted before (by id); return how many
        were new. One atomic script call (``chrome_observe.lua``) a list, retried through a
        broker outage (:func:`neardup.ingest.retry.retry_call`): a retry counts nothing twice."""
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
        if not ids:
            return {}
        found = self._redis.hmget(self._site_of_key, list(ids))
        return {i: text(s) for i, s in zip(ids, found, strict=True) if s is not None}

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

    def mask(self, site: str, text: str) -> str:
        if site not in self._noted:
            self.note_masking([site])
        return super().mask(site, text)

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


def _countable(
    raw: bytes | str | Mapping[str, Any] | Page | DocumentError, limits: Limits
) -> tuple[str, str | None, str | None, str] | None:
    """``(id, site, url, text)`` of a plain-text page with an id, as :func:`observe_input`
    counts it; None for anything else (an HTML page, a record in error: the preparing pass
    reports those)."""
    if isinstance(raw, DocumentError):
        return None
    try:
        if isinstance(raw, Page):
            page = raw
        else:
            record = raw if isinstance(raw, Mapping) else decode_record(raw, limits)
            page = validate_page(record, limits)
    except Exception:  # noqa: BLE001 - the preparing pass reports it
        return None
    body = chrome_text(page, limits) if page.id else None
    return None if body is None or not page.id else (page.id, page.site, page.url, body)


#: :func:`delayed_input`'s ``max_age``: the most pages a stream's page waits for (and about the
#: most pages an ingest holds in memory while they wait).
DEFAULT_MAX_AGE = 10_000

#: :func:`delayed_input`'s ``max_wait``: the most seconds a stream's page waits.
DEFAULT_MAX_WAIT = 30.0


class _Failed:
    """An exception of the stream's reading thread, for the reading generator to raise."""

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


_END = object()


def _read_ahead(items: Iterable[Any], ahead: int = 1024) -> queue.Queue[Any]:
    """``items`` read by a thread into a bounded queue, then ``_END`` (or a :class:`_Failed`):
    so that pages held by :func:`delayed_input` can leave while the stream is silent."""
    q: queue.Queue[Any] = queue.Queue(maxsize=ahead)

    def read() -> None:
        try:
            for item in items:
                q.put(item)
        except BaseException as exc:  # noqa: BLE001 - raised again by the reader
            q.put(_Failed(exc))
        else:
            q.put(_END)

    threading.Thread(target=read, name="neardup-stream-reader", daemon=True).start()
    return q


def delayed_input(
    counts: SharedChromeCounts,
    items: Iterable[tuple[int, Any]],
    limits: Limits = DEFAULT_LIMITS,
    delay: int | None = None,
    max_age: int = DEFAULT_MAX_AGE,
    counted: list[int] | None = None,
    max_wait: float | None = DEFAULT_MAX_WAIT,
    clock: Callable[[], float] = time.monotonic,
) -> Iterator[tuple[int, Any]]:
    """The items of a stream (``(n, item)`` as :func:`observe_input` takes them), in their
    order, each plain-text page counted as it is read and handed on once ``delay`` more pages
    of its site have been counted (default: the rule's ``T`` for that site), or ``max_age``
    more pages of any site, or ``max_wait`` seconds after it was read (None: no time limit), or
    at the end of the input — and once every item before it has been handed on: the online
    rule's delay (docs/chrome.md). A site's first pages are then masked with the counts of at
    least ``T`` of its pages, as a file's are with all of them, instead of keeping a chrome
    they could not yet know; and the pages are accepted in input order, so that the earliest
    page of a group is the one a file would make its representative. Other items (an HTML
    page, a record in error) need no count. ``counted[0]`` grows by the pages new to the
    counts. With ``max_wait``, the items are read by a thread, so that held pages leave while
    the stream is silent."""
    if (delay is not None and delay < 0) or max_age < 1 or (max_wait is not None
                                                            and max_wait < 0):
        raise ValueError("delay >= 0, max_age >= 1 and max_wait >= 0")
    # (item, site or None, its site's pages counted with it, arrival, time read), oldest first
    held: deque[tuple[tuple[int, Any], str | None, int, int, float]] = deque()
    pages: dict[str, int] = {}  # pages counted per site
    n = 0
    limit = max_wait if max_wait is not None else float("inf")

    def due(now: float) -> Iterator[tuple[int, Any]]:
        while held:
            item, site, mine, at, since = held[0]
            if site is not None and now - since < limit and n - at < max_age and (
                    pages[site] - mine < (counts.rule.threshold(site) if delay is None
                                          else delay)):
                return
            held.popleft()
            yield item

    source = _read_ahead(items) if max_wait is not None else None
    plain = iter(items) if source is None else None
    while True:
        if source is not None:
            now = clock()
            yield from due(now)
            wait = None if not held else max(0.0, held[0][4] + limit - now)
            try:
                item = source.get(timeout=wait)
            except queue.Empty:
                continue
            if item is _END:
                break
            if isinstance(item, _Failed):
                raise item.exc
        else:
            assert plain is not None
            item = next(plain, _END)
            if item is _END:
                break
        row = _countable(item[1], limits)
        site: str | None = None
        if row is not None:
            new = counts.observe_pages([row])
            if counted is not None:
                counted[0] += new
            site = site_key(row[1], row[2])
            pages[site] = pages.get(site, 0) + 1
            n += 1
        held.append((item, site, pages.get(site, 0) if site is not None else 0, n, clock()))
        yield from due(clock())
    while held:
        yield held.popleft()[0]


def observe_input(
    counts: SharedChromeCounts,
    items: Iterable[tuple[int, bytes | str | Mapping[str, Any] | Page | DocumentError]],
    limits: Limits = DEFAULT_LIMITS,
    chunk: int = 500,
) -> int:
    """Count the plain-text pages of an input into ``counts`` (the first pass of the two-pass
    rule): ``(n, item)`` as :func:`neardup.ingest.pipeline.read_lines` gives them — a JSONL
    line, a page of a WARC or WET file, a record in error — or a document's source as a
    mapping. A record that is not a valid page with an id is skipped (the preparing pass
    reports it). Returns how many pages were new to the counts."""
    new = 0
    rows: list[tuple[str, str | None, str | None, str]] = []
    for _, raw in items:
        row = _countable(raw, limits)
        if row is not None:
            rows.append(row)
        if len(rows) >= chunk:
            new += counts.observe_pages(rows)
            rows = []
    return new + counts.observe_pages(rows)


def _observe_share(job: tuple[str, str, ChromeRule, str, int, int, Limits, IdFrom]) -> int:
    url, index, rule, path, share, shares, limits, id_from = job
    counts = SharedChromeCounts(connect(url), index, rule)
    lines = read_input(path, limits, id_from=id_from, html=False)  # HTML pages: not counted
    return observe_input(counts, ((n, raw) for n, raw in lines if n % shares == share), limits)


def observe_file(
    url: str, index: str, rule: ChromeRule, path: str | os.PathLike[str],
    limits: Limits = DEFAULT_LIMITS, id_from: IdFrom = "record", processes: int = 1,
) -> int:
    """:func:`observe_input` of an input file (JSONL or WARC, not stdin) into ``index``'s counts
    on the Redis at ``url``; with ``processes > 1`` each process counts every
    ``processes``-th record: the same counts (sums, each page once), in a fraction of the time
    (the counting pass is the ingest's first, when its workers have nothing to do yet).
    Returns how many pages were new to the counts."""
    jobs = [(url, index, rule, os.fspath(path), share, max(1, processes), limits, id_from)
            for share in range(max(1, processes))]
    if processes <= 1:
        return _observe_share(jobs[0])
    ctx = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    with ctx.Pool(processes) as pool:
        return sum(pool.map(_observe_share, jobs))
