"""Errors raised by :mod:`ingest`.

Configuration errors (a bad parameter: fix the call) are kept apart from per-document runtime
errors (a bad page: count it, report it against its id, carry on)::

    NeardupError
    ├── ConfigError(ValueError)        invalid configuration or argument
    └── DocumentError                  one document could not be processed; carries doc_id
        ├── InvalidRecord              the record is not readable: not UTF-8, not JSON, not an
        │                              object, nested too deep (neardup.ingest.records)
        ├── InvalidField               a field breaks a rule: a bad id, a text that is not a
        │                              string, a url over its limit (neardup.ingest.records)
        ├── DuplicateId                an id seen earlier in the same input
        ├── ExtractError               HTML/bytes could not be turned into text
        │   ├── DocumentTooLarge       input over the size limit
        │   └── ExtractTimeout         extraction exceeded the per-document deadline
        └── EmptyDocument              no text at all (nothing to fingerprint or verify)

Every ``DocumentError`` has a ``type``: the stable name of its kind, the same on every path
(the ``type`` of a CLI error record, the ``error.type`` of an HTTP item; docs/limits.md).

Store and task errors, when added, hang under ``NeardupError`` beside these two branches.
"""

from __future__ import annotations

import builtins

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
]


class NeardupError(Exception):
    """Base class of every error raised on purpose by neardup."""


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
