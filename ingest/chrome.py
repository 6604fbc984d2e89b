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
A line on half of its site's pages or more (and on ``T``) is chrome whatever the page's base:
a book's page whose own text is its heading has no long line but the table of contents every
page carries, which would otherwise set its base.

**A page's name.** A page's first line (its title, in a text dump) is kept when it is chrome but
on fewer than half of its site's pages — a family's title that each page of the family repeats,
a label other pages carry too — and stands as a block of its own where the lines after it are
masked (:meth:`ChromeCounts.mask`): the rules of one site read a page's name there.

**Two passes (batch, ``neardup dedup`` and :func:`neardup.dedup`).** :meth:`ChromeCounts.observe`
every page, then :meth:`ChromeCounts.mask` each one: every page is judged with the whole
corpus's counts (:func:`neardup.ingest.chrome_pass.chrome_counts`, then
:func:`neardup.ingest.pipeline.prepare_document`). The counts are final, so there is no warm-up
(``ChromeCounts(..., warmup=False)``): a site with fewer than ``T`` pages has no chrome — two
near-copies on a small site keep the lines they share. The counter is a
:class:`BoundedCounter` (exact, then a plain count-min sketch): the counts, and so the masks,
are the same for any order of the input and any number of counting processes.

**Online.** Counts grow as pages arrive, so the first pages of a site must not be joined on
chrome that is not yet known. A page's lines are counted when it arrives, and a stream holds
each page until ``T`` more pages of its site are counted (the delay,
:func:`neardup.ingest.chrome_pass.delayed_input`; docs/chrome.md); a site with fewer than
``T`` pages counted has no chrome yet. With ``warmup`` instead (``ChromeCounts``' default; the
passes of neardup all count without it), a site with fewer than ``T`` pages
(:meth:`ChromeCounts.ready` is false) judges a line chrome when at least
``max(2, ceil(warmup_share * pages))`` of its pages carry it (:attr:`ChromeRule.warmup_share`,
default 1/2): what most of a young site's pages share is its template.

