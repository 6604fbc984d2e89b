"""Crawls in: the pages of WARC and WET files (Heritrix, ``wget --warc-file``, Browsertrix,
Common Crawl), read as they stream, one record in memory at a time.

* :mod:`~neardup.ingest.crawl.framing` — the records and their offsets (FastWARC), damage
  reported per record;
* :mod:`~neardup.ingest.crawl.body` — an HTTP body's chunked and gzip/deflate/br encodings
  undone;
* :mod:`~neardup.ingest.crawl.pages` — which records are pages (:class:`CrawlPage`), what was
  skipped (:class:`CrawlStats`), the records in error (:class:`RecordError`);
* :mod:`~neardup.ingest.crawl.inputs` — an input told by its content, WARC or JSONL, and read
  (:func:`read_input`, what ``neardup dedup`` and ``neardup ingest`` read through).

:func:`read_warc` is the library's door: the pages of a WARC or WET file, ready for
:func:`neardup.dedup` or :func:`neardup.submit`.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator

from neardup.ingest.crawl.inputs import InputFormat, input_format, read_input, sniff
from neardup.ingest.crawl.pages import (
    CrawlPage,
    CrawlStats,
    IdFrom,
    RecordError,
    warc_items,
)
from neardup.ingest.records import DEFAULT_LIMITS, Limits

__all__ = [
    "CrawlPage",
    "CrawlStats",
    "IdFrom",
    "InputFormat",
    "RecordError",
    "input_format",
    "read_input",
    "read_warc",
    "sniff",
    "warc_items",
]

log = logging.getLogger(__name__)


def read_warc(
    path: str | os.PathLike[str],
    *,
    id_from: IdFrom = "record",
    stats: CrawlStats | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> Iterator[CrawlPage]:
    """The pages of the WARC or WET file at ``path`` (``.warc``, ``.warc.gz``, ``.wet.gz``), in
    file order, read as they are asked for: HTML and plain-text responses with status 200, and
    WET conversions (:mod:`neardup.ingest.crawl.pages`). Each page's id is its
    ``WARC-Record-ID`` (``id_from="url"``: its URL). Skipped records, and records that could not
    be read — each logged as a warning with its offset — are counted in ``stats``."""
    stats = stats if stats is not None else CrawlStats()
    for _, item in warc_items(path, limits, id_from=id_from, stats=stats):
        if isinstance(item, RecordError):
            log.warning("%s: %s", os.fspath(path), item)
        else:
            yield item
    message = stats.cut_message(path)
    if message is not None:
        log.warning("%s", message)
