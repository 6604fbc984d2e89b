"""What ``neardup serve`` does behind its endpoints: the I/O edge of the HTTP service.

:class:`IngestService` ties together the store (:func:`neardup.ingest.store.open_store`), step 1
of the method (:func:`neardup.ingest.pipeline.prepare_document`), the queue of accepted batches
for the workers (:mod:`neardup.ingest.server.broker`) and the reads of pages and groups
(:class:`~neardup.ingest.server.reads.PageReads`, for ``GET /documents``, ``GET /groups`` and
the inspector). The HTTP layer (:mod:`neardup.ingest.server.app` and its handlers) only parses
requests and shapes answers; everything here is synchronous and runs in the server's thread
pool.

Ingest semantics (shared by ``POST /documents``, ``DELETE /documents/{id}`` and ``POST /_bulk``),
item by item in the request's order, as OpenSearch answers them:

* A new id is indexed (``created``, 201) and queued for verification in a batch.
* An identical re-send (same text and metadata) is a ``noop`` (200) and changes nothing:
  re-ingest is idempotent (docs/http.md).
* The same id with another text or metadata (URL, site, title) is a new version
  (``updated``, 200): it is staged as a ``put`` change
  (:class:`neardup.ingest.workers.changes.ChangeLog`) and a worker's repair applies it — the
  last version to arrive wins, and the groups it was in or joins are decided again.
* ``create`` of an id that exists (in the index, undecided, or earlier in the request) is a
  409, as in OpenSearch.
* ``update`` (``_bulk`` only) merges its partial document over the page's current URL, site
  and title, then goes on as ``index``; it must carry the page's text (a content field):
  neardup keeps the extracted text, not the source, so it cannot re-extract a page from a
  partial document. An update of an unknown id is a 404 (``document_missing_exception``),
  unless it asks ``doc_as_upsert``.
* ``delete`` of a page indexed or undecided is ``deleted`` (200): staged as a ``delete``
  change; the repair removes the page from both indices and decides its group again. An
  unknown id is ``not_found`` (404).

Within one request, the first version of an id new to the index goes in a batch; whatever
follows it on that id (or on any id known before) is a change, staged after the batches, in
order.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from neardup.ingest.chrome import ChromeRule, site_key
from neardup.ingest.chrome_pass import chrome_text
from neardup.ingest.errors import DocumentError
from neardup.ingest.pipeline import fingerprint_config, prepare_document
from neardup.ingest.records import CONTENT_FIELDS, DEFAULT_LIMITS, Limits, Page, validate_page
from neardup.ingest.server.broker import Backlogged, BatchQueue, BrokerBatchQueue, broker_reachable
from neardup.ingest.server.bulk import ItemError
from neardup.ingest.server.reads import PageReads, index_name
from neardup.ingest.settings import Settings
from neardup.ingest.sites import site_of
from neardup.ingest.store.base import StoredDocument
from neardup.ingest.store.errors import Unsupported
from neardup.ingest.store.roles import EngineConnection, Store
from neardup.ingest.workers._redis import connect
from neardup.ingest.workers.chrome_counts import SharedChromeCounts

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

    action: str  # index | create | update | delete
    raw: Mapping[str, Any]  # the input document (id, text|html, url, site, title); {id}: delete
    line: int | None = None  # its line in a JSONL body
    id: str | None = None  # its id once validated (what an answer may echo)
    # HTTP status of the item (201 created, 200 updated/noop/deleted, 404 not_found, 4xx/5xx
    # error)
    status: int = 0
    result: str | None = None  # created | updated | noop | deleted | not_found
    queued: bool = False  # accepted in a batch, or staged as a change for a repair
    error: ItemError | None = None
    upsert: bool = False  # an update of an unknown id creates it (``doc_as_upsert``)

    def fail(self, error: ItemError) -> None:
        self.error, self.status, self.result, self.queued = error, error.status, None, False


class IngestService:
    """The store, step 1 of the method and the queue of accepted batches behind the HTTP
    endpoints.

    Parameters
    ----------
    store
        An opened store (``open_store("engine", ...)``); the inspector's list of groups
        and ``GET /`` need a search engine behind it
        (:class:`~neardup.ingest.store.roles.EngineReads`,
        :class:`~neardup.ingest.store.roles.EngineConnection`).
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
        self._engine = store if isinstance(store, EngineConnection) else None
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
        """Prepare, index, queue or stage ``items`` (in order; see the module doc), setting
        each item's outcome in place."""

        if not items:
            return
        self.ensure_installed()
        broker_down: list[Exception] = []  # the undecided pages could not be read
        known = self._known_pages(
            {str(i.raw.get("id")) for i in items if i.action in ("update", "delete")},
            broker_down)
        self._merge_updates(items, known, broker_down)
        valid: list[tuple[IngestItem, Page]] = []
        for item in items:
            if item.error is not None:
                continue
            if item.action == "delete":
                item.id = str(item.raw["id"])
                continue
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
        if counts is not None and valid:  # counted before any is masked: pages alike
            rows = [(p.id or "", p.site, p.url, t) for _, p in valid
                    if (t := chrome_text(p, self.limits)) is not None]
            try:
                counts.observe_pages(rows)
            except Exception as exc:  # the broker is down: nothing can be accepted anyway
                log.warning("could not count site chrome: %r", exc)
                for item in items:
                    if item.error is None:
                        item.fail(_unreachable(exc))
                return
        docs: dict[int, tuple[StoredDocument, str | None]] = {}  # id(item) -> doc, counted
        for item, page in valid:
            try:
                doc = prepare_document(page, 0, self.fp_config, self.limits, chrome=counts)
            except ConnectionError as exc:  # the broker, for the chrome counts
                item.fail(_unreachable(exc))
                continue
            except DocumentError as exc:
                item.id = item.id or exc.doc_id
                item.fail(ItemError.of(exc))
                continue
            except Exception as exc:  # an extractor crash is still one document's failure
                log.warning("document %r failed to prepare: %r", item.id, exc)
                item.fail(ItemError(400, "document_error", f"{type(exc).__name__}: {exc}"))
                continue
            counted = None if page.field == "html" else site_key(page.site, page.url)
            docs[id(item)] = (doc, counted)
        live = [i for i in items if i.error is None]  # in order, each with its id
        if not live:
            return

        ids = {i.id for i in live if i.id is not None}
        known.update(self._known_pages(ids - set(known), broker_down))
        # the items in order: each id's state (None: absent) as the earlier ones leave it
        state: dict[str, StoredDocument | None] = dict(known)
        new: dict[str, StoredDocument] = {}  # first version of each id absent before
        changes: list[tuple[IngestItem, dict[str, Any]]] = []
        for item in live:
            doc_id = item.id or ""
            before = state.get(doc_id)
            if doc_id not in state and broker_down:
                # absent from the index, undecided perhaps: cannot tell (the broker is down)
                item.fail(_unreachable(broker_down[0]))
                continue
            if item.action == "delete":
                if before is None:
                    item.status, item.result = 404, "not_found"
                else:
                    item.status, item.result = 200, "deleted"
                    changes.append((item, {"op": "delete", "id": doc_id}))
                    state[doc_id] = None
                continue
            doc, counted = docs[id(item)]
            if before is None:
                item.status, item.result = 201, "created"
                if doc_id in state:  # deleted earlier in this request: a new version
                    changes.append((item, {"op": "put", "id": doc_id, "doc": doc,
                                           "counted": counted}))
                else:
                    new[doc_id] = doc
                state[doc_id] = doc
            elif item.action == "create":
                item.fail(_conflict(doc_id, "document already exists"))
            elif _same_content(before, doc):
                item.status, item.result = 200, "noop"
            else:
                item.status, item.result = 200, "updated"
                changes.append((item, {"op": "put", "id": doc_id, "doc": doc,
                                       "counted": counted}))
                state[doc_id] = doc

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
                error = _unreachable(exc)
            refused.update((d.id, error) for d in pages[lo:])
            break
        for item in live:
            if item.error is None and item.id in new and item.result == "created" \
                    and new[item.id] is docs[id(item)][0]:
                if item.id in refused:
                    item.fail(refused[item.id])
                else:
                    item.queued = True
        # a change of a page whose first version was refused is refused with it
        staged = []
        for item, change in changes:
            if change["id"] in refused:
                item.fail(refused[change["id"]])
            else:
                staged.append((item, change))
        if staged:
            try:
                self.queue.stage_changes([c for _, c in staged])
            except Exception as exc:  # broker down: the client sends them again
                log.warning("could not stage %d changes: %r", len(staged), exc)
                for item, _ in staged:
                    item.fail(_unreachable(exc))
            else:
                for item, _ in staged:
                    item.queued = True
        self._accepted.extend(keys)
        if refresh:
            if keys:
                self.wait_searchable(keys)
            if staged and all(i.error is None for i, _ in staged):
                self.queue.wait_repaired(120.0)

    def delete(self, doc_id: str, refresh: bool = False) -> IngestItem:
        """Delete the page ``doc_id`` (``DELETE /documents/{id}``): its outcome, ``deleted``
        (staged for a repair) or ``not_found``."""
        item = IngestItem(action="delete", raw={"id": doc_id}, id=doc_id)
        self.ingest([item], refresh)
        return item

    def _known_pages(self, ids: set[str], broker_down: list[Exception]) -> dict[str, StoredDocument]:
        """The pages of ``ids`` indexed or accepted and undecided (the version the workers
        have); when the broker does not answer, the indexed ones and ``broker_down`` says why."""
        if not ids:
            return {}
        found = self.store.mget(ids, with_fingerprints=False)
        unseen = sorted(ids - set(found))
        try:  # accepted and not decided yet: the version the workers have
            found.update(self.queue.pending_pages(unseen))
        except Exception as exc:  # the broker is down: nothing can be accepted anyway
            log.debug("could not read the undecided pages: %r", exc)
            broker_down.append(exc)
        return found

    def _merge_updates(self, items: Sequence[IngestItem], known: Mapping[str, StoredDocument],
                       broker_down: list[Exception]) -> None:
        """Make each ``update`` item a whole document: its fields over the page's URL, site
        and title as they stand (indexed, undecided, or as an earlier item of the request
        leaves them); it must carry a content field. An unknown id is a 404 unless ``upsert``."""
        latest: dict[str, Mapping[str, Any] | None] = {}  # id -> its metadata; None: deleted
        for item in items:
            if item.error is not None:
                continue
            doc_id = str(item.raw.get("id"))
            if item.action == "delete":
                latest[doc_id] = None
                continue
            if item.action != "update":
                latest[doc_id] = item.raw
                continue
            if not any(item.raw.get(k) is not None for k in CONTENT_FIELDS):
                item.id = doc_id
                item.fail(ItemError(
                    400, "illegal_argument_exception",
                    f"an update must carry the page's text (one of {list(CONTENT_FIELDS)}): "
                    "neardup keeps the extracted text, not the source; send the whole page"))
                continue
            if doc_id in latest:
                base = latest[doc_id]
            elif doc_id in known:
                stored = known[doc_id]
                base = {"url": stored.url, "title": stored.title,
                        # a site derived from the URL or the template follows the page
                        "site": None if stored.site == site_of(stored.url)
                        or (stored.site or "").startswith("template:") else stored.site}
            elif broker_down:
                item.id = doc_id
                item.fail(_unreachable(broker_down[0]))
                continue
            else:
                base = None
            if base is None and not item.upsert:
                item.id = doc_id
                item.fail(ItemError(404, "document_missing_exception",
                                    f"[{doc_id}]: document missing"))
                continue
            merged = {k: v for k, v in (base or {}).items()
                      if k in ("url", "site", "title") and v is not None}
            merged.update({k: v for k, v in item.raw.items() if v is not None})
            item.raw = merged
            latest[doc_id] = merged

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
            if self._engine is not None:  # a store in this process is always ready
                self._engine.check_health(timeout=2.0)
            checks["opensearch"] = "ok"
        except Exception as exc:
            checks["opensearch"] = f"{type(exc).__name__}: {exc}"[:300]
        checks["broker"] = broker_reachable(self.broker_url)
        return checks

    def cluster_info(self) -> dict[str, Any]:
        """The engine's ``GET /`` answer (clients check the version), marked as neardup's."""
        info = self.engine("GET /").engine_info()
        engine = info.pop("engine", "OpenSearch")
        info["tagline"] = f"neardup in front of {engine} (pages index: {self.index})"
        return info

    def refresh(self) -> None:
        """Make recent writes searchable (a client's ``_refresh``): wait until the accepted
        pages are decided and indexed and no change or site waits for a repair (at most two
        minutes each), then refresh."""
        try:
            self.wait_searchable(list(self._accepted))
            self.queue.wait_repaired(120.0)
        except Exception as exc:  # the broker is down: refresh what is indexed
            log.warning("could not wait for the accepted pages: %r", exc)
        self.store.refresh()

    def engine_health(self) -> dict[str, Any]:
        """The engine's ``_cluster/health`` answer."""
        return self.engine("_cluster/health").engine_health()

    def index_mapping(self) -> dict[str, Any]:
        """The engine's ``GET /<index>/_mapping`` answer for the pages index."""
        return self.engine("_mapping").index_mapping()

    def create_index(self) -> None:
        """The pages index from its templates, when missing."""
        self.store.install()

    def product_headers(self) -> dict[str, str]:
        """The engine's product headers
        (:meth:`~neardup.ingest.store.roles.EngineConnection.product_headers`; none without
        one), for every answer."""
        return {} if self._engine is None else self._engine.product_headers()

    def engine(self, what: str) -> EngineConnection:
        """The search engine behind the service, which ``what`` needs."""
        if self._engine is None:
            raise Unsupported(f"{what} needs a search engine; {self.store!r} is not one")
        return self._engine


def _unreachable(exc: BaseException) -> ItemError:
    # the broker's address stays in the log: answers go to any client
    return ItemError(503, "queue_unavailable", "not accepted (send it again): "
                     f"the broker is unreachable ({type(exc).__name__})")


def _conflict(doc_id: str, why: str) -> ItemError:
    return ItemError(
        409, "version_conflict_engine_exception", f"[{doc_id}]: version conflict, {why}"
    )


def _same_content(a: StoredDocument, b: StoredDocument) -> bool:
    return all(getattr(a, f) == getattr(b, f) for f in _CONTENT_FIELDS)
