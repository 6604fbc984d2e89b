"""Errors raised by :mod:`neardup.ingest`: configuration errors, and the per-document errors
of the input layer (the whole tree: :mod:`neardup.errors`, whose root :class:`NeardupError`
this module re-exports).

Every ``DocumentError`` has a ``type``: the stable name of its kind, the same on every path
(the ``type`` of a CLI error record, the ``error.type`` of an HTTP item; docs/limits.md).
"""

from __future__ import annotations

import builtins
from urllib.parse import urlsplit, urlunsplit

from neardup.errors import NeardupError

__all__ = [
    "ConfigError",
    "DocumentError",
    "DocumentTooLarge",
    "DuplicateId",
    "EmptyDocument",
    "ExtractError",
    "ExtractTimeout",
    "InvalidField",
    "InvalidRecord",
    "NeardupError",
    "redact",
]


class ConfigError(NeardupError, ValueError):
    """An invalid configuration value or argument (a programming or usage error)."""


class DocumentError(NeardupError):
    """One document failed; ``doc_id`` names it when known.

    ``str(err)`` is the message prefixed with the id, so it can be written as the
    ``error`` field of an output line as it is. ``type`` names the kind of failure.
    """

    type = "document_error"

    def __init__(self, message: str, doc_id: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.doc_id = doc_id

    def with_id(self, doc_id: str | None) -> DocumentError:
        """Attach ``doc_id`` if none is set yet (for errors raised below the document level)."""
        if self.doc_id is None:
            self.doc_id = doc_id
        return self

    def __str__(self) -> str:
        if self.doc_id is None:
            return self.message
        return f"{self.doc_id}: {self.message}"

    def __reduce__(self) -> tuple[builtins.type[DocumentError], tuple[str, str | None]]:
        # keep doc_id across pickling (Celery results, multiprocessing)
        return (type(self), (self.message, self.doc_id))


class InvalidRecord(DocumentError):
    """The record cannot be read as a JSON object (see :mod:`neardup.ingest.records`)."""

    type = "parse_exception"


class InvalidField(DocumentError):
    """A field of the record breaks its rule (see :mod:`neardup.ingest.records`)."""

    type = "illegal_argument_exception"


class DuplicateId(DocumentError):
    """The id was already used by an earlier record of the same input (the first wins)."""

    type = "duplicate_id"


class ExtractError(DocumentError):
    """The HTML (or its bytes) could not be decoded or parsed into text."""

    type = "extract_error"


class DocumentTooLarge(ExtractError):
    """The input exceeds the extractor's size limit."""

    type = "document_too_large"


class ExtractTimeout(ExtractError):
    """Extraction took longer than the per-document deadline."""

    type = "extract_timeout"


class EmptyDocument(DocumentError):
    """The document has no text (missing ``text``/``html``, or nothing visible in it)."""

    type = "empty_document"


def redact(url: str) -> str:
    """``url`` without a password in it (as error messages show it)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))
