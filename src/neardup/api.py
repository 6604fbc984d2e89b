"""The front door for Python programs: compare two pages, group pages, submit pages to a
running pipeline, read a page's group.

Pages are what a JSONL line of ``neardup dedup`` holds, as a mapping: ``text`` or ``html``
(or ``rst``, ``markdown``), ``id`` (:func:`compare` needs none), and optionally ``url``,
``site``, ``title``; a plain string, a page of text (for :func:`dedup`, its position in the
input is its id); and the pages :func:`read_warc` reads from a WARC or WET file. Every page
goes through the same input layer as the command line, so a bad page is one page's error
(:class:`Grouped.error`, or :class:`~neardup.ingest.errors.DocumentError` from
:func:`compare`), never a crash of the whole call.

>>> import neardup
>>> story = ("The river flooded the old town on Monday night. Residents were moved to the "
...          "school on the hill, where volunteers served soup until morning. The mayor said "
...          "the dikes built in 1953 held for most of the night before a section gave way.")
>>> neardup.compare(story, story + " Repairs start next week.").similar
True
>>> pages = [{"id": "a", "text": story}, {"id": "b", "text": "Repost: " + story},
...          {"id": "c", "text": "A recipe for bread: flour, water, salt and a long rise."}]
>>> [(g.id, g.dup_group) for g in neardup.dedup(pages)]
[('a', 'a'), ('b', 'a'), ('c', 'c')]
>>> [(g.id, g.dup_group) for g in neardup.dedup(p["text"] for p in pages)]
[('0', '0'), ('1', '0'), ('2', '2')]

:func:`submit` and :func:`group_of` talk to a running pipeline (the engine of
:class:`~neardup.ingest.settings.Settings`, read from the environment unless given; the broker
is the environment's, as every worker's). Importing this module starts nothing and configures no
Celery app: :func:`submit` loads the workers' side (:mod:`neardup.ingest.submit`) when first
called, as the command line loads a command.
"""

from __future__ import annotations

import bisect
import contextlib
import importlib
import inspect
import json
import pickle
import struct
import tempfile
from collections.abc import Generator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any, overload

from neardup.ingest import records
from neardup.ingest.chrome import DEFAULT_MIN_PAGES, ChromeRule
from neardup.ingest.chrome_pass import chrome_counts
from neardup.ingest.crawl import read_warc
from neardup.ingest.dedup import DEFAULT_K, Grouping, decide_as_read
from neardup.ingest.errors import ConfigError, InvalidRecord
from neardup.ingest.pairs import compare_documents
from neardup.ingest.pipeline import Prepared, fingerprint_config, prepare_lines
from neardup.ingest.settings import Settings
from neardup.ingest.store import open_store
from neardup.verifier.compare import Verdict
from neardup.verifier.config import VerifyConfig

__all__ = ["Dedup", "Grouped", "compare", "dedup", "group_of", "read_warc", "submit"]

Page = str | Mapping[str, Any] | records.Page


@dataclass(frozen=True, slots=True)
class Grouped:
    """One page's place in the partition: ``dup_group`` is the id of its group's canonical
    member (the page's own id for a representative, whose ``dup_of`` and scores are None);
    ``dup_of`` is the member it was verified against. A page that could not be read has
    ``error`` (and ``error_type``, e.g. ``empty_document``) and no group."""

    id: str | None
    dup_group: str | None = None
    dup_of: str | None = None
    resemble: float | None = None
    contain: float | None = None
    error: str | None = None
    error_type: str | None = None


def _record(page: Page) -> Mapping[str, Any]:
    if isinstance(page, records.Page):
        return {**page.document(), "url": page.url, "site": page.site, "title": page.title}
    return {"text": page} if isinstance(page, str) else page


