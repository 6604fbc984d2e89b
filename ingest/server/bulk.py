"""The OpenSearch ``_bulk`` wire format, as pure functions (no I/O; unit tested on bytes).

``neardup serve`` answers ``POST /_bulk`` so that any pipeline that speaks the bulk API
(Logstash, Data Prepper, Fluent Bit, ``opensearchpy.helpers``) can send pages to neardup instead
of to OpenSearch. This module turns an NDJSON body into :class:`BulkOp` items and builds the
response items in OpenSearch's shape; ``neardup.ingest.server.app`` does the indexing and queueing.

Parsing follows OpenSearch: a malformed *action* line fails the whole request (400, the
position of the next action is unknown), a malformed *source* line fails only its item.
The body of ``POST /documents`` (a JSON object, a JSON array or JSONL) is parsed here too.
Lines and records are decoded by the input layer every path shares (:mod:`neardup.ingest.records`):
the same bad record gets the same error ``type`` here as in ``neardup ingest``.
"""

from __future__ import annotations

import base64
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from neardup.ingest.errors import DocumentError
from neardup.ingest.records import (
    CONTENT_FIELDS,
    DEFAULT_LIMITS,
    Limits,
    decode_json,
    decode_record,
    split_lines,
    validate_id,
)

__all__ = [
    "ACTIONS",
    "BulkOp",
    "BulkSyntaxError",
    "DocumentsSyntaxError",
    "Entry",
    "ItemError",
    "error_item",
    "generate_id",
    "ok_item",
    "parse_bulk",
    "parse_documents",
    "raw_document",
]

ACTIONS = ("index", "create", "update", "delete")
_WITH_SOURCE = ("index", "create", "update")

# Fields of a neardup input document (the `dedup` input contract, README). Other source
# fields are dropped: the pages index has a strict mapping.
DOCUMENT_FIELDS = ("id", *CONTENT_FIELDS, "url", "site", "title")


class BulkSyntaxError(ValueError):
    """The bulk body as a whole is malformed (HTTP 400, like OpenSearch)."""


class DocumentsSyntaxError(ValueError):
    """The ``POST /documents`` body as a whole is not JSON or JSONL (HTTP 400)."""


@dataclass(frozen=True, slots=True)
class ItemError:
    """A per-item failure: OpenSearch's ``{"type", "reason"}`` with the item's HTTP status."""

    status: int
    type: str
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "reason": self.reason}

    @classmethod
    def of(cls, exc: DocumentError, prefix: str = "") -> ItemError:
        """The item error of a bad record (its type from the input layer, always a 400)."""
        return cls(400, exc.type, prefix + exc.message)


# One document of a POST /documents body: its line (JSONL; None for an object or an array
# element) and the decoded object, or the error that stands in its place.
Entry = tuple[int | None, Mapping[str, Any] | ItemError]


@dataclass(slots=True)
class BulkOp:
    """One action of a bulk body (with its source line when the action has one)."""

    action: str  # index | create | update | delete
    index: str | None  # _index from the action line or the URL; None when neither names one
    id: str | None  # _id from the action line
    source: dict[str, Any] | None = None
    error: ItemError | None = None  # set when the item is invalid on its own


def _action(line: bytes, number: int, limits: Limits) -> Any:
    try:
        return decode_json(line.decode("utf-8"), limits)
    except (UnicodeDecodeError, DocumentError) as exc:
        reason = exc.message if isinstance(exc, DocumentError) else f"not UTF-8: {exc.reason}"
        raise BulkSyntaxError(
            f"Malformed action/metadata line [{number}]: not a JSON object ({reason})"
        ) from None


def parse_bulk(
    body: bytes, default_index: str | None = None, limits: Limits = DEFAULT_LIMITS
) -> list[BulkOp]:
    """Parse an NDJSON bulk body into operations, in order.

    >>> ops = parse_bulk(b'{"index": {"_id": "a"}}\\n{"text": "hi"}\\n{"delete": {"_id": "b"}}\\n')
    >>> [(op.action, op.id, op.source) for op in ops]
    [('index', 'a', {'text': 'hi'}), ('delete', 'b', None)]

    Raises :class:`BulkSyntaxError` for an empty body or a malformed action line.
    """
    ops: list[BulkOp] = []
    lines = split_lines(body)
    for number, line in lines:
        action_line = _action(line, number, limits)
        if not isinstance(action_line, dict) or len(action_line) != 1:
            raise BulkSyntaxError(
                f"Malformed action/metadata line [{number}], expected an object with exactly "
                f"one of {list(ACTIONS)}"
            )
        ((action, meta),) = action_line.items()
        if action not in ACTIONS:
            raise BulkSyntaxError(
                f"Malformed action/metadata line [{number}], expected field {list(ACTIONS)} "
                f"but found [{action}]"
            )
        if not isinstance(meta, dict):
            raise BulkSyntaxError(
                f"Malformed action/metadata line [{number}], expected START_OBJECT after [{action}]"
            )
        index = meta.get("_index", default_index)
        op = BulkOp(action=action, index=index if isinstance(index, str) else default_index, id=None)
        if meta.get("_id") is not None:
            try:  # the id rule of every path (neardup.ingest.records.validate_id)
                op.id = validate_id(meta["_id"], limits)
            except DocumentError as exc:
                op.error = ItemError(400, exc.type, f"_id on line [{number}]: {exc.message}")
        if action in _WITH_SOURCE:
            source_line = next(lines, None)
            if source_line is None:
                raise BulkSyntaxError(
                    f"Malformed bulk body: [{action}] on line [{number}] has no source line"
                )
            source_number, raw = source_line
            try:
                source = decode_record(raw, limits)
            except DocumentError as exc:
                if op.error is None:
                    op.error = ItemError.of(exc, f"source on line [{source_number}]: ")
            else:
                op.source = source
        ops.append(op)
    if not ops:
        raise BulkSyntaxError("request body is required (an NDJSON bulk body, one action per line)")
    return ops


