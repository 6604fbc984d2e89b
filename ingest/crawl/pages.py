"""WARC and WET records → pages: which records are pages, and what each page carries.

* A ``response`` record whose HTTP status is 200 and whose payload is HTML (``text/html``,
  ``application/xhtml+xml``, or no type and markup bytes) or plain text (``text/plain``) is a
  page: its HTTP body, decoded (:func:`~neardup.ingest.crawl.body.decode_body`), as ``html`` or
  ``text`` bytes with the HTTP ``Content-Type`` as the charset hint (the header's charset, then
  the page's ``<meta>``, then detection: :func:`neardup.ingest.extract.decode_html`).
* A ``conversion`` record (the text of a WET file) is a ``text`` page.
* Every other record is skipped and counted by kind (:class:`CrawlStats`): ``warcinfo``,
  ``request``, ``metadata``, ``revisit``, ``resource``, ... by WARC type, and, among
  responses, ``not_http`` (a DNS lookup), ``not_200`` (a redirect, an error page) and
  ``not_html`` (images, scripts, PDF).
* A record that cannot be read (truncated, corrupt: :mod:`neardup.ingest.crawl.framing`), or a
  page that breaks an input rule (docs/limits.md), is a :class:`RecordError` naming its offset.

A page's id is its ``WARC-Record-ID`` (``id_from="url"``: its ``WARC-Target-URI``), its ``url``
the ``WARC-Target-URI``; its ``site`` is left to the pipeline, which derives it from the URL
for every input alike (:func:`neardup.ingest.sites.site_of`).
"""

from __future__ import annotations

import collections
import os
from collections.abc import Iterator
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Any, Literal, TypedDict

from neardup.ingest.crawl.body import decode_body
from neardup.ingest.crawl.framing import Entry, entries
from neardup.ingest.errors import DocumentError
from neardup.ingest.records import DEFAULT_LIMITS, Limits, Page, validate_page

__all__ = [
    "HTML_TYPES",
    "TEXT_TYPES",
    "CrawlPage",
    "CrawlStats",
    "IdFrom",
    "RecordError",
    "WarcOptions",
    "warc_items",
]

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
TEXT_TYPES = frozenset({"text/plain"})
IdFrom = Literal["record", "url"]
_KEPT_PROBLEMS = 1000  # RecordErrors a CrawlStats keeps (all are counted)


@dataclass(frozen=True, slots=True)
class CrawlPage(Page):
    """A :class:`~neardup.ingest.records.Page` read from a WARC or WET record: ``source`` is the
    decoded HTTP body (``html`` or ``text`` bytes; a WET conversion's text), ``content_type`` the
    HTTP ``Content-Type``; ``offset`` is where the record starts in its file, ``date`` its
    ``WARC-Date`` and ``record_id`` its ``WARC-Record-ID`` (the page's ``id`` unless the URL was
    asked for)."""

    offset: int = 0
    date: str | None = None
    record_id: str | None = None


class RecordError(DocumentError, type="corrupt_record"):
    """A WARC/WET record that is not a page it looked like: unreadable (``type``
    ``corrupt_record``), or a page that breaks an input rule (the rule's ``type``, e.g.
    ``document_too_large``); ``offset`` is where the record starts in its file."""

    def __init__(
        self,
        message: str,
        doc_id: str | None = None,
        offset: int = 0,
        url: str | None = None,
        kind: str | None = None,
    ) -> None:
        super().__init__(message, doc_id)
        self.offset = offset
        self.url = url
        if kind is not None:
            self.type = kind

    def __str__(self) -> str:
        return f"{super().__str__()} (record at offset {self.offset})"

    def __reduce__(self) -> Any:
        return (type(self), (self.message, self.doc_id, self.offset, self.url, self.type))


class WarcOptions(TypedDict, total=False):
    """How :func:`warc_items` reads a file, for a function that passes them on
    (:func:`neardup.ingest.crawl.read_input`): its keyword arguments, each optional."""

    id_from: IdFrom
    stats: CrawlStats | None
    html: bool


@dataclass
class CrawlStats:
    """What a read of a WARC/WET file found: ``records`` in all, ``pages``, ``errors`` (records
    that could not be read, pages that break an input rule; the first 1000 kept in
    ``problems``), the ``skipped`` records by kind, and ``cut_at``: the offset of a gzip member
    the file ends inside, if it does."""

    records: int = 0
    pages: int = 0
    errors: int = 0
    skipped: collections.Counter[str] = dataclass_field(default_factory=collections.Counter)
    cut_at: int | None = None
    problems: list[RecordError] = dataclass_field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        """The counts as a JSON object (the ``warc`` part of a command's summary)."""
        return {"records": self.records, "pages": self.pages, "errors": self.errors,
                "skipped": dict(sorted(self.skipped.items()))}  # fmt: skip

    def cut_message(self, path: str | os.PathLike[str]) -> str | None:
        """The line a command prints when the file ends inside a gzip member."""
        if self.cut_at is None:
            return None
        return (f"{os.fspath(path)}: truncated gzip member at offset {self.cut_at}: the file "
                "ends inside a record; every record before it was read")  # fmt: skip


