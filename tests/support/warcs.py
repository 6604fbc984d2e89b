"""WARC and WET files for the tests, written by warcio's writer (the library crawlers use), from
real pages: what a crawl of them would have stored.

A :class:`Fetch` says what one record holds — a response (its HTTP status, content type and how
its body went over the wire: ``identity``, ``chunked``, ``gzip``, ``deflate``, ``br``,
``chunked+gzip``), a request, a revisit, metadata, a WET conversion, a DNS lookup — and
:func:`write_warc` writes them in order, per-record gzip members or plain, returning where each
record went (:class:`Written`). :func:`variant` makes a near-duplicate of a Python docs page:
a mirror's note in its main content and one paragraph dropped.
"""

from __future__ import annotations

import gzip as gzip_module
import io
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import brotli
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

ENCODINGS = ("identity", "chunked", "gzip", "deflate", "br", "chunked+gzip")


@dataclass(frozen=True)
class Fetch:
    """One record to write. ``kind``: ``response``, ``request``, ``revisit``, ``metadata``,
    ``conversion`` (a WET record), ``warcinfo`` or ``dns`` (a response that is no HTTP)."""

    url: str
    body: bytes = b""
    kind: str = "response"
    status: str = "200 OK"
    content_type: str | None = "text/html; charset=utf-8"
    encoding: str = "identity"


@dataclass(frozen=True)
class Written:
    """Where a record went: its ``WARC-Record-ID``, URL, kind and the offset it starts at."""

    record_id: str
    url: str
    kind: str
    offset: int


def chunked(data: bytes, size: int = 4000) -> bytes:
    """``data`` in HTTP/1.1 chunked framing."""
    out = bytearray()
    for i in range(0, len(data), size):
        piece = data[i : i + size]
        out += b"%x\r\n" % len(piece) + piece + b"\r\n"
    return bytes(out + b"0\r\n\r\n")


def _encoded(fetch: Fetch) -> tuple[bytes, list[tuple[str, str]]]:
    body, headers = fetch.body, []
    codings = fetch.encoding.split("+")
    if "gzip" in codings:
        body = gzip_module.compress(body, mtime=0)
        headers.append(("Content-Encoding", "gzip"))
    elif "deflate" in codings:
        body = zlib.compress(body)
        headers.append(("Content-Encoding", "deflate"))
    elif "br" in codings:
        body = brotli.compress(body)
        headers.append(("Content-Encoding", "br"))
    if "chunked" in codings:
        body = chunked(body)
        headers.append(("Transfer-Encoding", "chunked"))
    else:
        headers.append(("Content-Length", str(len(body))))
    return body, headers


def _record(writer: WARCWriter, fetch: Fetch) -> object:
    if fetch.kind == "warcinfo":
        return writer.create_warcinfo_record("crawl.warc.gz", {"software": "tests/support/warcs"})
    if fetch.kind == "request":
        parts = urlsplit(fetch.url)
        http = StatusAndHeaders(f"GET {parts.path or '/'} HTTP/1.1", [("Host", parts.netloc)],
                                is_http_request=True)  # fmt: skip
        return writer.create_warc_record(fetch.url, "request", payload=io.BytesIO(b""),
                                         http_headers=http)  # fmt: skip
    if fetch.kind == "revisit":
        http = StatusAndHeaders("200 OK", [("Content-Type", fetch.content_type or "text/html")],
                                protocol="HTTP/1.1")  # fmt: skip
        return writer.create_revisit_record(
            fetch.url, "sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", fetch.url,
            "2024-01-01T00:00:00Z", http_headers=http,
        )  # fmt: skip
    if fetch.kind in ("metadata", "conversion", "dns"):
        kind = "response" if fetch.kind == "dns" else fetch.kind
        content_type = {"metadata": "application/warc-fields", "dns": "text/dns"}.get(
            fetch.kind, fetch.content_type or "text/plain"
        )
        return writer.create_warc_record(fetch.url, kind, payload=io.BytesIO(fetch.body),
                                         warc_content_type=content_type)  # fmt: skip
    body, headers = _encoded(fetch)
    if fetch.content_type is not None:
        headers.insert(0, ("Content-Type", fetch.content_type))
    http = StatusAndHeaders(fetch.status, headers, protocol="HTTP/1.1")
    return writer.create_warc_record(fetch.url, "response", payload=io.BytesIO(body),
                                     http_headers=http)  # fmt: skip


def write_warc(path: Path, fetches: Sequence[Fetch], *, gzip: bool = True) -> list[Written]:
    """Write ``fetches`` as a WARC file (per-record gzip members when ``gzip``)."""
    written = []
    with path.open("wb") as f:
        writer = WARCWriter(f, gzip=gzip)
        for fetch in fetches:
            record = _record(writer, fetch)
            offset = f.tell()
            writer.write_record(record)
            rec_headers = record.rec_headers  # type: ignore[attr-defined]
            written.append(Written(rec_headers.get_header("WARC-Record-ID"),
                                   fetch.url, fetch.kind, offset))  # fmt: skip
    return written


_MAIN = b'<div class="body" role="main">'
_PARAGRAPH = re.compile(rb"<p>.*?</p>", re.S)


def variant(html: bytes, mirror: str) -> bytes:
    """A near-duplicate of a Python docs page as a mirror serves it: a note at the top of the
    main content, and its third paragraph dropped."""
    assert _MAIN in html, "not a Python docs page"
    note = f"<p>This page is mirrored by {mirror} for readers in its region.</p>".encode()
    out = html.replace(_MAIN, _MAIN + note, 1)
    paragraphs = list(_PARAGRAPH.finditer(out))
    if len(paragraphs) > 3:
        drop = paragraphs[3]
        out = out[: drop.start()] + out[drop.end() :]
    return out


def docs_pages(html_root: Path, n: int, max_bytes: int = 60_000) -> list[tuple[str, bytes]]:
    """``n`` pages of the Python docs (``library/*.html`` with a main content, at most
    ``max_bytes`` each, in name order) as ``(path, HTML bytes)``."""
    out = []
    for path in sorted(html_root.glob("library/*.html")):
        data = path.read_bytes()
        if len(data) <= max_bytes and _MAIN in data and len(_PARAGRAPH.findall(data)) > 4:
            out.append((str(path.relative_to(html_root)), data))
            if len(out) == n:
                break
    assert len(out) == n, f"only {len(out)} pages of the Python docs fit"
    return out
