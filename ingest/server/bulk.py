"""The OpenSearch ``_bulk`` wire format, as pure functions (no I/O; unit tested on bytes).

``neardup serve`` answers ``POST /_bulk`` so that any pipeline that speaks the bulk API
(Logstash, Data Prepper, Fluent Bit, ``opensearchpy.helpers``) can send pages to neardup instead
of to OpenSearch. This module turns an NDJSON body into :class:`BulkOp` items and builds the
response items in OpenSearch's shape; ``ingest.server.app`` does the indexing and queueing.

Parsing follows OpenSearch: a malformed *action* line fails the whole request (400, the
position of the next action is unknown), a malformed *source* line fails only its item.
The body of ``POST /documents`` (a JSON object, a JSON array or JSONL) is parsed here too.
"""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ingest.extract import MARKUP_FIELDS

__all__ = [
    "ACTIONS",
    "BulkOp",
    "BulkSyntaxError",
    "DocumentsSyntaxError",
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

# Fields of a neardup input document (design.md, the `dedup` input contract). Other source
# fields are dropped: the pages index has a strict mapping.
DOCUMENT_FIELDS = ("id", *MARKUP_FIELDS, "url", "site", "title")


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


@dataclass(slots=True)
class BulkOp:
    """One action of a bulk body (with its source line when the action has one)."""

    action: str  # index | create | update | delete
    index: str | None  # _index from the action line or the URL; None when neither names one
    id: str | None  # _id from the action line
    source: dict[str, Any] | None = None
    error: ItemError | None = None  # set when the item is invalid on its own


def _lines(body: bytes) -> Iterator[tuple[int, bytes]]:
    """Non-blank lines with their 1-based numbers (OpenSearch skips blank lines too)."""
    for number, line in enumerate(body.split(b"\n"), start=1):
        line = line.strip()
        if line:
            yield number, line


def _loads(line: bytes) -> Any:
    return json.loads(line.decode("utf-8"))


def parse_bulk(body: bytes, default_index: str | None = None) -> list[BulkOp]:
    """Parse an NDJSON bulk body into operations, in order.

    >>> ops = parse_bulk(b'{"index": {"_id": "a"}}\\n{"text": "hi"}\\n{"delete": {"_id": "b"}}\\n')
    >>> [(op.action, op.id, op.source) for op in ops]
    [('index', 'a', {'text': 'hi'}), ('delete', 'b', None)]

    Raises :class:`BulkSyntaxError` for an empty body or a malformed action line.
    """
    ops: list[BulkOp] = []
    lines = _lines(body)
    for number, line in lines:
        try:
            action_line = _loads(line)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise BulkSyntaxError(
                f"Malformed action/metadata line [{number}]: not a JSON object ({exc})"
            ) from None
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
        doc_id = meta.get("_id")
        op = BulkOp(
            action=action,
            index=str(index) if index is not None else None,
            id=str(doc_id) if doc_id is not None else None,
        )
        if action in _WITH_SOURCE:
            source_line = next(lines, None)
            if source_line is None:
                raise BulkSyntaxError(
                    f"Malformed bulk body: [{action}] on line [{number}] has no source line"
                )
            source_number, raw = source_line
            try:
                source = _loads(raw)
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                op.error = ItemError(
                    400,
                    "mapper_parsing_exception",
                    f"failed to parse source on line [{source_number}]: {exc}",
                )
            else:
                if isinstance(source, dict):
                    op.source = source
                else:
                    op.error = ItemError(
                        400,
                        "mapper_parsing_exception",
                        f"source on line [{source_number}] is not a JSON object",
                    )
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
        and not any(k in doc for k in MARKUP_FIELDS)
        and source.get(text_field) is not None
    ):
        doc["text"] = source[text_field]
    if "id" in doc and not isinstance(doc["id"], str | int):
        return None, ItemError(
            400, "mapper_parsing_exception", "source field [id] must be a string"
        )
    if op.id is not None and "id" in doc and str(doc["id"]) != op.id:
        return None, ItemError(
            400,
            "illegal_argument_exception",
            f"_id [{op.id}] and the source field id [{doc['id']}] differ",
        )
    doc_id = op.id if op.id is not None else doc.get("id")
    if doc_id is None or str(doc_id) == "":
        return None, ItemError(400, "illegal_argument_exception", "document id is empty")
    doc["id"] = str(doc_id)
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


def parse_documents(body: bytes) -> tuple[list[Mapping[str, Any] | ItemError], bool]:
    """Documents of a ``POST /documents`` body, and whether it was a single JSON object.

    The body is one JSON object, a JSON array of objects, or JSONL (one object per line). In a
    batch a bad line or element is an :class:`ItemError` in its place and the others go on;
    a body none of whose lines parse raises :class:`DocumentsSyntaxError`.
    """
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DocumentsSyntaxError(f"body is not UTF-8: {exc}") from None
    if not text.strip():
        raise DocumentsSyntaxError("request body is required (a JSON object, array or JSONL)")
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        whole = None
        parsed_whole = False
    else:
        parsed_whole = True
    if parsed_whole:
        if isinstance(whole, dict):
            return [whole], True
        if isinstance(whole, list):
            if not whole:
                raise DocumentsSyntaxError("empty JSON array: no documents")
            return [
                d
                if isinstance(d, dict)
                else ItemError(400, "parse_exception", f"element {i} is not a JSON object")
                for i, d in enumerate(whole)
            ], False
        raise DocumentsSyntaxError("body must be a JSON object, an array of objects, or JSONL")
    docs: list[Mapping[str, Any] | ItemError] = []
    any_ok = False
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            doc = json.loads(line)
        except json.JSONDecodeError as exc:
            docs.append(ItemError(400, "parse_exception", f"line {number}: invalid JSON: {exc}"))
            continue
        if not isinstance(doc, dict):
            docs.append(ItemError(400, "parse_exception", f"line {number}: not a JSON object"))
            continue
        any_ok = True
        docs.append(doc)
    if not any_ok:
        raise DocumentsSyntaxError(
            "body is neither a JSON object, a JSON array nor JSONL with at least one object"
        )
    return docs, False
