"""The search-engine store on OpenSearch or Elasticsearch (:mod:`neardup.ingest.store.opensearch`,
:mod:`neardup.ingest.store.elasticsearch`): pages in the pages index (what users search and
collapse; it indexes no fingerprint), and each page's fingerprints as a ``keyword`` array in
the fingerprints index (``<index>-fingerprints``: one small document per page without
``_source``, the workers' candidate search; docs/scale.md).

- indexing with ``helpers.streaming_bulk`` (bounded retries with exponential backoff on 429);
- candidates with the query of :func:`neardup.ingest.store.query.build_candidate_query` (score = number of
  shared non-stoplisted fingerprints; ties by ``seq`` then ``id``);
- group write-back with the update API under ``if_seq_no``/``if_primary_term``, one document
  at a time or as one ``_bulk`` of conditional updates (:meth:`EngineStore.update_groups`);
- fingerprint frequencies counted from the pages' ``fingerprints`` in two passes of a scroll
  (:mod:`neardup.ingest.store.frequencies`);
- the stoplist in its own index, ``<index>-stoplist`` (one document per fingerprint), read
  through a short-lived cache so a worker does not fetch it for every document.

Transient transport failures surface as :class:`neardup.ingest.store.errors.StoreUnavailable`.

The two engines' official clients take the same calls (``search``, ``mget``, ``update``,
``bulk``, the template APIs, ``helpers.streaming_bulk``) with keyword arguments; what differs —
the client package, its error classes, how a request gets its own timeout — is a
:class:`Dialect`, data handed to :class:`EngineStore` by each backend module. No method here
asks which engine it talks to.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections import defaultdict, deque
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import wraps
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

from neardup.ingest.store.base import (
    Candidate,
    GroupUpdate,
    PutResult,
    StoplistEntry,
    Store,
    StoredDocument,
    fingerprint_terms,
    now_iso,
)
from neardup.ingest.store.errors import (
    AuthenticationFailed,
    CertificateNotTrusted,
    DocumentNotFound,
    IndexNotFound,
    PermissionDenied,
    StoreError,
    StoreUnavailable,
    certificate_problem,
)
from neardup.ingest.store.frequencies import frequent_fingerprints
from neardup.ingest.store.query import (
    GROUP_FIELD,
    MAX_WINDOW,
    WINDOW_FACTOR,
    build_candidate_query,
    build_collapse_search,
    build_find_query,
    build_group_details_query,
    build_group_sizes_query,
    build_holders_query,
    build_index_overview_query,
    build_largest_groups_query,
    build_short_query,
    build_window_query,
    parse_group_details,
    parse_group_sizes,
    parse_index_overview,
    parse_largest_groups,
    parse_window,
)
from neardup.ingest.store.ranking import candidate_terms
from neardup.ingest.templates import install_templates, load

__all__ = ["Dialect", "EngineStore", "translate_errors"]

log = logging.getLogger(__name__)
log.addHandler(logging.NullHandler())

_OWN_REFRESH_POLL = 0.2  # seconds between two reads of the pages index's refresh counts

TRANSIENT_STATUS = frozenset({429, 502, 503, 504})
# Error types of a node leaving or joining the cluster. A search that was reading a shard copy
# on a node that has just gone answers 500 ``search_phase_execution_exception`` whose root
# cause is one of these: the next attempt reads another copy (or the node is back), so it is
# an outage to wait out, not a failure of the request.
TRANSIENT_TYPES = frozenset({
    "node_disconnected_exception",
    "node_not_connected_exception",
    "node_closed_exception",
    "connect_transport_exception",
    "no_shard_available_action_exception",
    "unavailable_shards_exception",
    "primary_missing_action_exception",
})
_PAGE = 1000  # search_after page size for group members and the stoplist
# A bound on the terms of a page, for the frequencies' first pass (16 rotations of 7 buckets
# and the body hash make 113; a larger profile is seen in the pass, which then runs again).
_TERMS_PER_PAGE_BOUND = 128
# The most terms one ``terms`` query may carry is the index's ``index.max_terms_count`` (a dynamic
# setting; this is its default on both engines, taken when the index's own cannot be read): a
# batch with more usable fingerprints is searched in several requests. Only the ``terms`` query's
# own values count (as sent, duplicates too): not the ``ids`` of the batch left out, nor the
# ``term`` on ``fp_config``.
DEFAULT_MAX_TERMS = 65_536
# How both engines refuse a ``terms`` query over the limit (400 ``search_phase_execution_exception``,
# root cause ``query_shard_exception``; a shard's failure in a 200 answer when only some of the
# searched indices have the lower limit).
_TOO_MANY_TERMS = re.compile(
    r"The number of terms \[(\d+)\] used in the Terms Query request has exceeded "
    r"the allowed maximum of \[(\d+)\]"
)

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Dialect:
    """What one engine's official client calls things: the data :class:`EngineStore` needs to
    speak to it, so that the store's methods never ask which engine they talk to."""

    name: str  # "OpenSearch", "Elasticsearch": for messages
    helpers: ModuleType  # the client's helpers module (streaming_bulk, bulk)
    not_found: type[Exception]  # 404
    conflict: type[Exception]  # 409 (version conflict, document exists)
    bad_request: type[Exception]  # 400 (resource_already_exists_exception, ...)
    api_error: type[Exception]  # any error answer of the engine (has a status)
    unreachable: tuple[type[Exception], ...]  # no answer: connection refused, timeout, TLS
    status: Callable[[Exception], int | None]  # an api_error's HTTP status
    error_type: Callable[[Exception], str | None]  # an api_error's type, e.g. "..._exception"
    error_body: Callable[[Exception], Any]  # an api_error's JSON answer
    # ``client.<api>`` with a per-request timeout, in seconds (opensearch-py takes a
    # ``request_timeout`` argument; the Elasticsearch clients, ``client.options(...)``).
    with_timeout: Callable[[Any, float], tuple[Any, dict[str, Any]]]
    distribution: str | None = None  # ``version.distribution`` in ``GET /`` (OpenSearch's)
    # Headers the engine puts on every answer, which its clients check (Elasticsearch's
    # product header): what a service standing in for the engine must send too.
    product_headers: tuple[tuple[str, str], ...] = ()


