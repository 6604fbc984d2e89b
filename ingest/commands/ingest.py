"""``neardup ingest FILE.jsonl``: accept pages; workers index each one once, with its group.

Pages are validated and fingerprinted (:mod:`neardup.ingest.pipeline`) and accepted in batches
(:class:`Submitter`): a page already in the index is ``unchanged``; the others are stored in
Redis as one batch and a ``decide_batch`` message is queued. A worker finds each page's
candidates, verifies them, and indexes the page once, carrying its ``dup_group``
(:mod:`neardup.verifier.decide`); a page is searchable only once it is decided. Summary on stdout
(JSON): ``{"accepted", "unchanged", "errors", "messages", ...}``; per-document errors as JSONL
``{"line", "id", "error", "type"}`` on ``--errors FILE`` (default stderr). Re-ingesting
changes nothing for pages already indexed; pages accepted by an earlier run that never got
indexed (it was killed, the broker lost its data) are accepted again.

``--wait`` waits until every accepted page is indexed with its group and searchable. It shows
the progress on stderr (a bar on a terminal, a line now and then otherwise), warns when no
worker consumes the queue, sends a batch's message again when it makes no progress for
``--stall`` seconds (deciding twice changes nothing), accepts again a page its batch lost, and
gives up (exit 1, ``timed_out`` and ``pending`` in the summary) when no page has been indexed
for ``--timeout`` seconds — a run that keeps progressing is never cut. It also reports the
p50/p99 time from acceptance to searchable (``latency_s``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from typing import Any, TextIO

from neardup.ingest.commands.progress import progress_bar
from neardup.ingest.errors import ConfigError
from neardup.ingest.pipeline import Prepared, fingerprint_config, prepare_lines, read_lines
from neardup.ingest.records import Limits, dumps
from neardup.ingest.retry import TRANSIENT, retry_call
from neardup.ingest.settings import Settings, child_environ
from neardup.ingest.store import open_store
from neardup.ingest.store.base import now_iso
from neardup.verifier import tasks
from neardup.verifier.celery_app import broker_url
from neardup.verifier.decide import DEFAULT_K
from neardup.verifier.registry import Registry, page_payload
from neardup.verifier.tasks import queue_consumers

__all__ = ["Submitter", "WaitReport", "add_parser", "dedup_via_opensearch", "ingest_prepared",
           "wait_for_groups"]

BATCH = 250  # pages per accepted batch: one decide_batch message, one bulk request
WAIT_TIMEOUT = 300.0  # --wait gives up after this long without a page indexed
MAX_LIVE = Settings().max_live_batches  # accepted batches waiting to be searchable, at most


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "ingest",
        help="index pages into OpenSearch and queue their verification",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "input", help="JSONL: id, text|html|rst|markdown, optional url/site/title ('-' = stdin)"
    )
    p.add_argument("--index", default=None, help="index (default $NEARDUP_INDEX or pages)")
    p.add_argument(
        "--profile", choices=("web", "precise", "short"), default="web",
        help="verdict profile (default: %(default)s)",
    )
    p.add_argument(
        "-k", "--candidates", type=int, default=DEFAULT_K,
        help="the most candidates a page is verified against (default: %(default)s)",
    )
    p.add_argument("--queue", default=None, help="Celery queue (default $NEARDUP_QUEUE)")
    p.add_argument("--errors", default=None, help="per-document errors as JSONL (default stderr)")
    p.add_argument(
        "--wait", action="store_true",
        help="wait until every page is indexed with its group and searchable",
    )
    p.add_argument(
        "--timeout", type=float, default=WAIT_TIMEOUT,
        help="--wait: give up when no page has been grouped for this many seconds "
        "(default: %(default)s)",
    )
    p.add_argument(
        "--stall", type=float, default=30.0,
        help="--wait: queue a batch's decision again after this many seconds without progress "
        "(default: %(default)s)",
    )
    p.add_argument(
        "-j", "--processes", type=int, default=1,
        help="extraction processes (default: %(default)s: preparing a page takes 0.05 ms of "
        "text to 0.2 ms of HTML, less than shipping it to another process and back)",
    )
    p.add_argument(
        "--batch", type=int, default=None,
        help="pages per accepted batch (default: $NEARDUP_MESSAGE_BATCH or 250)"
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, settings: Settings) -> int:

    if args.input != "-" and not os.path.isfile(args.input):
        print(f"neardup ingest: no such file: {args.input}", file=sys.stderr)
        return 2
    try:
        config = fingerprint_config(args.profile)
    except ConfigError as exc:
        print(f"neardup ingest: {exc}", file=sys.stderr)
        return 2
    limits = Limits.from_settings(settings)
    index = args.index or settings.index
    store = open_store("engine", settings, index=index)
    store.install()
    registry = Registry.from_url(broker_url(), index)
    queue = args.queue or settings.queue
    submitter = Submitter(store, registry, args.profile, args.candidates, queue,
                          max_live=settings.max_live_batches)
    errors_out: TextIO = sys.stderr if args.errors is None else open(args.errors, "w")

    progress = progress_bar(args)
    try:
        prepared = progress(
            prepare_lines(read_lines(args.input, limits), config,
                          processes=args.processes, limits=limits),
            desc="ingest",
        )
        summary = ingest_prepared(
            submitter,
            prepared,
            batch=args.batch or settings.message_batch,
            on_error=lambda p: errors_out.write(
                dumps({"line": p.line_no, "id": p.id, "error": p.error, "type": p.error_type})
                + "\n"
            ),
        )
        if args.wait:
            summary.update(
                wait_for_groups(
                    submitter,
                    idle_timeout=args.timeout,
                    stall=args.stall,
                    report=None if args.no_progress else WaitReport(sys.stderr),
                    consumers=queue_consumers,
                )
            )
            if summary.get("timed_out"):
                print(
                    f"neardup ingest: gave up waiting: {summary.get('pending')} pages still "
                    f"undecided, none indexed for {args.timeout:g} s (is a worker running on "
                    f"queue {queue!r}? start one: neardup worker)",
                    file=sys.stderr,
                )
    finally:
        if errors_out is not sys.stderr:
            errors_out.close()
        store.close()
    print(json.dumps(summary))
    return 0 if not summary.get("timed_out") and not summary.get("failed") else 1


def _batches(items: Iterable[Prepared], n: int) -> Iterator[list[Prepared]]:
    batch: list[Prepared] = []
    for it in items:
        batch.append(it)
        if len(batch) >= n:
            yield batch
            batch = []
    if batch:
        yield batch


def wait_for_room(registry: Any, max_live: int, budget: float = 600.0) -> None:
    """Backpressure (:meth:`neardup.verifier.registry.Registry.wait_for_room`), through a broker
    restart; after ``budget`` seconds the batch is accepted all the same."""
    retry_call(lambda: registry.wait_for_room(max_live, budget), budget=budget, on=TRANSIENT)


class Submitter:
    """Accept prepared pages in batches and queue their decisions (``neardup ingest``, the
    HTTP service, ``neardup backfill``): pages already indexed are ``unchanged``; the rest are
    accepted (:meth:`neardup.verifier.registry.Registry.accept`) and a ``decide_batch`` message is
    queued. Remembers what it accepted, so :func:`wait_for_groups` can send a batch again."""

    def __init__(self, store: Any, registry: Any, profile: str = "web", k: int = DEFAULT_K,
                 queue: str | None = None, max_live: int = MAX_LIVE, mode: str = "index") -> None:
        self.store, self.registry = store, registry
        self.profile, self.k, self.queue, self.max_live, self.mode = profile, k, queue, max_live, mode
        self.batches: dict[str, list[dict[str, Any]]] = {}  # key -> pages
        self.accepted_at: dict[str, float] = {}
        self.searchable_at: dict[str, float] = {}  # batches seen out of the live set
        self.phases = {"prepare_s": 0.0, "check_s": 0.0, "accept_s": 0.0, "backpressure_s": 0.0}

    def new_pages(self, docs: Sequence[Any]) -> tuple[list[Any], list[Any]]:
        """``(new, unchanged)``: the pages not yet indexed, and the others."""
        t0 = time.perf_counter()
        found = retry_call(lambda: self.store.existing([d.id for d in docs]), budget=600.0)
        self.phases["check_s"] += time.perf_counter() - t0
        return [d for d in docs if d.id not in found], [d for d in docs if d.id in found]

    def submit(self, pages: list[dict[str, Any]]) -> str:
        t0 = time.perf_counter()
        wait_for_room(self.registry, self.max_live)
        t1 = time.perf_counter()
        # accepted once, then its message published (both wait out a broker restart: a
        # batch accepted twice would be decided twice, which is harmless but wasted)
        accepted: tuple[str, int] = retry_call(
            lambda: self.registry.accept(pages, self.mode), budget=600.0, on=TRANSIENT
        )
        key = accepted[0]
        tasks.publish_with_retry(lambda: tasks.republish(self.registry, key, self.profile,
                                                         self.k, self.queue), budget=600.0)
        self.phases["backpressure_s"] += t1 - t0
        self.phases["accept_s"] += time.perf_counter() - t1
        self.batches[key] = pages
        self.accepted_at[key] = time.monotonic()
        self.look()
        return key

    def look(self) -> None:
        """Note which accepted batches have become searchable (for the latency figures)."""
        open_keys = [k for k in self.batches if k not in self.searchable_at]
        try:
            still = self.registry.live_of(open_keys)
        except Exception:  # the broker is restarting: look again later
            return
        now = time.monotonic()
        for key in open_keys:
            if key not in still:
                self.searchable_at[key] = now

    def republish(self, key: str) -> None:
        tasks.republish(self.registry, key, self.profile, self.k, self.queue)


def ingest_prepared(
    submitter: Submitter,
    prepared: Iterable[Prepared],
    batch: int = BATCH,
    on_error: Callable[[Prepared], Any] | None = None,
) -> dict[str, Any]:
    """Accept prepared pages in batches of ``batch`` and queue their decisions; returns
    ``{"accepted", "unchanged", "errors", "messages", "phases"}``."""
    counts = {"accepted": 0, "unchanged": 0, "errors": 0, "messages": 0}
    now = now_iso()
    chunks = _batches(prepared, batch)
    while True:
        t0 = time.perf_counter()  # blocked on extraction + fingerprinting (a process pool)
        chunk = next(chunks, None)
        submitter.phases["prepare_s"] += time.perf_counter() - t0
        if chunk is None:
            break
        docs = []
        for p in chunk:
            if p.doc is None:
                counts["errors"] += 1
                if on_error:
                    on_error(p)
            else:
                docs.append(p.doc)
        if not docs:
            continue
        fresh, same = submitter.new_pages(docs)
        counts["unchanged"] += len(same)
        if fresh:
            submitter.submit([page_payload(d, now) for d in fresh])
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
    tagged: bool = False,
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
    when there is none. With ``tagged`` (``neardup backfill``: the pages were in the index
    before), a page counts as done once it carries a ``dup_group``."""
    registry, store = submitter.registry, submitter.store

    def done_of(chunk: list[str]) -> set[str]:
        if not tagged:
            return set(store.existing(chunk))
        return {i for i, src in store.fields(chunk, ["dup_group"]).items() if src.get("dup_group")}

    start = time.monotonic()
    waiting = dict(submitter.batches)  # key -> pages
    total = sum(len(p) for p in waiting.values())
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
                still = registry.live_of(list(waiting))
            except Exception:  # the broker is restarting: look again
                still = set(waiting)
            now = time.monotonic()
            finished = [key for key in waiting if key not in still]
            for key in finished:
                pages = waiting.pop(key)
                done += len(pages)
                seen = submitter.searchable_at.setdefault(key, now)
                latencies.append((seen - submitter.accepted_at.get(key, start), len(pages)))
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
                        "pending": sum(len(p) for p in waiting.values())}
            if (consumers is not None and not checked_workers
                    and now - last_progress >= min(stall, WORKER_CHECK_AFTER)):
                checked_workers = True
                if not consumers(submitter.queue) and report is not None:
                    report.no_worker(submitter.queue, sum(len(p) for p in waiting.values()))
            if now - max(last_progress, last_requeue) > stall:
                try:
                    for key in waiting:
                        submitter.republish(key)
                        requeued += len(waiting[key])
                except Exception:  # the broker may be down right now: again after the next stall
                    pass
                last_requeue = now
            time.sleep(poll)
        # every batch left the live set: is every page in the index?
        missing: list[dict[str, Any]] = []
        failed = 0
        for pages in submitter.batches.values():
            ids = [p["id"] for p in pages]
            found: set[str] = set()
            for i in range(0, len(ids), 1000):
                chunk = ids[i:i + 1000]
                found |= retry_call(partial(done_of, chunk), budget=600.0)
            for p in pages:
                if p["id"] not in found:
                    done -= 1
                    if resends.get(p["id"], 0) < max_resends:
                        missing.append(p)
                    else:
                        failed += 1
        if not missing:
            break
        for p in missing:
            resends[p["id"]] = resends.get(p["id"], 0) + 1
        resent += len(missing)
        submitter.batches = {}
        for i in range(0, len(missing), BATCH):
            pages = missing[i:i + BATCH]
            waiting[submitter.submit(pages)] = pages
    waited = time.monotonic() - start
    if report is not None:
        report.progress(total, waited, final=True)
    flat = [lat for lat, n in latencies for _ in range(n)]
    return {"waited_s": round(waited, 2), "indexed": done, "requeued": requeued, "resent": resent,
            "failed": failed, "timed_out": False,
            "latency_s": {"p50": round(_percentile(flat, 0.5), 3),
                          "p99": round(_percentile(flat, 0.99), 3)}}


