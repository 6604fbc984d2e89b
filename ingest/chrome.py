"""Site chrome known from the corpus: the lines that many pages of one site carry.

Plain-text pages (Common Crawl WET, a crawler's text dump) hold each site's header, navigation,
footer, cookie notice and "trending" block inside every page's text: no markup tells them from
the article. Two different short articles inside one large chrome then share most of their
text and fingerprints, and are called similar. Here chrome is what the corpus shows it to be:

**Rule.** Text is read line by line (a WET block is a line). A line's *key* is the line with
NFKC applied, white space collapsed, case folded and every number written ``0``
(:func:`normalize_line`: "Published 2021-03-04 · 1,234 views" is one key for every date and
count). Each page counts once per key, per *site* (:func:`site_key`: the ``site`` field,
else the URL's host without ``www.``, else ``""``, the whole corpus). A line is chrome when at
least ``T`` (:attr:`ChromeRule.min_pages`, default 20) pages of its site carry its key.

**A page is never masked below its own level.** A story that a site republished ``k >= T``
times would otherwise lose its body lines on every copy. So a page's *base* is the smallest
count among its lines of at least :attr:`ChromeRule.min_base_chars` characters (1 for any
page with one line of its own), and a line is chrome for that page only when its count is also
at least ``ratio * base`` (:attr:`ChromeRule.ratio`, default 4): the copies of a story keep the
lines they share with each other, and still lose the site's chrome, which is on far more pages.

**Two passes (batch, ``neardup dedup``).** :meth:`ChromeCounts.observe` every page, then
:meth:`ChromeCounts.mask` each one: every page is judged with the whole corpus's counts.

**Online (the pipeline).** Counts grow as pages arrive, and a grouping is never undone, so
the first pages of a site must not be joined on chrome that is not yet known:

1. *observe before deciding*: a page's lines are counted when it arrives;
2. *warm-up*: while a site has fewer than ``T`` pages (:meth:`ChromeCounts.ready` is false), a
   line is chrome when at least ``max(2, ceil(warmup_share * pages))`` of the site's pages
   carry it (:attr:`ChromeRule.warmup_share`, default 1/2): what most of a young site's pages
   share is its template (the page-level base still spares a site's first pages that are
   copies of each other);
3. *delay*: a page is decided only once ``delay`` more pages of its site have been observed
   (:class:`DelayedMasker`; default ``T``, so a site's first page waits until the site is
   ready), or once ``max_age`` pages of any site have arrived after it (small sites do not wait
   for ever; they are then judged by the warm-up rule), or at :meth:`DelayedMasker.flush`. A
   block that a site adds later (a redesign, a new "trending" list) carried by a share ``s``
   of its pages reaches ``T`` within the delay when ``s * delay >= T``; rarer lines are the
   site's content for the pages decided before that, and chrome after.

The counts are kept in :class:`ExactCounter` (a dict of 64-bit line hashes: ~100 bytes a
distinct line, fine for a few million lines) or :class:`SketchCounter` (count-min with
conservative update: fixed memory, counts never under-estimated, rarely over), behind the
:class:`LineCounter` protocol. Pure: no I/O, no global state.
"""

from __future__ import annotations

import hashlib
import math
import re
import unicodedata
from array import array
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar
from urllib.parse import urlsplit

__all__ = [
    "ChromeCounts",
    "ChromeRule",
    "DelayedMasker",
    "ExactCounter",
    "LineCounter",
    "SketchCounter",
    "normalize_line",
    "site_key",
]

_SPACE = re.compile(r"\s+")
_DIGITS = re.compile(r"\d+(?:[.,:/-]\d+)*")


def normalize_line(line: str, fold_digits: bool = True) -> str:
    """The key text of a line: NFKC, white space collapsed and stripped, case folded, and
    (``fold_digits``) every number — digits, with any ``. , : / -`` between digits, as in a
    date, a time or ``1,234`` — written ``0``; ``""`` for a blank line.

    >>> normalize_line("  Published 2021-03-04 12:30\\t· 1,234  VIEWS ")
    'published 0 0 · 0 views'
    """
    s = _SPACE.sub(" ", unicodedata.normalize("NFKC", line)).strip().casefold()
    return _DIGITS.sub("0", s) if fold_digits else s