The counts are kept in :class:`ExactCounter` (a dict of 64-bit line hashes: ~80 bytes a
distinct line), :class:`~neardup.ingest.sketch.SketchCounter` (count-min, with conservative
update by default: fixed memory, counts never under-estimated, rarely over) or
:class:`BoundedCounter` (exact up to a million distinct lines, a plain 64 MB sketch beyond),
behind the :class:`LineCounter` protocol. Line keys are computed a page at a time
(:func:`line_keys`, equal to :func:`normalize_line` on each line), and hashed (the first 8 bytes
of an MD5 of the site and the key: :func:`_line_hash`); counting and masking a page take only
the hashes and the keys' lengths (:func:`page_hashes`). After the Unicode steps (here, in
Python), the keys and hashes are the twins' (``neardup.ingest._chrome_py``, the reference, and
``neardup.ingest._chrome``, compiled, which never makes the keys into strings), chosen by
``NEARDUP_IMPL`` (:func:`neardup.verifier.implementation.select`).
Pure: no I/O, no global state.
"""

from __future__ import annotations

import itertools
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Protocol
from urllib.parse import urlsplit

import regex

from neardup.ingest._chrome_py import DIGITS, key_hashes
from neardup.ingest.sketch import SketchCounter
from neardup.verifier.implementation import select
from neardup.verifier.subject import NAME_CHARS

__all__ = [
    "IMPLEMENTATION",
    "CHROME_SCHEME",
    "DEFAULT_MIN_PAGES",
    "BoundedCounter",
    "ChromeCounts",
    "ChromeRule",
    "ExactCounter",
    "LineCounter",
    "line_keys",
    "page_hashes",
    "normalize_line",
    "site_key",
]

#: Bump when the line keys, the hashing or the decision rule change: it is part of
#: :attr:`ChromeRule.identity`, which is part of the fingerprint identity of masked pages.
CHROME_SCHEME = 4
DEFAULT_MIN_PAGES = 20  # ChromeRule.min_pages, T

COMPILED = "neardup.ingest._chrome"
REFERENCE = "neardup.ingest._chrome_py"

# The twin in use (``NEARDUP_IMPL``), chosen once, at import.
_impl: ModuleType = select(COMPILED, REFERENCE)
IMPLEMENTATION: str = _impl.IMPLEMENTATION
_split_line_keys = _impl.split_line_keys
_line_hashes = _impl.line_hashes

_SPACE = re.compile(r"\s+")


def normalize_line(line: str, fold_digits: bool = True) -> str:
    """The key text of a line: NFKC, white space collapsed and stripped, case folded, and
    (``fold_digits``) every number — digits, with any ``. , : / -`` between digits, as in a
    date, a time or ``1,234`` — written ``0``; ``""`` for a blank line.

    >>> normalize_line("  Published 2021-03-04 12:30\\t· 1,234  VIEWS ")
    'published 0 0 · 0 views'
    """
    s = _SPACE.sub(" ", unicodedata.normalize("NFKC", line)).strip().casefold()
    return DIGITS.sub("0", s) if fold_digits else s


# Compatibility characters common in CJK pages, each with its NFKD, which is also its NFKC:
# full-width punctuation, the ideographic and the no-break space, the ellipsis, degrees Celsius.
_COMMON_COMPAT = tuple((ch, unicodedata.normalize("NFKC", ch))
                       for ch in "，：！？；（）％＋－／＝＜＞［］｛｝～＂＇\u3000\u00a0…℃")
# Full-width ASCII (digits and Latin letters in CJK text): NFKC is the ASCII character.
_FULL_WIDTH = regex.compile("[\uff01-\uff5e]+")
_TO_ASCII = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)}


def _to_ascii(m: regex.Match[str]) -> str:
    return m.group().translate(_TO_ASCII)


def _unicode_steps(text: str) -> str:
    """NFKC and case folding of a whole text, the first steps of :func:`line_keys`."""
    if not unicodedata.is_normalized("NFKC", text):
        # NFKC is slow (~40 ns a character); CJK text is mostly not normalised only for its
        # full-width punctuation, digits and letters, which plain replacements fix. Each
        # replaced character's NFKC is its NFKD, so the NFKD (and the NFKC) of the text is
        # unchanged.
        for ch, to in _COMMON_COMPAT:
            if ch in text:
                text = text.replace(ch, to)
        text = _FULL_WIDTH.sub(_to_ascii, text)
        if not unicodedata.is_normalized("NFKC", text):
            text = unicodedata.normalize("NFKC", text)
    return text.casefold()


def line_keys(text: str, fold_digits: bool = True) -> list[str]:
    """``[normalize_line(line) for line in text.split("\\n")]``, computed on the whole text at
    once (about three times faster on web pages): NFKC, case folding and the digit rule never
    add or remove a ``\\n`` and a ``\\n`` composes with nothing, so each applies to the text as
    to its lines; ``" ".join(line.split())`` is the white-space rule (``\\s`` is
    :meth:`str.isspace`).

    >>> line_keys("Home |  NEWS\\r\\n\\nＰａｇｅ 12 of 30")
    ['home | news', '', 'page 0 of 0']
    """
    keys: list[str] = _split_line_keys(_unicode_steps(text), fold_digits)
    return keys


def page_hashes(site: str, text: str, fold_digits: bool = True) -> tuple[list[int], list[int]]:
    """The hash of each line's key of ``text`` under ``site`` (:func:`_line_hash`; 0 for a
    blank line) and each key's length: what counting and masking a page need, without making
    the keys into strings where the compiled code runs.

    >>> hashes, lengths = page_hashes("news.example", "Home | News\\n\\nPage 12")
    >>> hashes == [_line_hash("news.example", "home | news"), 0, _line_hash("news.example",
    ...            "page 0")], lengths
    (True, [11, 0, 6])
    """
    hashes: list[int]
    lengths: list[int]
    hashes, lengths = _line_hashes(_unicode_steps(text), _prefix(site), fold_digits)
    return hashes, lengths


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


def _prefix(site: str) -> bytes:
    """What a line key's hash is taken after: the site's UTF-8 and a NUL byte."""
    return site.encode("utf-8", "surrogatepass") + b"\x00"


def _line_hash(site: str, key: str) -> int:
    """A line key's 64-bit hash under its site: the first 8 bytes, little-endian, of the MD5 of
    the site's UTF-8, a NUL byte and the key's UTF-8 (0 for ``""``)."""
    return key_hashes(_prefix(site), [key])[0]


def _key_hashes(site: str, keys: Iterable[str]) -> list[int]:
    """:func:`_line_hash` of each key (0 for ``""``, a blank line), the site encoded once."""
    return key_hashes(_prefix(site), keys)


class LineCounter(Protocol):
    """Counts of 64-bit line hashes."""

    def add(self, key: int) -> None: ...

    def get(self, key: int) -> int: ...


class ExactCounter:
    """Exact counts in a dict."""

    def __init__(self) -> None:
        self._counts: dict[int, int] = {}

    def add(self, key: int, n: int = 1) -> None:
        self._counts[key] = self._counts.get(key, 0) + n

    def merge(self, other: ExactCounter) -> None:
        """Add ``other``'s counts."""
        for key, n in other._counts.items():
            self.add(key, n)

    def get(self, key: int) -> int:
        return self._counts.get(key, 0)

    def __len__(self) -> int:
        return len(self._counts)