def dedup_via_opensearch(
    prepared: Sequence[Prepared], args: argparse.Namespace, progress: Any, settings: Settings
) -> dict[str, dict[str, Any]]:
    """``neardup dedup --backend opensearch``: ingest into an index, let workers group, read back."""
    import uuid


    index = args.index or f"neardup-dedup-{uuid.uuid4().hex[:12]}"
    store = open_store("engine", settings, index=index)
    store.install()
    workers: list[Any] = []
    queue = settings.queue if not args.start_workers else f"neardup.dedup.{uuid.uuid4().hex[:8]}"
    registry = Registry.from_url(broker_url(), index)
    try:
        if args.start_workers:
            workers = start_workers(args.start_workers, queue)
        submitter = Submitter(store, registry, args.profile, args.candidates, queue)
        ingest_prepared(submitter, prepared)
        ids = [p["id"] for pages in submitter.batches.values() for p in pages]
        waited = wait_for_groups(submitter, timeout=args.timeout)
        if waited["timed_out"]:
            raise SystemExit(f"neardup dedup: workers did not finish within {args.timeout}s")
        docs: dict[str, Any] = {}
        for i in range(0, len(ids), 1000):
            docs.update(store.mget(ids[i : i + 1000], with_fingerprints=False))
        return {
            d.id: {"dup_group": d.dup_group, "dup_of": d.dup_of, "resemble": d.resemble,
                   "contain": d.contain}
            for d in docs.values()
            if d.status == "grouped"
        }
    finally:
        for w in workers:
            w.terminate()
        for w in workers:
            w.wait(30)
        if not args.keep_index and not args.index:
            store.drop()
            registry.clear()
        store.close()


def start_workers(n: int, queue: str) -> list[Any]:
    """Start ``n`` single-process Celery workers on ``queue`` (for ``dedup --start-workers``)."""
    import subprocess

    env = child_environ(NEARDUP_QUEUE=queue)
    return [
        subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "neardup.verifier.celery_app", "worker", "--pool=solo",
             "-Q", queue, "-n", f"dedup{i}-{queue}@%h", "--loglevel=WARNING", "--without-gossip",
             "--without-mingle", "--without-heartbeat"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for i in range(n)
    ]
