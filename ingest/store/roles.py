"""What a store does, by role: each role an interface, each backend implementing the roles it
offers, and nothing it cannot do.

Five roles every backend offers, together :class:`Store` (what
:func:`neardup.ingest.store.open_store` returns for a backend named by a setting):

- :class:`Connection` — connection and setup: install, refresh, drop, close;
- :class:`Writes` — pages put, verdicts written back;
- :class:`Candidates` — a page's candidates, by the rule of :mod:`neardup.ingest.store.ranking`;
- :class:`Reads` — groups and reads: pages by id, a group's members;
- :class:`Stoplist` — fingerprint frequencies and the stoplist.

A search engine (``engine``: OpenSearch or Elasticsearch, :mod:`neardup.ingest.store.engine`)
offers more of four of them, together :class:`EngineStore`: :class:`EngineConnection` (index
templates, probes, the workers' refresh), :class:`EngineWrites` (partial updates, groups set in
bulk, deletes), :class:`EngineCandidates` (the holders of a batch's fingerprints) and
:class:`EngineReads` (full-text search, group aggregations, whole-index scans). The embedded
store (in-process, on SQLite, :mod:`neardup.ingest.store.embedded`) offers :class:`Store`. Both
return the same candidates for the same corpus (tests/integration/test_backends_agree.py).

A caller takes the roles it needs as its argument's type, and mypy holds a backend without
them to it (``open_store("embedded")`` is a :class:`Store`, ``open_store("engine")`` an
:class:`EngineStore`). Where the backend is chosen by a setting, a caller that needs a role
asks ``isinstance(store, <role>)`` and, without it, says so
(:class:`~neardup.ingest.store.errors.Unsupported`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from typing import Any

from neardup.ingest.store.base import (
    Candidate,
    GroupUpdate,
    PutResult,
    StoplistEntry,
    StoredDocument,
)
from neardup.ingest.store.errors import StoreUnavailable

__all__ = [
    "Candidates",
    "Connection",
    "EngineCandidates",
    "EngineConnection",
    "EngineReads",
    "EngineStore",
    "EngineWrites",
    "Reads",
    "Stoplist",
    "Store",
    "Writes",
]


# -- what every backend offers ---------------------------------------------------------------


class Connection(ABC):
    """Connection and setup: the storage made, made visible, emptied, let go."""

    @abstractmethod
    def install(self) -> dict[str, str]:
        """Create the storage of pages, groups and the stoplist (idempotent): an engine's index
        templates and indices, the embedded store's tables. Returns what was done,
        ``{thing: "installed" | "upgraded" | "unchanged" | ...}``."""

    @abstractmethod
    def refresh(self) -> None:
        """Make recent writes visible to search (a backend whose writes are visible at once
        does nothing)."""

    @abstractmethod
    def drop(self) -> None:
        """Delete every document, the groups and the stoplist (the whole index)."""

    @abstractmethod
    def close(self) -> None:
        """Release connections."""


class Writes(ABC):
    """Pages put, verdicts written back."""

    @abstractmethod
    def put(self, docs: Iterable[StoredDocument], overwrite: bool = True) -> Iterator[PutResult]:
        """Index documents, yielding one result per document, in input order.

        ``overwrite=False`` leaves an existing document untouched (its group included) and
        reports ``result="noop"``: re-ingesting a page then changes nothing. ``ingested_at`` is
        set to the current UTC time when the document has none.
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
        ``_bulk`` of conditional updates on a search engine). Per item, in order: True
        (written), False (version conflict) or the exception :meth:`update_group` would raise
        for it (:class:`~neardup.ingest.store.errors.DocumentNotFound`, ...). A transient
        failure (:class:`~neardup.ingest.store.errors.StoreUnavailable`) is raised for the whole
        call; the items are idempotent, so it can simply be sent again."""
        out: list[bool | Exception] = []
        for update, version in updates:
            try:
                out.append(self.update_group(update, version))
            except StoreUnavailable:
                raise
            except Exception as exc:  # per item, like the bulk API
                out.append(exc)
        return out


class Candidates(ABC):
    """A page's candidates: the pages sharing its usable fingerprints, ranked."""

    @abstractmethod
    def candidates(self, doc: StoredDocument, k: int = 20) -> list[Candidate]:
        """Top-``k`` documents sharing at least one non-stoplisted fingerprint with ``doc``.

        Same ``fp_config`` only, ``doc`` itself (its ``id``) excluded, ordered by shared
        count descending, then ``seq`` ascending (earliest ingest first), then ``id`` ascending:
        deterministic, and identical between backends. ``shared`` counts distinct
        fingerprints. A document with no usable fingerprint (none at all — very short text —
        or all stoplisted) has no candidates: the result is ``[]``, never an error.
        Searches see writes after :meth:`Connection.refresh` (a search engine is
        near-real-time).
        """