class BoundedCounter:
    """Exact counts (a dict: ~80 bytes a distinct key) until more than ``max_exact`` distinct
    keys are held, then a plain :class:`SketchCounter` (fixed memory, ``4 * width * depth``
    bytes) holding all of them. The result is a function of the counts alone — exact when the
    keys are at most ``max_exact``, the sketch of their sums otherwise — so it is the same for
    any order of the additions, and counters of parts of the input :meth:`merge` into the
    counter of the whole."""

    def __init__(self, max_exact: int = 1 << 20, width: int = 1 << 22, depth: int = 4) -> None:
        if max_exact < 0:
            raise ValueError("max_exact >= 0")
        self.max_exact, self.width, self.depth = max_exact, width, depth
        self._exact: Counter[int] | None = Counter()
        self._sketch: SketchCounter | None = None

    @property
    def kind(self) -> str:
        """``"exact"`` or ``"sketch"``."""
        return "exact" if self._exact is not None else "sketch"

    def __len__(self) -> int:
        """Distinct keys held exactly (0 once in the sketch)."""
        return len(self._exact) if self._exact is not None else 0

    def _to_sketch(self) -> SketchCounter:
        if self._sketch is None:
            sketch = SketchCounter(self.width, self.depth, conservative=False)
            sketch.add_counts((self._exact or {}).items())
            self._sketch, self._exact = sketch, None
        return self._sketch

    def add(self, key: int, n: int = 1) -> None:
        exact = self._exact
        if exact is None:
            assert self._sketch is not None
            self._sketch.add(key, n)
            return
        exact[key] = exact.get(key, 0) + n
        if len(exact) > self.max_exact:
            self._to_sketch()

    def add_many(self, keys: Iterable[int]) -> None:
        """:meth:`add` 1 to each key (the exact counts' update is one C call)."""
        exact = self._exact
        if exact is None:
            assert self._sketch is not None
            for key in keys:
                self._sketch.add(key)
            return
        exact.update(keys)
        if len(exact) > self.max_exact:
            self._to_sketch()

    def get(self, key: int) -> int:
        if self._exact is not None:
            return self._exact.get(key, 0)
        assert self._sketch is not None
        return self._sketch.get(key)

    def get_many(self, keys: Sequence[int]) -> list[int]:
        """:meth:`get` of each key, 0 for the key 0 (a blank line's, never counted); the
        exact counts' in one C loop."""
        exact = self._exact
        if exact is not None:
            counts = list(map(exact.get, keys, itertools.repeat(0)))
            if 0 in exact:
                return [n if key else 0 for key, n in zip(keys, counts, strict=True)]
            return counts
        assert self._sketch is not None
        return [self._sketch.get(key) if key else 0 for key in keys]

    def merge(self, other: BoundedCounter) -> None:
        """Add ``other``'s counts (a counter of the same limits)."""
        if (self.max_exact, self.width, self.depth) != (other.max_exact, other.width, other.depth):
            raise ValueError("counters of different limits do not merge")
        if other._exact is not None:
            # What adding them one at a time gives (the sketch holds sums), in C: the exact
            # sums while the keys of both are few enough, else both in the sketch (the dict
            # never holds more than max_exact keys).
            exact = self._exact
            if exact is not None:
                shared = sum(map(exact.__contains__, other._exact))
                if len(exact) + len(other._exact) - shared <= self.max_exact:
                    exact.update(other._exact)
                    return
            self._to_sketch().add_counts(other._exact.items())
        else:
            assert other._sketch is not None
            self._to_sketch().merge(other._sketch)


