"""The store interface: where documents, their fingerprints and their groups live.

Two backends implement it (design.md): ``opensearch`` (the product: an index whose
``fingerprints`` field is a ``keyword`` array, candidates by ``terms`` query, write-back with
``if_seq_no``/``if_primary_term``) and ``embedded`` (in-process, no servers, for batch
``neardup dedup``). Both must return the same candidates for the same corpus.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Candidate", "GroupUpdate", "PutResult", "Store", "StoredDocument"]


@dataclass(slots=True)
class StoredDocument:
    """A page as the store keeps it (the index's ``_source``)."""

    id: str
    body: str  # extracted text; the verifier works on this
    fingerprints: list[str]  # keyword terms (see ingest.fingerprint)
    fp_config: str  # identity of the FingerprintConfig that made them; never mix configs
    seq: int  # ingest sequence number: "earliest ingest wins" when groups are decided
    url: str | None = None
    site: str | None = None
    title: str | None = None
    dup_group: str | None = None  # id of the group's representative (== id for a representative)
    dup_of: str | None = None  # representative this document was verified against
    resemble: float | None = None
    contain: float | None = None
    status: str = "pending"  # pending | grouped | error
    error: str | None = None
    ingested_at: str | None = None  # ISO-8601, set by the store on put
    # Optimistic-concurrency token of the stored version: (seq_no, primary_term) for OpenSearch,
    # a counter for the embedded store. None for a document not read from a store.
    version: tuple[int, int] | None = field(default=None, compare=False)

    def to_source(self) -> dict[str, Any]:
        """The JSON document as indexed (without ``version``)."""
        return {
            "id": self.id,
            "body": self.body,
            "fingerprints": list(self.fingerprints),
            "fp_config": self.fp_config,
            "seq": self.seq,
            "url": self.url,
            "site": self.site,
            "title": self.title,
            "dup_group": self.dup_group,
            "dup_of": self.dup_of,
            "resemble": self.resemble,
            "contain": self.contain,
            "status": self.status,
            "error": self.error,
            "ingested_at": self.ingested_at,
        }

    @classmethod
    def from_source(
        cls, source: Mapping[str, Any], version: tuple[int, int] | None = None
    ) -> StoredDocument:
        known = {k: source.get(k) for k in cls.__slots__ if k != "version" and k in source}
        known.setdefault("fingerprints", [])
        doc = cls(**known)  # type: ignore[arg-type]
        doc.version = version
        return doc


@dataclass(frozen=True, slots=True)
class Candidate:
    """A possibly-similar document: shares ``shared`` non-stoplisted fingerprints."""

    id: str
    shared: int


@dataclass(frozen=True, slots=True)
class PutResult:
    id: str
    ok: bool
    error: str | None = None


@dataclass(frozen=True, slots=True)
class GroupUpdate:
    """The verdict to write back onto one document."""

    id: str
    dup_group: str
    dup_of: str | None
    resemble: float | None
    contain: float | None
    status: str = "grouped"
    error: str | None = None


class Store(ABC):
    """Abstract store. Backends are picked by :func:`ingest.store.open_store`."""

    @abstractmethod
    def install(self) -> None:
        """Create the index template / tables and the stoplist storage (idempotent)."""

    @abstractmethod
    def put(self, docs: Iterable[StoredDocument]) -> Iterator[PutResult]:
        """Index documents (create or overwrite), yielding one result per document, in order."""

    @abstractmethod
    def get(self, doc_id: str) -> StoredDocument | None:
        """The stored document with its ``version``, or None."""

    @abstractmethod
    def mget(self, ids: Iterable[str]) -> dict[str, StoredDocument]:
        """Documents by id (missing ids are absent from the result)."""

    @abstractmethod
    def candidates(self, doc: StoredDocument, k: int = 20) -> list[Candidate]:
        """Top-``k`` documents sharing at least one non-stoplisted fingerprint with ``doc``.

        Same ``fp_config`` only, ``doc`` itself excluded, ordered by shared count descending
        then id ascending (deterministic).
        """

    @abstractmethod
    def update_group(self, update: GroupUpdate, version: tuple[int, int] | None = None) -> bool:
        """Write a verdict back. With ``version``, only if the stored version still matches;
        returns False on a version conflict (the caller re-reads and decides again)."""

    @abstractmethod
    def group_members(self, group_id: str) -> list[StoredDocument]:
        """Every document whose ``dup_group`` is ``group_id``, ordered by ``seq``."""

    @abstractmethod
    def fingerprint_frequencies(self, min_count: int) -> dict[str, tuple[int, int]]:
        """Fingerprints occurring in at least ``min_count`` documents:
        ``{fingerprint: (document count, distinct site count)}``."""

    @abstractmethod
    def set_stoplist(self, fingerprints: Iterable[str]) -> None:
        """Replace the stoplist (fingerprints never used for candidates)."""

    @abstractmethod
    def stoplist(self) -> frozenset[str]:
        """The current stoplist."""

    def refresh(self) -> None:  # noqa: B027 - optional hook
        """Make recent writes visible to search (no-op where writes are immediately visible)."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release connections."""
