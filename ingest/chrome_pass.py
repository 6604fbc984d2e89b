"""The chrome counting pass: which pages the site-chrome counts count, and how an input is
counted — every path's, ``neardup dedup`` and :func:`neardup.dedup` into counts in memory,
``neardup ingest``, ``serve`` and ``backfill`` into the counts they share on the broker
(:class:`neardup.ingest.workers.chrome_counts.SharedChromeCounts`). The rule itself, and the
masking, are :mod:`neardup.ingest.chrome`'s; docs/chrome.md tells when each mode counts.

* **A page's text** (:func:`chrome_text`): a plain-text page (``text``, ``rst``,
  ``markdown``) is counted with its extracted text, as the preparing step makes it; an HTML
  page is not counted (nor masked: its main content is taken by structure), nor a page whose
  text cannot be read (its preparing reports why).
* **An input** (:func:`observe_input`): a record that is not a valid page is skipped (the
  preparing pass reports it); the readable plain-text pages go to the counts a chunk at a time
  (:meth:`~neardup.ingest.chrome.ChromeCounts.observe_pages`: one script call a chunk for the
  shared counts). :func:`chrome_counts` is the first pass of the two-pass rule in memory.
* **A file** (:func:`count_file`): with ``processes > 1`` each process reads the file and
  counts every ``processes``-th record (HTML pages are not even read), in a fraction of the
  time; the counts are sums, so the parts add up to the counts of one process
  (:func:`chrome_counts_of_file` merges them, the shared counts add them on the broker).
* **A stream** (:func:`delayed_input`): each page is counted as it is read and handed on once
  ``T`` more pages of its site are counted, the online rule's delay.
"""

from __future__ import annotations

import bisect
import functools
import multiprocessing
import os
import queue
import shutil
import tempfile
import threading
import time
from array import array
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from neardup.ingest.chrome import BoundedCounter, ChromeCounts, ChromeRule, page_hashes, site_key
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

__all__ = [
    "DEFAULT_MAX_AGE",
    "DEFAULT_MAX_WAIT",
    "Item",
    "KeptHashes",
    "PageCounts",
    "Row",
    "chrome_counts",
    "chrome_counts_keeping_hashes",
    "chrome_counts_of_file",
    "chrome_text",
    "count_file",
    "countable",
    "delayed_input",
    "observe_input",
]

R = TypeVar("R")

#: A page as the counts take it: ``(id, site, url, text)``.
Row = tuple[str | None, str | None, str | None, str]
#: An item of an input: ``(number, record)``, as :func:`neardup.ingest.pipeline.read_lines` gives it.
Item = tuple[int, bytes | str | Mapping[str, Any] | Page | DocumentError]


class PageCounts(Protocol):
    """What the pass asks of counts: their rule, and counting pages
    (:meth:`neardup.ingest.chrome.ChromeCounts.observe_pages`, which returns how many were
    new to them)."""

    @property
    def rule(self) -> ChromeRule: ...

    def observe_pages(self, pages: Sequence[Row]) -> int: ...


def chrome_text(page: Page, limits: Limits = DEFAULT_LIMITS) -> str | None:
    """The text of a page that the chrome counts count: a plain-text page's extracted text;
    None for an HTML page (not counted) or one that cannot be read (its preparing reports
    why)."""
    if page.field == "html":
        return None
    try:
        texts = document_texts(page.document(), max_bytes=limits.max_doc_bytes)
        return clean_text(texts.text, page.id)
    except Exception:  # noqa: BLE001 - any failure: the preparing step reports it
        return None


def countable(raw: bytes | str | Mapping[str, Any] | Page | DocumentError,
              limits: Limits = DEFAULT_LIMITS) -> Row | None:
    """``(id, site, url, text)`` of a record that is a valid plain-text page — a JSONL line, a
    page of a WARC or WET file, a document's source as a mapping — with its
    :func:`chrome_text`; None for anything else (an HTML page, a record in error: the
    preparing pass reports those)."""
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
    body = chrome_text(page, limits)
    return None if body is None else (page.id, page.site, page.url, body)


def observe_input(counts: PageCounts, items: Iterable[Item], limits: Limits = DEFAULT_LIMITS,
                  chunk: int = 500, chunk_chars: int = 1 << 20) -> int:
    """Count the plain-text pages of an input into ``counts`` (the first pass of the two-pass
    rule): ``(n, item)`` as :func:`neardup.ingest.pipeline.read_lines` gives them — a JSONL
    line, a page of a WARC or WET file, a record in error — or a document's source as a
    mapping; ``chunk`` pages a call, fewer when their texts reach ``chunk_chars`` (the pages
    of a call are held together: a crawl of large pages is not held 500 at a time). A repeated
    id is counted like any page by counts in memory, once by the shared counts. Returns how
    many pages were new to the counts."""
    new = 0
    rows: list[Row] = []
    chars = 0
    for _, raw in items:
        row = countable(raw, limits)
        if row is not None:
            rows.append(row)
            chars += len(row[3])
        if len(rows) >= chunk or chars >= chunk_chars:
            new += counts.observe_pages(rows)
            rows, chars = [], 0
    return new + counts.observe_pages(rows)


