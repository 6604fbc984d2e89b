"""JSONL lines → validated documents → :class:`~ingest.store.base.StoredDocument` with fingerprints.

Step 1 of the method as the batch tools see it, shared by ``neardup ingest``, ``neardup dedup``
and the HTTP server. Every line yields exactly one :class:`Prepared` — a document or a
per-document error carrying the id when one could be read — so a bad line never stops a run:
bad JSON, a missing/empty/non-string id, a duplicate id within the same input, no text, binary
junk, or an input over :data:`MAX_DOC_BYTES`.

Extraction and fingerprinting (the CPU part) run in a process pool when ``processes > 1``;
validation of ids (duplicates) stays in the calling process so it sees every line in order.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ingest.errors import ConfigError, DocumentError, DocumentTooLarge, EmptyDocument, ExtractError
from ingest.extract import MARKUP_FIELDS, document_texts
from ingest.fingerprint import PROFILES, index_terms
from ingest.settings import Settings
from ingest.store.base import StoredDocument

__all__ = [
    "MAX_DOC_BYTES",
    "MAX_ID_BYTES",
    "Prepared",
    "fingerprint_config",
    "parse_line",
    "prepare_document",
    "prepare_lines",
    "read_lines",
]

# Largest accepted JSONL line (the page with its JSON escaping) unless the caller passes its
# settings' max_doc_bytes (NEARDUP_MAX_DOC_BYTES); larger lines are errors.
MAX_DOC_BYTES = Settings.max_doc_bytes
# OpenSearch refuses _id values over 512 bytes.
MAX_ID_BYTES = 512
# Share of C0 control characters (other than tab/newline/CR) above which text is binary junk.
MAX_CONTROL_SHARE = 0.05


@dataclass(slots=True)
class Prepared:
    """One input line after step 1: ``doc`` or ``error`` (never both)."""

    line_no: int  # 1-based
    id: str | None
    doc: StoredDocument | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.doc is not None


def fingerprint_config(profile: str = "web") -> Any:
    """The :class:`~ingest.fingerprint.FingerprintConfig` of a named profile (web|short)."""

    try:
        return PROFILES[profile]
    except KeyError:
        raise ConfigError(f"unknown profile {profile!r}; choose one of {sorted(PROFILES)}") from None


def read_lines(path: str | os.PathLike[str]) -> Iterator[tuple[int, bytes]]:
    """``(line_no, raw bytes)`` of every non-blank line of a JSONL file (``-`` = stdin)."""
    import sys

    stream = sys.stdin.buffer if str(path) == "-" else Path(path).open("rb")
    try:
        for n, raw in enumerate(stream, 1):
            if raw.strip():
                yield n, raw
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()


def parse_line(
    raw: bytes | str, max_bytes: int | None = None
) -> tuple[str | None, dict[str, Any] | None, str | None]:
    """``(id, object, error)`` of one JSONL line; validates the line (at most ``max_bytes``,
    default :data:`MAX_DOC_BYTES`) and the id only."""
    limit = MAX_DOC_BYTES if max_bytes is None else max_bytes
    if len(raw) > limit:
        obj_id = _sniff_id(raw)
        return obj_id, None, str(
            DocumentTooLarge(f"document of {len(raw)} bytes exceeds {limit}", obj_id)
        )
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            return None, None, f"line is not UTF-8 (binary junk?): {exc.reason} at byte {exc.start}"
    try:
        obj = json.loads(raw)
    except json.JSONDecodeError as exc:
        return None, None, f"invalid JSON: {exc.msg} at column {exc.colno}"
    if not isinstance(obj, dict):
        return None, None, f"a line must be a JSON object, got {type(obj).__name__}"
    doc_id = obj.get("id")
    if doc_id is None:
        return None, None, "missing 'id'"
    if not isinstance(doc_id, str):
        return None, None, f"'id' must be a string, got {type(doc_id).__name__}: {doc_id!r}"[:300]
    if not doc_id.strip():
        return doc_id, None, "'id' is empty"
    try:
        id_bytes = len(doc_id.encode("utf-8"))
    except UnicodeEncodeError:
        return None, None, "'id' contains invalid code points (lone surrogates)"
    if id_bytes > MAX_ID_BYTES:
        return None, None, f"'id' is {id_bytes} bytes; at most {MAX_ID_BYTES}"
    return doc_id, obj, None


def _sniff_id(raw: bytes | str) -> str | None:
    """Best-effort id of a line too large to parse (looks at its first kilobytes only)."""
    head = raw[:4096]
    if isinstance(head, bytes):
        head = head.decode("utf-8", "replace")
    m = re.search(r'"id"\s*:\s*"((?:[^"\\]|\\.)*)"', head)
    if not m:
        return None
    try:
        value = json.loads(f'"{m.group(1)}"')
        return value if isinstance(value, str) else None
    except json.JSONDecodeError:
        return None


def _clean_text(text: str, doc_id: str) -> str:
    if "\x00" in text or any(ord(c) < 32 for c in text[:2000] if c not in "\t\n\r"):
        controls = sum(1 for c in text if ord(c) < 32 and c not in "\t\n\r")
        if controls > MAX_CONTROL_SHARE * max(len(text), 1):
            raise ExtractError(f"text is binary junk ({controls} control characters)", doc_id)
        text = "".join(c if ord(c) >= 32 or c in "\t\n\r" else " " for c in text)
    text = _replace_surrogates(text)  # lone surrogates from JSON \ud800 escapes
    if not text.strip():
        raise EmptyDocument("no text", doc_id)
    return text


def _optional_str(obj: Mapping[str, Any], key: str) -> str | None:
    value = obj.get(key)
    if value is None:
        return None
    return _replace_surrogates(str(value))


_SURROGATE = re.compile("[\ud800-\udfff]")


def _replace_surrogates(text: str) -> str:
    """Lone surrogates (JSON ``\\ud800`` escapes) cannot be stored as UTF-8: U+FFFD each."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)
    return text