def site_key(site: str | None = None, url: str | None = None) -> str:
    """The site a page's lines are counted under: ``site`` (stripped, case folded), else the
    host of ``url`` without ``www.``, else ``""`` (the corpus as one site).

    >>> site_key(None, "https://WWW.Example.com/a/b.html"), site_key("News.cn"), site_key()
    ('example.com', 'news.cn', '')
    """
    if site and site.strip():
        return site.strip().casefold()
    if url:
        try:
            host = urlsplit(url.strip()).hostname or ""
        except ValueError:
            host = ""
        host = host.casefold()
        return host[4:] if host.startswith("www.") else host
    return ""


def _line_hash(site: str, key: str) -> int:
    data = site.encode("utf-8", "surrogatepass") + b"\x00" + key.encode("utf-8", "surrogatepass")
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


class LineCounter(Protocol):
    """Counts of 64-bit line hashes."""

    def add(self, key: int) -> None: ...

    def get(self, key: int) -> int: ...


class ExactCounter:
    """Exact counts in a dict."""

    def __init__(self) -> None:
        self._counts: dict[int, int] = {}

    def add(self, key: int) -> None:
        self._counts[key] = self._counts.get(key, 0) + 1

    def get(self, key: int) -> int:
        return self._counts.get(key, 0)

    def __len__(self) -> int:
        return len(self._counts)


class SketchCounter:
    """Count-min sketch with conservative update: ``depth`` rows of ``width`` 32-bit counters
    (``4 * width * depth`` bytes). :meth:`get` never under-counts; it over-counts only where
    every row's cell is shared with more frequent keys."""

    _MULTIPLIERS = (0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9,
                    0xD6E8FEB86659FD93, 0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53)

    def __init__(self, width: int = 1 << 22, depth: int = 4) -> None:
        if width < 1 or not 1 <= depth <= len(self._MULTIPLIERS):
            raise ValueError(f"width >= 1 and 1 <= depth <= {len(self._MULTIPLIERS)}")
        self.width, self.depth = width, depth
        self._rows = [array("I", bytes(4 * width)) for _ in range(depth)]

    def _cells(self, key: int) -> list[int]:
        out = []
        for m in self._MULTIPLIERS[: self.depth]:
            h = (key * m) & 0xFFFFFFFFFFFFFFFF
            out.append((h ^ (h >> 29)) % self.width)
        return out

    def add(self, key: int) -> None:
        cells = self._cells(key)
        rows = self._rows
        new = min(row[c] for row, c in zip(rows, cells, strict=True)) + 1
        if new > 0xFFFFFFFF:
            return
        for row, c in zip(rows, cells, strict=True):
            if row[c] < new:
                row[c] = new

    def get(self, key: int) -> int:
        return min(row[c] for row, c in zip(self._rows, self._cells(key), strict=True))


@dataclass(frozen=True, slots=True)
class ChromeRule:
    """When a line is chrome (see the module docstring)."""

    min_pages: int = 20  # T: pages of a site that carry a line for it to be chrome
    corpus_min_pages: int | None = None  # T for pages without a site (default: min_pages)
    ratio: float = 4.0  # and at least ratio * the page's base count
    min_base_chars: int = 40  # lines at least this long set a page's base count
    warmup_share: float = 0.5  # young site: chrome when on this share of its pages (and >= 2)
    fold_digits: bool = True  # digit runs written "0" in the line keys

    def __post_init__(self) -> None:
        if self.min_pages < 2 or (self.corpus_min_pages is not None and self.corpus_min_pages < 2):
            raise ValueError("min_pages must be >= 2")
        if self.ratio < 1 or not 0 < self.warmup_share <= 1 or self.min_base_chars < 0:
            raise ValueError("ratio >= 1, 0 < warmup_share <= 1, min_base_chars >= 0")

    def threshold(self, site: str) -> int:
        """``T`` for a site (``""``: pages without a site)."""
        if site == "" and self.corpus_min_pages is not None:
            return self.corpus_min_pages
        return self.min_pages


