"""Errors raised by the store layer.

::

    NeardupError (neardup.ingest.errors)
    └── StoreError                    the store could not do what was asked
        ├── StoreUnavailable          transient: node down, timeout, 429/502/503/504 — retry later
        ├── DocumentNotFound(KeyError) the document to update does not exist
        ├── IndexNotFound             the index asked for does not exist (nothing ingested yet?)
        └── Unsupported               this backend cannot do that (full-text search on the
                                      embedded store, say): a configuration matter, not a blip

Transient transport failures of opensearch-py (``ConnectionError``, ``ConnectionTimeout``,
``TransportError`` with status 429/502/503/504) are re-raised as :class:`StoreUnavailable`
(the original is its ``__cause__``), so callers — Celery tasks with ``autoretry_for`` — retry
on one type whatever the backend. Any other ``TransportError`` (a 400 from a bad mapping or
query, say) is a bug, not a blip, and propagates unchanged.
"""

from __future__ import annotations

from neardup.ingest.errors import NeardupError

__all__ = ["DocumentNotFound", "IndexNotFound", "StoreError", "StoreUnavailable", "Unsupported"]


class StoreError(NeardupError):
    """Base class of store failures."""


class StoreUnavailable(StoreError):
    """The backend is unreachable or overloaded right now; the same call may succeed later."""


class DocumentNotFound(StoreError, KeyError):
    """No document with this id."""

    def __init__(self, doc_id: str) -> None:
        super().__init__(doc_id)
        self.doc_id = doc_id

    def __str__(self) -> str:
        return f"document not found: {self.doc_id}"


class IndexNotFound(StoreError):
    """The index does not exist (a search before anything was ingested into it)."""

    def __init__(self, index: str) -> None:
        super().__init__(index)
        self.index = index

    def __str__(self) -> str:
        return f"index [{self.index}] does not exist"


class Unsupported(StoreError):
    """The backend cannot do this at all (the operation needs a search engine)."""