@dataclass(frozen=True, slots=True)
class ChromeRule:
    """When a line is chrome (see the module docstring)."""

    min_pages: int = DEFAULT_MIN_PAGES  # T: pages of a site that carry a line for it to be chrome
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

    @property
    def identity(self) -> str:
        """Every parameter and :data:`CHROME_SCHEME` in one string (``chrome4-t20-r4.0-b40-w0.5``;
        ``-c`` the corpus threshold when set, ``-d0`` without digit folding): part of the
        fingerprint identity of pages masked with this rule
        (:attr:`neardup.ingest.fingerprint.FingerprintConfig.identity`).

        >>> ChromeRule.from_identity(ChromeRule(30, 50).identity) == ChromeRule(30, 50)
        True
        """
        parts = [f"chrome{CHROME_SCHEME}", f"t{self.min_pages}"]
        if self.corpus_min_pages is not None:
            parts.append(f"c{self.corpus_min_pages}")
        parts += [f"r{float(self.ratio)!r}", f"b{self.min_base_chars}",
                  f"w{float(self.warmup_share)!r}"]
        if not self.fold_digits:
            parts.append("d0")
        return "-".join(parts)

    @classmethod
    def from_identity(cls, identity: str) -> ChromeRule:
        """Inverse of :attr:`identity`; ``ValueError`` for another scheme or a malformed one."""
        head, _, rest = identity.partition("-")
        if head != f"chrome{CHROME_SCHEME}":
            raise ValueError(f"not a chrome rule of scheme {CHROME_SCHEME}: {identity!r}")
        try:
            parts = {p[0]: p[1:] for p in rest.split("-")}
            if not set("trbw") <= set(parts) <= set("trbwcd") or parts.get("d", "0") != "0":
                raise ValueError
            return cls(int(parts["t"]), int(parts["c"]) if "c" in parts else None,
                       float(parts["r"]), int(parts["b"]), float(parts["w"]), "d" not in parts)
        except (ValueError, IndexError, KeyError):
            raise ValueError(f"not a chrome rule identity: {identity!r}") from None