def compare(a: Page, b: Page, *, profile: str = "web") -> Verdict:
    """The verdict on two pages (``neardup compare`` on one pair): ``similar``, its ``reason``,
    the TLCS ``resemble`` and ``contain`` rates. ``profile`` names the verifier's parameters
    (``web``, ``precise``, ``short``). A bad page raises
    :class:`~neardup.ingest.errors.DocumentError`."""
    return compare_documents(_record(a), _record(b), VerifyConfig.profile(profile))


def _items(
    pages: Iterable[Page], *, positional: bool,
) -> Iterator[tuple[int, str | records.Page | InvalidRecord]]:
    """``(line_no, item)`` of each page, numbered from 1 as a file's lines are: a mapping as the
    JSON line it would be in a file, a reader's page as it is (validated by its reader:
    :func:`read_warc`), a plain string as ``{"id": position, "text": string}`` when
    ``positional`` (its position counted from 0), and anything else as that item's error."""
    for position, page in enumerate(pages):
        line_no = position + 1
        if isinstance(page, records.Page):
            yield line_no, page
            continue
        if isinstance(page, str):
            if not positional:
                yield line_no, InvalidRecord("a plain string has no id here: give a mapping "
                                             "with an 'id' and its 'text'")
                continue
            page = {"id": position, "text": page}
        elif not isinstance(page, Mapping):
            yield line_no, InvalidRecord(
                f"a page is a string or a mapping, got {type(page).__name__}")
            continue
        try:
            yield line_no, json.dumps(page if isinstance(page, dict) else dict(page),
                                      ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as exc:  # not JSON-like: that page's error alone
            yield line_no, InvalidRecord(f"page is not a mapping of strings and numbers: {exc}")


def _spooled(
    items: Iterable[tuple[int, str | records.Page | InvalidRecord]], file: IO[bytes],
) -> Iterator[tuple[int, str | records.Page | InvalidRecord]]:
    """``items`` as they are read, each also written to ``file`` (:func:`_respooled` reads
    them back): the two passes of the chrome rule over an input that can be read only once."""
    for item in items:
        data = pickle.dumps(item, pickle.HIGHEST_PROTOCOL)
        file.write(_SIZE.pack(len(data)))
        file.write(data)
        yield item


def _respooled(file: IO[bytes]) -> Iterator[tuple[int, str | records.Page | InvalidRecord]]:
    file.seek(0)
    # each item read by its size: pickle.load on the file peeks its whole 1 MB buffer per item
    while head := file.read(_SIZE.size):
        yield pickle.loads(file.read(_SIZE.unpack(head)[0]))  # noqa: S301 - this run's own file


_SIZE = struct.Struct("<Q")


def _failed(p: Prepared) -> Grouped:
    """The result of a page in error; one without an id is named by its position."""
    error = p.error or "not grouped"
    return Grouped(p.id, error=error if p.id is not None else f"item {p.line_no - 1}: {error}",
                   error_type=p.error_type or "not_grouped")


class Dedup(Sequence[Grouped]):
    """The groups of the pages given to :func:`dedup`: one :class:`Grouped` a page, in input
    order, as ``neardup dedup`` writes them on the same pages.

    The run is lazy: nothing is read until the result is used. Iterating it (or ``len``, an
    index, ``list(...)``) runs the dedup to the end of the input first, then yields each
    page's final group: a group can change until the last page is read, since a later page
    can join two groups. :meth:`decided` yields each page as soon as it is decided instead.

    Memory: texts wait in a temporary file while the pages are read, as in ``neardup dedup``,
    and once the input ends a result keeps each page's id and its place in the group forest
    (a few hundred bytes a page); each :class:`Grouped` is made when it is asked for.
    """

    def __init__(self, pages: Iterable[Page], *, profile: str, k: int, processes: int,
                 chrome: bool, chrome_min_pages: int) -> None:
        if k < 1 or processes < 1:
            raise ConfigError(f"k and processes must be >= 1, got k={k}, processes={processes}")
        self._grouping = Grouping()
        self._ids: list[str] = []  # the pages decided (not in error), in input order
        self._error_at: list[int] = []  # the positions of the pages in error
        self._errors: list[Grouped] = []  # and their results
        self._steps = self._run(pages, fingerprint_config(profile), profile, k, processes,
                                ChromeRule(min_pages=chrome_min_pages) if chrome else None)
        self._started = False
        self._following = False  # decided() is reading the run
        self._ended = False

    def _run(self, pages: Iterable[Page], config: Any, profile: str, k: int, processes: int,
             rule: ChromeRule | None) -> Generator[Grouped, None, None]:
        """Each page's result when it is decided: its group among the pages decided so far."""
        items = _items(pages, positional=True)
        with contextlib.ExitStack() as stack:
            counts = None
            if rule is not None:
                # The two passes of neardup dedup: every line of every plain-text page is
                # counted before any page is prepared, over a copy of the input on disk.
                spool = stack.enter_context(
                    tempfile.TemporaryFile(prefix="neardup-dedup-", buffering=1 << 20))
                counts = chrome_counts(_spooled(items, spool), rule)
                items = _respooled(spool)
            prepared = prepare_lines(items, config, processes=processes, chrome=counts)
            del counts  # held by the preparing pass alone
            for p in decide_as_read(prepared, self._grouping, profile, k):
                if p.doc is None:
                    failed = _failed(p)
                    self._error_at.append(p.line_no - 1)
                    self._errors.append(failed)
                    yield failed
                else:
                    self._ids.append(p.doc.id)
                    yield self._result(p.doc.id)
        self._ended = True

    def _result(self, doc_id: str) -> Grouped:
        return Grouped(doc_id, **self._grouping.group(doc_id))

    def _finish(self) -> None:
        if self._ended:
            return
        if self._following:
            raise RuntimeError("the run is being read by decided(): the results come after it")
        if inspect.getgeneratorstate(self._steps) == inspect.GEN_CLOSED:
            raise RuntimeError("this dedup run was closed before the end of its input")
        self._started = True
        for _ in self._steps:
            pass

    def decided(self) -> Iterator[Grouped]:
        """Each page as soon as it is decided, in input order, then each page whose result
        changed since, with its final one: the last result of a page is its final group.

        A page is decided once it is verified against its candidates among the pages before
        it; its result is then its group among the pages decided so far. A duplicate stays a
        duplicate; a later page can still join its group to an earlier one (its
        ``dup_group`` becomes the earlier group's) or resemble it more than its match did
        (its ``dup_of``): such pages come again once the input ends. With ``chrome`` (the
        default) no page is decided before the last is read: a page's chrome is counted over
        all pages. The run is then done, and iterating the result gives the final groups.

        Call it once, before any other use of the result."""
        if self._started:
            raise RuntimeError("decided() follows the run from its start: call it first")
        self._started = self._following = True
        said: list[tuple[str | None, str | None]] = []  # what each page decided was told
        try:
            for g in self._steps:
                if g.error is None:
                    said.append((g.dup_group, g.dup_of))
                yield g
        finally:
            self._following = False
        for doc_id, told in zip(self._ids, said, strict=True):
            now = self._result(doc_id)
            if (now.dup_group, now.dup_of) != told:
                yield now

    def close(self) -> None:
        """Stop a run before the end of its input: its temporary files and processes go."""
        self._steps.close()

    def __enter__(self) -> Dedup:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __len__(self) -> int:
        self._finish()
        return len(self._ids) + len(self._errors)

    @overload
    def __getitem__(self, i: int) -> Grouped: ...

    @overload
    def __getitem__(self, i: slice) -> list[Grouped]: ...

    def __getitem__(self, i: int | slice) -> Grouped | list[Grouped]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        n = len(self)
        at = i + n if i < 0 else i
        if not 0 <= at < n:
            raise IndexError("Dedup index out of range")
        e = bisect.bisect_left(self._error_at, at)
        if e < len(self._error_at) and self._error_at[e] == at:
            return self._errors[e]
        return self._result(self._ids[at - e])

    def __iter__(self) -> Iterator[Grouped]:
        self._finish()
        ids = iter(self._ids)
        e = 0
        for position in range(len(self)):
            if e < len(self._error_at) and self._error_at[e] == position:
                yield self._errors[e]
                e += 1
            else:
                yield self._result(next(ids))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Dedup | list | tuple):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        if not self._ended:
            return "<neardup.Dedup: not run to its end>"
        return f"<neardup.Dedup: {len(self)} pages, {len(self._errors)} in error>"


