"""JSONL lines → validated documents → :class:`~neardup.ingest.store.base.StoredDocument` with fingerprints.

Step 1 of the method as the batch tools see it, shared by ``neardup ingest``, ``neardup dedup``
and the HTTP server. Records are decoded and validated by :mod:`neardup.ingest.records` (the input
layer every path uses); every line yields exactly one :class:`Prepared` — a document or a
per-document error with its line, its type and the id when one could be read — so a bad line
never stops a run.

Extraction and fingerprinting (the CPU part) run in a process pool when ``processes > 1``;
decoding, validation and the duplicate-id rule stay in the calling process so it sees every line
in order, and only validated pages (plain strings) travel to the pool.
"""

from __future__ import annotations

import collections
import multiprocessing
import os
import threading
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from neardup.ingest.errors import ConfigError, DocumentError, DuplicateId, ExtractError
from neardup.ingest.extract import document_texts
from neardup.ingest.fingerprint import PROFILES, index_terms
from neardup.ingest.records import (
    DEFAULT_LIMITS,
    Limits,
    Page,
    clean_text,
    decode_record,
    read_jsonl,
    validate_id,
    validate_page,
)
from neardup.ingest.store.base import StoredDocument

__all__ = [
    "MAX_DOC_BYTES",
    "MAX_ID_BYTES",
    "Prepared",
    "fingerprint_config",
    "prepare_document",
    "prepare_lines",
    "read_lines",
]

# The default limits (neardup.ingest.records.Limits; NEARDUP_MAX_DOC_BYTES moves the first).
MAX_DOC_BYTES = DEFAULT_LIMITS.max_doc_bytes
MAX_ID_BYTES = DEFAULT_LIMITS.max_id_bytes


@dataclass(slots=True)
class Prepared:
    """One input line after step 1: ``doc`` or ``error`` (never both); ``error_type`` is the
    error's kind (:attr:`neardup.ingest.errors.DocumentError.type`).

    Stage: step 1 on a JSONL input (``neardup ingest``, ``neardup dedup``, :func:`neardup.dedup`,
    :func:`neardup.submit`), one per line, in order. Not a page itself: an outcome holding the
    page's :class:`~neardup.ingest.store.base.StoredDocument` (made from its
    :class:`~neardup.ingest.records.Page`), which is what goes on — accepted in a staged batch
    (:class:`neardup.ingest.workers.staging.StagedBatch`) or into the embedded dedup. The HTTP
    service's per-item twin is :class:`neardup.ingest.server.service.IngestItem`."""

    line_no: int  # 1-based
    id: str | None
    doc: StoredDocument | None = None
    error: str | None = None
    error_type: str | None = None

    @property
    def ok(self) -> bool:
        return self.doc is not None

    @classmethod
    def failed(cls, line_no: int, exc: DocumentError, doc_id: str | None = None) -> Prepared:
        doc_id = exc.doc_id if exc.doc_id is not None else doc_id
        return cls(line_no, doc_id, error=str(exc.with_id(doc_id)), error_type=exc.type)


def fingerprint_config(profile: str = "web") -> Any:
    """The :class:`~neardup.ingest.fingerprint.FingerprintConfig` of a named profile (web|short)."""

    try:
        return PROFILES[profile]
    except KeyError:
        raise ConfigError(f"unknown profile {profile!r}; choose one of {sorted(PROFILES)}") from None


def read_lines(
    path: str | os.PathLike[str], limits: Limits = DEFAULT_LIMITS
) -> Iterator[tuple[int, bytes | DocumentError]]:
    """``(line_no, raw bytes)`` of every non-blank line of a JSONL file (``-`` = stdin); a line
    over the record limit comes as its error (:func:`neardup.ingest.records.read_jsonl`)."""
    return read_jsonl(path, limits)


def prepare_document(
    obj: Page | Mapping[str, Any], seq: int, config: Any, limits: Limits = DEFAULT_LIMITS
) -> StoredDocument:
    """Extract the text of a page and fingerprint it; a mapping is validated first
    (:func:`neardup.ingest.records.validate_page`).

    Raises :class:`~neardup.ingest.errors.DocumentError` (with the id) for a bad document.
    """
    page = obj if isinstance(obj, Page) else validate_page(obj, limits)
    doc_id = page.id or ""
    try:
        texts = document_texts(page.document(), max_bytes=limits.max_doc_bytes)
    except DocumentError as exc:
        raise exc.with_id(doc_id) from None
    except (ValueError, TypeError) as exc:
        raise ExtractError(f"could not extract text: {exc}", doc_id) from None
    text = clean_text(texts.text, doc_id)
    # The body (stored, verified) is the whole text; fingerprints come from the main content
    # (no navigation/header/footer/sidebars), so pages of one template don't share them.
    content: str | None = None
    if texts.content is not None and texts.content != texts.text:
        try:
            content = clean_text(texts.content, doc_id)
        except DocumentError:
            content = None
    return StoredDocument(
        id=doc_id,
        body=text,
        fingerprints=index_terms(text, config, content=content),
        fp_config=config.identity,
        seq=seq,
        url=page.url,
        site=page.site,
        title=page.title,
        content=content,
    )