def prepare_document(obj: Mapping[str, Any], seq: int, config: Any) -> StoredDocument:
    """Extract the text of a validated JSONL object and fingerprint it.

    Raises :class:`~ingest.errors.DocumentError` (with the id) for a bad document.
    """

    doc_id = str(obj["id"])
    if all(obj.get(key) is None for key in MARKUP_FIELDS):
        names = [repr(k) for k in MARKUP_FIELDS]
        raise EmptyDocument(f"neither {', '.join(names[:-1])} nor {names[-1]}", doc_id)
    for key in MARKUP_FIELDS:
        if obj.get(key) is not None and not isinstance(obj[key], str):
            raise DocumentError(f"'{key}' must be a string", doc_id)
    try:
        texts = document_texts(obj)
    except DocumentError as exc:
        raise exc.with_id(doc_id) from None
    except (ValueError, TypeError) as exc:
        raise ExtractError(f"could not extract text: {exc}", doc_id) from None
    text = _clean_text(texts.text, doc_id)
    # The body (stored, verified) is the whole text; fingerprints come from the main content
    # (no navigation/header/footer/sidebars), so pages of one template don't share them.
    content: str | None = None
    if texts.content is not None and texts.content != texts.text:
        try:
            content = _clean_text(texts.content, doc_id)
        except DocumentError:
            content = None
    return StoredDocument(
        id=doc_id,
        body=text,
        fingerprints=index_terms(text, config, content=content),
        fp_config=config.identity,
        seq=seq,
        url=_optional_str(obj, "url"),
        site=_optional_str(obj, "site"),
        title=_optional_str(obj, "title"),
        content=content,
    )


def _prepare_one(item: tuple[int, int, dict[str, Any], Any]) -> Prepared:
    line_no, seq, obj, config = item
    doc_id = str(obj["id"])
    try:
        return Prepared(line_no, doc_id, doc=prepare_document(obj, seq, config))
    except DocumentError as exc:
        return Prepared(line_no, doc_id, error=str(exc.with_id(doc_id)))
    except Exception as exc:  # a bug or an extractor crash: still one document's failure
        return Prepared(line_no, doc_id, error=f"{doc_id}: {type(exc).__name__}: {exc}")


def prepare_lines(
    lines: Iterable[tuple[int, bytes | str]],
    config: Any,
    seq_base: int = 0,
    processes: int = 1,
    chunksize: int = 32,
    max_doc_bytes: int | None = None,
) -> Iterator[Prepared]:
    """One :class:`Prepared` per line, in input order; ``seq = seq_base + line_no``.

    A repeated id is an error for the repeat (the first occurrence wins); a line over
    ``max_doc_bytes`` (``Settings.max_doc_bytes``; default :data:`MAX_DOC_BYTES`) is an error.
    """
    seen: set[str] = set()

    def items() -> Iterator[tuple[int, int, dict[str, Any], Any] | Prepared]:
        for line_no, raw in lines:
            doc_id, obj, error = parse_line(raw, max_doc_bytes)
            if error is None and doc_id in seen:
                error = f"{doc_id}: duplicate id (first seen earlier in this input)"
            if error is not None or obj is None:
                yield Prepared(line_no, doc_id, error=error or "unreadable line")
                continue
            seen.add(doc_id)  # type: ignore[arg-type]
            yield (line_no, seq_base + line_no, obj, config)

    if processes <= 1:
        for it in items():
            yield it if isinstance(it, Prepared) else _prepare_one(it)
        return
    # Errors found while reading must keep their place in the output: route every item
    # through the pool, passing ready-made results straight back.
    ctx = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    with ctx.Pool(processes) as pool:
        yield from pool.imap(_passthrough_or_prepare, items(), chunksize=chunksize)


def _passthrough_or_prepare(it: Any) -> Prepared:
    return it if isinstance(it, Prepared) else _prepare_one(it)