class ChromeCounts:
    """Per-site page counts of line keys, and the chrome decisions they support.

    ``observe(site, lines)`` counts one page (each key once); ``is_chrome(site, line)`` asks
    about one line; :meth:`chrome_flags` and :meth:`mask` decide a whole page with the
    page-level base. ``site`` is a :func:`site_key`. ``warmup`` (the online rule) judges a site
    with fewer than ``T`` pages by the warm-up share; without it (the two-pass rule, every
    count final) such a site has no chrome.
    """

    def __init__(self, rule: ChromeRule | None = None, counter: LineCounter | None = None,
                 warmup: bool = True):
        self.rule = rule or ChromeRule()
        self._counter: LineCounter = counter if counter is not None else ExactCounter()
        self._pages: dict[str, int] = {}
        self.warmup = warmup

    @property
    def counter(self) -> LineCounter:
        return self._counter

    def _key(self, line: str) -> str:
        return normalize_line(line, self.rule.fold_digits)

    def _observe_hashes(self, site: str, hashes: Collection[int]) -> None:
        """Count one page of ``site`` whose distinct lines have these (nonzero) hashes."""
        add_many = getattr(self._counter, "add_many", None)
        if add_many is not None:
            add_many(hashes)
        else:
            add = self._counter.add
            for h in hashes:
                add(h)
        self._pages[site] = self._pages.get(site, 0) + 1

    def observe(self, site: str, lines: Iterable[str]) -> None:
        """Count one page of ``site`` with these lines."""
        self._observe_hashes(site, _key_hashes(site, {k for k in map(self._key, lines) if k}))

    def observe_text(self, site: str, text: str) -> None:
        """:meth:`observe` the lines of ``text``."""
        self.observe_hashes(site, page_hashes(site, text, self.rule.fold_digits)[0])

    def observe_hashes(self, site: str, hashes: Iterable[int]) -> None:
        """:meth:`observe_text` of a text whose lines have these hashes (:func:`page_hashes`
        under this rule; a repeated line counts once, a blank one, 0, not at all)."""
        distinct = set(hashes)
        distinct.discard(0)
        self._observe_hashes(site, distinct)

    def observe_pages(self, pages: Sequence[tuple[str | None, str | None, str | None, str]]) -> int:
        """:meth:`observe_text` each ``(id, site, url, text)`` under its :func:`site_key`;
        returns how many pages were counted: all of them, a repeated id like any page (the
        counts of :class:`neardup.ingest.workers.chrome_counts.SharedChromeCounts` count an id
        once)."""
        for _, site, url, text in pages:
            self.observe_text(site_key(site, url), text)
        return len(pages)

    def forget_text(self, site: str, text: str) -> None:
        """Take back one page :meth:`observe_text` counted (a page deleted, or the old version
        of a page that changed): the counts become those of the pages present. Counters
        whose counts are sums (:class:`ExactCounter`, a plain sketch) only."""
        hashes = set(page_hashes(site, text, self.rule.fold_digits)[0])
        hashes.discard(0)
        add = self._counter.add
        for h in hashes:
            add(h, -1)  # type: ignore[call-arg]
        left = self._pages.get(site, 0) - 1
        if left > 0:
            self._pages[site] = left
        else:
            self._pages.pop(site, None)

    def merge(self, other: ChromeCounts) -> None:
        """Add the pages ``other`` observed (same rule; counters of one kind that merge:
        :class:`BoundedCounter`, :class:`ExactCounter`, plain :class:`SketchCounter`)."""
        if other.rule != self.rule:
            raise ValueError("counts of different rules do not merge")
        mine, theirs = self._counter, other._counter
        if isinstance(mine, BoundedCounter) and isinstance(theirs, BoundedCounter):
            mine.merge(theirs)
        elif isinstance(mine, ExactCounter) and isinstance(theirs, ExactCounter):
            mine.merge(theirs)
        elif isinstance(mine, SketchCounter) and isinstance(theirs, SketchCounter):
            mine.merge(theirs)
        else:
            raise TypeError(f"{type(mine).__name__} and {type(theirs).__name__} do not merge")
        for site, n in other._pages.items():
            self._pages[site] = self._pages.get(site, 0) + n

    def pages(self, site: str) -> int:
        """Pages of ``site`` observed."""
        return self._pages.get(site, 0)

    def sites(self) -> dict[str, int]:
        """Pages observed, per site."""
        return dict(self._pages)

    def count(self, site: str, line: str) -> int:
        """Pages of ``site`` observed with ``line``'s key (0 for a blank line)."""
        k = self._key(line)
        return self._counter.get(_line_hash(site, k)) if k else 0

    def ready(self, site: str) -> bool:
        """Whether ``site`` is past its warm-up (``T`` pages observed)."""
        return self.pages(site) >= self.rule.threshold(site)

    def _needed(self, site: str, pages: int | None = None) -> int:
        """Pages a line must be on to be chrome on ``site`` now (before the page's base);
        ``pages``: the site's page count when the caller has read it."""
        t = self.rule.threshold(site)
        p = self.pages(site) if pages is None else pages
        if p >= t or not self.warmup:
            return t
        return max(2, math.ceil(self.rule.warmup_share * p))

    def is_chrome(self, site: str, line: str) -> bool:
        """Whether ``line`` is chrome on ``site`` by the counts so far (without a page's base:
        :meth:`chrome_flags` adds it)."""
        n = self.count(site, line)
        return n > 0 and n >= self._needed(site)

    def _flags(self, site: str, hashes: Sequence[int], lengths: Sequence[int]) -> list[bool]:
        """Whether each line is chrome for this page, from its key's hash (0: a blank line)
        and length."""
        return self._decide(site, hashes, lengths)[0]

    def _decide(self, site: str, hashes: Sequence[int],
                lengths: Sequence[int]) -> tuple[list[bool], list[int]]:
        """:meth:`_flags`, and each line's count (all 0 when the site is too small to count)."""
        pages = self.pages(site)  # read once (a remote count is a round trip)
        need = self._needed(site, pages)
        if not self.warmup and pages < need:
            # no line of a site this small is on T of its pages
            return [False] * len(hashes), [0] * len(hashes)
        get_many = getattr(self._counter, "get_many", None)  # one request (remote), one C loop
        if get_many is not None:
            counts = list(get_many(hashes))
        else:
            get = self._counter.get
            counts = [get(h) if h else 0 for h in hashes]
        min_chars = self.rule.min_base_chars
        long = [n for k, n in zip(lengths, counts, strict=True) if k >= min_chars]
        base = max(1, min(long)) if long else 1
        above = max(need, math.ceil(self.rule.ratio * base) if base > 1 else 0)
        # A line on half the site's pages or more (and on T) is the site's, whatever the
        # page's base: a page whose own text is a heading beside the site's navigation.
        site_wide = max(self.rule.threshold(site), math.ceil(pages / 2))
        return [k > 0 and (n >= above or n >= site_wide)
                for k, n in zip(lengths, counts, strict=True)], counts

    def chrome_flags(self, site: str, lines: Sequence[str]) -> list[bool]:
        """For each of a page's lines, whether it is chrome for this page: on at least
        :meth:`_needed` pages and ``ratio`` times the page's base count."""
        keys = [self._key(line) for line in lines]
        return self._flags(site, _key_hashes(site, keys), [len(k) for k in keys])

    def _page_hashes(self, site: str, text: str) -> tuple[list[int], list[int]]:
        """:func:`page_hashes` of ``text`` under this rule."""
        return page_hashes(site, text, self.rule.fold_digits)

    def mask(self, site: str, text: str,
             hashes: tuple[Sequence[int], Sequence[int]] | None = None) -> str:
        """``text`` without its chrome lines (the others as they were, joined by ``\\n``);
        ``""`` when every line is chrome. The page's first line is its name (a text dump's
        title): chrome on fewer than half of the site's pages, it stays (a family's title,
        "Class Members"), and, where the lines after it are masked, it stays a block of its
        own, a blank line after it (:func:`neardup.verifier.subject.page_name` reads the first
        block); not when nothing else of the page is left. ``hashes``: the :func:`page_hashes`
        of ``text`` under this rule when the caller has them
        (:class:`neardup.ingest.chrome_pass.KeptHashes`)."""
        lines = text.split("\n")
        if hashes is None or len(hashes[0]) != len(lines):
            hashes = self._page_hashes(site, text)
        flags, counts = self._decide(site, *hashes)
        if not any(flags):
            return text
        # The name: the first line that is not blank. Kept if chrome on fewer than half of the
        # site's pages (on more, it is the site's: "Skip to content") and no longer than a
        # name (its key); made a block of its own if kept and followed by a masked line.
        name = next((i for i, h in enumerate(hashes[0]) if h), len(lines))
        if name < len(lines) and (
                (flags[name] and 2 * counts[name] < self.pages(site)
                 and hashes[1][name] <= NAME_CHARS)
                or (not flags[name] and name + 1 < len(lines) and flags[name + 1])):
            rest = "\n".join(line for line, chrome in zip(lines[name + 1:], flags[name + 1:],
                                                            strict=True) if not chrome)
            if rest.strip():
                return "\n".join(lines[:name + 1]) + ("\n" if rest[:1] == "\n" else "\n\n") + rest
        return "\n".join(line for line, chrome in zip(lines, flags, strict=True) if not chrome)