def dedup(
    pages: Iterable[Page],
    *,
    profile: str = "web",
    k: int = DEFAULT_K,
    processes: int = 1,
    chrome: bool = True,
    chrome_min_pages: int = DEFAULT_MIN_PAGES,
) -> Dedup:
    """The groups of ``pages``, in-process (``neardup dedup`` without servers): one
    :class:`Grouped` per page, in input order (:class:`Dedup`: a sequence, run when it is
    first used). ``pages`` is any iterable — a list, a generator, :func:`read_warc` — and is
    read once, as the results are asked for: the texts wait on disk, so a crawl of millions
    of pages fits, as in ``neardup dedup``; :meth:`Dedup.decided` yields each page as soon as
    it is decided.

    A mapping needs a unique ``id``; a plain string is the page ``{"id": i, "text": string}``,
    ``i`` its position in ``pages`` counted from 0 (its id is then ``str(i)``: an integer id is
    its decimal digits). An item that is not a page is that item's error, named by its
    position; the other pages are grouped as without it. ``k`` is the most candidates a page
    is verified against; ``processes`` the size of the pool that extracts and fingerprints the
    pages (each page is then verified in this process, as it is read). The partition depends
    on the set of pages alone, not on ``processes``.

    ``chrome`` (as ``neardup dedup``; False is its ``--no-chrome``): plain-text pages are
    compared without the lines that at least ``chrome_min_pages`` pages of their site carry
    (site chrome: header, navigation, footer; docs/chrome.md), counted over all ``pages``
    first — on a copy of the input in a temporary file when it is read."""
    return Dedup(pages, profile=profile, k=k, processes=processes, chrome=chrome,
                 chrome_min_pages=chrome_min_pages)