def warc_items(
    path: str | os.PathLike[str],
    limits: Limits = DEFAULT_LIMITS,
    *,
    id_from: IdFrom = "record",
    stats: CrawlStats | None = None,
    html: bool = True,
) -> Iterator[tuple[int, CrawlPage | RecordError]]:
    """``(number, page or error)`` of the WARC or WET file at ``path``: one for each record that
    is a page or should have been one (module docstring), numbered from 1 in file order;
    skipped records are counted in ``stats``. ``html`` false passes over HTML pages unread
    (a pass that needs only the plain-text pages: the chrome count)."""
    if id_from not in ("record", "url"):
        raise ValueError(f"id_from must be 'record' or 'url', got {id_from!r}")
    stats = stats if stats is not None else CrawlStats()
    number = 0

    def want(record: Any) -> bool:
        kind = _page_kind(record)
        return kind == "text" or (kind == "html" and html)

    for entry in entries(path, want, limits.max_record_bytes):
        if entry.cut:
            stats.cut_at = entry.offset
        if entry.problem is None and entry.record is None:
            continue  # the cut mark of a record given already
        stats.records += 1
        item = _item(entry, limits, id_from, want, stats)
        if item is None:
            continue
        number += 1
        if isinstance(item, RecordError):
            stats.errors += 1
            if len(stats.problems) < _KEPT_PROBLEMS:
                stats.problems.append(item)
        else:
            stats.pages += 1
        yield number, item


def _item(
    entry: Entry,
    limits: Limits,
    id_from: IdFrom,
    want: Any,
    stats: CrawlStats,
) -> CrawlPage | RecordError | None:
    """The page or error of an entry, or None for a record that is skipped (counted)."""
    record = entry.record
    url = _header(record, "WARC-Target-URI")
    if entry.problem is not None:
        return RecordError(entry.problem, _record_id(record, id_from), entry.offset, url)
    kind = _page_kind(record)
    if kind is None:
        stats.skipped[_skip_reason(record)] += 1
        return None
    if not want(record):
        return None  # an HTML page in a pass that reads the text pages only
    doc_id = _record_id(record, id_from)
    try:
        if doc_id is None:
            raise RecordError(f"no {'WARC-Target-URI' if id_from == 'url' else 'WARC-Record-ID'}"
                              " to take the page's id from")  # fmt: skip
        if entry.payload is None:
            raise RecordError(f"payload of {record.content_length} bytes exceeds the "
                              f"{limits.max_record_bytes}-byte limit; not read",
                              kind="document_too_large")  # fmt: skip
        if _header(record, "WARC-Type") == "conversion":
            body, content_type = entry.payload, _header(record, "Content-Type")
        else:
            http = record.http_headers
            body = decode_body(
                entry.payload,
                http.get("Transfer-Encoding"),
                http.get("Content-Encoding"),
                limits.max_doc_bytes,
            )
            content_type = http.get("Content-Type")
        if kind == "html" and not _mime(content_type) and not _looks_like_markup(body):
            stats.skipped["not_html"] += 1
            return None
        page = validate_page({"id": doc_id, kind: body, "url": url, "content_type": content_type},
                             limits)  # fmt: skip
    except DocumentError as exc:
        return RecordError(exc.message, exc.doc_id or doc_id, entry.offset, url, exc.type)
    return CrawlPage(
        id=page.id,
        field=page.field,
        source=page.source,
        url=page.url,
        content_type=page.content_type,
        offset=entry.offset,
        date=_header(record, "WARC-Date"),
        record_id=_header(record, "WARC-Record-ID"),
    )


def _header(record: Any, name: str) -> str | None:
    if record is None:
        return None
    value = record.headers.get(name)
    return None if value is None else str(value).strip()


def _record_id(record: Any, id_from: IdFrom) -> str | None:
    return _header(record, "WARC-Target-URI" if id_from == "url" else "WARC-Record-ID") or None


def _mime(content_type: str | None) -> str:
    return (content_type or "").split(";", 1)[0].strip().lower()


def _page_kind(record: Any) -> Literal["html", "text"] | None:
    """``html`` or ``text`` for a record that is a page, None for one that is skipped."""
    warc_type = (_header(record, "WARC-Type") or "").lower()
    if warc_type == "conversion":
        return "text"
    if warc_type != "response" or not record.is_http:
        return None
    http = record.http_headers
    if http.status_code != 200:
        return None
    mime = _mime(http.get("Content-Type"))
    if mime in HTML_TYPES or not mime:  # no type: a page if its bytes say so (_item)
        return "html"
    if mime in TEXT_TYPES:
        return "text"
    return None


def _looks_like_markup(body: bytes) -> bool:
    head = body[:1024].lower()
    return head.lstrip().startswith((b"<!doctype html", b"<html")) or b"<body" in head


def _skip_reason(record: Any) -> str:
    warc_type = (_header(record, "WARC-Type") or "unknown").lower()
    if warc_type != "response":
        return warc_type
    if not record.is_http:
        return "not_http"
    if record.http_headers.status_code != 200:
        return "not_200"
    return "not_html"
