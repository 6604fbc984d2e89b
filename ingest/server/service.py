"""What ``neardup serve`` does behind its endpoints: the I/O edge of the HTTP service.

:class:`IngestService` ties together the store (:func:`neardup.ingest.store.open_store`), step 1
of the method (:func:`neardup.ingest.pipeline.prepare_document`), the queue of accepted batches
for the workers (:mod:`neardup.ingest.server.broker`) and the reads of pages and groups
(:class:`~neardup.ingest.server.reads.PageReads`, for ``GET /documents``, ``GET /groups`` and
the inspector). The HTTP layer (:mod:`neardup.ingest.server.app` and its handlers) only parses
requests and shapes answers; everything here is synchronous and runs in the server's thread
pool.

Ingest semantics (shared by ``POST /documents`` and ``POST /_bulk``):

* A new id is indexed (``created``, 201) and queued for verification.
* An identical re-send (same text and metadata) is a ``noop`` (200) and changes nothing:
  re-ingest is idempotent (docs/http.md). A page still ``pending`` is queued again,
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
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from neardup.ingest.chrome import ChromeRule
from neardup.ingest.errors import DocumentError
from neardup.ingest.pipeline import fingerprint_config, prepare_document
from neardup.ingest.records import DEFAULT_LIMITS, Limits, Page, validate_page
from neardup.ingest.server.broker import (
    Backlogged,
    BatchQueue,
    BrokerBatchQueue,
    broker_reachable,
)
from neardup.ingest.server.bulk import ItemError
from neardup.ingest.server.reads import PageReads, index_name
from neardup.ingest.settings import Settings
from neardup.ingest.store.base import Store, StoredDocument
from neardup.ingest.workers._redis import connect
from neardup.ingest.workers.chrome_counts import SharedChromeCounts, chrome_text

__all__ = ["IngestItem", "IngestService"]

log = logging.getLogger(__name__)
log.addHandler(logging.NullHandler())

_CONTENT_FIELDS = ("body", "fp_config", "url", "site", "title")


@dataclass(slots=True)
class IngestItem:
    """One document of an ingest request and, after :meth:`IngestService.ingest`, its outcome.

    Stage: the HTTP door (``POST /documents``, ``POST /_bulk``), one per item. Not a page
    itself: it holds the raw item, which becomes a :class:`~neardup.ingest.records.Page` and
    then a :class:`~neardup.ingest.store.base.StoredDocument` that goes on in a staged batch
    (:class:`neardup.ingest.workers.staging.StagedBatch`); what stays here is the item's answer
    (status, result, error). The batch tools' twin is
    :class:`neardup.ingest.pipeline.Prepared`."""

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


class IngestService:
    """The store, step 1 of the method and the queue of accepted batches behind the HTTP
    endpoints.

    Parameters
    ----------
    store
        An opened store (``open_store("engine", ...)``); the inspector's list of groups
        and ``GET /`` need a search engine behind it (:meth:`Store.largest_groups`,
        :meth:`Store.engine_info`).
    queue
        Accepts batches of prepared pages for the workers and tells which are still undecided
        (default: :class:`~neardup.ingest.server.broker.BrokerBatchQueue` on ``broker_url``).
    compare
        ``compare(a_text, b_text) -> Verdict`` with ``a_span``/``b_span``, for the inspector's
        explanations (:attr:`reads`; default: :func:`neardup.verifier.compare.compare`).
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
        queue: BatchQueue | None = None,
        compare: Callable[[str, str], Any] | None = None,
        broker_url: str | None = None,
        profile: str = "web",
        limits: Limits = DEFAULT_LIMITS,
        max_live: int = 8,
        batch: int = 250,
        chrome: ChromeRule | None = None,
    ) -> None:

        self.store = store
        self.limits = limits
        self.fp_config = fingerprint_config(profile)
        self.profile = profile
        self.broker_url = broker_url or Settings.broker_url
        self._queue = queue
        self.max_live = max_live
        self.batch = batch  # pages per accepted batch: a larger request is split
        self._accepted: deque[str] = deque(maxlen=10_000)  # batches this service accepted
        self._installed = False
        self._install_lock = threading.Lock()
        self.chrome = chrome  # the site-chrome rule (None: pages are not masked)
        self._chrome_counts: SharedChromeCounts | None = None
        #: the reads of pages and groups (``GET /documents``, ``/groups``, the inspector)
        self.reads = PageReads(store, lambda: self.queue, profile=profile, compare=compare)

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
        return index_name(self.store)

    # -- ingest ------------------------------------------------------------------------------

    def ingest(self, items: Sequence[IngestItem], refresh: bool = False) -> None:
        """Prepare, index and queue ``items``, setting each item's outcome in place."""

        if not items:
            return
        self.ensure_installed()
        valid: list[tuple[IngestItem, Page]] = []
        for item in items:
            try:
                page = validate_page(item.raw, self.limits)
                item.id = page.id
                valid.append((item, page))
            except DocumentError as exc:
                item.id = item.id or exc.doc_id
                item.fail(ItemError.of(exc))
            except Exception as exc:  # still one document's failure
                log.warning("document %r failed to validate: %r", item.id, exc)
                item.fail(ItemError(400, "document_error", f"{type(exc).__name__}: {exc}"))
        counts = self.chrome_counts()
        if counts is not None:  # counted before any is masked: pages of one request alike
            rows = [(p.id or "", p.site, p.url, t) for _, p in valid
                    if (t := chrome_text(p, self.limits)) is not None]
            try:
                counts.observe_pages(rows)
            except Exception as exc:  # the broker is down: nothing can be accepted anyway
                log.warning("could not count site chrome: %r", exc)
                for item, _ in valid:
                    item.fail(ItemError(503, "queue_unavailable", "not accepted (send it again): "
                                        f"the broker is unreachable ({type(exc).__name__})"))
                return
        prepared: list[tuple[IngestItem, StoredDocument]] = []
        for item, page in valid:
            try:
                doc = prepare_document(page, 0, self.fp_config, self.limits, chrome=counts)
            except ConnectionError as exc:  # the broker, for the chrome counts
                item.fail(ItemError(503, "queue_unavailable", "not accepted (send it again): "
                                    f"the broker is unreachable ({type(exc).__name__})"))
                continue
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
            existing.update(self.queue.pending_pages(unseen))
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
                keys.append(self.submit(chunk))
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

    def chrome_counts(self) -> SharedChromeCounts | None:
        """The index's site-chrome counts on the broker (docs/chrome.md, "The pipeline"),
        opened on first use; None when ``chrome`` is off. No warm-up: a site with fewer than
        ``T`` pages counted has no chrome yet (its lines could be one story's copies)."""
        if self.chrome is None:
            return None
        if self._chrome_counts is None:
            # An HTTP client waits for its answer: a broker outage is a 503 within seconds
            # (the client sends again), not a request held for the ingesters' long budget.
            self._chrome_counts = SharedChromeCounts(connect(self.broker_url), self.index,
                                                     self.chrome, warmup=False, budget=2.0)
        return self._chrome_counts

    @property
    def queue(self) -> BatchQueue:
        """The queue of accepted batches (opened on the broker on first use)."""
        if self._queue is None:
            self._queue = BrokerBatchQueue(self.broker_url, self.index, self.profile,
                                           self.max_live)
        return self._queue

    def submit(self, pages: list[StoredDocument]) -> str:
        """Accept prepared pages as one batch and queue its decision; returns its key."""
        return self.queue.submit(pages)

    def wait_searchable(self, keys: Sequence[str] | None = None, budget: float = 120.0) -> None:
        """Wait (at most ``budget`` seconds) until the batches ``keys`` — every accepted batch
        of the index when None — are indexed and searchable."""
        self.queue.wait_searchable(keys, budget)

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
