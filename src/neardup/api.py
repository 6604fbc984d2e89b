"""The front door for Python programs: compare two pages, group pages, submit pages to a
running pipeline, read a page's group.

Pages are what a JSONL line of ``neardup dedup`` holds, as a mapping: ``text`` or ``html``
(or ``rst``, ``markdown``), and optionally ``id``, ``url``, ``site``, ``title``; a plain string
is a page of text; and the pages :func:`read_warc` reads from a WARC or WET file. Every page
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

:func:`submit` and :func:`group_of` talk to a running pipeline (the engine of
:class:`~neardup.ingest.settings.Settings`, read from the environment unless given; the broker
is the environment's, as every worker's). Importing this module starts nothing and configures no
Celery app: :func:`submit` loads the workers' side (:mod:`neardup.ingest.submit`) when first
called, as the command line loads a command.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from neardup.ingest import records
from neardup.ingest.chrome import DEFAULT_MIN_PAGES, ChromeRule
from neardup.ingest.crawl import read_warc
from neardup.ingest.dedup import DEFAULT_K, dedup_embedded
from neardup.ingest.errors import InvalidRecord
from neardup.ingest.pairs import compare_documents
from neardup.ingest.pipeline import Prepared, chrome_counts, fingerprint_config, prepare_lines
from neardup.ingest.settings import Settings
from neardup.ingest.store import open_store
from neardup.verifier.compare import Verdict
from neardup.verifier.config import VerifyConfig

__all__ = ["Grouped", "compare", "dedup", "group_of", "read_warc", "submit"]

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


def _lines(pages: Iterable[Page]) -> Iterator[tuple[int, str | records.Page | InvalidRecord]]:
    for line_no, page in enumerate(pages, 1):
        if isinstance(page, records.Page):  # validated by its reader (read_warc)
            yield line_no, page
            continue
        try:
            yield line_no, json.dumps(_record(page), ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as exc:  # not JSON-like: that page's error alone
            yield line_no, InvalidRecord(f"page is not a JSON object of strings: {exc}")


def _grouped(p: Prepared, groups: Mapping[str, Mapping[str, Any]]) -> Grouped:
    if p.error is not None or p.id is None or p.id not in groups:
        return Grouped(p.id, error=p.error or "not grouped", error_type=p.error_type or "not_grouped")
    g = groups[p.id]
    return Grouped(p.id, g["dup_group"], g["dup_of"], g["resemble"], g["contain"])


def dedup(
    pages: Iterable[Page],
    *,
    profile: str = "web",
    k: int = DEFAULT_K,
    processes: int = 1,
    chrome: bool = True,
    chrome_min_pages: int = DEFAULT_MIN_PAGES,
) -> list[Grouped]:
    """The groups of ``pages``, in-process (``neardup dedup`` without servers): one
    :class:`Grouped` per page, in input order. Each page needs a unique ``id``; ``k`` is the
    most candidates a page is verified against, ``processes`` the verifier's pool size. The
    partition depends on the set of pages alone, not on ``processes``.

    ``chrome`` (as ``neardup dedup``; False is its ``--no-chrome``): plain-text pages are
    compared without the lines that at least ``chrome_min_pages`` pages of their site carry
    (site chrome: header, navigation, footer; docs/chrome.md), counted over all ``pages``."""
    lines = list(_lines(pages))
    config = fingerprint_config(profile)
    counts = chrome_counts(lines, ChromeRule(min_pages=chrome_min_pages)) if chrome else None
    prepared = list(prepare_lines(lines, config, chrome=counts))
    del counts, lines
    groups = dedup_embedded(prepared, profile, k=k, processes=processes)
    return [_grouped(p, groups) for p in prepared]


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
    naming another broker is a :class:`~neardup.ingest.errors.ConfigError`."""
    settings = settings or Settings.from_env()
    prepared = prepare_lines(_lines(pages), fingerprint_config(profile))
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