class Reads(ABC):
    """Groups and reads: pages by id, a group's members."""

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
    def group_members(self, group_id: str) -> list[StoredDocument]:
        """Every document whose ``dup_group`` is ``group_id``, ordered by ``seq`` then ``id``
        (near-real-time on a search engine, like :meth:`Candidates.candidates`)."""

    def existing(self, ids: Sequence[str]) -> set[str]:
        """Which of ``ids`` are stored (real time)."""
        return set(self.mget(ids, with_fingerprints=False))

    def fields(self, ids: Sequence[str], fields: Sequence[str]) -> dict[str, dict[str, Any]]:
        """``{id: {field: value}}`` of the documents found, restricted to ``fields`` (realtime,
        like :meth:`mget`, without transferring the bodies where the backend can)."""
        found = self.mget(ids, with_fingerprints="fingerprints" in fields)
        return {i: {f: d.to_source().get(f) for f in fields} for i, d in found.items()}


class Stoplist(ABC):
    """Fingerprint frequencies and the stoplist (:mod:`neardup.ingest.stoplist` is the rule)."""

    @abstractmethod
    def document_count(self) -> int:
        """How many documents are stored (all ``fp_config``s; near-real-time on a search
        engine). The stoplist's relative rule (``StoplistConfig.max_share``) is a share of it."""

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
        """The current stoplist (a search engine's is cached for a few seconds)."""

    @abstractmethod
    def stoplist_entries(self) -> list[StoplistEntry]:
        """The current stoplist with its reasons, ordered by count descending then fingerprint."""


class Store(Connection, Writes, Candidates, Reads, Stoplist):
    """The roles every backend offers."""


# -- what a search engine offers besides -----------------------------------------------------


class EngineConnection(Connection):
    """A search engine's connection: its pages index, its templates, its probes, the workers'
    refresh."""

    #: the pages index (the fingerprints and stoplist indices are named after it)
    index: str

    @abstractmethod
    def install_templates(self, force: bool = False) -> dict[str, str]:
        """Put the index templates (``mappings/``) when missing or older, or always with
        ``force``, without creating indices: ``{template name: "installed" | "upgraded" |
        "unchanged"}``."""

    @abstractmethod
    def create_indices(self) -> dict[str, str]:
        """Create the indices the installed templates describe, when missing."""

    @abstractmethod
    def index_exists(self) -> bool:
        """Whether the pages index exists."""

    @abstractmethod
    def refresh_written(self, wait: float = 0.0) -> None:
        """Make every write finished before the call visible to the workers: to the candidate
        search and to reads by id as searches see them (``mget(realtime=False)``), within
        ``wait`` seconds when the pages index's own refresh may do it meanwhile. The workers'
        refresh (:class:`~neardup.ingest.workers.refresher.Refresher`)."""

    @abstractmethod
    def check_health(self, timeout: float = 2.0) -> None:
        """Raise unless the engine answers within ``timeout`` seconds."""

    @abstractmethod
    def observe_requests(self, callback: Callable[[str, float], None]) -> None:
        """Call ``callback(kind, seconds)`` after every request to the engine (``_search``,
        ``_mget``, ``_bulk``, ...)."""

    @abstractmethod
    def product_headers(self) -> dict[str, str]:
        """Headers the engine sends on every answer and its official clients check
        (Elasticsearch's ``X-Elastic-Product``): a service in front of the engine sends them
        too."""

    @abstractmethod
    def engine_info(self) -> dict[str, Any]:
        """The engine's identity (OpenSearch's ``GET /`` answer)."""

    @abstractmethod
    def engine_health(self) -> dict[str, Any]:
        """The engine's ``_cluster/health`` answer."""

    @abstractmethod
    def index_mapping(self) -> dict[str, Any]:
        """The engine's ``GET /<index>/_mapping`` answer for the pages index."""


class EngineWrites(Writes):
    """The writes of the workers and of ``neardup backfill`` on a search engine's index."""

    @abstractmethod
    def merge_fields(self, docs: Sequence[StoredDocument]) -> list[PutResult]:
        """Write neardup's fields onto documents that exist (a partial update: the other
        fields of a page indexed by another pipeline stay as they are): ``neardup backfill``."""

    @abstractmethod
    def set_groups(self, groups: Mapping[str, str]) -> None:
        """Set ``dup_group`` of stored documents (one request); a document that is not stored
        is skipped."""

    @abstractmethod
    def delete(self, ids: Sequence[str]) -> int:
        """Remove pages (a page deleted); returns how many were there."""