class ChromeCounts:
    """Per-site page counts of line keys, and the chrome decisions they support.

    ``observe(site, lines)`` counts one page (each key once); ``is_chrome(site, line)`` asks
    about one line; :meth:`chrome_flags` and :meth:`mask` decide a whole page with the
    page-level base. ``site`` is a :func:`site_key`.
    """

    def __init__(self, rule: ChromeRule | None = None, counter: LineCounter | None = None):
        self.rule = rule or ChromeRule()
        self._counter: LineCounter = counter if counter is not None else ExactCounter()
        self._pages: dict[str, int] = {}

    def _key(self, line: str) -> str:
        return normalize_line(line, self.rule.fold_digits)

    def observe(self, site: str, lines: Iterable[str]) -> None:
        """Count one page of ``site`` with these lines."""
        seen = {k for k in map(self._key, lines) if k}
        for k in seen:
            self._counter.add(_line_hash(site, k))
        self._pages[site] = self._pages.get(site, 0) + 1

    def observe_text(self, site: str, text: str) -> None:
        """:meth:`observe` the lines of ``text``."""
        self.observe(site, text.split("\n"))

    def pages(self, site: str) -> int:
        """Pages of ``site`` observed."""
        return self._pages.get(site, 0)

    def count(self, site: str, line: str) -> int:
        """Pages of ``site`` observed with ``line``'s key (0 for a blank line)."""
        k = self._key(line)
        return self._counter.get(_line_hash(site, k)) if k else 0

    def ready(self, site: str) -> bool:
        """Whether ``site`` is past its warm-up (``T`` pages observed)."""
        return self.pages(site) >= self.rule.threshold(site)

    def _needed(self, site: str) -> int:
        """Pages a line must be on to be chrome on ``site`` now (before the page's base)."""
        t = self.rule.threshold(site)
        p = self.pages(site)
        if p >= t:
            return t
        return max(2, math.ceil(self.rule.warmup_share * p))

    def is_chrome(self, site: str, line: str) -> bool:
        """Whether ``line`` is chrome on ``site`` by the counts so far (without a page's base:
        :meth:`chrome_flags` adds it)."""
        n = self.count(site, line)
        return n > 0 and n >= self._needed(site)

    def chrome_flags(self, site: str, lines: Sequence[str]) -> list[bool]:
        """For each of a page's lines, whether it is chrome for this page: on at least
        :meth:`_needed` pages and ``ratio`` times the page's base count."""
        keys = [self._key(line) for line in lines]
        counts = [self._counter.get(_line_hash(site, k)) if k else 0 for k in keys]
        long = [n for k, n in zip(keys, counts, strict=True)
                if len(k) >= self.rule.min_base_chars]
        base = max(1, min(long)) if long else 1
        need = max(self._needed(site), math.ceil(self.rule.ratio * base) if base > 1 else 0)
        return [bool(k) and n >= need for k, n in zip(keys, counts, strict=True)]

    def mask(self, site: str, text: str) -> str:
        """``text`` without its chrome lines (the others as they were, joined by ``\\n``);
        ``""`` when every line is chrome."""
        lines = text.split("\n")
        flags = self.chrome_flags(site, lines)
        return "\n".join(line for line, chrome in zip(lines, flags, strict=True) if not chrome)


T = TypeVar("T")


class DelayedMasker(Generic[T]):
    """The online rule: pages are observed when pushed and masked when their delay is over.

    ``push(site, item, text)`` observes the page and returns the ``(item, masked text)`` of
    every page now due: those with ``delay`` later pages of their site observed (default
    ``T``), or ``max_age`` later pages of any site. :meth:`flush` returns the rest. Pages come
    out in their site's order; across sites, in the order they fall due.
    """

    def __init__(self, counts: ChromeCounts, delay: int | None = None,
                 max_age: int = 100_000) -> None:
        if (delay is not None and delay < 0) or max_age < 1:
            raise ValueError("delay >= 0 and max_age >= 1")
        self.counts = counts
        self.delay = counts.rule.min_pages if delay is None else delay
        self.max_age = max_age
        self._queues: dict[str, deque[tuple[int, T, str]]] = {}
        self._clock = 0
        self._all: deque[tuple[int, str]] = deque()  # (arrival, site) of pending pages

    def pending(self) -> int:
        """Pages pushed and not yet returned."""
        return sum(len(q) for q in self._queues.values())

    def push(self, site: str, item: T, text: str) -> list[tuple[T, str]]:
        self.counts.observe_text(site, text)
        self._clock += 1
        q = self._queues.setdefault(site, deque())
        q.append((self._clock, item, text))
        self._all.append((self._clock, site))
        out: list[tuple[T, str]] = []
        while len(q) > self.delay:
            out.append(self._release(site))
        while self._all and self._clock - self._all[0][0] >= self.max_age:
            at, old = self._all.popleft()
            oq = self._queues.get(old)
            while oq and oq[0][0] <= at:
                out.append(self._release(old))
        return out

    def _release(self, site: str) -> tuple[T, str]:
        _, item, text = self._queues[site].popleft()
        return item, self.counts.mask(site, text)

    def flush(self) -> list[tuple[T, str]]:
        """Every pending page, masked with the counts as they are."""
        out = [self._release(site) for site, q in self._queues.items() for _ in range(len(q))]
        self._all.clear()
        return out
