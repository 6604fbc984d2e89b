"""What the store keeps and answers: a page as stored (:class:`StoredDocument`), a candidate, the
outcome of a write, a stoplist entry, a verdict to write back.

Every backend speaks in these shapes; what each backend does with them is a role of
:mod:`neardup.ingest.store.roles`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "Candidate",
    "GroupUpdate",
    "PutResult",
    "StoplistEntry",
    "StoredDocument",
    "TERM_CHARS",
    "fingerprint_terms",
    "now_iso",
]

#: The characters of a fingerprint that a search engine's fingerprints index keeps as its term:
#: the first 11 of its 22 (URL-safe base64), 66 of its 128 bits. Two distinct fingerprints of
#: a million pages' hundred million share a term with odds of about 1 in 10^5, and such a pair
#: is one more candidate for the verifier; the terms are half as long, so the index, its
#: merges and every term a candidate search looks up in each segment cost less.
TERM_CHARS = 11


def fingerprint_terms(fingerprints: Iterable[str]) -> list[str]:
    """The fingerprints index's terms for ``fingerprints`` (:data:`TERM_CHARS`), sorted.

    >>> fingerprints_ = ["AAAAAAAAAAAxyz", "AAAAAAAAAAAabc", "b:12345678901234"]
    >>> fingerprint_terms(fingerprints_)
    ['AAAAAAAAAAA', 'b:123456789']
    """
    return sorted({f[:TERM_CHARS] for f in fingerprints})


def now_iso() -> str:
    """The time now as pages carry it (``ingested_at``, ``grouped_at``...): ISO-8601, UTC,
    milliseconds."""
    from datetime import datetime, timezone

    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


@dataclass(slots=True)
class StoredDocument:
    """A page as the store keeps it (the index's ``_source``): fingerprinted, then decided.

    Stage: from the end of step 1 to the index, the last shape of a page. Before it: the
    page's :class:`~neardup.ingest.records.Page` and
    :class:`~neardup.ingest.extract.ExtractedText`, made into one by
    :func:`neardup.ingest.pipeline.prepare_document` (which a
    :class:`~neardup.ingest.pipeline.Prepared` or an HTTP
    :class:`~neardup.ingest.server.service.IngestItem` reports on). Not decided yet
    (``status: pending``), it waits in a staged batch in Redis
    (:class:`neardup.ingest.workers.staging.StagedBatch`) in its staged form (:meth:`to_staged`,
    :meth:`from_staged`); the worker that decides it sets its group and indexes it in its
    indexed form (:meth:`to_source`, :meth:`from_source`).
    """

    id: str
    body: str  # the whole extracted text: stored, searched, shown
    fingerprints: list[str]  # keyword terms (see neardup.ingest.fingerprint)
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
    ingested_at: str | None = None  # ISO-8601, set by the store on put when missing
    # The page's main content (an HTML page without navigation, header, footer, sidebars and
    # link lists) when it differs from ``body``: what the verifier compares. None: ``body``.
    content: str | None = None
    grouped_at: str | None = None  # ISO-8601, set by the store on update_group
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
            "grouped_at": self.grouped_at,
            "content": self.content,
        }

    def fingerprints_source(self) -> dict[str, Any]:
        """The page's document in a search engine's fingerprints index
        (``mappings/fingerprints-template.json``): what the workers' candidate search reads."""
        return {"id": self.id, "fingerprints": fingerprint_terms(self.fingerprints),
                "fp_config": self.fp_config, "seq": self.seq}

    def to_staged(self, ingested_at: str | None = None) -> dict[str, Any]:
        """The page as a staged batch carries it (JSON, in Redis): what ingest made of it,
        nothing of a decision (no ``seq`` either: its batch's position gives it).
        ``ingested_at`` when the page has none."""
        return {"id": self.id, "body": self.body, "content": self.content,
                "fingerprints": list(self.fingerprints), "fp_config": self.fp_config,
                "url": self.url, "site": self.site, "title": self.title,
                "ingested_at": self.ingested_at or ingested_at}

    @classmethod
    def from_staged(cls, page: Mapping[str, Any], seq: int = 0) -> StoredDocument:
        """A page of a staged batch (:meth:`to_staged`) back, with its ``seq``: not decided
        yet (``status: pending``). The mapping's ``fingerprints`` list is taken as it is, not
        copied: a worker reads every page of every batch."""
        get = page.get
        fps = get("fingerprints")
        return cls(
            str(page["id"]), str(get("body") or ""),
            fps if type(fps) is list else list(fps or ()),
            str(get("fp_config")), seq, get("url"), get("site"), get("title"),
            content=get("content"), ingested_at=get("ingested_at"),
        )

    @property
    def verified_text(self) -> str:
        """The text the verifier compares: the main content, or the whole text."""
        return self.body if self.content is None else self.content

    @classmethod
    def from_source(
        cls, source: Mapping[str, Any], version: tuple[int, int] | None = None
    ) -> StoredDocument:
        known = {k: source.get(k) for k in cls.__slots__ if k != "version" and k in source}
        known.setdefault("fingerprints", [])
        # A page written by another pipeline may lack them: None, for the verifier's check
        # (neardup.ingest.records.check_stored) to reject that page alone, not the whole read.
        for name in ("body", "fp_config", "seq"):
            known.setdefault(name, None)
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
    """What happened to one document of :meth:`~neardup.ingest.store.roles.Writes.put`.

    ``result`` is ``"created"``, ``"updated"`` (overwritten) or ``"noop"`` (it existed and
    ``overwrite=False``); None when ``ok`` is False, and then ``error`` says why.
    """

    id: str
    ok: bool
    error: str | None = None
    result: str | None = None


@dataclass(frozen=True, slots=True)
class StoplistEntry:
    """One stoplisted fingerprint and why (see :mod:`neardup.ingest.stoplist`)."""

    fingerprint: str
    count: int | None = None  # documents containing it when the stoplist was computed
    sites: int | None = None  # distinct sites among them
    reason: str | None = None  # e.g. "frequent" or "concentrated"; None when set by hand


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

    def fields(self, grouped_at: str) -> dict[str, Any]:
        """The fields of the stored document the verdict sets (each of its own but ``id``),
        with ``grouped_at``."""
        verdict = {name: getattr(self, name) for name in self.__slots__ if name != "id"}
        return {**verdict, "grouped_at": grouped_at}