def _prepare_one(item: tuple[int, int, Page, Any, Limits]) -> Prepared:
    line_no, seq, page, config, limits = item
    doc_id = page.id
    try:
        return Prepared(line_no, doc_id, doc=prepare_document(page, seq, config, limits))
    except DocumentError as exc:
        return Prepared.failed(line_no, exc, doc_id)
    except Exception as exc:  # a bug or an extractor crash: still one document's failure
        return Prepared(line_no, doc_id, error=f"{doc_id}: {type(exc).__name__}: {exc}",
                        error_type="document_error")


def prepare_lines(
    lines: Iterable[tuple[int, bytes | str | DocumentError]],
    config: Any,
    seq_base: int = 0,
    processes: int = 1,
    chunksize: int = 32,
    max_doc_bytes: int | None = None,
    limits: Limits | None = None,
    ahead: int = 1024,
) -> Iterator[Prepared]:
    """One :class:`Prepared` per line, in input order; ``seq = seq_base + line_no``.

    ``limits`` (default: :data:`neardup.ingest.records.DEFAULT_LIMITS` with ``max_doc_bytes`` when
    given) are the input rules. A repeated id is an error for the repeat: the first record
    with a valid id claims it, even when the rest of that record is bad. With a pool, at most
    ``ahead`` pages (or two chunks per process, if more) are read before the caller takes them.
    """
    if limits is None:
        limits = DEFAULT_LIMITS if max_doc_bytes is None else Limits(max_doc_bytes=max_doc_bytes)
    seen: dict[str, int] = {}

    def items() -> Iterator[tuple[int, int, Page, Any, Limits] | Prepared]:
        for line_no, raw in lines:
            doc_id: str | None = None
            try:
                if isinstance(raw, DocumentError):
                    raise raw
                obj = decode_record(raw, limits)
                doc_id = validate_id(obj.get("id"), limits)
                if doc_id in seen:
                    raise DuplicateId(
                        f"duplicate id (first seen on line {seen[doc_id]} of this input)", doc_id
                    )
                seen[doc_id] = line_no
                page = validate_page(obj, limits)
            except DocumentError as exc:
                yield Prepared.failed(line_no, exc, doc_id)
                continue
            # one int object for line and seq when they are equal (they are by default)
            yield (line_no, seq_base + line_no if seq_base else line_no, page, config, limits)

    if processes <= 1:
        for it in items():
            yield it if isinstance(it, Prepared) else _prepare_one(it)
        return
    # Errors found while reading must keep their place in the output: route every item
    # through the pool, passing ready-made results straight back. Bounded: the pool's feeder
    # thread takes a slot per item and the caller frees one per result, so at most
    # ``max_ahead`` pages are between the reader and the caller (``imap`` alone reads the whole
    # input and queues every finished page when the caller is the slower side).
    # A result comes back with its own copies of the id, line number and seq: the reader's
    # (the id is also a key of ``seen``) replace them, one object each per document.
    max_ahead = max(ahead, 2 * chunksize * processes)
    slots = threading.BoundedSemaphore(max_ahead)
    done = threading.Event()
    sent: collections.deque[tuple[int, int, str | None] | None] = collections.deque()

    def bounded() -> Iterator[tuple[int, int, Page, Any, Limits] | Prepared]:
        for it in items():
            while not slots.acquire(timeout=0.5):
                if done.is_set():  # the caller stopped early: let the pool's feeder end
                    return
            sent.append(None if isinstance(it, Prepared) else (it[0], it[1], it[2].id))
            yield it

    ctx = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    with ctx.Pool(processes) as pool:
        try:
            for result in pool.imap(_passthrough_or_prepare, bounded(), chunksize=chunksize):
                mine = sent.popleft()
                slots.release()
                if mine is not None:
                    _adopt(result, *mine)
                yield result
        finally:
            done.set()  # before the pool's exit joins its feeder


def _adopt(p: Prepared, line_no: int, seq: int, doc_id: str | None) -> None:
    """Make ``p`` hold the given (equal) objects instead of its own copies."""
    if p.line_no == line_no:
        p.line_no = line_no
    if doc_id is not None and p.id == doc_id:
        p.id = doc_id
    d = p.doc
    if d is not None:
        if doc_id is not None and d.id == doc_id:
            d.id = doc_id
        if d.seq == seq:
            d.seq = seq


def _passthrough_or_prepare(it: Any) -> Prepared:
    return it if isinstance(it, Prepared) else _prepare_one(it)