def raw_document(
    op: BulkOp, text_field: str | None = None
) -> tuple[dict[str, Any] | None, ItemError | None]:
    """The neardup input document of an ``index``/``create`` operation.

    ``_id`` is the document id; a source ``id`` must agree with it. With ``text_field``, that
    source field stands for ``text`` when none of ``text``, ``html``, ``rst``, ``markdown``
    is present (Logstash's
    ``message``, Fluent Bit's ``log``).
    """
    if op.error is not None:
        return None, op.error
    source = op.source or {}
    doc = {k: source[k] for k in DOCUMENT_FIELDS if source.get(k) is not None}
    if (
        text_field
        and not any(k in doc for k in CONTENT_FIELDS)
        and source.get(text_field) is not None
    ):
        doc["text"] = source[text_field]
    doc_id = op.id
    if "id" in doc:
        try:
            source_id = validate_id(doc["id"])
        except DocumentError as exc:
            return None, ItemError.of(exc, "source field: ")
        if doc_id is not None and source_id != doc_id:
            return None, ItemError(
                400,
                "illegal_argument_exception",
                f"_id [{doc_id}] and the source field id [{source_id}] differ",
            )
        doc_id = source_id
    if doc_id is None:
        return None, ItemError(400, "illegal_argument_exception", "document id is empty")
    doc["id"] = doc_id
    return doc, None


def generate_id() -> str:
    """An id for a document sent without one: 20 URL-safe characters, like OpenSearch's."""
    return base64.urlsafe_b64encode(uuid.uuid4().bytes[:15]).decode("ascii")


def ok_item(action: str, index: str, doc_id: str, result: str, status: int) -> dict[str, Any]:
    """A successful response item: ``{action: {_index, _id, result, status}}``."""
    return {action: {"_index": index, "_id": doc_id, "result": result, "status": status}}


def error_item(
    action: str, index: str | None, doc_id: str | None, error: ItemError
) -> dict[str, Any]:
    """A failed response item: ``{action: {_index, _id, status, error: {type, reason}}}``."""
    return {
        action: {"_index": index, "_id": doc_id, "status": error.status, "error": error.to_json()}
    }


def parse_documents(body: bytes, limits: Limits = DEFAULT_LIMITS) -> tuple[list[Entry], bool]:
    """Documents of a ``POST /documents`` body with their line numbers (JSONL), and whether it
    was a single JSON object.

    The body is one JSON object, a JSON array of objects, or JSONL (one object per line). In a
    batch a bad line (not UTF-8, not JSON, not an object, too deep, too large) or element is
    an :class:`ItemError` in its place and the others go on; a body none of whose lines is an
    object raises :class:`DocumentsSyntaxError`.
    """
    if not body.strip():
        raise DocumentsSyntaxError("request body is required (a JSON object, array or JSONL)")
    whole: Any = None
    whole_error: str | None = None
    try:
        whole = decode_json(body.decode("utf-8").removeprefix("\ufeff"), limits)
    except UnicodeDecodeError as exc:
        whole_error = f"body is not UTF-8: {exc.reason} at byte {exc.start}"
    except DocumentError as exc:
        whole_error = exc.message
    if whole_error is None:
        if isinstance(whole, dict):
            return [(None, whole)], True
        if isinstance(whole, list):
            if not whole:
                raise DocumentsSyntaxError("empty JSON array: no documents")
            return [
                (None, d)
                if isinstance(d, dict)
                else (None, ItemError(400, "parse_exception", f"element {i} is not a JSON object"))
                for i, d in enumerate(whole)
            ], False
        if b"\n" not in body.strip():
            raise DocumentsSyntaxError("body must be a JSON object, an array of objects, or JSONL")
    elif b"\n" not in body.strip():  # one line that is not a usable object: say why
        raise DocumentsSyntaxError(f"body is not a JSON object: {whole_error}")
    entries: list[Entry] = []
    for number, line in split_lines(body):
        try:
            entries.append((number, decode_record(line, limits)))
        except DocumentError as exc:
            entries.append((number, ItemError.of(exc, f"line {number}: ")))
    if not any(isinstance(obj, Mapping) for _, obj in entries):
        raise DocumentsSyntaxError(
            "body is neither a JSON object, a JSON array nor JSONL with at least one object"
            + (f" ({whole_error})" if whole_error else "")
        )
    return entries, False