def submit(
    pages: Iterable[Page],
    *,
    settings: Settings | None = None,
    profile: str = "web",
    wait: bool = False,
    timeout: float = 600.0,
) -> dict[str, Any]:
    """Hand ``pages`` to a running pipeline (``neardup ingest``): workers index each page once,
    with its ``dup_group``; a page already indexed is ``unchanged``. Returns the counts
    (``accepted``, ``unchanged``, ``errors``); with ``wait``, also waits until every accepted
    page is indexed with its group (``indexed``, ``timed_out``, and ``pending`` when no page
    was indexed for ``timeout`` seconds). The broker and queue are those of the environment
    (``CELERY_BROKER_URL``, ``NEARDUP_QUEUE``: Celery's app is one per process); ``settings``
    naming another broker is a :class:`~neardup.ingest.errors.ConfigError`. Each page needs its
    ``id`` (the index keeps a page by it): a plain string is an error here."""
    settings = settings or Settings.from_env()
    prepared = prepare_lines(_items(pages, positional=False), fingerprint_config(profile))
    pipeline = importlib.import_module("neardup.ingest.submit")
    summary: dict[str, Any] = pipeline.submit_pages(
        prepared, settings, profile=profile, wait=wait, timeout=timeout
    )
    return summary


def group_of(page_id: str, *, settings: Settings | None = None) -> Grouped | None:
    """The group of an indexed page, read from the index of ``settings`` (``NEARDUP_INDEX``);
    None when no such page is indexed. A page not yet decided has ``dup_group`` None."""
    store = open_store("engine", settings or Settings.from_env())
    try:
        doc = store.get(page_id)
    finally:
        store.close()
    if doc is None:
        return None
    return Grouped(doc.id, doc.dup_group, doc.dup_of, doc.resemble, doc.contain, doc.error)
