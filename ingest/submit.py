"""Submitting pages to a running pipeline: accept them in batches, queue their decisions,
wait until every page is indexed with its group (``neardup ingest``, ``neardup backfill``,
:func:`neardup.submit`).

A :class:`Submitter` stores each batch in Redis (:class:`~neardup.ingest.workers.staging.BatchStaging`)
and queues one ``decide_batch`` message for it; a worker finds each page's candidates, verifies
them and indexes the page once, carrying its ``dup_group``. :func:`wait_for_groups` waits until
every accepted batch is searchable, sends a stalled batch's message again (deciding twice
changes nothing) and accepts again a page its batch lost.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import partial
from typing import Any, TextIO

from neardup.ingest.errors import ConfigError
from neardup.ingest.pipeline import Prepared
from neardup.ingest.retry import TRANSIENT, retry_call
from neardup.ingest.settings import Settings
from neardup.ingest.store import open_store
from neardup.ingest.store.base import StoredDocument, now_iso
from neardup.ingest.workers import tasks
from neardup.ingest.workers.app import broker_url
from neardup.ingest.workers.batch import DEFAULT_K
from neardup.ingest.workers.changes import ChangeLog
from neardup.ingest.workers.repair import repairs_pending, wait_quiet
from neardup.ingest.workers.staging import BatchStaging
from neardup.ingest.workers.tasks import queue_consumers

__all__ = [
    "BATCH",
    "Submitter",
    "WaitReport",
    "ingest_prepared",
    "submit_pages",
    "wait_for_groups",
    "wait_for_room",
]

BATCH = 250  # pages per accepted batch: one decide_batch message, one bulk request
WAIT_TIMEOUT = 300.0  # --wait gives up after this long without a page indexed
MAX_LIVE = Settings().max_live_batches  # accepted batches waiting to be searchable, at most


def _batches(items: Iterable[Prepared], n: int) -> Iterator[list[Prepared]]:
    batch: list[Prepared] = []
    for it in items:
        batch.append(it)
        if len(batch) >= n:
            yield batch
            batch = []
    if batch:
        yield batch


_SAME = ("body", "url", "site", "title")  # a page sent again with these equal is unchanged


def _same(doc: StoredDocument, stored: Mapping[str, Any]) -> bool:
    return all(getattr(doc, f) == stored.get(f) for f in _SAME)


def wait_for_room(staging: Any, max_live: int, budget: float = 600.0) -> None:
    """Backpressure (:meth:`neardup.ingest.workers.staging.BatchStaging.wait_for_room`), through a broker
    restart; after ``budget`` seconds the batch is accepted all the same."""
    retry_call(lambda: staging.wait_for_room(max_live, budget), budget=budget, on=TRANSIENT)


class Submitter:
    """Accept prepared pages in batches and queue their decisions (``neardup ingest``, the
    HTTP service, ``neardup backfill``): pages already indexed are ``unchanged``; the rest are
    staged (:meth:`neardup.ingest.workers.staging.BatchStaging.accept`) and a ``decide_batch`` message is
    queued. Remembers what it accepted, so :func:`wait_for_groups` can send a batch again."""

    def __init__(self, store: Any, staging: Any, profile: str = "web", k: int = DEFAULT_K,
                 queue: str | None = None, max_live: int = MAX_LIVE, mode: str = "index") -> None:
        self.store, self.staging = store, staging
        self.profile, self.k, self.queue, self.max_live, self.mode = profile, k, queue, max_live, mode
        # key -> the batch's pages not yet seen in the index: all of them until the batch
        # leaves the live set, then those missing (none, unless its data was lost), so memory
        # holds the live batches' pages, not the whole input's
        self.batches: dict[str, list[StoredDocument]] = {}
        self.ids: dict[str, list[str]] = {}  # key -> every page accepted with it
        self.accepted_at: dict[str, float] = {}
        self.searchable_at: dict[str, float] = {}  # batches seen out of the live set
        self.phases = {"prepare_s": 0.0, "check_s": 0.0, "accept_s": 0.0, "backpressure_s": 0.0}
        self.changes = 0  # changes staged (new versions, deletes)

    def new_pages(
        self, docs: Sequence[StoredDocument]
    ) -> tuple[list[StoredDocument], list[StoredDocument]]:
        """``(new, known)``: the pages not yet indexed, and the others."""
        t0 = time.perf_counter()
        found = retry_call(lambda: self.store.existing([d.id for d in docs]), budget=600.0)
        self.phases["check_s"] += time.perf_counter() - t0
        return [d for d in docs if d.id not in found], [d for d in docs if d.id in found]

    def sort_pages(
        self, docs: Sequence[StoredDocument]
    ) -> tuple[list[StoredDocument], list[StoredDocument], list[StoredDocument]]:
        """``(new, changed, unchanged)``: the pages not indexed yet (accepted again when
        they are still undecided: their batch's message may have been lost); those indexed
        with another text, URL, site or title (a new version); and the others (sent again as
        they are: nothing to do)."""
        new, known = self.new_pages(docs)
        t0 = time.perf_counter()
        stored = retry_call(lambda: self.store.fields([d.id for d in known], list(_SAME)),
                            budget=600.0) if known else {}
        self.phases["check_s"] += time.perf_counter() - t0
        changed: list[StoredDocument] = []
        same: list[StoredDocument] = []
        for d in known:
            old = stored.get(d.id)
            (same if old is not None and _same(d, old) else changed).append(d)
        return new, changed, same

    def stage_changes(self, changes: Sequence[dict[str, Any]]) -> None:
        """Stage changes (new versions, deletes) of pages already accepted and queue a repair
        (:mod:`neardup.ingest.workers.repair`)."""
        if not changes:
            return
        log = ChangeLog(self.staging.redis, self.staging.index)
        retry_call(lambda: log.stage(changes), budget=600.0, on=TRANSIENT)
        self.changes += len(changes)
        # one repair queued at a time (a flag); it applies every change staged before it runs
        tasks.publish_with_retry(lambda: tasks.queue_repair(
            self.staging, self.profile, self.k, self.queue), budget=600.0)

    def kick_repair(self) -> None:
        tasks.publish_with_retry(lambda: tasks.queue_repair(
            self.staging, self.profile, self.k, self.queue, force=True), budget=600.0)

    def submit(self, pages: list[StoredDocument]) -> str:
        t0 = time.perf_counter()
        wait_for_room(self.staging, self.max_live)
        t1 = time.perf_counter()
        # accepted once, then its message published (both wait out a broker restart: a
        # batch accepted twice would be decided twice, which is harmless but wasted)
        accepted: tuple[str, int] = retry_call(
            lambda: self.staging.accept(pages, self.mode), budget=600.0, on=TRANSIENT
        )
        key = accepted[0]
        tasks.publish_with_retry(lambda: tasks.republish(self.staging, key, self.profile,
                                                         self.k, self.queue), budget=600.0)
        self.phases["backpressure_s"] += t1 - t0
        self.phases["accept_s"] += time.perf_counter() - t1
        self.batches[key] = pages
        self.ids[key] = [p.id for p in pages]
        self.accepted_at[key] = time.monotonic()
        self.look()
        return key

    def look(self) -> None:
        """Note which accepted batches have become searchable (for the latency figures), and
        forget those of their pages the index holds (:meth:`confirm`)."""
        open_keys = [k for k in self.batches if k not in self.searchable_at]
        try:
            still = self.staging.live_of(open_keys)
        except Exception:  # the broker is restarting: look again later
            return
        now = time.monotonic()
        left = [key for key in open_keys if key not in still]
        for key in left:
            self.searchable_at[key] = now
        self.confirm(left)

    def in_index(self, ids: Sequence[str]) -> set[str]:
        """Of ``ids``, the pages the index holds as this submitter's work leaves them: present
        (``mode="update"``, ``neardup backfill``: carrying a ``dup_group``)."""
        if self.mode != "update":
            return set(self.store.existing(ids))
        return {i for i, src in self.store.fields(ids, ["dup_group"]).items()
                if src.get("dup_group")}

    def confirm(self, keys: Iterable[str]) -> None:
        """Forget the pages of the batches ``keys`` (out of the live set) that the index holds;
        keep the others, to be accepted again (:func:`wait_for_groups`). An engine that does
        not answer now: they are looked up at the end."""
        for key in keys:
            pages = self.batches.get(key)
            if not pages:
                continue
            try:
                found: set[str] = set()
                for i in range(0, len(pages), 1000):
                    found |= self.in_index([p.id for p in pages[i:i + 1000]])
            except Exception:  # noqa: BLE001 - looked up again when every batch has left
                continue
            self.batches[key] = [p for p in pages if p.id not in found]

    def republish(self, key: str) -> None:
        tasks.republish(self.staging, key, self.profile, self.k, self.queue)


def ingest_prepared(
    submitter: Submitter,
    prepared: Iterable[Prepared],
    batch: int = BATCH,
    on_error: Callable[[Prepared], Any] | None = None,
) -> dict[str, Any]:
    """Accept prepared pages in batches of ``batch`` and queue their decisions; a page already
    accepted with another text (or URL, site, title) is a new version, staged as a change for a
    repair (the last version to arrive wins). Returns ``{"accepted", "updated", "unchanged",
    "errors", "messages", "phases"}``."""
    counts = {"accepted": 0, "updated": 0, "unchanged": 0, "errors": 0, "messages": 0}
    now = now_iso()
    chunks = _batches(prepared, batch)
    while True:
        t0 = time.perf_counter()  # blocked on extraction + fingerprinting (a process pool)
        chunk = next(chunks, None)
        submitter.phases["prepare_s"] += time.perf_counter() - t0
        if chunk is None:
            break
        docs = []
        counted: dict[str, str | None] = {}
        for p in chunk:
            if p.doc is None:
                counts["errors"] += 1
                if on_error:
                    on_error(p)
            else:
                docs.append(p.doc)
                counted[p.doc.id] = p.chrome_site
        if not docs:
            continue
        fresh, changed, same = submitter.sort_pages(docs)
        counts["unchanged"] += len(same)
        if changed:
            submitter.stage_changes([{"op": "put", "id": d.id, "doc": d, "counted": counted[d.id]}
                                     for d in changed])
            counts["updated"] += len(changed)
        if fresh:
            for d in fresh:  # ingested when this run started, every page of it
                d.ingested_at = d.ingested_at or now
            submitter.submit(fresh)
            counts["accepted"] += len(fresh)
            counts["messages"] += 1
    counts["phases"] = {key: round(v, 3) for key, v in submitter.phases.items()}  # type: ignore[assignment]
    return counts


WORKER_CHECK_AFTER = 3.0  # seconds without progress before wait_for_groups looks for workers


class WaitReport:
    """What ``--wait`` tells the user on stderr: progress (a bar on a terminal, otherwise a line
    at most every ``every`` seconds and at the end) and the absence of workers."""

    def __init__(self, out: TextIO, every: float = 10.0) -> None:
        self.out = out
        self.every = every
        self.bar: Any = None
        self.last_line = -every
        self.total = 0

    def start(self, total: int, queue: str | None) -> None:
        self.total = total
        if self.out.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc="grouped", unit="doc", file=self.out, leave=False)
        else:
            print(f"neardup ingest: waiting for workers to group {total} pages "
                  f"(queue {queue!r})", file=self.out, flush=True)  # fmt: skip

    def progress(self, done: int, elapsed: float, final: bool = False) -> None:
        if self.bar is not None:
            self.bar.update(done - self.bar.n)
            if final:
                self.bar.close()
                self.bar = None
        if self.bar is None and (final or elapsed - self.last_line >= self.every):
            self.last_line = elapsed
            print(f"neardup ingest: {done} of {self.total} pages grouped ({elapsed:.0f} s)",
                  file=self.out, flush=True)  # fmt: skip

    def no_worker(self, queue: str | None, pending: int) -> None:
        message = (f"neardup ingest: warning: no worker consumes queue {queue!r} "
                   f"({pending} pages pending): start one with `neardup worker` "
                   "(same CELERY_BROKER_URL, OPENSEARCH_URL and NEARDUP_QUEUE)")  # fmt: skip
        if self.bar is not None:
            self.bar.write(message, file=self.out)
        else:
            print(message, file=self.out, flush=True)


def _percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))] if ordered else 0.0


def wait_for_groups(
    submitter: Submitter,
    timeout: float = 3600,
    stall: float = 30.0,
    poll: float = 0.1,
    idle_timeout: float | None = None,
    report: WaitReport | None = None,
    consumers: Callable[[str | None], list[str]] | None = None,
    max_resends: int = 2,
) -> dict[str, Any]:
    """Wait until every batch the submitter accepted is searchable (indexed with its groups and
    refreshed: it left the live set). A batch still live after ``stall`` seconds without
    progress has its message sent again (it may have been lost with the broker's data:
    deciding twice changes nothing). When all have left, the index is asked for every page;
    a page missing (its batch was lost with Redis' data, or dead-lettered) is accepted again,
    at most ``max_resends`` times. Returns ``{"waited_s", "indexed", "requeued", "resent",
    "timed_out", "latency_s"}`` (+ ``pending`` when it timed out: after ``timeout`` seconds in
    all, or ``idle_timeout`` seconds without progress); ``latency_s`` gives the p50/p99 time
    from a page's acceptance until it was seen searchable.

    ``report`` shows the progress; ``consumers(queue)`` (the workers consuming ``queue``) is
    asked whenever nothing has progressed for a few seconds, and ``report.no_worker`` is told
    when there is none. A page counts as done once the index holds it
    (:meth:`Submitter.in_index`: for ``neardup backfill``, whose pages were in the index
    before, once it carries a ``dup_group``); the pages of a batch that the index holds are
    forgotten as soon as it leaves the live set, so memory holds the live batches' pages."""
    staging = submitter.staging

    start = time.monotonic()
    waiting = {key: len(ids) for key, ids in submitter.ids.items()}  # key -> pages
    total = sum(waiting.values())
    done = 0
    latencies: list[tuple[float, int]] = []
    last_progress = start
    last_requeue = start
    checked_workers = False
    requeued = resent = 0
    resends: dict[str, int] = {}
    if report is not None:
        report.start(total, submitter.queue)
    while True:
        while waiting:
            try:
                still = staging.live_of(list(waiting))
            except Exception:  # the broker is restarting: look again
                still = set(waiting)
            now = time.monotonic()
            finished = [key for key in waiting if key not in still]
            for key in finished:
                n = waiting.pop(key)
                done += n
                seen = submitter.searchable_at.setdefault(key, now)
                latencies.append((seen - submitter.accepted_at.get(key, start), n))
            submitter.confirm(finished)
            if finished:
                last_progress, checked_workers = now, False
            if report is not None:
                report.progress(min(done, total), now - start)
            if not waiting:
                break
            if now - start > timeout or (idle_timeout is not None
                                         and now - last_progress > idle_timeout):
                return {"waited_s": round(now - start, 2), "indexed": done, "requeued": requeued,
                        "resent": resent, "timed_out": True,
                        "pending": sum(waiting.values())}
            if (consumers is not None and not checked_workers
                    and now - last_progress >= min(stall, WORKER_CHECK_AFTER)):
                checked_workers = True
                if not consumers(submitter.queue) and report is not None:
                    report.no_worker(submitter.queue, sum(waiting.values()))
            if now - max(last_progress, last_requeue) > stall:
                try:
                    for key, n in waiting.items():
                        submitter.republish(key)
                        requeued += n
                except Exception:  # the broker may be down right now: again after the next stall
                    pass
                last_requeue = now
            time.sleep(poll)
        # every batch left the live set: is every page in the index?
        missing: list[StoredDocument] = []
        failed = 0
        for pages in submitter.batches.values():  # those not seen in the index yet
            ids = [p.id for p in pages]
            found: set[str] = set()
            for i in range(0, len(ids), 1000):
                chunk = ids[i:i + 1000]
                found |= retry_call(partial(submitter.in_index, chunk), budget=600.0)
            for p in pages:
                if p.id not in found:
                    done -= 1
                    if resends.get(p.id, 0) < max_resends:
                        missing.append(p)
                    else:
                        failed += 1
        if not missing:
            break
        for p in missing:
            resends[p.id] = resends.get(p.id, 0) + 1
        resent += len(missing)
        submitter.batches = {}
        for i in range(0, len(missing), BATCH):
            pages = missing[i:i + BATCH]
            waiting[submitter.submit(pages)] = len(pages)
    # the changes staged and the chrome masks the pages' counts changed: the repairs
    left = max(0.0, timeout - (time.monotonic() - start))
    repaired = not isinstance(staging, BatchStaging) or wait_quiet(
        staging.redis, staging.index, timeout=left, kick=_kicker(submitter), idle=idle_timeout)
    waited = time.monotonic() - start
    if report is not None:
        report.progress(total, waited, final=True)
    if not repaired:
        return {"waited_s": round(waited, 2), "indexed": done, "requeued": requeued,
                "resent": resent, "timed_out": True, "pending": 0,
                "repairs_pending": repairs_pending(staging.redis, staging.index)}
    flat = [lat for lat, n in latencies for _ in range(n)]
    return {"waited_s": round(waited, 2), "indexed": done, "requeued": requeued, "resent": resent,
            "failed": failed, "timed_out": False,
            "latency_s": {"p50": round(_percentile(flat, 0.5), 3),
                          "p99": round(_percentile(flat, 0.99), 3)}}


def _kicker(submitter: Submitter) -> Callable[[], None]:
    def kick() -> None:
        try:
            submitter.kick_repair()
        except Exception:  # noqa: BLE001 - the broker may be down: again after the next stall
            pass
    return kick


def submit_pages(
    prepared: Iterable[Prepared],
    settings: Settings,
    *,
    profile: str = "web",
    k: int = DEFAULT_K,
    index: str | None = None,
    queue: str | None = None,
    batch: int | None = None,
    on_error: Callable[[Prepared], Any] | None = None,
    wait: bool = False,
    timeout: float = WAIT_TIMEOUT,
    stall: float = 30.0,
    report: WaitReport | None = None,
) -> dict[str, Any]:
    """Accept ``prepared`` pages into the pipeline of ``settings`` (its engine index, its broker
    and queue; ``index`` and ``queue`` override them) and queue their decisions: the summary of
    :func:`ingest_prepared`; with ``wait``, updated with :func:`wait_for_groups`' (giving up
    after ``timeout`` seconds without a page indexed)."""
    if settings.broker_url != broker_url():
        raise ConfigError(
            f"the workers' broker is {broker_url()!r} (CELERY_BROKER_URL, read once per process by "
            f"Celery's app), not {settings.broker_url!r}: set CELERY_BROKER_URL instead"
        )
    index = index or settings.index
    queue = queue or settings.queue
    store = open_store("engine", settings, index=index)
    try:
        store.install()
        staging = BatchStaging.from_url(broker_url(), index)
        submitter = Submitter(store, staging, profile, k, queue, max_live=settings.max_live_batches)
        summary = ingest_prepared(
            submitter, prepared, batch=batch or settings.message_batch, on_error=on_error
        )
        if wait:
            summary.update(
                wait_for_groups(
                    submitter, idle_timeout=timeout, stall=stall, report=report,
                    consumers=queue_consumers,
                )
            )
    finally:
        store.close()
    return summary
