"""Errors raised by :mod:`neardup.ingest`: configuration errors, and the per-document errors
of the input layer (the whole tree: :mod:`neardup.errors`, whose root :class:`NeardupError`
this module re-exports).

Every ``DocumentError`` has a ``type``: the stable name of its kind, the same on every path
(the ``type`` of a CLI error record, the ``error.type`` of an HTTP item; docs/limits.md).
"""

from __future__ import annotations

import builtins
from typing import Any, ClassVar
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
    ``error`` field of an output line as it is. ``type`` names the kind of failure: a kind
    declares it in its class statement (``class DuplicateId(DocumentError,
    type="duplicate_id")``), one name per kind; a subclass that names none is of its base's
    kind.

    >>> class Twice(DocumentError, type="duplicate_id"): ...
    Traceback (most recent call last):
    ...
    TypeError: Twice: the type 'duplicate_id' is DuplicateId's
    """

    type = "document_error"
    _kinds: ClassVar[dict[str, builtins.type[DocumentError]]] = {}  # type name: its kind

    def __init_subclass__(cls, type: str | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if type is None:
            return
        known = DocumentError._kinds.setdefault(type, cls)
        if known is not cls:
            raise TypeError(f"{cls.__name__}: the type {type!r} is {known.__name__}'s")
        cls.type = type

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


class InvalidRecord(DocumentError, type="parse_exception"):
    """The record cannot be read as a JSON object (see :mod:`neardup.ingest.records`)."""


class InvalidField(DocumentError, type="illegal_argument_exception"):
    """A field of the record breaks its rule (see :mod:`neardup.ingest.records`)."""


class DuplicateId(DocumentError, type="duplicate_id"):
    """The id was already used by an earlier record of the same input (the first wins)."""


class ExtractError(DocumentError, type="extract_error"):
    """The HTML (or its bytes) could not be decoded or parsed into text."""


class DocumentTooLarge(ExtractError, type="document_too_large"):
    """The input exceeds the extractor's size limit."""


class ExtractTimeout(ExtractError, type="extract_timeout"):
    """Extraction took longer than the per-document deadline."""


class EmptyDocument(DocumentError, type="empty_document"):
    """The document has no text (missing ``text``/``html``, or nothing visible in it)."""


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
