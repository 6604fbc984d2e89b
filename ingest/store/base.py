"""The store interface: where documents, their fingerprints and their groups live.

Two backends implement it (docs/architecture.md, docs/opensearch.md): ``engine`` (the
product: OpenSearch or Elasticsearch, :mod:`neardup.ingest.store.engine`; an index whose
``fingerprints`` field is a ``keyword`` array, candidates by ``terms`` query, write-back with
``if_seq_no``/``if_primary_term``) and ``embedded`` (in-process, no servers, for batch
``neardup dedup``). Both must return the same candidates for the same corpus
(tests/integration/test_backends_agree.py).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from neardup.ingest.store.errors import StoreUnavailable, Unsupported

__all__ = [
    "Candidate",
    "GroupUpdate",
    "PutResult",
    "Store",
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
    """What happened to one document of :meth:`Store.put`.

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


class Store(ABC):
    """Abstract store. Backends are picked by :func:`neardup.ingest.store.open_store`."""

    @abstractmethod
    def install(self) -> dict[str, str]:
        """Create the index templates / tables and the stoplist storage (idempotent).

        Returns what was done, ``{thing: "installed" | "upgraded" | "unchanged" | ...}``."""

    def install_templates(self, force: bool = False) -> dict[str, str]:
        """Put the index templates (``mappings/``) when missing or older, or always with
        ``force``, without creating indices: ``{template name: "installed" | "upgraded" |
        "unchanged"}``. Only a search engine has templates."""
        raise Unsupported(f"{type(self).__name__} has no index templates; use install()")

    @abstractmethod
    def put(self, docs: Iterable[StoredDocument], overwrite: bool = True) -> Iterator[PutResult]:
        """Index documents, yielding one result per document, in input order.

        ``overwrite=False`` leaves an existing document untouched (its group included) and
        reports ``result="noop"``: re-ingesting a page then changes nothing. ``ingested_at`` is
        set to the current UTC time when the document has none.
        """

    @abstractmethod
    def get(self, doc_id: str) -> StoredDocument | None:
        """The stored document with its ``version``, or None."""

    @abstractmethod
    def mget(
        self, ids: Iterable[str], with_fingerprints: bool = True, realtime: bool = True
    ) -> dict[str, StoredDocument]:
        """Documents by id with their ``version`` (missing ids are absent from the result).

        ``with_fingerprints=False`` leaves ``fingerprints`` empty and spares the transfer
        (the verifier only needs the text). ``realtime=False`` reads what searches see, sparing
        the engine a refresh when a document was written since the last one: for documents a
        search just found.
        """

    @abstractmethod
    def candidates(self, doc: StoredDocument, k: int = 20) -> list[Candidate]:
        """Top-``k`` documents sharing at least one non-stoplisted fingerprint with ``doc``.

        Same ``fp_config`` only, ``doc`` itself (its ``id``) excluded, ordered by shared
        count descending, then ``seq`` ascending (earliest ingest first), then ``id`` ascending:
        deterministic, and identical between backends. ``shared`` counts distinct
        fingerprints. A document with no usable fingerprint (none at all — very short text —
        or all stoplisted) has no candidates: the result is ``[]``, never an error.
        Searches see writes after :meth:`refresh` (OpenSearch is near-real-time).
        """

    @abstractmethod
    def update_group(self, update: GroupUpdate, version: tuple[int, int] | None = None) -> bool:
        """Write a verdict back (and ``grouped_at``). With ``version``, only if the stored
        version still matches; returns False on a version conflict (the caller re-reads and
        decides again). Raises :class:`neardup.ingest.store.errors.DocumentNotFound` when the
        document does not exist."""

    def update_groups(
        self, updates: Sequence[tuple[GroupUpdate, tuple[int, int] | None]]
    ) -> list[bool | Exception]:
        """Several :meth:`update_group` calls, in one request where the backend can (one
        ``_bulk`` of conditional updates on OpenSearch). Per item, in order: True (written),
        False (version conflict) or the exception :meth:`update_group` would raise for it
        (:class:`~neardup.ingest.store.errors.DocumentNotFound`, ...). A transient failure
        (:class:`~neardup.ingest.store.errors.StoreUnavailable`) is raised for the whole call; the
        items are idempotent, so it can simply be sent again."""
        out: list[bool | Exception] = []
        for update, version in updates:
            try:
                out.append(self.update_group(update, version))
            except StoreUnavailable:
                raise
            except Exception as exc:  # per item, like the bulk API
                out.append(exc)
        return out

    def fingerprint_holders(
        self, terms: Mapping[str, Collection[str]], exclude_ids: Sequence[str]
    ) -> list[tuple[str, int, str]]:
        """Every stored document holding any of ``terms[fp_config]`` (of that config), but not
        ``exclude_ids``: ``(id, seq, fp_config)``, in ``(seq, id)`` order per config.
        Near-real-time (after :meth:`refresh`); the hits' fingerprints and texts are read with
        :meth:`mget`."""
        raise NotImplementedError

    def merge_fields(self, docs: Sequence[StoredDocument]) -> list[PutResult]:
        """Write neardup's fields onto documents that exist (a partial update: the other
        fields of a page indexed by another pipeline stay as they are): ``neardup backfill``."""
        raise NotImplementedError

    def untagged(self, size: int = 500) -> Iterator[tuple[str, dict[str, Any]]]:
        """``(id, _source)`` of every stored document without a ``dup_group``."""
        raise NotImplementedError

    def index_exists(self) -> bool:
        """Whether the pages index exists."""
        return True

    def count_untagged(self) -> int:
        """How many stored documents have no ``dup_group`` (near-real-time)."""
        raise NotImplementedError

    def delete(self, ids: Sequence[str]) -> int:
        """Remove pages (a page deleted); returns how many were there."""
        raise Unsupported("this store does not delete pages")

    def fingerprinted_ids(self) -> Iterator[str]:
        """Every page id the candidate index holds."""
        raise Unsupported("this store has no separate candidate index")

    def group_ids(self) -> Iterator[tuple[str, str]]:
        """``(id, dup_group)`` of every page that carries a group."""
        raise Unsupported("this store does not list groups")

    def existing(self, ids: Sequence[str]) -> set[str]:
        """Which of ``ids`` are stored (real time)."""
        return set(self.mget(ids, with_fingerprints=False))

    def set_groups(self, groups: Mapping[str, str]) -> None:
        """Set ``dup_group`` of stored documents (one request where the backend can); a
        document that is not stored is skipped."""
        raise NotImplementedError

    @abstractmethod
    def group_members(self, group_id: str) -> list[StoredDocument]:
        """Every document whose ``dup_group`` is ``group_id``, ordered by ``seq`` then ``id``
        (near-real-time on OpenSearch, like :meth:`candidates`)."""

    @abstractmethod
    def document_count(self) -> int:
        """How many documents are stored (all ``fp_config``s; near-real-time on OpenSearch).
        The stoplist's relative rule (``StoplistConfig.max_share``) is a share of it."""

    @abstractmethod
    def fingerprint_frequencies(self, min_count: int) -> dict[str, tuple[int, int]]:
        """Fingerprints occurring in at least ``min_count`` documents:
        ``{fingerprint: (document count, distinct site count)}``."""

    @abstractmethod
    def set_stoplist(self, fingerprints: Iterable[str | StoplistEntry]) -> None:
        """Replace the stoplist (fingerprints never used for candidates).

        Plain strings are stored without count/sites/reason."""

    @abstractmethod
    def stoplist(self) -> frozenset[str]:
        """The current stoplist (OpenSearch caches it for a few seconds)."""

    @abstractmethod
    def stoplist_entries(self) -> list[StoplistEntry]:
        """The current stoplist with its reasons, ordered by count descending then fingerprint."""

    # -- the workers' reads ------------------------------------------------------------------

    def fields(self, ids: Sequence[str], fields: Sequence[str]) -> dict[str, dict[str, Any]]:
        """``{id: {field: value}}`` of the documents found, restricted to ``fields`` (realtime,
        like :meth:`mget`, without transferring the bodies where the backend can)."""
        found = self.mget(ids, with_fingerprints="fingerprints" in fields)
        return {i: {f: d.to_source().get(f) for f in fields} for i, d in found.items()}

    # -- search and inspection (what only a search engine does) -----------------------------

    def collapsed_search(
        self, query_text: str, size: int = 10, inner_hits_size: int = 5
    ) -> list[dict[str, Any]]:
        """Full-text hits, one per ``dup_group`` (the engine's collapse), each with
        ``inner_hits.members`` unless ``inner_hits_size`` is 0
        (:func:`neardup.ingest.store.query.build_collapse_search`). The engine scores every
        matching page to collapse; :meth:`top_groups` finds the same groups from the top of
        the ranking."""
        raise Unsupported(f"{type(self).__name__} has no full-text search; use the opensearch store")

    def top_groups(self, query_text: str, size: int = 10) -> list[dict[str, Any]]:
        """The ``size`` best groups for ``query_text``, best first, each as its best page:
        ``[{"id", "dup_group", "score"}]`` — what :meth:`collapsed_search` finds, from the top
        of the plain ranking (:func:`neardup.ingest.store.query.build_window_query`)."""
        raise Unsupported(f"{type(self).__name__} has no full-text search; use the opensearch store")

    def group_details(
        self, query_text: str, group_ids: Sequence[str], members: int = 5,
        shown: Sequence[str] = (),
    ) -> dict[str, dict[str, Any]]:
        """``{group id: {"size", "matching", "members", "hit"}}`` of the groups among
        ``group_ids`` that have pages: all their pages, those matching ``query_text``, the
        first ``members`` of those by ``seq`` as hits (``{"_id", "_source"}``), and the group's
        page among ``shown`` as a hit with the fields a search lists, in one request
        (:func:`neardup.ingest.store.query.build_group_details_query`)."""
        raise Unsupported(f"{type(self).__name__} has no group aggregation; use the opensearch store")

    def largest_groups(self, size: int, min_size: int = 2) -> dict[str, Any]:
        """The ``size`` largest groups of at least ``min_size`` documents
        (:func:`neardup.ingest.store.query.parse_largest_groups`)."""
        raise Unsupported(f"{type(self).__name__} has no group aggregation; use the opensearch store")

    def group_sizes(self, group_ids: Sequence[str]) -> dict[str, int]:
        """``{group id: members}`` of the groups among ``group_ids`` that have members
        (:func:`neardup.ingest.store.query.build_group_sizes_query`)."""
        raise Unsupported(f"{type(self).__name__} has no group aggregation; use the opensearch store")

    def find(
        self, text: str | None = None, state: str | None = None, offset: int = 0, size: int = 20
    ) -> tuple[int, list[StoredDocument]]:
        """``(total, page)``: the pages whose id or URL is ``text`` or whose text matches it,
        in ``state`` (:func:`neardup.ingest.store.query.build_find_query`)."""
        raise Unsupported(f"{type(self).__name__} has no full-text search; use the opensearch store")

    def overview(self) -> dict[str, Any] | None:
        """Pages per status, the group-size histogram and duplicates per site
        (:func:`neardup.ingest.store.query.parse_index_overview`); None when the index does not exist."""
        raise Unsupported(f"{type(self).__name__} has no aggregations; use the opensearch store")

    def engine_info(self) -> dict[str, Any]:
        """The engine's identity (OpenSearch's ``GET /`` answer)."""
        raise Unsupported(f"{type(self).__name__} is not a search engine")

    def engine_health(self) -> dict[str, Any]:
        """The engine's ``_cluster/health`` answer."""
        raise Unsupported(f"{type(self).__name__} is not a search engine")

    def index_mapping(self) -> dict[str, Any]:
        """The engine's ``GET /<index>/_mapping`` answer for the pages index."""
        raise Unsupported(f"{type(self).__name__} is not a search engine")

    def product_headers(self) -> dict[str, str]:
        """Headers the engine sends on every answer and its official clients check
        (Elasticsearch's ``X-Elastic-Product``): a service in front of the engine sends them
        too. None here."""
        return {}

    def check_health(self, timeout: float = 2.0) -> None:  # noqa: B027 - optional hook
        """Raise unless the backend answers within ``timeout`` seconds (always ready here)."""

    def observe_requests(self, callback: Callable[[str, float], None]) -> None:  # noqa: B027
        """Call ``callback(kind, seconds)`` after every request to the engine (``_search``,
        ``_mget``, ``_bulk``, ...); a no-op where there is no engine to ask."""

    # -- lifecycle ---------------------------------------------------------------------------

    def create_indices(self) -> dict[str, str]:
        """Create the storage the installed templates describe, when missing (for a backend
        without templates, :meth:`install`)."""
        return self.install()

    @abstractmethod
    def drop(self) -> None:
        """Delete every document, the groups and the stoplist (the whole index)."""

    def refresh(self) -> None:  # noqa: B027 - optional hook
        """Make recent writes visible to search (no-op where writes are immediately visible)."""

    def refresh_written(self, wait: float = 0.0) -> None:
        """Make every write finished before the call visible to the workers: to the candidate
        search and to reads by id as searches see them (``mget(realtime=False)``), within
        ``wait`` seconds when the backend's own refresh may do it meanwhile (a search
        engine's pages index: :meth:`neardup.ingest.store.engine.EngineStore.refresh_written`);
        at once otherwise. The workers' refresh
        (:class:`~neardup.ingest.workers.refresher.Refresher`)."""
        self.refresh()

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release connections."""
