"""The records of a WARC file (WARC and WET alike), each with the byte offset it starts at.

FastWARC (the resiliparse project) parses the records and inflates a gzipped file's members
as it streams: one record is in memory at a time, whatever the file's size. Left alone, it
passes over damage in silence — a record cut short by the end of the file comes back with a
short payload, a gzip member cut short can vanish — and a record it cannot parse ends its
iteration, losing the rest of the file. What this module adds, so that damage is one
record's problem, named by its offset, and never the file's:

* a record whose payload is shorter than its ``Content-Length`` says, or that lacks its
  ``Content-Length``/``WARC-Type`` headers, is an :class:`Entry` with a ``problem``;
* when FastWARC cannot parse a record, the problem is reported where that record starts (the
  end of the last good record) and reading resumes at the next record start after the last
  good one: ``WARC/1.x`` at the start of a line or, in a gzipped file, a gzip member that
  inflates to one;
* a gzipped file must end where its last member ends: a member the file ends inside is the
  file's last entry, with ``cut`` set.

Offsets are those of the file as stored: the record's first byte in an uncompressed file,
its gzip member's first byte in a gzipped one (the offsets a CDX index gives). A file gzipped
whole, as one member, has no per-record offsets; FastWARC's positions are then approximate.
"""

from __future__ import annotations

import os
import re
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

__all__ = ["GZIP_MAGIC", "Entry", "entries"]

GZIP_MAGIC = b"\x1f\x8b"
_MEMBER_START = b"\x1f\x8b\x08"  # gzip magic + deflate: what a member of a .warc.gz starts with
_RECORD_START = re.compile(rb"WARC/\d+\.\d+\r?\n")
_SCAN = 1 << 20  # bytes read at a time while looking for the next record start
_HEAD = 64 << 10  # the most bytes of WARC headers looked at to find where a record ends


@dataclass(slots=True)
class Entry:
    """What the file holds at ``offset``: a whole ``record`` (a ``fastwarc.warc.WarcRecord``,
    its WARC and HTTP headers parsed) and its ``payload`` when it was asked for; or a
    ``problem`` — why the bytes there are not a whole record. ``cut``: the file ends inside
    the gzip member at ``offset`` (its last entry; ``problem`` is None when the record there
    was given already, as a record or a problem)."""

    offset: int
    record: Any = None
    payload: bytes | None = None
    problem: str | None = None
    cut: bool = False


def entries(
    path: str | os.PathLike[str],
    want: Callable[[Any], bool],
    max_payload: int,
) -> Iterator[Entry]:
    """Every record of the WARC (or WET) file at ``path``, in file order, as an :class:`Entry`
    (module docstring). ``want(record)`` says whether a record's payload is read (the HTTP
    body of a response as sent: transfer and content encodings are the caller's); at most
    ``max_payload`` bytes are held, a longer payload is passed over like an unwanted one."""
    from fastwarc.warc import ArchiveIterator

    size = os.path.getsize(path)
    with open(path, "rb") as f:
        fd = f.fileno()
        gzipped = os.pread(fd, 2, 0) == GZIP_MAGIC
        start: int | None = 0
        reported = -1  # the offset of the last problem given: a resync never repeats it
        while start is not None:
            f.seek(start)
            records = ArchiveIterator(f, parse_http=True, auto_decode="none", fsspec_args=False)
            last: Entry | None = None  # the last whole record read since `start`
            current: int | None = None  # the record being read, if any
            try:
                for record in records:
                    current = record.stream_pos
                    entry = _read(record, want, max_payload)
                    current = None
                    if entry.problem is not None:
                        reported = entry.offset
                    else:
                        last = entry
                    yield entry
            except Exception as exc:  # noqa: BLE001 - FastWARC's parse and inflate errors
                if current is not None:  # reading this record's payload failed
                    at, after = current, current
                else:  # the next record's headers could not be parsed
                    at = start if last is None else _record_end(fd, last, gzipped, size)
                    after = start if last is None else last.offset
                if at != reported:
                    reported = at
                    yield Entry(at, problem=f"not a readable WARC record ({_reason(exc)}); "
                                "skipped to the next record start")  # fmt: skip
                start = _next_start(fd, after + 1, gzipped, size)
                continue
            begin, start = start, None
            tail = _tail(fd, last, begin, size) if gzipped else None
            if tail is None:
                continue
            if tail.offset == reported:  # the record there is reported already
                tail.problem = None
            if tail.cut:
                yield tail
            elif tail.problem is not None:  # not a member of a record: read on from the next
                reported = tail.offset
                yield tail
                start = _next_start(fd, tail.offset + 1, gzipped, size)


