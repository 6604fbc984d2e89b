"""The HTTP body of a WARC ``response`` as the server meant it: its transfer encoding
(``chunked``) and content encodings (``gzip``, ``deflate``, ``br``) undone.

A WARC keeps the bytes that came over the wire, so a body is often chunked, compressed, or
both; some crawlers store it decoded but keep the headers that say otherwise. Decoding is
therefore lenient where the bytes show they are decoded already (a body that is not chunked
framing is kept as it is; one that does not inflate but reads as markup or text is kept), and
strict otherwise: a body that neither inflates nor reads as text is a :class:`BodyError`.
Inflating stops past ``max_bytes`` (:class:`~neardup.ingest.errors.DocumentTooLarge`): a small
compressed body cannot fill the memory.
"""

from __future__ import annotations

import re
import zlib
from typing import Any

from neardup.ingest.errors import DocumentTooLarge, ExtractError

__all__ = ["BodyError", "decode_body", "dechunk"]

_CHUNK_SIZE = re.compile(rb"[ \t]*([0-9A-Fa-f]{1,16})[ \t]*(?:;[^\r\n]*)?\r?\n")
_STEP = 1 << 20  # bytes of output at a time while inflating


class BodyError(ExtractError):
    """An HTTP body that cannot be decoded (an unknown content encoding, bytes that do not
    inflate)."""


def decode_body(
    body: bytes,
    transfer_encoding: str | None,
    content_encoding: str | None,
    max_bytes: int,
) -> bytes:
    """``body`` with its transfer encoding and content encodings (from the ``Transfer-Encoding``
    and ``Content-Encoding`` headers) undone, the last applied first.

    >>> import gzip
    >>> decode_body(b"5\\r\\nhello\\r\\n0\\r\\n\\r\\n", "chunked", None, 100)
    b'hello'
    >>> decode_body(gzip.compress(b"<p>hi</p>"), None, "gzip", 100)
    b'<p>hi</p>'
    """
    if transfer_encoding and "chunked" in transfer_encoding.lower():
        body = dechunk(body)
    codings = [c.strip().lower() for c in (content_encoding or "").split(",")]
    for coding in reversed([c for c in codings if c and c != "identity"]):
        body = _decode(coding, body, max_bytes)
    if len(body) > max_bytes:
        raise DocumentTooLarge(f"HTTP body of {len(body)} bytes exceeds the {max_bytes}-byte limit")
    return body


def dechunk(body: bytes) -> bytes:
    """The data of a ``chunked`` body; ``body`` itself when it does not start as chunked
    framing (stored decoded), and the chunks read so far when it ends early (a crawler's
    truncated fetch).

    >>> dechunk(b"3\\r\\nabc\\r\\n2;x=y\\r\\nde\\r\\n0\\r\\n\\r\\n"), dechunk(b"<html>")
    (b'abcde', b'<html>')
    """
    parts: list[bytes] = []
    pos = 0
    while True:
        m = _CHUNK_SIZE.match(body, pos)
        if m is None:
            return body if not parts and pos == 0 else b"".join(parts)
        size = int(m.group(1), 16)
        if size == 0:
            return b"".join(parts)
        start = m.end()
        parts.append(body[start : start + size])
        if start + size >= len(body):
            return b"".join(parts)
        pos = start + size
        if body.startswith(b"\r\n", pos):
            pos += 2
        elif body.startswith(b"\n", pos):
            pos += 1


def _decode(coding: str, body: bytes, max_bytes: int) -> bytes:
    if coding in ("gzip", "x-gzip"):
        out = _inflate(body, 47, max_bytes)  # gzip or zlib header, either
    elif coding == "deflate":  # zlib-wrapped as the RFC says, or raw as many servers send
        out = _inflate(body, 15, max_bytes)
        if out is None:
            out = _inflate(body, -15, max_bytes)
    elif coding == "br":
        out = _unbrotli(body, max_bytes)
    else:
        raise BodyError(f"content encoding {coding!r} is not supported")
    if out is not None:
        return out
    if _reads_as_text(body):  # stored decoded by the crawler
        return body
    raise BodyError(f"the HTTP body does not decode as {coding!r}")


def _inflate(data: bytes, wbits: int, max_bytes: int) -> bytes | None:
    inflate = zlib.decompressobj(wbits)
    out: list[bytes] = []
    size = 0
    try:
        piece = inflate.decompress(data, _STEP)
        while True:
            out.append(piece)
            size += len(piece)
            if size > max_bytes:
                raise DocumentTooLarge(f"HTTP body inflates to over {max_bytes} bytes")
            if inflate.eof or not inflate.unconsumed_tail:
                break
            piece = inflate.decompress(inflate.unconsumed_tail, _STEP)
        if not inflate.eof:
            out.append(inflate.flush())  # a body cut short: what there is of it
    except zlib.error:
        return None
    if size == 0 and not inflate.eof:
        return None
    return b"".join(out)


def _unbrotli(data: bytes, max_bytes: int) -> bytes | None:
    import brotli

    decoder: Any = brotli.Decompressor()
    out: list[bytes] = []
    size = 0
    try:
        piece = decoder.process(data, output_buffer_limit=_STEP)
        while True:
            out.append(piece)
            size += len(piece)
            if size > max_bytes:
                raise DocumentTooLarge(f"HTTP body inflates to over {max_bytes} bytes")
            if decoder.is_finished() or decoder.can_accept_more_data():
                break
            piece = decoder.process(b"", output_buffer_limit=_STEP)
    except brotli.error:
        return None
    return b"".join(out) if size or decoder.is_finished() else None


def _reads_as_text(data: bytes) -> bool:
    """Whether ``data`` is text as sent (markup, or mostly printable), not compressed bytes."""
    head = data[:512]
    if not head.strip():
        return True
    if head.lstrip()[:1] == b"<":
        return True
    binary = sum(1 for b in head if b < 9 or 13 < b < 32)
    return binary == 0