@contextmanager
def translate_errors(dialect: Dialect) -> Iterator[None]:
    """Re-raise transient transport failures as :class:`StoreUnavailable`, a missing index as
    :class:`IndexNotFound`, and refused credentials or privileges and an untrusted certificate
    as :class:`~neardup.ingest.store.errors.AccessDenied` (a setting to fix, not an outage)."""
    try:
        yield
    except dialect.unreachable as exc:  # includes timeouts and TLS errors
        problem = certificate_problem(exc)
        if problem is not None:
            raise CertificateNotTrusted(problem) from exc
        raise StoreUnavailable(f"{dialect.name} unreachable: {exc}") from exc
    except dialect.not_found as exc:
        if dialect.error_type(exc) == "index_not_found_exception":
            body = dialect.error_body(exc)
            error = body.get("error") if isinstance(body, dict) else None
            index = error.get("index") if isinstance(error, dict) else None
            raise IndexNotFound(str(index or "?")) from exc
        raise
    except dialect.api_error as exc:
        status = dialect.status(exc)
        if status == 401:
            raise AuthenticationFailed(f"401: {_reason(dialect, exc)}") from exc
        # 403 is also a cluster block (a read-only index): only the security layer's is a
        # missing privilege (a HEAD request's answer has no body to say which)
        body = dialect.error_body(exc)
        if status == 403 and (not body or "security_exception" in _error_types(body)):
            raise PermissionDenied(f"403: {_reason(dialect, exc)}") from exc
        if status in TRANSIENT_STATUS:
            raise StoreUnavailable(f"{dialect.name} busy ({status}): {exc}") from exc
        if _error_types(dialect.error_body(exc)) & TRANSIENT_TYPES:
            raise StoreUnavailable(f"{dialect.name} lost a node ({status}): {exc}") from exc
        raise


def _reason(dialect: Dialect, exc: Exception) -> str:
    """The reason of an error answer (``error.reason`` of its JSON), else the client's text."""
    body = dialect.error_body(exc)
    error = body.get("error") if isinstance(body, dict) else body
    if isinstance(error, dict) and error.get("reason"):
        return str(error["reason"])
    if isinstance(error, str) and error.strip():
        return error.strip()
    if not body:  # a HEAD request's answer
        return "no reason given"
    return str(exc)


def _error_types(body: Any) -> set[str]:
    """Every ``type`` in an error answer: the error's, its causes', its root causes' and its
    failed shards' reasons'."""
    found: set[str] = set()
    stack = [body.get("error") if isinstance(body, dict) else None]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, dict):
            if isinstance(node.get("type"), str):
                found.add(node["type"])
            stack.extend(node.get(k) for k in ("root_cause", "caused_by", "failed_shards", "reason"))
    return found


def _translated(func: F) -> F:
    @wraps(func)
    def wrapper(self: EngineStore, *args: Any, **kwargs: Any) -> Any:
        with translate_errors(self.dialect):
            return func(self, *args, **kwargs)

    return wrapper  # type: ignore[return-value]


