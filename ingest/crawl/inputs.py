"""What an input file is, told by its content (not its name), and the one way the commands
read it: JSONL lines, or the pages of a WARC or WET file.

A file whose first bytes are ``WARC/`` — or a gzip member that inflates to them (``.warc.gz``,
``.wet.gz``) — is read as WARC (:func:`~neardup.ingest.crawl.pages.warc_items`); any other
file as JSONL (:func:`neardup.ingest.records.read_jsonl`). Gzip that is not WARC is refused
(JSONL is read uncompressed). Standard input (``-``) is looked at without being consumed; a
WARC on standard input is copied to a temporary file first, as the reader seeks in it.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import zlib
from collections.abc import Iterator
from typing import IO, TYPE_CHECKING, Literal

from neardup.ingest.crawl.framing import GZIP_MAGIC
from neardup.ingest.crawl.pages import CrawlPage, WarcOptions, warc_items
from neardup.ingest.errors import ConfigError, DocumentError
from neardup.ingest.records import DEFAULT_LIMITS, Limits, read_jsonl

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["InputFormat", "input_format", "read_input", "sniff", "spool"]

InputFormat = Literal["jsonl", "warc"]
_HEAD = 4096


def sniff(head: bytes) -> InputFormat:
    """The format of an input whose first bytes are ``head``.

    >>> import gzip
    >>> sniff(b"WARC/1.1\\r\\nWARC-Type: warcinfo"), sniff(gzip.compress(b"WARC/1.0\\r\\n"))
    ('warc', 'warc')
    >>> sniff(b'{"id": "a", "text": "..."}')
    'jsonl'
    """
    if head.startswith(GZIP_MAGIC):
        try:
            inner = zlib.decompressobj(31).decompress(head, 16)
        except zlib.error:
            inner = b""
        if inner.startswith(b"WARC/"):
            return "warc"
        raise ConfigError(
            "gzip-compressed input that is not WARC: neardup reads WARC and WET files "
            "(plain or gzipped) and JSONL (uncompressed; gunzip it first)"
        )
    return "warc" if head.startswith(b"WARC/") else "jsonl"


def input_format(path: str | os.PathLike[str]) -> InputFormat:
    """The format of the file at ``path`` (``-``: standard input, peeked at, not consumed);
    :class:`~neardup.ingest.errors.ConfigError` for gzip that is not WARC."""
    if os.fspath(path) == "-":
        stdin = sys.stdin.buffer
        peek = getattr(stdin, "peek", None)
        return sniff(peek(_HEAD)[:_HEAD] if peek is not None else b"")
    with open(path, "rb") as f:
        return sniff(f.read(_HEAD))


def spool(stream: IO[bytes], suffix: str = "") -> str:
    """``stream`` copied to a new temporary file: its path (the caller deletes it)."""
    fd, path = tempfile.mkstemp(prefix="neardup-input-", suffix=suffix)
    try:
        with os.fdopen(fd, "wb") as f:
            shutil.copyfileobj(stream, f, 1 << 20)
    except BaseException:
        os.unlink(path)
        raise
    return path


def read_input(
    path: str | os.PathLike[str], limits: Limits = DEFAULT_LIMITS, **warc: Unpack[WarcOptions]
) -> Iterator[tuple[int, bytes | CrawlPage | DocumentError]]:
    """``(number, item)`` of every record of an input file (``-``: standard input): a JSONL
    line's bytes (or its :class:`~neardup.ingest.errors.DocumentTooLarge`), numbered by line;
    or a WARC/WET file's pages and record errors, numbered in file order
    (:func:`~neardup.ingest.crawl.pages.warc_items`, which the keyword arguments ``warc``
    go to: ``id_from``, ``stats``, ``html``)."""
    stdin = os.fspath(path) == "-"
    if input_format(path) == "jsonl":
        yield from read_jsonl(sys.stdin.buffer if stdin else path, limits)
        return
    copy = spool(sys.stdin.buffer, suffix=".warc") if stdin else None
    try:
        yield from warc_items(path if copy is None else copy, limits, **warc)
    finally:
        if copy is not None:
            os.unlink(copy)
