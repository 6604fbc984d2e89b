"""What ``neardup serve`` does behind its endpoints: the I/O edge of the HTTP service.

:class:`Backend` ties together the store (:func:`neardup.ingest.store.open_store`), step 1 of the
method (:func:`neardup.ingest.pipeline.prepare_document`), the verification queue
(:mod:`neardup.verifier.tasks`) and, for the inspector, the verifier itself
(:func:`neardup.verifier.compare.compare`). The HTTP layer (``neardup.ingest.server.app``) only parses requests and
shapes answers; everything here is synchronous and runs in the server's thread pool.

Ingest semantics (shared by ``POST /documents`` and ``POST /_bulk``):

* A new id is indexed (``created``, 201) and queued for verification.
* An identical re-send (same text and metadata) is a ``noop`` (200) and changes nothing:
  re-ingest is idempotent, as design.md requires. A page still ``pending`` is queued again,
  so a client retrying after a broker outage heals the queue.
* The same id with another text or metadata is refused (409): neardup keeps the first
  version of a page, like ``neardup ingest``; a group was decided on that text, and members
  verified against it would silently lose their reason to be grouped.
* ``create`` of an id that exists (in the index or earlier in the request) is a 409, as in
  OpenSearch.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from neardup.ingest.errors import DocumentError
from neardup.ingest.fingerprint import BODY_HASH_PREFIX
from neardup.ingest.pipeline import fingerprint_config, prepare_document
from neardup.ingest.records import DEFAULT_LIMITS, Limits, validate_page
from neardup.ingest.server.bulk import ItemError
from neardup.ingest.server.inspector import page_status, segments, snippet
from neardup.ingest.settings import Settings
from neardup.ingest.store.base import Store, StoredDocument
from neardup.ingest.store.errors import Unsupported
from neardup.ingest.store.query import MAX_GROUPS
from neardup.verifier.compare import compare
from neardup.verifier.config import VerifyConfig
from neardup.verifier.registry import Registry, page_payload, stored_page
from neardup.verifier.tasks import submit

__all__ = ["Backend", "IngestItem", "document_summary", "document_with_status"]

log = logging.getLogger(__name__)
log.addHandler(logging.NullHandler())

_SUMMARY_FIELDS = (
    "id", "url", "site", "title", "seq", "dup_group", "dup_of", "resemble", "contain",
    "status", "error", "ingested_at", "grouped_at", "fp_config",
)  # fmt: skip
_CONTENT_FIELDS = ("body", "fp_config", "url", "site", "title")


@dataclass(slots=True)
class IngestItem:
    """One document of an ingest request and, after :meth:`Backend.ingest`, its outcome."""

    action: str  # index | create
    raw: Mapping[str, Any]  # the input document (id, text|html, url, site, title)
    line: int | None = None  # its line in a JSONL body
    id: str | None = None  # its id once validated (what an answer may echo)
    status: int = 0  # HTTP status of the item (201 created, 200 updated/noop, 4xx/5xx error)
    result: str | None = None  # created | updated | noop
    queued: bool = False
    error: ItemError | None = None

    def fail(self, error: ItemError) -> None:
        self.error, self.status, self.result, self.queued = error, error.status, None, False


def document_summary(doc: StoredDocument) -> dict[str, Any]:
    """A stored document without its text and fingerprints, plus ``length`` (code points) and
    ``fingerprint_count`` (0 for a page too short to have a fingerprint)."""
    source = doc.to_source()
    out = {k: source.get(k) for k in _SUMMARY_FIELDS}
    out["length"] = len(doc.body or "")
    out["fingerprint_count"] = sum(
        1 for f in doc.fingerprints if not f.startswith(BODY_HASH_PREFIX)
    )
    return out


def document_with_status(doc: StoredDocument, group_size: int | None) -> dict[str, Any]:
    """:func:`document_summary` plus what became of the page (:func:`page_status`) and a
    snippet of its main content."""
    out = document_summary(doc)
    out.update(page_status(out, doc.fingerprints, group_size))
    out["snippet"] = snippet(doc.verified_text)
    return out


class Backend:
    """The store, the pipeline and the queue behind the HTTP endpoints.

    Parameters
    ----------
    store
        An opened store (``open_store("engine", ...)``); the inspector's list of groups
        and ``GET /`` need a search engine behind it (:meth:`Store.largest_groups`,
        :meth:`Store.engine_info`).
    pipeline
        Accepts batches of prepared pages for the workers and tells which are still undecided
        (default: :class:`BrokerPipeline` on ``broker_url``).
    compare
        ``compare(a_text, b_text) -> Verdict`` with ``a_span``/``b_span`` (default:
        :func:`neardup.verifier.compare.compare`).
    broker_url
        Checked by :meth:`readiness` (default: ``Settings``' default; ``neardup serve`` passes
        its settings' ``broker_url``).
    profile
        Fingerprint profile (``web`` or ``short``).
    limits
        The input rules (:class:`neardup.ingest.records.Limits`; ``neardup serve`` passes its
        settings'), applied by the same layer as on every other path.
    """

    def __init__(
        self,
        store: Store,
        *,
        pipeline: Pipeline | None = None,
        compare: Callable[[str, str], Any] | None = None,
        broker_url: str | None = None,
        profile: str = "web",
        limits: Limits = DEFAULT_LIMITS,
        max_live: int = 8,
        batch: int = 250,
    ) -> None:

        self.store = store
        self.limits = limits
        self.fp_config = fingerprint_config(profile)
        self.profile = profile
        self.broker_url = broker_url or Settings.broker_url
        self._pipeline = pipeline
        self.max_live = max_live
        self.batch = batch  # pages per accepted batch: a larger request is split
        self._accepted: deque[str] = deque(maxlen=10_000)  # batches this service accepted
        self._compare = compare
        self._installed = False
        self._install_lock = threading.Lock()

    def ensure_installed(self) -> None:
        """Install the index templates and create the indices once (idempotent); until
        OpenSearch answers, raises :class:`StoreUnavailable` (HTTP 503) and tries again on the
        next request."""
        if self._installed:
            return
        with self._install_lock:
            if not self._installed:
                self.store.install()
                self._installed = True

    @property
    def index(self) -> str:
        return str(getattr(self.store, "index", "pages"))

    # -- ingest ------------------------------------------------------------------------------

    def ingest(self, items: Sequence[IngestItem], refresh: bool = False) -> None:
        """Prepare, index and queue ``items``, setting each item's outcome in place."""

        if not items:
            return
        self.ensure_installed()
        prepared: list[tuple[IngestItem, StoredDocument]] = []
        for item in items:
            try:
                page = validate_page(item.raw, self.limits)
                item.id = page.id
                doc = prepare_document(page, 0, self.fp_config, self.limits)
            except DocumentError as exc:
                item.id = item.id or exc.doc_id
                item.fail(ItemError.of(exc))
                continue
            except Exception as exc:  # an extractor crash is still one document's failure
                log.warning("document %r failed to prepare: %r", item.id, exc)
                item.fail(ItemError(400, "document_error", f"{type(exc).__name__}: {exc}"))
                continue
            prepared.append((item, doc))
        if not prepared:
            return

        existing = self.store.mget({doc.id for _, doc in prepared}, with_fingerprints=False)
        unseen = sorted({doc.id for _, doc in prepared} - set(existing))
        try:  # accepted and not decided yet: the version the workers have
            existing.update((i, stored_page(p))
                            for i, p in self.pipeline.pending_pages(unseen).items())
        except Exception as exc:  # the broker is down: nothing can be accepted anyway
            log.debug("could not read the undecided pages: %r", exc)
        new: dict[str, StoredDocument] = {}  # first version of each id not yet accepted
        for item, doc in prepared:
            before = existing.get(doc.id) or new.get(doc.id)
            if before is None:
                item.status, item.result = 201, "created"
                new[doc.id] = doc
            elif item.action == "create":
                item.fail(_conflict(doc.id, "document already exists"))
            elif not _same_content(before, doc):
                item.fail(
                    _conflict(
                        doc.id,
                        "a page with this id is already indexed with another text; neardup keeps "
                        "the first version (its group was decided on that text)",
                    )
                )
            else:
                item.status, item.result = 200, "noop"
        refused: dict[str, ItemError] = {}  # id -> why it was not accepted
        keys: list[str] = []
        pages = list(new.values())
        for lo in range(0, len(pages), self.batch):  # batches as ingest makes them
            chunk = pages[lo:lo + self.batch]
            try:
                keys.append(self.submit([page_payload(d) for d in chunk]))
                continue
            except Backlogged as exc:
                error = ItemError(429, "es_rejected_execution_exception",
                                  f"not accepted, send it again later: {exc}")
            except Exception as exc:  # broker down: nothing more accepted
                log.warning("could not accept %d documents: %r", len(pages) - lo, exc)
                # the broker's address stays in the log: answers go to any client
                error = ItemError(503, "queue_unavailable", "not accepted (send it again): "
                                  f"the broker is unreachable ({type(exc).__name__})")
            refused.update((d.id, error) for d in pages[lo:])
            break
        for item, doc in prepared:
            if item.error is not None or doc.id not in new:
                continue
            if doc.id in refused:
                item.fail(refused[doc.id])
            else:
                item.queued = True
        self._accepted.extend(keys)
        if keys and refresh:
            self.wait_searchable(keys)

    @property
    def pipeline(self) -> Pipeline:
        if self._pipeline is None:
            self._pipeline = BrokerPipeline(self.broker_url, self.index, self.profile,
                                            self.max_live)
        return self._pipeline

    def submit(self, pages: list[dict[str, Any]]) -> str:
        """Accept prepared pages as one batch and queue its decision; returns its key."""
        return self.pipeline.submit(pages)

    def wait_searchable(self, keys: Sequence[str] | None = None, budget: float = 120.0) -> None:
        """Wait (at most ``budget`` seconds) until the batches ``keys`` — every accepted batch
        of the index when None — are indexed and searchable."""
        self.pipeline.wait_searchable(keys, budget)

    # -- reading -----------------------------------------------------------------------------

    def document(self, doc_id: str) -> dict[str, Any] | None:
        """The page's summary with its ``state`` and the ``explanation`` of it."""
        doc = self.store.get(doc_id)
        if doc is None:
            if doc_id in self.pipeline.pending([doc_id]):
                return {"id": doc_id, "status": "pending", "dup_group": None,
                        **page_status({"id": doc_id, "status": "pending"}, (), None)}
            return None
        return document_with_status(doc, self._group_sizes([doc])[doc.id])

    def _group_sizes(self, docs: Sequence[StoredDocument]) -> dict[str, int | None]:
        groups = sorted({d.dup_group for d in docs if d.dup_group and d.status != "pending"})
        try:
            sizes = self.store.group_sizes(groups) if groups else {}
        except Unsupported:  # a store without aggregations: sizes unknown
            sizes = {}
        return {d.id: sizes.get(d.dup_group) if d.dup_group else None for d in docs}

    def lookup(
        self, text: str | None, state: str | None, offset: int = 0, size: int = 20
    ) -> dict[str, Any]:
        """The inspector's lookup: pages by id, URL or text (:meth:`Store.find`), or every page
        in ``state``, a page of ``size`` from ``offset``, each with its state explained."""
        if state == "pending":  # accepted, not decided: not in the index yet
            total, pages = self.pipeline.undecided(offset, size)
            waiting = [stored_page(p) for p in pages]
            return {"total": total, "offset": offset, "size": size,
                    "pages": [document_with_status(d, None) for d in waiting]}
        total, docs = self.store.find(text or None, state or None, offset, size)
        sizes = self._group_sizes(docs)
        return {
            "total": total,
            "offset": offset,
            "size": size,
            "pages": [document_with_status(d, sizes[d.id]) for d in docs],
        }

    def overview(self) -> dict[str, Any]:
        """Pages per status, the group-size histogram, duplicates per site
        (:meth:`Store.overview`); ``exists`` False when there is no index yet."""
        found = self.store.overview()
        if found is None:
            return {"index": self.index, "exists": False, "documents": 0, "status": {},
                    "group_count": 0, "size_histogram": [], "duplicates_by_site": []}  # fmt: skip
        try:  # pages accepted and not decided yet live beside the index, on the broker
            undecided = self.pipeline.pending_count()
        except Exception as exc:
            log.warning("could not count the undecided pages: %r", exc)
            undecided = 0
        if undecided:
            status = dict(found.get("status") or {})
            status["pending"] = status.get("pending", 0) + undecided
            found = {**found, "status": status,
                     "documents": int(found.get("documents") or 0) + undecided}
        return {"index": self.index, "exists": True, **found}

    def _group(self, group_id: str) -> tuple[StoredDocument, list[StoredDocument]] | None:
        members = self.store.group_members(group_id)
        if not members:
            return None
        rep = next((m for m in members if m.id == group_id), None)
        if rep is None:  # the representative is being rewritten by a merge: earliest member
            rep = members[0]
        return rep, [m for m in members if m is not rep]

    def group(self, group_id: str) -> dict[str, Any] | None:
        found = self._group(group_id)
        if found is None:
            return None
        rep, others = found
        return {
            "id": group_id,
            "size": len(others) + 1,
            "representative": document_summary(rep),
            "members": [document_summary(m) for m in others],
        }

    def largest_groups(self, size: int, min_size: int = 2, offset: int = 0) -> dict[str, Any]:
        """A page of the largest groups (``size`` from ``offset``; at most ``MAX_GROUPS``
        deep: a terms aggregation ordered by size cannot be paged further), each with its
        representative's title, URL, site and the beginning of its main content."""
        out = self.store.largest_groups(min(offset + size, MAX_GROUPS), min_size)
        out["groups"] = out["groups"][offset : offset + size]
        reps = self.store.mget([g["id"] for g in out["groups"]], with_fingerprints=False)
        for g in out["groups"]:
            rep = reps.get(g["id"])
            g["title"] = rep.title if rep else None
            g["url"] = rep.url if rep else None
            g["site"] = rep.site if rep else None
            # the main content: an HTML page's text without its site's header and navigation
            g["snippet"] = snippet(rep.verified_text) if rep else None
        out["index"] = self.index
        out["offset"] = offset
        out["size"] = size
        return out

    def explain(self, group_id: str, limit: int = 20) -> dict[str, Any] | None:
        """The group with, for each member, the verifier's verdict against the representative
        and both texts cut into segments around the trustable LCS region(s)."""
        found = self._group(group_id)
        if found is None:
            return None
        rep, others = found
        if self._compare is None:
            self._compare = default_compare(self.profile)
        compare = self._compare
        members = []
        for m in others[:limit]:
            entry: dict[str, Any] = {"document": document_summary(m)}
            try:
                verdict = compare(rep.verified_text, m.verified_text)
            except Exception as exc:  # one bad pair must not hide the rest of the group
                log.warning("compare(%s, %s) failed: %r", rep.id, m.id, exc)
                entry["error"] = f"{type(exc).__name__}: {exc}"
                entry["representative_segments"] = segments(rep.verified_text, None)
                entry["member_segments"] = segments(m.verified_text, None)
            else:
                entry["verdict"] = verdict_json(verdict)
                # The texts compared: the main content (spans refer to it).
                entry["representative_segments"] = segments(
                    rep.verified_text, spans_of(verdict, "a"), words=True
                )
                entry["member_segments"] = segments(
                    m.verified_text, spans_of(verdict, "b"), words=True
                )
            members.append(entry)
        return {
            "id": group_id,
            "size": len(others) + 1,
            "representative": document_summary(rep),
            "members": members,
            "truncated": len(others) > limit,
            "thresholds": thresholds(VerifyConfig.profile(self.profile)),
        }

    # -- probes ------------------------------------------------------------------------------

    def readiness(self) -> dict[str, str]:
        """``{"opensearch": "ok" | reason, "broker": "ok" | reason}``, each checked quickly."""
        checks: dict[str, str] = {}
        try:
            self.store.check_health(timeout=2.0)
            checks["opensearch"] = "ok"
        except Exception as exc:
            checks["opensearch"] = f"{type(exc).__name__}: {exc}"[:300]
        checks["broker"] = broker_reachable(self.broker_url)
        return checks

    def cluster_info(self) -> dict[str, Any]:
        """The engine's ``GET /`` answer (clients check the version), marked as neardup's."""
        info = self.store.engine_info()
        engine = info.pop("engine", "OpenSearch")
        info["tagline"] = f"neardup in front of {engine} (pages index: {self.index})"
        return info

    def refresh(self) -> None:
        """Make recent writes searchable (a client's ``_refresh``): wait until the accepted
        pages are decided and indexed (at most two minutes), then refresh."""
        try:
            self.wait_searchable(list(self._accepted))
        except Exception as exc:  # the broker is down: refresh what is indexed
            log.warning("could not wait for the accepted pages: %r", exc)
        self.store.refresh()

    def engine_health(self) -> dict[str, Any]:
        """The engine's ``_cluster/health`` answer."""
        return self.store.engine_health()

    def index_mapping(self) -> dict[str, Any]:
        """The engine's ``GET /<index>/_mapping`` answer for the pages index."""
        return self.store.index_mapping()

    def create_index(self) -> None:
        """The pages index from its templates, when missing."""
        self.store.install()

    def product_headers(self) -> dict[str, str]:
        """The engine's product headers (:meth:`Store.product_headers`), for every answer."""
        return self.store.product_headers()


def _conflict(doc_id: str, why: str) -> ItemError:
    return ItemError(
        409, "version_conflict_engine_exception", f"[{doc_id}]: version conflict, {why}"
    )


def _same_content(a: StoredDocument, b: StoredDocument) -> bool:
    return all(getattr(a, f) == getattr(b, f) for f in _CONTENT_FIELDS)


def thresholds(config: VerifyConfig) -> dict[str, Any]:
    """The thresholds the verdict's rates are held against, by the profile's ``decision``:
    ``content`` — word resemble and core resemble, or word containment; ``tlcs`` — the
    paper's TLCS resemble or contain."""
    if config.decision == "content":
        return {"decision": "content", "word_resemble": config.min_word_resemble,
                "core_resemble": config.min_core_resemble,
                "word_contain": config.min_word_contain}  # fmt: skip
    return {"decision": config.decision, "resemble": config.resemble, "contain": config.contain}


def verdict_json(verdict: Any) -> dict[str, Any]:
    """The scores of a ``Verdict`` as JSON, with the ``reason`` for the decision."""
    out: dict[str, Any] = {}
    for name in ("similar", "resemble", "contain", "tlcs", "reason", "word_resemble",
                 "core_resemble", "word_contain"):  # fmt: skip
        value = getattr(verdict, name, None)
        if isinstance(value, float):
            value = round(value, 4)
        out[name] = value
    return out


def spans_of(verdict: Any, side: str) -> list[tuple[int, int]]:
    """The trustable region(s) of one side (``a`` or ``b``) of a ``Verdict``.

    ``a_span``/``b_span`` is the region as ``(start, end)`` offsets into the original text
    (None when there is none); a verdict that found several regions (iterative mode) lists
    them in ``a_spans``/``b_spans``.
    """
    many = getattr(verdict, f"{side}_spans", None)
    if many:
        return [(int(s), int(e)) for s, e in many]
    one = getattr(verdict, f"{side}_span", None)
    if one is None:
        return []
    return [(int(one[0]), int(one[1]))]


# -- defaults wired to the rest of neardup --------------------------------------------------------


def default_compare(profile: str = "web") -> Callable[[str, str], Any]:
    """:func:`neardup.verifier.compare.compare` with the profile's config, as the workers call it."""

    config = VerifyConfig.profile(profile)
    return lambda a, b: compare(a, b, config)


class Backlogged(Exception):
    """The workers are behind: too many accepted batches wait to be indexed (HTTP 429)."""


class Pipeline(Protocol):
    """What the HTTP service needs of the workers' side (:class:`BrokerPipeline`)."""

    def submit(self, pages: list[dict[str, Any]]) -> str: ...

    def pending(self, ids: Sequence[str]) -> set[str]: ...

    def pending_count(self) -> int: ...

    def pending_pages(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]: ...

    def undecided(self, offset: int, size: int) -> tuple[int, list[dict[str, Any]]]: ...

    def wait_searchable(self, keys: Sequence[str] | None, budget: float) -> None: ...


class BrokerPipeline:
    """The pages ``index``'s batches on the broker (:mod:`neardup.verifier.registry`) and the workers'
    queue (:func:`neardup.verifier.tasks.submit`)."""

    def __init__(self, broker_url: str, index: str, profile: str = "web",
                 max_live: int = 8, room_wait: float = 30.0) -> None:
        self.registry = Registry.from_url(broker_url, index)
        self.profile = profile
        self.max_live, self.room_wait = max_live, room_wait

    def submit(self, pages: list[dict[str, Any]]) -> str:
        # backpressure, as for neardup ingest: a request waits for room a while, then is refused
        if not self.registry.wait_for_room(self.max_live, self.room_wait):
            raise Backlogged(f"{self.max_live} batches are waiting for the workers")
        return submit(self.registry, pages, self.profile)

    def pending(self, ids: Sequence[str]) -> set[str]:
        return self.registry.pending(ids)

    def pending_count(self) -> int:
        return self.registry.pending_count()

    def pending_pages(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        return self.registry.pending_pages(ids)

    def undecided(self, offset: int, size: int) -> tuple[int, list[dict[str, Any]]]:
        return self.registry.undecided(offset, size)

    def wait_searchable(self, keys: Sequence[str] | None, budget: float) -> None:
        if keys is not None and not keys:
            return
        t0 = time.monotonic()
        while time.monotonic() - t0 < budget:
            left = self.registry.live_of(keys) if keys is not None else self.registry.live_count()
            if not left:
                return
            time.sleep(0.05)


def broker_reachable(url: str, timeout: float = 2.0) -> str:
    """``"ok"`` when the broker accepts a connection within ``timeout`` seconds, else why not."""
    try:
        from kombu.connection import Connection

        connection: Any = Connection  # kombu is untyped
        with connection(url, connect_timeout=timeout, transport_options={"max_retries": 0}) as conn:
            conn.ensure_connection(
                max_retries=1, interval_start=0, interval_step=0, timeout=timeout
            )
        return "ok"
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"[:300]