def _read(record: Any, want: Callable[[Any], bool], max_payload: int) -> Entry:
    offset = record.stream_pos
    headers = record.headers
    if headers.get("Content-Length") is None or headers.get("WARC-Type") is None:
        record.reader.consume()
        return Entry(offset, record, problem="truncated or corrupt WARC headers "
                     "(no Content-Length or WARC-Type)")  # fmt: skip
    expected = record.content_length
    payload: bytes | None = None
    if expected <= max_payload and want(record):
        payload = record.reader.read()
        got = len(payload)
    else:
        got = record.reader.consume()
    if got < expected:
        return Entry(offset, record, problem=f"truncated: the file ends {got} bytes into its "
                     f"{expected}-byte payload")  # fmt: skip
    return Entry(offset, record, payload)


def _reason(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text[:200]


def _record_end(fd: int, entry: Entry, gzipped: bool, size: int) -> int:
    """Where the record after ``entry`` should start: the end of its gzip member, or its
    headers, ``Content-Length`` bytes and the two line ends after them."""
    if gzipped:
        end, _ = _member_end(fd, entry.offset)
        return end if end is not None else size
    head = os.pread(fd, _HEAD, entry.offset)
    blank = head.find(b"\r\n\r\n")
    length = entry.record.headers.get("Content-Length") if entry.record is not None else None
    if blank < 0 or length is None or not length.strip().isdigit():
        return entry.offset + 1
    return min(size, entry.offset + blank + 4 + int(length) + 4)


def _member_end(fd: int, offset: int) -> tuple[int | None, bool]:
    """``(end, ok)`` of the gzip member at ``offset``: its end, or None when the file ends
    inside it; ``ok`` is false when the bytes there are no gzip member (then ``end`` is None)."""
    inflate = zlib.decompressobj(31)
    pos = offset
    try:
        while not inflate.eof:
            chunk = os.pread(fd, _SCAN, pos)
            if not chunk:
                return None, True
            pos += len(chunk)
            data = chunk
            while data and not inflate.eof:
                inflate.decompress(data, 1 << 20)  # the output is not kept: bounded memory
                data = inflate.unconsumed_tail
    except zlib.error:
        return None, False
    return pos - len(inflate.unused_data), True


def _tail(fd: int, last: Entry | None, begin: int, size: int) -> Entry | None:
    """After FastWARC's last record of a gzipped file (read from ``begin`` on): None when the
    file ends where the member of that record ends, else the entry for what follows it."""
    at = begin
    if last is not None:
        if os.pread(fd, 3, last.offset) != _MEMBER_START:
            return None  # one member for many records: no offsets to check against
        end, _ = _member_end(fd, last.offset)
        if end is None:
            return Entry(last.offset, cut=True)  # the record there was complete, or reported
        at = end
    if at >= size:
        return None
    end, ok = _member_end(fd, at)
    if ok and end is None:
        return Entry(at, problem="truncated gzip member: the file ends inside this record",
                     cut=True)  # fmt: skip
    return Entry(at, problem="not a gzip member of a WARC record; skipped to the next record "
                 "start")  # fmt: skip


def _next_start(fd: int, pos: int, gzipped: bool, size: int) -> int | None:
    """The first record start at or after ``pos``, or None."""
    while pos < size:
        block = os.pread(fd, _SCAN + 16, pos)
        if gzipped:
            i = block.find(_MEMBER_START)
            while 0 <= i < _SCAN:
                if _inflates_to_record(fd, pos + i):
                    return pos + i
                i = block.find(_MEMBER_START, i + 1)
        else:
            for m in _RECORD_START.finditer(block):
                i = m.start()
                if i >= _SCAN:
                    break
                before = block[i - 1 : i] if i else os.pread(fd, 1, pos - 1) if pos else b"\n"
                if before == b"\n":
                    return pos + i
        pos += _SCAN
    return None


def _inflates_to_record(fd: int, offset: int) -> bool:
    """Whether the gzip member at ``offset`` inflates to a WARC record — or could, as far as
    the file goes: a member cut before its first bytes inflate is a record start too (so the
    cut is reported)."""
    data = os.pread(fd, 4096, offset)
    try:
        head = zlib.decompressobj(31).decompress(data, 16)
    except zlib.error:
        return False
    return head.startswith(b"WARC/") or (not head and len(data) < 4096)