def chrome_counts(lines: Iterable[Item], rule: ChromeRule | None = None,
                  limits: Limits = DEFAULT_LIMITS) -> ChromeCounts:
    """The chrome counts of an input (:func:`observe_input`), in memory.

    The counter is a :class:`~neardup.ingest.chrome.BoundedCounter` (exact up to ~1M distinct
    lines, a fixed 64 MB sketch beyond), so the counts are a function of the set of pages: the
    same for any order, and :meth:`~neardup.ingest.chrome.ChromeCounts.merge` of the counts of
    parts of the input gives the whole input's."""
    counts = ChromeCounts(rule, BoundedCounter(), warmup=False)
    observe_input(counts, lines, limits)
    return counts


def _share(job: tuple[Callable[[Iterator[Item]], R], str, Limits, IdFrom, int, int]) -> R:
    """One process's part of :func:`count_file`: ``work`` on every ``shares``-th record."""
    work, path, limits, id_from, share, shares = job
    lines = read_input(path, limits, id_from=id_from, html=False)  # HTML pages: not counted
    return work((n, raw) for n, raw in lines if n % shares == share)


def count_file(
    work: Callable[[Iterator[Item]], R], path: str | os.PathLike[str],
    limits: Limits = DEFAULT_LIMITS, id_from: IdFrom = "record", processes: int = 1,
) -> Iterator[R]:
    """``work`` (a function of the records it counts, picklable: module-level, or a
    :func:`functools.partial` of one) over the records of an input file (JSONL or WARC, not
    stdin: it is read once a process): over all of them, or with ``processes > 1`` in as many
    processes, each over every ``processes``-th record. Yields each part's result as it
    comes."""
    shares = max(1, processes)
    jobs = [(work, os.fspath(path), limits, id_from, share, shares) for share in range(shares)]
    if shares == 1:
        yield _share(jobs[0])
        return
    ctx = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    with ctx.Pool(shares) as pool:
        yield from pool.imap_unordered(_share, jobs)


def _count_new(rule: ChromeRule, limits: Limits, items: Iterator[Item]) -> ChromeCounts:
    return chrome_counts(items, rule, limits)


def chrome_counts_of_file(
    path: str | os.PathLike[str], rule: ChromeRule | None = None,
    limits: Limits = DEFAULT_LIMITS, processes: int = 1,
) -> ChromeCounts:
    """:func:`chrome_counts` of an input file (:func:`count_file`): the parts are merged as
    they come (sums: any order gives the same counts), one part held at a time."""
    counts: ChromeCounts | None = None
    for part in count_file(functools.partial(_count_new, rule or ChromeRule(), limits), path,
                           limits, processes=processes):
        if counts is None:
            counts = part
        else:
            counts.merge(part)
    assert counts is not None
    return counts


class KeptHashes:
    """The line hashes of the pages of an input, as the counting pass took them
    (:func:`chrome_counts_keeping_hashes`), for the masking pass to read back instead of
    hashing each page again (:meth:`~neardup.ingest.chrome.ChromeCounts.mask` takes them).

    On disk, one file a counting process (8 bytes a line's hash, then 4 its key's length);
    in memory, per page its record number, offset, line count, text length and the text's
    ``hash()`` (36 bytes). The files are unlinked once open: they go with the descriptors,
    which forked preparing processes inherit (and read with ``os.pread``: no shared file
    position). A page's hashes come back only for the text they were taken of (its length and
    ``hash()``, which forked processes share), so a reader that numbers records otherwise — a
    WARC file's pages are numbered among its text pages alone in the counting pass — gets
    None, never another page's hashes (and :meth:`~neardup.ingest.chrome.ChromeCounts.mask`
    hashes a text whose line count is not theirs).
    """

    def __init__(self, parts: Sequence[_KeptPart]) -> None:
        self._parts = []
        for part in parts:
            fd = os.open(part.path, os.O_RDONLY)
            os.unlink(part.path)
            self._parts.append((fd, part))

    def get(self, number: int, text: str) -> tuple[list[int], list[int]] | None:
        """``(hashes, lengths)`` of record ``number``'s lines, if it was counted with ``text``
        (:func:`~neardup.ingest.chrome.page_hashes`); None otherwise."""
        for fd, part in self._parts:
            i = bisect.bisect_left(part.numbers, number)
            if i == len(part.numbers) or part.numbers[i] != number:
                continue
            k = part.lines[i]
            if part.chars[i] != len(text) or part.digests[i] != hash(text):
                return None
            data = os.pread(fd, 12 * k, part.offsets[i])
            hashes, lengths = array("Q"), array("I")
            hashes.frombytes(data[: 8 * k])
            lengths.frombytes(data[8 * k :])
            return hashes.tolist(), lengths.tolist()
        return None

    def close(self) -> None:
        for fd, _ in self._parts:
            os.close(fd)
        self._parts = []

    def __enter__(self) -> KeptHashes:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class _KeptPart:
    """One counting process's hashes: its file, and per page (in record order) its record
    number, offset in the file, line count, text length and text's ``hash()``."""

    path: str
    numbers: array[int] = field(default_factory=lambda: array("q"))
    offsets: array[int] = field(default_factory=lambda: array("q"))
    lines: array[int] = field(default_factory=lambda: array("i"))
    chars: array[int] = field(default_factory=lambda: array("q"))
    digests: array[int] = field(default_factory=lambda: array("q"))