class EngineStore(Store):
    """Pages in ``index`` on the cluster behind ``client`` (the engine's official client,
    spoken to in its :attr:`dialect`).

    ``refresh_writes`` is passed as ``refresh`` to bulk and update requests (``False``,
    ``True`` or ``"wait_for"``); the default leaves visibility to the refresh interval and to
    :meth:`refresh`. ``stoplist_ttl`` is how long (seconds) a read stoplist is reused.
    ``shards``/``replicas`` apply to indices created from the templates :meth:`install` puts,
    read from ``mappings_dir`` (default: the packaged ``mappings/``).
    """

    dialect: Dialect  # set by each backend's subclass

    def __init__(
        self,
        client: Any,
        index: str = "pages",
        *,
        stoplist_ttl: float = 30.0,
        refresh_writes: bool | str = False,
        chunk_size: int = 500,
        max_retries: int = 5,
        initial_backoff: float = 1.0,
        max_backoff: float = 60.0,
        shards: int | None = None,
        replicas: int | None = None,
        mappings_dir: Path | None = None,
    ) -> None:
        self.client = client
        self.index = index
        self.stoplist_index = f"{index}-stoplist"
        # The workers' candidate search (mappings/fingerprints-template.json): one document per
        # page, its fingerprints as terms, its id and seq as doc values, no _source.
        self.fingerprints_index = f"{index}-fingerprints"
        self.stoplist_ttl = stoplist_ttl
        self.refresh_writes = refresh_writes
        self.chunk_size = chunk_size
        self.max_retries = max_retries
        self.initial_backoff = initial_backoff
        self.max_backoff = max_backoff
        self.shards = shards
        self.replicas = replicas
        self.mappings_dir = mappings_dir
        self._stoplist_cache: tuple[float, frozenset[str]] | None = None
        self._max_terms: int | None = None  # index.max_terms_count, read at the first search

    def __repr__(self) -> str:
        return f"{type(self).__name__}(index={self.index!r})"

    # -- setup -------------------------------------------------------------------------------

    @_translated
    def install(self) -> dict[str, str]:
        """Install the templates (versioned) and create both indices when missing.

        Returns what :func:`neardup.ingest.templates.install_templates` did, plus
        ``{index name: "created" | "exists"}``."""
        done = self.install_templates()
        done.update(self.create_indices())
        return done

    @_translated
    def install_templates(self, force: bool = False) -> dict[str, str]:
        return install_templates(
            self.client,
            self.index,
            shards=self.shards,
            replicas=self.replicas,
            force=force,
            directory=self.mappings_dir,
            not_found=self.dialect.not_found,
        )

    @_translated
    def create_indices(self) -> dict[str, str]:
        """Create the pages and stoplist indices (from the templates) when missing:
        ``{"index:<name>": "created" | "exists" | "exists, fields added"}``. A pages index
        made under an older mapping gets the fields added since (additions only: the mapping
        is ``dynamic: strict``, so a new field must be mapped before a document carries it)."""
        done = {f"index:{n}": self._create_index(n)
                for n in (self.index, self.stoplist_index, self.fingerprints_index)}
        if done[f"index:{self.index}"] == "exists" and self._add_new_fields():
            done[f"index:{self.index}"] = "exists, fields added"
        return done

    def _add_new_fields(self) -> bool:
        wanted = load("pages-mappings", self.mappings_dir)["template"]["mappings"]["properties"]
        current = self.client.indices.get_mapping(index=self.index)
        have: set[str] = set()
        for body in current.values():
            have.update(body.get("mappings", {}).get("properties", {}))
        missing = {name: spec for name, spec in wanted.items() if name not in have}
        if missing:
            self.client.indices.put_mapping(index=self.index, body={"properties": missing})
        return bool(missing)

    def _create_index(self, name: str) -> str:
        if self.client.indices.exists(index=name):
            return "exists"
        try:
            self.client.indices.create(index=name)
        except self.dialect.bad_request as exc:
            if self.dialect.error_type(exc) == "resource_already_exists_exception":  # lost a race
                return "exists"
            raise
        return "created"

    @_translated
    def refresh(self) -> None:
        self.client.indices.refresh(index=f"{self.index},{self.fingerprints_index}")

    @_translated
    def refresh_written(self, wait: float = 0.0) -> None:
        """The workers' refresh: the fingerprints index is refreshed (the candidate search
        finds the pages written before the call), and the pages index is left to its own
        refresh (``index.refresh_interval``, the user's) for up to ``wait`` seconds. A refresh
        of a shard copy that *started* after the call has finished once the copy's count of
        external refreshes (``_stats/refresh``) has gone up by two: refreshes of a shard run
        one at a time, so the second started after the first had ended. Only when that does
        not happen in time (no more writes coming, so no scheduled refresh either; a longer
        interval or ``-1``; an idle shard; counts that cannot be read) is the pages index
        refreshed here."""
        before = self._pages_refreshes() if wait > 0 else None
        self.client.indices.refresh(index=self.fingerprints_index)
        if before is not None:
            deadline = time.monotonic() + wait
            while time.monotonic() < deadline:
                time.sleep(_OWN_REFRESH_POLL)
                now = self._pages_refreshes()
                if now is None:
                    break
                if all(now.get(copy, -1) >= n + 2 for copy, n in before.items()):
                    return
        self.client.indices.refresh(index=self.index)

    def _pages_refreshes(self) -> dict[str, int] | None:
        """``{shard copy: external refreshes}`` of the pages index; None when unknown."""
        try:
            answer = self.client.indices.stats(index=self.index, metric="refresh", level="shards")
        except (self.dialect.api_error, *self.dialect.unreachable) as exc:
            log.debug("refresh counts of %s unread: %s", self.index, exc)
            return None
        counts: dict[str, int] = {}
        for name, stats in (answer.get("indices") or {}).items():
            for shard, copies in (stats.get("shards") or {}).items():
                for copy in copies:
                    routing, refresh = copy.get("routing") or {}, copy.get("refresh") or {}
                    if "external_total" not in refresh:
                        return None  # an engine that does not tell them apart
                    key = f"{name}/{shard}/{routing.get('node')}/{routing.get('primary')}"
                    counts[key] = int(refresh["external_total"])
        return counts or None

    @_translated
    def drop(self) -> None:
        self.client.indices.delete(
            index=f"{self.index},{self.stoplist_index},{self.fingerprints_index}",
            ignore_unavailable=True,
        )
        self._stoplist_cache = None

    def close(self) -> None:
        self.client.close()

    # -- probes and instrumentation ----------------------------------------------------------

    def check_health(self, timeout: float = 2.0) -> None:
        client, extra = self.dialect.with_timeout(self.client, timeout + 1)
        client.cluster.health(timeout=f"{max(1, int(timeout))}s", **extra)

    def engine_info(self) -> dict[str, Any]:
        """The node's version and build from ``_nodes/_local`` (Elasticsearch's integ-test
        build answers ``GET /`` with 405), shaped like ``GET /``'s answer."""
        with translate_errors(self.dialect):
            nodes = self.client.nodes.info(node_id="_local")
        node = next(iter(dict(nodes)["nodes"].values()))
        version: dict[str, Any] = {"number": node["version"]}
        for key in ("build_flavor", "build_type", "build_hash"):
            if key in node:
                version[key] = node[key]
        if self.dialect.distribution:
            version["distribution"] = self.dialect.distribution
        return {
            "name": node.get("name"),
            "cluster_name": dict(nodes).get("cluster_name"),
            "version": version,
            "engine": self.dialect.name,
        }

    def product_headers(self) -> dict[str, str]:
        return dict(self.dialect.product_headers)

    @_translated
    def engine_health(self) -> dict[str, Any]:
        return dict(self.client.cluster.health())

    @_translated
    def index_mapping(self) -> dict[str, Any]:
        return dict(self.client.indices.get_mapping(index=self.index))

    def observe_requests(self, callback: Callable[[str, float], None]) -> None:
        """Wrap the transport's ``perform_request`` once (later calls are ignored)."""
        transport = getattr(self.client, "transport", None)
        if transport is None or getattr(transport, "_neardup_timed", False):
            return
        perform = transport.perform_request

        def timed(method: str, url: str, *args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return perform(method, url, *args, **kwargs)
            finally:
                callback(_endpoint(method, url), time.perf_counter() - t0)

        transport.perform_request = timed
        transport._neardup_timed = True

    # -- documents ---------------------------------------------------------------------------

    def put(self, docs: Iterable[StoredDocument], overwrite: bool = True) -> Iterator[PutResult]:
        batch: list[StoredDocument] = []
        for doc in docs:
            batch.append(doc)
            if len(batch) >= self.chunk_size:
                yield from self._put_batch(batch, overwrite)
                batch = []
        if batch:
            yield from self._put_batch(batch, overwrite)

    def _put_batch(self, batch: list[StoredDocument], overwrite: bool) -> list[PutResult]:
        op = "index" if overwrite else "create"
        now = now_iso()
        actions = []
        for doc in batch:
            source = doc.to_source()
            if source["ingested_at"] is None:
                source["ingested_at"] = now
            actions.append({"_op_type": op, "_index": self.index, "_id": doc.id, "_source": source})
            actions.append({"_op_type": op, "_index": self.fingerprints_index, "_id": doc.id,
                            "_source": doc.fingerprints_source()})
        extra: dict[str, Any] = {}
        if self.refresh_writes:
            extra["refresh"] = self.refresh_writes
        by_id: dict[tuple[bool, str], deque[PutResult]] = defaultdict(deque)
        with translate_errors(self.dialect):
            for ok, item in self.dialect.helpers.streaming_bulk(
                self.client,
                actions,
                chunk_size=len(actions),
                max_retries=self.max_retries,
                initial_backoff=self.initial_backoff,
                max_backoff=self.max_backoff,
                raise_on_error=False,
                **extra,
            ):
                info = item.get(op, next(iter(item.values())))
                doc_id = str(info.get("_id"))
                if ok:
                    result = PutResult(doc_id, True, result=info.get("result"))
                elif info.get("status") == 409 and not overwrite:
                    result = PutResult(doc_id, True, result="noop")
                else:
                    result = PutResult(doc_id, False, error=_bulk_error(info))
                by_id[info.get("_index") == self.index, doc_id].append(result)
        out = []
        for doc in batch:
            page, terms = by_id.get((True, doc.id)), by_id.get((False, doc.id))
            if not page or not terms:  # not reported by the bulk helper (should not happen)
                out.append(PutResult(doc.id, False, error="no bulk response for this document"))
                continue
            result, indexed = page.popleft(), terms.popleft()
            # a page is written when both its documents are: one without its fingerprints
            # would never be a candidate
            out.append(result if indexed.ok or not result.ok else PutResult(
                doc.id, False, error=f"fingerprints not indexed: {indexed.error}"))
        failed = sum(not r.ok for r in out)
        if failed:
            log.warning("%d of %d documents failed to index into %s", failed, len(out), self.index)
        return out

    @_translated
    def get(self, doc_id: str) -> StoredDocument | None:
        try:
            hit = self.client.get(index=self.index, id=doc_id)
        except self.dialect.not_found:
            return None
        if not hit.get("found"):
            return None
        return StoredDocument.from_source(hit["_source"], _version(hit))

    @_translated
    def mget(
        self, ids: Iterable[str], with_fingerprints: bool = True, realtime: bool = True
    ) -> dict[str, StoredDocument]:
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return {}
        params: dict[str, Any] = {} if with_fingerprints else {"_source_excludes": "fingerprints"}
        if not realtime:
            params["realtime"] = False
        try:
            res = self.client.mget(index=self.index, body={"ids": wanted}, **params)
        except self.dialect.not_found:
            return {}
        found = {}
        for hit in res["docs"]:
            if hit.get("found"):
                found[hit["_id"]] = StoredDocument.from_source(hit["_source"], _version(hit))
        return found

    # -- candidates --------------------------------------------------------------------------

    @_translated
    def candidates(self, doc: StoredDocument, k: int = 20) -> list[Candidate]:
        terms = candidate_terms(doc.fingerprints, self.stoplist())
        if not terms:
            return []  # the documented rule: no usable fingerprint, no candidates
        body = build_candidate_query(fingerprint_terms(terms), (), k, doc.id, doc.fp_config)
        res = self.client.search(index=self.fingerprints_index, body=body)
        return [Candidate(hit["_id"], int(round(hit["sort"][0]))) for hit in res["hits"]["hits"]]

    @_translated
    def fields(self, ids: Sequence[str], fields: Sequence[str]) -> dict[str, dict[str, Any]]:
        res = self.client.mget(
            index=self.index, body={"ids": list(ids)}, _source_includes=",".join(fields)
        )
        return {h["_id"]: h.get("_source") or {} for h in res["docs"] if h.get("found")}

    # -- search and inspection ---------------------------------------------------------------

    @_translated
    def collapsed_search(
        self, query_text: str, size: int = 10, inner_hits_size: int = 5
    ) -> list[dict[str, Any]]:
        body = build_collapse_search(query_text, size=size, inner_hits_size=inner_hits_size)
        return list(self.client.search(index=self.index, body=body)["hits"]["hits"])

    @_translated
    def top_groups(self, query_text: str, size: int = 10) -> list[dict[str, Any]]:
        """The best ``WINDOW_FACTOR`` × ``size`` hits, the first of each group kept
        (:func:`~neardup.ingest.store.query.parse_window`); the engine's collapse when they
        hold fewer than ``size`` groups and more hits follow."""
        window = min(MAX_WINDOW, WINDOW_FACTOR * size)
        res = self.client.search(index=self.index, body=build_window_query(query_text, window))
        top, complete = parse_window(res, size, window)
        if complete:
            return top
        return [{"id": h["_id"], "dup_group": str(h["_source"][GROUP_FIELD]),
                 "score": h.get("_score")}
                for h in self.collapsed_search(query_text, size=size, inner_hits_size=0)]

    @_translated
    def group_details(
        self, query_text: str, group_ids: Sequence[str], members: int = 5,
        shown: Sequence[str] = (),
    ) -> dict[str, dict[str, Any]]:
        if not group_ids:
            return {}
        body = build_group_details_query(query_text, group_ids, members, shown)
        try:
            res = self.client.search(index=self.index, body=body)
        except self.dialect.not_found:
            return {}
        return parse_group_details(res)

    @_translated
    def largest_groups(self, size: int, min_size: int = 2) -> dict[str, Any]:
        try:
            res = self.client.search(
                index=self.index, body=build_largest_groups_query(size, min_size)
            )
        except self.dialect.not_found:
            return {"groups": [], "grouped_documents": 0, "group_count": 0}
        return parse_largest_groups(res)

    @_translated
    def group_sizes(self, group_ids: Sequence[str]) -> dict[str, int]:
        if not group_ids:
            return {}
        try:
            res = self.client.search(index=self.index, body=build_group_sizes_query(group_ids))
        except self.dialect.not_found:
            return {}
        return parse_group_sizes(res)

    @_translated
    def find(
        self, text: str | None = None, state: str | None = None, offset: int = 0, size: int = 20
    ) -> tuple[int, list[StoredDocument]]:
        short = self._short_pages() if state == "short" else ()
        body = build_find_query(text, state, offset, size, short)
        try:
            res = self.client.search(index=self.index, body=body)
        except self.dialect.not_found:
            return 0, []
        hits = res.get("hits", {})
        total = hits.get("total", {})
        count = int(total.get("value", 0) if isinstance(total, dict) else total or 0)
        return count, [StoredDocument.from_source(h["_source"]) for h in hits.get("hits", [])]

    def _short_pages(self) -> list[str]:
        """Ids of the pages too short to fingerprint (their only term is their body hash), the
        first :data:`~neardup.ingest.store.query.MAX_WINDOW` in ingest order."""
        try:
            res = self.client.search(index=self.fingerprints_index, body=build_short_query())
        except self.dialect.not_found:
            return []
        return [str(h["_id"]) for h in res["hits"]["hits"]]

    @_translated
    def overview(self) -> dict[str, Any] | None:
        try:
            res = self.client.search(index=self.index, body=build_index_overview_query())
        except self.dialect.not_found:
            return None
        return parse_index_overview(res)

    # -- groups ------------------------------------------------------------------------------

    @_translated
    def update_group(self, update: GroupUpdate, version: tuple[int, int] | None = None) -> bool:
        fields = _group_fields(update, now_iso())
        params: dict[str, Any] = {}
        if version is not None:
            params["if_seq_no"], params["if_primary_term"] = version
        if self.refresh_writes:
            params["refresh"] = self.refresh_writes
        try:
            self.client.update(index=self.index, id=update.id, body={"doc": fields}, **params)
        except self.dialect.conflict:
            log.debug("version conflict writing the group of %s", update.id)
            return False
        except self.dialect.not_found as exc:
            raise DocumentNotFound(update.id) from exc
        return True

    @_translated
    def update_groups(
        self, updates: Sequence[tuple[GroupUpdate, tuple[int, int] | None]]
    ) -> list[bool | Exception]:
        """One ``_bulk`` of partial updates, each conditional on its version when given."""
        if not updates:
            return []
        now = now_iso()
        body: list[dict[str, Any]] = []
        for update, version in updates:
            meta: dict[str, Any] = {"_index": self.index, "_id": update.id}
            if version is not None:
                meta["if_seq_no"], meta["if_primary_term"] = version
            body += [{"update": meta}, {"doc": _group_fields(update, now)}]
        out: list[bool | Exception] = []
        results = self._bulk_updates(body, "group writes", refresh=True)
        for (update, _), (status, info) in zip(updates, results, strict=True):
            if status < 300:
                out.append(True)
            elif status == 409:
                log.debug("version conflict writing the group of %s", update.id)
                out.append(False)
            elif status == 404:
                out.append(DocumentNotFound(update.id))
            else:
                out.append(RuntimeError(f"{update.id}: {_bulk_error(info)}"))
        return out

    def _bulk_updates(
        self, body: list[dict[str, Any]], what: str, refresh: bool = False
    ) -> list[tuple[int, dict[str, Any]]]:
        """One ``_bulk`` of ``update`` operations: ``(status, item)`` of each, in order. An
        operation refused for a transient reason (429, 50x) raises
        :class:`~neardup.ingest.store.errors.StoreUnavailable` for the whole call: the updates are
        idempotent, the caller sends the lot again."""
        params: dict[str, Any] = {}
        if refresh and self.refresh_writes:
            params["refresh"] = self.refresh_writes
        out: list[tuple[int, dict[str, Any]]] = []
        transient = []
        for item in self.client.bulk(body=body, **params)["items"]:
            info = item.get("update", next(iter(item.values())))
            status = int(info.get("status", 500))
            if status in TRANSIENT_STATUS:
                transient.append(_bulk_error(info))
            out.append((status, info))
        if transient:
            raise StoreUnavailable(f"{len(transient)} {what} refused: {transient[0]}")
        return out

    @_translated
    def fingerprint_holders(
        self, terms: Mapping[str, Collection[str]], exclude_ids: Sequence[str]
    ) -> list[tuple[str, int, str]]:
        """Per config, the hits of one search of the fingerprints index for all its terms, in
        its order (``seq``, ``id``), though the terms go out in parts of at most
        ``index.max_terms_count`` (:meth:`_holder_hits`)."""
        found: list[tuple[str, int, str]] = []
        for config, wanted in terms.items():
            holders: dict[str, tuple[str, int, str]] = {}
            for h in self._holder_hits(fingerprint_terms(wanted), config, exclude_ids):
                f = h.get("fields", {})
                if "id" not in f:  # every page neardup writes has it (StoredDocument.to_source)
                    log.warning("a page of %s without an id field is not a candidate", config)
                    continue
                doc_id = str(f["id"][0])
                if doc_id in holders:  # holds terms of two parts
                    continue
                holders[doc_id] = (doc_id, int(f["seq"][0]), config)
            found += sorted(holders.values(), key=_seq_and_id)
        return found

    def _holder_hits(
        self, wanted: list[str], config: str, exclude_ids: Sequence[str]
    ) -> Iterator[dict[str, Any]]:
        """Every hit of the holders search for ``wanted``, sent in parts of at most
        :meth:`max_terms` terms (a page holding terms of several parts comes once per part). A
        part the node refuses for its number of terms — the limit lowered since it was read —
        is sent again in smaller parts, under the limit read anew."""
        lo = 0
        while lo < len(wanted):
            part = wanted[lo:lo + self.max_terms()]
            body = build_holders_query(part, config, exclude_ids, _PAGE)
            try:
                yield from self._paged(body, self.fingerprints_index)
            except self.dialect.api_error as exc:
                allowed = _terms_allowed(self.dialect.error_body(exc) or str(exc))
                if allowed is None:
                    raise
                self._fewer_terms(len(part), allowed, exc)
                continue
            except _TooManyTerms as refused:
                self._fewer_terms(len(part), refused.allowed, refused)
                continue
            lo += len(part)

    def max_terms(self) -> int:
        """The most terms one ``terms`` query may carry on the fingerprints index: its
        ``index.max_terms_count``, read once (the smallest of the indices behind an alias;
        :data:`DEFAULT_MAX_TERMS` when it cannot be read — no index yet, no privilege to read
        its settings — in which case a refusal tells the limit)."""
        if self._max_terms is None:
            self._max_terms = self._read_max_terms()
        return self._max_terms

    def _read_max_terms(self) -> int:
        try:
            answer = self.client.indices.get_settings(
                index=self.fingerprints_index, name="index.max_terms_count", include_defaults=True,
                flat_settings=True,
            )
        except (self.dialect.api_error, *self.dialect.unreachable) as exc:
            log.debug("index.max_terms_count of %s unread (%s): taking %d",
                      self.fingerprints_index, exc, DEFAULT_MAX_TERMS)
            return DEFAULT_MAX_TERMS
        limits = []
        for index in answer:
            settings = answer[index]
            value = ((settings.get("settings") or {}).get("index.max_terms_count")
                     or (settings.get("defaults") or {}).get("index.max_terms_count"))
            if value is not None:
                limits.append(max(1, int(value)))
        return min(limits, default=DEFAULT_MAX_TERMS)

    def _fewer_terms(self, sent: int, allowed: int, refusal: Exception) -> None:
        """A search of ``sent`` terms was refused, the node allowing ``allowed``: take the
        limit read anew (or ``allowed``, when lower), and always fewer than ``sent``."""
        limit = min(self._read_max_terms(), allowed or sent, sent - 1)
        log.info("%s refused a search of %d terms (index.max_terms_count lowered?): "
                 "sending at most %d a search", self.dialect.name, sent, limit)
        if limit < 1:
            raise refusal
        self._max_terms = limit

    def _paged(self, body: dict[str, Any], index: str | None = None) -> Iterator[dict[str, Any]]:
        """Every hit of a sorted search of ``_PAGE`` hits a page, page by page
        (``search_after``). A shard that refused a ``terms`` query for its number of terms (the
        others answered) raises :class:`_TooManyTerms`: its hits are missing."""
        while True:
            answer = self.client.search(index=index or self.index, body=body)
            shards = answer["_shards"] if "_shards" in answer else {}
            for failure in shards.get("failures") or ():
                allowed = _terms_allowed(failure)
                if allowed is not None:
                    raise _TooManyTerms(allowed)
            hits = answer["hits"]["hits"]
            yield from hits
            if len(hits) < _PAGE:
                return
            body["search_after"] = hits[-1]["sort"]

    @_translated
    def merge_fields(self, docs: Sequence[StoredDocument]) -> list[PutResult]:
        if not docs:
            return []
        now = now_iso()
        body: list[dict[str, Any]] = []
        for doc in docs:
            source = {k: v for k, v in doc.to_source().items() if v is not None}
            source.setdefault("ingested_at", now)
            body += [{"update": {"_index": self.index, "_id": doc.id, "retry_on_conflict": 5}},
                     {"doc": source},
                     {"index": {"_index": self.fingerprints_index, "_id": doc.id}},
                     doc.fingerprints_source()]
        answers = self._bulk_updates(body, "writes")
        return [
            PutResult(doc.id, True, result=info.get("result")) if status < 300 and terms < 300
            else PutResult(doc.id, False, error=_bulk_error(info if status >= 300 else indexed))
            for doc, (status, info), (terms, indexed)
            in zip(docs, answers[::2], answers[1::2], strict=True)
        ]

    def untagged(self, size: int = 500) -> Iterator[tuple[str, dict[str, Any]]]:
        query = {"query": {"bool": {"must_not": [{"exists": {"field": "dup_group"}}]}}}
        with translate_errors(self.dialect):
            for hit in self.dialect.helpers.scan(self.client, index=self.index, query=query,
                                                 size=size, scroll="5m"):
                yield str(hit["_id"]), dict(hit.get("_source") or {})

    @_translated
    def index_exists(self) -> bool:
        return bool(self.client.indices.exists(index=self.index))

    @_translated
    def count_untagged(self) -> int:
        body = {"query": {"bool": {"must_not": [{"exists": {"field": "dup_group"}}]}}}
        return int(self.client.count(index=self.index, body=body)["count"])

    @_translated
    def delete(self, ids: Sequence[str]) -> int:
        """Remove pages from both indices (a page deleted); returns how many pages the pages
        index held."""
        if not ids:
            return 0
        body: list[dict[str, Any]] = []
        for doc_id in ids:
            body += [{"delete": {"_index": self.index, "_id": doc_id}},
                     {"delete": {"_index": self.fingerprints_index, "_id": doc_id}}]
        res = self.client.bulk(body=body)
        gone = 0
        for item in res.get("items", [])[::2]:
            info = item.get("delete", {})
            if info.get("result") == "deleted":
                gone += 1
        return gone

    def fingerprinted_ids(self) -> Iterator[str]:
        """Every id the fingerprints index holds (a page deleted from the pages index behind
        neardup's back keeps its document there)."""
        with translate_errors(self.dialect):
            for hit in self.dialect.helpers.scan(
                self.client, index=self.fingerprints_index, query={"query": {"match_all": {}}},
                size=5000, scroll="5m", _source=False, docvalue_fields=["id"]):
                yield str(hit["_id"])

    def group_ids(self) -> Iterator[tuple[str, str]]:
        """``(id, dup_group)`` of every page of the pages index that carries a group."""
        query = {"query": {"exists": {"field": "dup_group"}}}
        with translate_errors(self.dialect):
            for hit in self.dialect.helpers.scan(self.client, index=self.index, query=query,
                                                 size=5000, scroll="5m",
                                                 _source=["dup_group"]):
                group = (hit.get("_source") or {}).get("dup_group")
                if group:
                    yield str(hit["_id"]), str(group)

    @_translated
    def existing(self, ids: Sequence[str]) -> set[str]:
        if not ids:
            return set()
        try:
            res = self.client.mget(index=self.index, body={"ids": list(ids)}, _source="false")
        except self.dialect.not_found:
            return set()
        return {hit["_id"] for hit in res["docs"] if hit.get("found")}

    @_translated
    def set_groups(self, groups: Mapping[str, str]) -> None:
        if not groups:
            return
        body: list[dict[str, Any]] = []
        for doc_id, root in groups.items():
            body += [{"update": {"_index": self.index, "_id": doc_id, "retry_on_conflict": 5}},
                     {"doc": {"dup_group": root}}]
        for status, info in self._bulk_updates(body, "group writes"):
            if status >= 300 and status != 404:
                log.warning("could not set the group of %s: %s", info.get("_id"), _bulk_error(info))

    @_translated
    def group_members(self, group_id: str) -> list[StoredDocument]:
        body: dict[str, Any] = {
            "size": _PAGE,
            "query": {"term": {"dup_group": group_id}},
            "sort": [{"seq": {"order": "asc"}}, {"id": {"order": "asc"}}],
            "seq_no_primary_term": True,
            "track_total_hits": False,
        }
        return [StoredDocument.from_source(h["_source"], _version(h)) for h in self._paged(body)]

    # -- fingerprint frequencies and the stoplist --------------------------------------------

    @_translated
    def document_count(self) -> int:
        return int(self.client.count(index=self.index)["count"])

    @_translated
    def fingerprint_frequencies(self, min_count: int) -> dict[str, tuple[int, int]]:
        """Exact: two passes over the pages' own ``fingerprints`` (a scroll), the first keeping
        a bounded summary of the frequent ones (:mod:`neardup.ingest.store.frequencies`). The
        fingerprints index keeps no doc values, which a ``terms`` aggregation would need and
        every write would pay for."""
        return frequent_fingerprints(
            self._fingerprints_and_sites, min_count,
            self.document_count() * _TERMS_PER_PAGE_BOUND,
        )

    def _fingerprints_and_sites(self) -> Iterator[tuple[list[str], str | None]]:
        with translate_errors(self.dialect):
            for hit in self.dialect.helpers.scan(
                self.client, index=self.index, query={"query": {"match_all": {}}},
                _source_includes=["fingerprints", "site"], size=_PAGE, scroll="5m",
            ):
                source = hit.get("_source") or {}
                fps = source.get("fingerprints")
                site = source.get("site")
                yield ([str(f) for f in fps] if isinstance(fps, list) else [],
                       str(site) if site else None)

    @_translated
    def set_stoplist(self, fingerprints: Iterable[str | StoplistEntry]) -> None:
        """Replace the stoplist: write the new entries under a fresh generation, then delete
        every other generation (readers meanwhile see a superset, never an empty list)."""
        self._create_index(self.stoplist_index)
        generation = uuid.uuid4().hex
        computed_at = now_iso()

        def actions() -> Iterator[dict[str, Any]]:
            for item in fingerprints:
                entry = item if isinstance(item, StoplistEntry) else StoplistEntry(item)
                yield {
                    "_op_type": "index",
                    "_index": self.stoplist_index,
                    "_id": entry.fingerprint,
                    "_source": {
                        "fingerprint": entry.fingerprint,
                        "count": entry.count,
                        "sites": entry.sites,
                        "reason": entry.reason,
                        "generation": generation,
                        "computed_at": computed_at,
                    },
                }

        for _ok, _item in self.dialect.helpers.streaming_bulk(
            self.client,
            actions(),
            chunk_size=self.chunk_size,
            max_retries=self.max_retries,
            initial_backoff=self.initial_backoff,
            max_backoff=self.max_backoff,
            raise_on_error=True,
        ):
            pass
        self.client.indices.refresh(index=self.stoplist_index)
        # _delete_by_query lives in the reindex module, which minimal distributions lack:
        # find the stale entries with search_after and delete them in bulk instead.
        stale = self._read_stoplist(
            with_source=False,
            query={"bool": {"must_not": [{"term": {"generation": generation}}]}},
        )
        if stale:
            self.dialect.helpers.bulk(
                self.client,
                (
                    {"_op_type": "delete", "_index": self.stoplist_index, "_id": e.fingerprint}
                    for e in stale
                ),
                chunk_size=self.chunk_size,
                raise_on_error=False,
            )
        self.client.indices.refresh(index=self.stoplist_index)
        self._stoplist_cache = None

    def stoplist(self) -> frozenset[str]:
        cached = self._stoplist_cache
        now = time.monotonic()
        if cached is not None and cached[0] > now:
            return cached[1]
        with translate_errors(self.dialect):
            fps = frozenset(e.fingerprint for e in self._read_stoplist(with_source=False))
        self._stoplist_cache = (now + self.stoplist_ttl, fps)
        return fps

    @_translated
    def stoplist_entries(self) -> list[StoplistEntry]:
        entries = self._read_stoplist(with_source=True)
        return sorted(entries, key=lambda e: (-(e.count or 0), e.fingerprint))

    def _read_stoplist(
        self, with_source: bool, query: dict[str, Any] | None = None
    ) -> list[StoplistEntry]:
        body: dict[str, Any] = {
            "size": _PAGE,
            "query": query or {"match_all": {}},
            "sort": [{"fingerprint": {"order": "asc"}}],
            "_source": ["count", "sites", "reason"] if with_source else False,
            "track_total_hits": False,
        }
        entries: list[StoplistEntry] = []
        while True:
            try:
                hits = self.client.search(index=self.stoplist_index, body=body)["hits"]["hits"]
            except self.dialect.not_found:
                return []  # no stoplist index yet: nothing is stoplisted
            for h in hits:
                src = h.get("_source") or {}
                entries.append(
                    StoplistEntry(h["_id"], src.get("count"), src.get("sites"), src.get("reason"))
                )
            if len(hits) < _PAGE:
                return entries
            body["search_after"] = hits[-1]["sort"]


class _TooManyTerms(StoreError):
    """A shard refused a search for the number of terms of its ``terms`` query; it allows
    ``allowed``."""

    def __init__(self, allowed: int) -> None:
        super().__init__(f"a shard refused a terms query: it allows {allowed} terms")
        self.allowed = allowed


def _terms_allowed(error: Any) -> int | None:
    """The ``index.max_terms_count`` an error answer (or a shard's failure) says a ``terms``
    query went over, or None when it is another error.

    >>> _terms_allowed({"error": {"reason": "The number of terms [6] used in the Terms Query "
    ...                 "request has exceeded the allowed maximum of [5]. This maximum ..."}})
    5
    """
    found = _TOO_MANY_TERMS.search(str(error))
    return int(found.group(2)) if found else None


def _seq_and_id(hit: tuple[str, int, str]) -> tuple[int, str]:
    """The holders search's order: ``seq``, then ``id`` (a keyword, so code points: what
    Python's ``str`` order is too)."""
    return hit[1], hit[0]


def _group_fields(update: GroupUpdate, now: str) -> dict[str, Any]:
    return {
        "dup_group": update.dup_group,
        "dup_of": update.dup_of,
        "resemble": update.resemble,
        "contain": update.contain,
        "status": update.status,
        "error": update.error,
        "grouped_at": now,
    }


def _endpoint(method: str, url: str) -> str:
    """A request's kind: ``_mget``, ``_msearch``, ``_bulk``, ``_update``, ``_search``, ..."""
    parts = [p for p in url.split("?")[0].split("/") if p]
    for p in reversed(parts):
        if p.startswith("_"):
            return p
    return method.lower()


def _version(hit: dict[str, Any]) -> tuple[int, int] | None:
    if "_seq_no" in hit and "_primary_term" in hit:
        return (int(hit["_seq_no"]), int(hit["_primary_term"]))
    return None


def _bulk_error(info: dict[str, Any]) -> str:
    error = info.get("error")
    if isinstance(error, dict):
        return f"{info.get('status')} {error.get('type')}: {error.get('reason')}"
    return f"{info.get('status')} {error}"