class EngineCandidates(Candidates):
    """The candidates of a whole batch: the pages holding any of its fingerprints."""

    @abstractmethod
    def fingerprint_holders(
        self, terms: Mapping[str, Collection[str]], exclude_ids: Sequence[str]
    ) -> list[tuple[str, int, str]]:
        """Every stored document holding any of ``terms[fp_config]`` (of that config), but not
        ``exclude_ids``: ``(id, seq, fp_config)``, in ``(seq, id)`` order per config.
        Near-real-time (after :meth:`EngineConnection.refresh_written`); the hits'
        fingerprints and texts are read with :meth:`Reads.mget`."""

    @abstractmethod
    def max_terms(self) -> int:
        """The most terms one search may carry (the index's ``index.max_terms_count``)."""


class EngineReads(Reads):
    """What only a search engine reads: full-text search, group aggregations, whole-index scans."""

    @abstractmethod
    def collapsed_search(
        self, query_text: str, size: int = 10, inner_hits_size: int = 5
    ) -> list[dict[str, Any]]:
        """Full-text hits, one per ``dup_group`` (the engine's collapse), each with
        ``inner_hits.members`` unless ``inner_hits_size`` is 0
        (:func:`neardup.ingest.store.query.build_collapse_search`). The engine scores every
        matching page to collapse; :meth:`top_groups` finds the same groups from the top of
        the ranking."""

    @abstractmethod
    def top_groups(self, query_text: str, size: int = 10) -> list[dict[str, Any]]:
        """The ``size`` best groups for ``query_text``, best first, each as its best page:
        ``[{"id", "dup_group", "score"}]`` — what :meth:`collapsed_search` finds, from the top
        of the plain ranking (:func:`neardup.ingest.store.query.build_window_query`)."""

    @abstractmethod
    def group_details(
        self, query_text: str, group_ids: Sequence[str], members: int = 5,
        shown: Sequence[str] = (),
    ) -> dict[str, dict[str, Any]]:
        """``{group id: {"size", "matching", "members", "hit"}}`` of the groups among
        ``group_ids`` that have pages: all their pages, those matching ``query_text``, the
        first ``members`` of those by ``seq`` as hits (``{"_id", "_source"}``), and the group's
        page among ``shown`` as a hit with the fields a search lists, in one request
        (:func:`neardup.ingest.store.query.build_group_details_query`)."""

    @abstractmethod
    def largest_groups(self, size: int, min_size: int = 2) -> dict[str, Any]:
        """The ``size`` largest groups of at least ``min_size`` documents
        (:func:`neardup.ingest.store.query.parse_largest_groups`)."""

    @abstractmethod
    def group_sizes(self, group_ids: Sequence[str]) -> dict[str, int]:
        """``{group id: members}`` of the groups among ``group_ids`` that have members
        (:func:`neardup.ingest.store.query.build_group_sizes_query`)."""

    @abstractmethod
    def find(
        self, text: str | None = None, state: str | None = None, offset: int = 0, size: int = 20
    ) -> tuple[int, list[StoredDocument]]:
        """``(total, page)``: the pages whose id or URL is ``text`` or whose text matches it,
        in ``state`` (:func:`neardup.ingest.store.query.build_find_query`)."""

    @abstractmethod
    def overview(self) -> dict[str, Any] | None:
        """Pages per status, the group-size histogram and duplicates per site
        (:func:`neardup.ingest.store.query.parse_index_overview`); None when the index does not
        exist."""

    @abstractmethod
    def untagged(self, size: int = 500) -> Iterator[tuple[str, dict[str, Any]]]:
        """``(id, _source)`` of every stored document without a ``dup_group``."""

    @abstractmethod
    def count_untagged(self) -> int:
        """How many stored documents have no ``dup_group`` (near-real-time)."""

    @abstractmethod
    def fingerprinted_ids(self) -> Iterator[str]:
        """Every page id the candidate index holds."""

    @abstractmethod
    def group_ids(self) -> Iterator[tuple[str, str]]:
        """``(id, dup_group)`` of every page that carries a group."""


class EngineStore(EngineConnection, EngineWrites, EngineCandidates, EngineReads, Store):
    """The roles a search engine offers: every backend's, and its own."""