def _count_keeping(rule: ChromeRule, limits: Limits, directory: str,
                   items: Iterator[Item]) -> tuple[ChromeCounts, _KeptPart]:
    """:func:`chrome_counts` of ``items``, each counted page's line hashes written to a file of
    its own in ``directory``."""
    counts = ChromeCounts(rule, BoundedCounter(), warmup=False)
    fd, path = tempfile.mkstemp(prefix="hashes-", dir=directory)
    part = _KeptPart(path)
    offset = 0
    with os.fdopen(fd, "wb", buffering=1 << 20) as out:
        for n, raw in items:
            row = countable(raw, limits)
            if row is None:
                continue
            _, site, url, text = row
            key = site_key(site, url)
            hashes, lengths = page_hashes(key, text, rule.fold_digits)
            data = array("Q", hashes).tobytes() + array("I", lengths).tobytes()
            out.write(data)
            part.numbers.append(n)
            part.offsets.append(offset)
            part.lines.append(len(hashes))
            part.chars.append(len(text))
            part.digests.append(hash(text))
            offset += len(data)
            counts.observe_hashes(key, hashes)
    return counts, part


def chrome_counts_keeping_hashes(
    path: str | os.PathLike[str], rule: ChromeRule | None = None,
    limits: Limits = DEFAULT_LIMITS, processes: int = 1,
) -> tuple[ChromeCounts, KeptHashes]:
    """:func:`chrome_counts_of_file`, and the line hashes it took of each page
    (:class:`KeptHashes`; the caller closes them) for the masking pass: each page is hashed
    once, not once a pass."""
    rule = rule or ChromeRule()
    directory = tempfile.mkdtemp(prefix="neardup-chrome-")
    try:
        counts: ChromeCounts | None = None
        parts = []
        for part_counts, part in count_file(
                functools.partial(_count_keeping, rule, limits, directory), path, limits,
                processes=processes):
            parts.append(part)
            if counts is None:
                counts = part_counts
            else:
                counts.merge(part_counts)
        assert counts is not None
        return counts, KeptHashes(parts)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


# --- a stream: the delay -----------------------------------------------------------------------

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
    counts: PageCounts,
    items: Iterable[tuple[int, Any]],
    limits: Limits = DEFAULT_LIMITS,
    delay: int | None = None,
    max_age: int = DEFAULT_MAX_AGE,
    counted: list[int] | None = None,
    max_wait: float | None = DEFAULT_MAX_WAIT,
    clock: Callable[[], float] = time.monotonic,
) -> Iterator[tuple[int, Any]]:
    """The items of a stream (``(n, item)`` as :func:`observe_input` takes them), in their
    order, each plain-text page with an id counted as it is read and handed on once ``delay``
    more pages of its site have been counted (default: the rule's ``T`` for that site), or
    ``max_age`` more pages of any site, or ``max_wait`` seconds after it was read (None: no
    time limit), or at the end of the input — and once every item before it has been handed
    on: the online rule's delay (docs/chrome.md). A site's first pages are then masked with
    the counts of at least ``T`` of its pages, as a file's are with all of them, instead of
    keeping a chrome they could not yet know; and the pages are accepted in input order, so
    that the earliest page of a group is the one a file would make its representative. Other
    items (an HTML page, a record in error) need no count. ``counted[0]`` grows by the pages
    new to the counts. With ``max_wait``, the items are read by a thread, so that held pages
    leave while the stream is silent."""
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
        row = countable(item[1], limits)
        site: str | None = None
        if row is not None and row[0]:  # a stream's counts count a page by its id
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
