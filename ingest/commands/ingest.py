"""``neardup ingest FILE.jsonl``: index pages with their fingerprints and queue their verification.

Documents are validated and fingerprinted (:mod:`ingest.pipeline`), indexed in batches with the
store's bulk helper, and — once a batch is indexed and refreshed, so the workers' candidate
queries see it — queued as ``verify_batch`` messages. Summary on stdout (JSON):
``{"indexed", "unchanged", "errors", "queued", ...}``; per-document errors as JSONL
``{"line", "id", "error", "type"}`` on ``--errors FILE`` (default stderr). A document that already exists is left untouched and not
queued again (re-ingest changes nothing).

``seq`` (the order that decides groups) is ``run base + line number`` where the run base is the
current time in microseconds: later runs sort after earlier ones as long as a line takes more
than a microsecond to ingest, which it always does.

``--wait`` waits until no document of this run is ``pending``, then refreshes the index so
that ``neardup search`` sees the groups at once. It shows the progress on stderr (a bar on a
terminal, a line now and then otherwise), warns when no worker consumes the queue, and gives
up (exit 1) when no page has been grouped for ``--timeout`` seconds — a run that keeps
progressing is never cut. Documents that stay pending without progress are queued again
(their messages may have been lost with a broker restart: tasks are idempotent, a duplicate
costs nothing).
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

from ingest.commands.progress import progress_bar
from ingest.errors import ConfigError
from ingest.pipeline import Prepared, fingerprint_config, prepare_lines, read_lines
from ingest.records import Limits, dumps
from ingest.retry import retry_call
from ingest.settings import Settings, child_environ
from ingest.store import open_store
from ingest.store.base import PutResult
from ingest.store.errors import StoreUnavailable
from verifier.tasks import enqueue, queue_consumers

__all__ = ["WaitReport", "add_parser", "dedup_via_opensearch", "ingest_prepared", "wait_for_groups"]

BATCH = 500
WAIT_TIMEOUT = 300.0  # --wait gives up after this long without a page grouped


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
        "-k", "--candidates", type=int, default=20, help="top-k candidates (default: %(default)s)"
    )
    p.add_argument("--no-queue", action="store_true", help="index only, queue nothing")
    p.add_argument("--queue", default=None, help="Celery queue (default $NEARDUP_QUEUE)")
    p.add_argument("--errors", default=None, help="per-document errors as JSONL (default stderr)")
    p.add_argument(
        "--wait", action="store_true",
        help="wait until every document is grouped, then refresh (search sees the groups)",
    )
    p.add_argument(
        "--timeout", type=float, default=WAIT_TIMEOUT,
        help="--wait: give up when no page has been grouped for this many seconds "
        "(default: %(default)s)",
    )
    p.add_argument(
        "--stall", type=float, default=30.0,
        help="--wait: re-queue documents still pending after this many seconds without progress "
        "(default: %(default)s)",
    )
    p.add_argument(
        "-j", "--processes", type=int, default=os.cpu_count() or 1,
        help="extraction processes (default: the cores, %(default)s)",
    )
    p.add_argument(
        "--batch", type=int, default=BATCH, help="documents per bulk request (default: %(default)s)"
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
    seq_base = time.time_ns() // 1000
    errors_out: TextIO = sys.stderr if args.errors is None else open(args.errors, "w")

    progress = progress_bar(args)
    try:
        prepared = progress(
            prepare_lines(read_lines(args.input, limits), config, seq_base,
                          processes=args.processes, limits=limits),
            desc="ingest",
        )
        summary = ingest_prepared(
            store,
            prepared,
            profile=args.profile,
            k=args.candidates,
            queue=None if args.no_queue else (args.queue or settings.queue),
            batch=args.batch,
            on_error=lambda p: errors_out.write(
                dumps({"line": p.line_no, "id": p.id, "error": p.error, "type": p.error_type})
                + "\n"
            ),
        )
        if args.wait and not args.no_queue:
            summary.update(
                wait_for_groups(
                    store,
                    summary.pop("_ids"),
                    profile=args.profile,
                    k=args.candidates,
                    queue=args.queue or settings.queue,
                    idle_timeout=args.timeout,
                    stall=args.stall,
                    seq_range=summary.pop("_seq_range"),
                    report=None if args.no_progress else WaitReport(sys.stderr),
                    consumers=queue_consumers,
                )
            )
            if summary.get("timed_out"):
                print(
                    f"neardup ingest: gave up waiting: {summary.get('pending')} pages still "
                    f"pending, none grouped for {args.timeout:g} s (is a worker running on "
                    f"queue {args.queue or settings.queue!r}? start one: neardup worker)",
                    file=sys.stderr,
                )
        summary.pop("_ids", None)
        summary.pop("_seq_range", None)
    finally:
        if errors_out is not sys.stderr:
            errors_out.close()
        store.close()
    print(json.dumps(summary))
    return 0 if not summary.get("timed_out") else 1


def _batches(items: Iterable[Prepared], n: int) -> Iterator[list[Prepared]]:
    batch: list[Prepared] = []
    for it in items:
        batch.append(it)
        if len(batch) >= n:
            yield batch
            batch = []
    if batch:
        yield batch


def _put_with_retry(store: Any, docs: list[Any], deadline_s: float = 600.0) -> list[Any]:
    """Index a batch, waiting out an unreachable node (:func:`ingest.retry.retry_call`).

    Creates are idempotent, so a failed batch is simply sent again; but an attempt that failed
    half-way may have created some documents, which the next attempt reports as ``noop`` (409)
    although *this run* created them. Such a document carries this run's ``seq`` (unique per
    run and line), which is how :func:`_claim_own_noops` tells it from a real re-ingest."""
    attempts = 0

    def put() -> list[Any]:
        nonlocal attempts
        attempts += 1
        return list(store.put(docs, overwrite=False))

    results = retry_call(put, budget=deadline_s)
    if attempts > 1:
        return retry_call(partial(_claim_own_noops, store, docs, results), budget=deadline_s)
    return results


def _claim_own_noops(store: Any, docs: list[Any], results: list[Any]) -> list[Any]:
    """``noop`` results for documents stored with the same ``seq`` → ``created``."""

    noop = [d.id for d, r in zip(docs, results, strict=True) if r.ok and r.result == "noop"]
    if not noop:
        return results
    stored = store.fields(noop, ["seq"])
    out = []
    for d, r in zip(docs, results, strict=True):
        if r.ok and r.result == "noop" and stored.get(d.id, {}).get("seq") == d.seq:
            r = PutResult(d.id, True, result="created")
        out.append(r)
    return out


def ingest_prepared(
    store: Any,
    prepared: Iterable[Prepared],
    profile: str = "web",
    k: int = 20,
    queue: str | None = None,
    batch: int = BATCH,
    on_error: Callable[[Prepared], Any] | None = None,
) -> dict[str, Any]:
    """Index prepared documents and (with ``queue``) queue their verification.

    A batch is queued once a refresh has made it searchable (the workers' candidate queries
    must see it). The refresh and the publishing run in a background thread, in batch order,
    while the next batch is being indexed."""
    from concurrent.futures import Future, ThreadPoolExecutor


    counts = {"indexed": 0, "unchanged": 0, "errors": 0, "queued": 0, "messages": 0}
    phases = {"prepare_s": 0.0, "index_s": 0.0, "refresh_s": 0.0, "enqueue_s": 0.0}
    ids: list[str] = []
    seqs: list[int] = []

    def publish(fresh: list[str]) -> int:
        t0 = time.perf_counter()
        retry_call(store.refresh, budget=600.0)  # the workers' candidate queries must see it
        t1 = time.perf_counter()
        n = enqueue(fresh, store.index, profile, k, queue=queue)
        phases["refresh_s"] += t1 - t0
        phases["enqueue_s"] += time.perf_counter() - t1
        return n

    published: list[Future[int]] = []
    chunks = _batches(prepared, batch)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="publish") as publisher:
        while True:
            t0 = time.perf_counter()  # blocked on extraction + fingerprinting (a process pool)
            chunk = next(chunks, None)
            phases["prepare_s"] += time.perf_counter() - t0
            if chunk is None:
                break
            docs = []
            line_of: dict[str, int] = {}
            for p in chunk:
                if p.doc is None:
                    counts["errors"] += 1
                    if on_error:
                        on_error(p)
                else:
                    docs.append(p.doc)
                    line_of[p.doc.id] = p.line_no
            if not docs:
                continue
            t0 = time.perf_counter()
            results = _put_with_retry(store, docs)
            phases["index_s"] += time.perf_counter() - t0
            fresh = []
            for doc, r in zip(docs, results, strict=True):
                if not r.ok:
                    counts["errors"] += 1
                    if on_error:
                        on_error(Prepared(line_of[doc.id], doc.id, error=f"{doc.id}: {r.error}",
                                          error_type="index_failed"))
                elif r.result == "noop":
                    counts["unchanged"] += 1
                else:
                    counts["indexed"] += 1
                    fresh.append(doc.id)
                    seqs.append(doc.seq)
            ids.extend(fresh)
            if queue is not None and fresh:
                while published and published[0].done():  # surface a failure early
                    counts["messages"] += published.pop(0).result()
                published.append(publisher.submit(publish, fresh))
                counts["queued"] += len(fresh)
        for f in published:
            counts["messages"] += f.result()
    counts["phases"] = {key: round(v, 3) for key, v in phases.items()}  # type: ignore[assignment]
    counts["_ids"] = ids  # type: ignore[assignment]
    counts["_seq_range"] = (min(seqs), max(seqs)) if seqs else None  # type: ignore[assignment]
    return counts


def _pending(store: Any, ids: Sequence[str]) -> list[str]:
    pending: list[str] = []
    for i in range(0, len(ids), 1000):
        chunk = ids[i : i + 1000]
        found = _mget_status(store, chunk)
        pending.extend(d for d in chunk if found.get(d, "pending") == "pending")
    return pending


NEAR_END = 1000  # pending documents below which wait_for_groups reads statuses in real time
WORKER_CHECK_AFTER = 3.0  # seconds without progress before wait_for_groups looks for workers


def _search_pending(
    store: Any, seq_range: tuple[int, int], ids: set[str], limit: int | None = None
) -> list[str]:
    """Ids among ``ids`` that the last refresh shows pending (a superset of those pending
    now), in ``seq`` order, at most ``limit`` (``seq`` ranges of runs could overlap: other
    documents are skipped)."""
    found: list[str] = []
    for doc_id in store.ids_with_status("pending", seq_range):
        if limit is not None and len(found) >= limit:
            break
        if doc_id in ids:
            found.append(doc_id)
    return found


def _mget_status(store: Any, ids: Sequence[str]) -> dict[str, str]:
    return {i: src.get("status") for i, src in store.fields(ids, ["status"]).items()}


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


def wait_for_groups(
    store: Any,
    ids: Sequence[str],
    profile: str = "web",
    k: int = 20,
    queue: str | None = None,
    timeout: float = 3600,
    stall: float = 30.0,
    poll: float = 0.25,
    seq_range: tuple[int, int] | None = None,
    idle_timeout: float | None = None,
    report: WaitReport | None = None,
    consumers: Callable[[str | None], list[str]] | None = None,
) -> dict[str, Any]:
    """Wait until none of ``ids`` is pending; re-queue the pending ones after ``stall``
    seconds without progress; refresh the index once they are all decided, so a search sees
    their groups. Returns ``{"waited_s", "requeued", "timed_out"}`` (+ ``pending`` when it
    timed out: after ``timeout`` seconds in all, or ``idle_timeout`` seconds without a page
    decided).

    With ``seq_range`` (the ``seq`` of the first and last of ``ids``, all searchable), the
    progress is a ``count`` of the pending documents in that range (near-real-time: a count of
    the last refresh, never below the real one, since a status only moves away from pending)
    until a few are left; then their statuses are read in real time. Reading every status of a
    large run twice a second would cost the node more than the workers' own reads.

    ``report`` shows the progress; ``consumers(queue)`` (the workers consuming ``queue``) is
    asked whenever nothing has progressed for a few seconds, and ``report.no_worker`` is told
    when there is none (once until something progresses again)."""

    start = time.monotonic()
    last_change, last_left, requeued = start, None, 0
    last_progress = start
    checked_workers = False
    pending = list(ids)
    counting = seq_range is not None and len(pending) > NEAR_END
    left = len(pending)
    if report is not None:
        report.start(len(ids), queue)
    while left:
        try:
            if counting:
                assert seq_range is not None
                left = store.count_status("pending", seq_range)
                if left <= NEAR_END:  # from now on, exact realtime reads of these few
                    counting = False
                    pending = _search_pending(store, seq_range, set(pending), NEAR_END)
                    left = len(pending)
            else:
                pending = _pending(store, pending)
                left = len(pending)
        except StoreUnavailable:
            pass
        now = time.monotonic()
        if left != last_left:
            if last_left is not None:
                last_progress, checked_workers = now, False
            last_left, last_change = left, now
        if report is not None:
            report.progress(len(ids) - left, now - start)
        if not left:
            break
        if now - start > timeout or (idle_timeout is not None and now - last_progress > idle_timeout):
            return {"waited_s": round(now - start, 2), "requeued": requeued, "timed_out": True,
                    "pending": left}
        if (consumers is not None and not checked_workers
                and now - last_progress >= min(stall, WORKER_CHECK_AFTER)):
            checked_workers = True
            if not consumers(queue) and report is not None:
                report.no_worker(queue, left)
        if now - last_change > stall and queue is not None:
            try:
                if counting:
                    assert seq_range is not None
                    pending = _search_pending(store, seq_range, set(pending))
                pending = _pending(store, pending)
                if not pending:
                    break
                enqueue(pending, store.index, profile, k, queue=queue)
                requeued += len(pending)
            except Exception:  # the broker may be down right now: try again after the next stall
                pass
            last_change = now
        time.sleep(poll)
    retry_call(store.refresh, budget=600.0)  # the groups written back become searchable now
    waited = time.monotonic() - start
    if report is not None:
        report.progress(len(ids), waited, final=True)
    return {"waited_s": round(waited, 2), "requeued": requeued, "timed_out": False}


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
    try:
        if args.start_workers:
            workers = start_workers(args.start_workers, queue)
        summary = ingest_prepared(
            store, prepared, profile=args.profile, k=args.candidates, queue=queue
        )
        ids = summary["_ids"]
        waited = wait_for_groups(
            store, ids, profile=args.profile, k=args.candidates, queue=queue, timeout=args.timeout,
            seq_range=summary["_seq_range"],
        )
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
        store.close()


def start_workers(n: int, queue: str) -> list[Any]:
    """Start ``n`` single-process Celery workers on ``queue`` (for ``dedup --start-workers``)."""
    import subprocess

    env = child_environ(NEARDUP_QUEUE=queue)
    return [
        subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "verifier.celery_app", "worker", "--pool=solo",
             "-Q", queue, "-n", f"dedup{i}-{queue}@%h", "--loglevel=WARNING", "--without-gossip",
             "--without-mingle", "--without-heartbeat"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for i in range(n)
    ]
