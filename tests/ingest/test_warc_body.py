"""HTTP bodies as a WARC stores them, decoded (neardup.ingest.crawl.body): chunked framing and
the gzip, deflate (zlib-wrapped and raw) and br content encodings, in any combination; bodies a
crawler stored decoded under headers that say otherwise; and no inflating past the limit."""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path

import brotli
import pytest
from support.warcs import chunked

from neardup.ingest.crawl.body import BodyError, dechunk, decode_body
from neardup.ingest.errors import DocumentTooLarge


@pytest.fixture(scope="module")
def page(python_doc_html: Path) -> bytes:
    return (python_doc_html / "library" / "os.html").read_bytes()


def _raw_deflate(data: bytes) -> bytes:
    c = zlib.compressobj(wbits=-15)
    return c.compress(data) + c.flush()


@pytest.mark.parametrize(
    ("encode", "transfer", "content"),
    [
        (chunked, "chunked", None),
        (lambda b: gzip.compress(b), None, "gzip"),
        (lambda b: gzip.compress(b), None, "x-gzip"),
        (zlib.compress, None, "deflate"),
        (_raw_deflate, None, "deflate"),
        (brotli.compress, None, "br"),
        (lambda b: chunked(gzip.compress(b), 1000), "chunked", "gzip"),
        (lambda b: brotli.compress(gzip.compress(b)), None, "gzip, br"),
    ],
    ids=["chunked", "gzip", "x-gzip", "deflate", "raw-deflate", "br", "chunked-gzip", "gzip-br"],
)
def test_every_encoding_is_undone(
    page: bytes, encode: object, transfer: str | None, content: str | None
) -> None:
    sent = encode(page)  # type: ignore[operator]
    assert sent != page
    assert decode_body(sent, transfer, content, len(page)) == page


def test_a_body_stored_decoded_is_kept_as_it_is(page: bytes) -> None:
    assert decode_body(page, "chunked", "gzip", len(page)) == page
    assert dechunk(page) == page


def test_a_chunked_body_cut_short_keeps_the_chunks_read(page: bytes) -> None:
    framed = chunked(page, 1000)  # chunks of "3e8\r\n" + 1000 bytes + "\r\n"
    got = decode_body(framed[:2500], "chunked", None, len(page))
    assert got == page[: 2500 - 3 * 5 - 2 * 2]  # two whole chunks and the start of the third


def test_bytes_that_neither_inflate_nor_read_as_text_are_an_error() -> None:
    with pytest.raises(BodyError, match="does not decode as 'gzip'"):
        decode_body(b"\x1f\x8b\x08\x00" + bytes(range(256)), None, "gzip", 1 << 20)
    with pytest.raises(BodyError, match="not supported"):
        decode_body(b"\x28\xb5\x2f\xfd", None, "zstd", 1 << 20)


@pytest.mark.parametrize("coding", ["gzip", "br"])
def test_no_inflating_past_the_limit(coding: str) -> None:
    bomb = bytes(64 << 20)  # 64 MiB of zeros: a few KiB compressed
    sent = gzip.compress(bomb) if coding == "gzip" else brotli.compress(bomb, quality=1)
    assert len(sent) < 1 << 20
    with pytest.raises(DocumentTooLarge):
        decode_body(sent, None, coding, 8 << 20)
