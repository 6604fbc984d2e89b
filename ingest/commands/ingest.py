"""``neardup ingest FILE``: accept pages; workers index each one once, with its group.

FILE is JSONL, or a WARC or WET file (``.warc``, ``.warc.gz``, ``.wet.gz``; told by its
content): its HTML and text responses and WET conversions are the pages, with their URL and
site (docs/crawl.md); a record in error is reported with its ``offset`` and ``url``, and the
summary counts the records skipped, by kind (``warc``).

Pages are validated and fingerprinted (:mod:`neardup.ingest.pipeline`) and accepted in batches
(:class:`Submitter`): a page already in the index is ``unchanged``; the others are stored in
Redis as one batch and a ``decide_batch`` message is queued. A worker finds each page's
candidates, verifies them, and indexes the page once, carrying its ``dup_group``
(:mod:`neardup.ingest.workers.batch`); a page is searchable only once it is decided. Summary on stdout
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
import dataclasses
import json
import os
import sys
from collections.abc import Iterable, Iterator
from contextlib import nullcontext
from typing import Any, TextIO

from neardup.ingest.chrome_pass import DEFAULT_MAX_AGE, DEFAULT_MAX_WAIT, delayed_input
from neardup.ingest.cli import command_parser, existing_input, usage_error
from neardup.ingest.commands.chrome_args import add_chrome_arguments, chrome_rule
from neardup.ingest.commands.progress import progress_bar
from neardup.ingest.commands.started_workers import WorkerDied, start_workers
from neardup.ingest.crawl import CrawlStats, input_format
from neardup.ingest.jsoncodec import dumps_str
from neardup.ingest.pipeline import Prepared, fingerprint_config, prepare_lines, read_lines
from neardup.ingest.records import Limits
from neardup.ingest.settings import Settings
from neardup.ingest.store import open_store
from neardup.ingest.store.base import StoredDocument
from neardup.ingest.submit import (
    WAIT_TIMEOUT,
    Submitter,
    WaitReport,
    ingest_prepared,
    submit_pages,
    wait_for_groups,
)
from neardup.ingest.workers._redis import connect
from neardup.ingest.workers.app import broker_url
from neardup.ingest.workers.batch import DEFAULT_K
from neardup.ingest.workers.chrome_counts import SharedChromeCounts, observe_file
from neardup.ingest.workers.forest import RedisGroupForest
from neardup.ingest.workers.staging import BatchStaging

# Processes of the counting pass (site chrome), at least: it runs before any page is sent, when
# the workers have nothing to do yet.
_COUNTING_PROCESSES = min(4, os.cpu_count() or 1)

__all__ = ["add_parser", "dedup_via_opensearch", "run"]



def add_parser(sub: Any) -> None:
    p = command_parser(sub, "ingest", __doc__)
    p.add_argument(
        "input", help="JSONL (id, text|html|rst|markdown, optional url/site/title), or a WARC or "
        "WET file ('-' = stdin)"
    )
    p.add_argument(
        "--id", dest="id_from", choices=("record", "url"), default="record",
        help="WARC/WET input: a page's id is its WARC-Record-ID (default) or its URL",
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
    add_chrome_arguments(p)
    p.add_argument(
        "--chrome-delay", type=int, default=None, metavar="N",
        help="stdin: a page is prepared once N more pages of its site have been counted "
        "(default: T, --chrome-min-pages; 0: at once, with the counts so far)",
    )
    p.add_argument(
        "--chrome-max-age", type=int, default=DEFAULT_MAX_AGE, metavar="N",
        help="stdin: ... or once N more pages of any site have been counted (default: "
        "%(default)s; also about the most pages held in memory)",
    )
    p.add_argument(
        "--chrome-max-wait", type=float, default=DEFAULT_MAX_WAIT, metavar="SECONDS",
        help="stdin: ... or SECONDS after it was read, or at the end of the input (default: "
        "%(default)s)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    try:
        existing_input(args.input)
        config = fingerprint_config(args.profile)
        crawl = input_format(args.input) == "warc"
        rule = chrome_rule(args, "ingest")
        if (args.chrome_delay is not None and args.chrome_delay < 0) or args.chrome_max_age < 1 \
                or args.chrome_max_wait < 0:
            raise ValueError("neardup ingest: --chrome-delay and --chrome-max-wait must be >= 0, "
                             "--chrome-max-age >= 1")
    except ValueError as exc:
        return usage_error("ingest", exc)
    stats = CrawlStats()
    limits = Limits.from_settings(settings)
    queue = args.queue or settings.queue
    chrome, counted = None, [0]
    lines = read_lines(args.input, limits, id_from=args.id_from, stats=stats)
    if rule is not None:
        chrome = SharedChromeCounts(connect(broker_url()), args.index or settings.index, rule)
        if args.input == "-":
            # A stream (a pipe that stays open): each page is counted as it is read, and
            # prepared once T more pages of its site (or --chrome-max-age pages in all) have
            # been counted, --chrome-max-wait seconds after it was read, or at the end of the
            # input, in input order (docs/chrome.md).
            lines = delayed_input(chrome, lines, limits, args.chrome_delay,
                                  args.chrome_max_age, counted, args.chrome_max_wait)
        else:
            # Two passes, as dedup: every plain-text page of the file is counted into the
            # index's counts on the broker before any page is prepared (docs/chrome.md).
            try:
                counted[0] = observe_file(
                    broker_url(), args.index or settings.index, rule, args.input, limits,
                    id_from=args.id_from, processes=max(args.processes, _COUNTING_PROCESSES))
            except ConnectionError as exc:
                print(f"neardup ingest: could not count site chrome on the broker: {exc}",
                      file=sys.stderr)
                return 1
    errors_out: TextIO = sys.stderr if args.errors is None else open(args.errors, "w")
    progress = progress_bar(args)
    try:
        summary = submit_pages(
            progress(
                prepare_lines(lines, config, processes=args.processes, limits=limits,
                              chrome=chrome, prefetch=0 if args.input == "-" else 256),
                desc="ingest",
            ),
            settings,
            profile=args.profile,
            k=args.candidates,
            index=args.index,
            queue=queue,
            batch=args.batch,
            on_error=lambda p: errors_out.write(dumps_str(_error_line(p)) + "\n"),
            wait=args.wait,
            timeout=args.timeout,
            stall=args.stall,
            report=None if args.no_progress else WaitReport(sys.stderr),
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
    if chrome is not None:
        summary["chrome_counted"] = counted[0]
    if crawl:
        cut = stats.cut_message(args.input)
        if cut is not None:
            print(f"neardup ingest: {cut}", file=sys.stderr)
        summary["warc"] = stats.summary()
    print(json.dumps(summary))
    return 0 if not summary.get("timed_out") and not summary.get("failed") else 1


def _error_line(p: Prepared) -> dict[str, Any]:
    """A per-document error as written to ``--errors``: where it is (a JSONL line, or a WARC
    record's URL and offset), its id, message and type."""
    where: dict[str, Any] = {"line": p.line_no} if p.offset is None else {"url": p.url,
                                                                           "offset": p.offset}
    return {**where, "id": p.id, "error": p.error, "type": p.error_type}


def dedup_via_opensearch(
    prepared: Iterable[Prepared], args: argparse.Namespace, progress: Any, settings: Settings
) -> tuple[list[Prepared], dict[str, dict[str, Any]]]:
    """``neardup dedup --backend opensearch``: ingest into an index, let workers group, read back.

    Returns every input line's outcome — a page as its id, seq and config only (the index holds
    the rest, and a million pages' texts do not fit in memory) — and the groups, read back as
    their fields alone."""
    import uuid


    index = args.index or f"neardup-dedup-{uuid.uuid4().hex[:12]}"
    store = open_store("engine", settings, index=index)
    store.install()
    queue = settings.queue if not args.start_workers else f"neardup.dedup.{uuid.uuid4().hex[:8]}"
    staging = BatchStaging.from_url(broker_url(), index)
    outcomes: list[Prepared] = []

    def kept(lines: Iterable[Prepared]) -> Iterator[Prepared]:
        for p in lines:
            outcomes.append(_slim(p))
            yield p

    try:
        # the workers started for the run are stopped first, when it ends; one that exits
        # before ends it at once (StartedWorkers)
        with start_workers(args.start_workers, queue) if args.start_workers else nullcontext():
            submitter = Submitter(store, staging, args.profile, args.candidates, queue)
            ingest_prepared(submitter, kept(prepared))
            ids = [i for batch in submitter.ids.values() for i in batch]
            waited = wait_for_groups(submitter, timeout=args.timeout)
        if waited["timed_out"]:
            raise SystemExit(f"neardup dedup: workers did not finish within {args.timeout}s")
        found: dict[str, dict[str, Any]] = {}
        for i in range(0, len(ids), 1000):
            found.update(store.fields(ids[i : i + 1000], _GROUP_FIELDS))
        return outcomes, {
            doc_id: {f: d.get(f) for f in _GROUP_FIELDS[:-1]}
            for doc_id, d in found.items()
            if d.get("status") == "grouped"
        }
    except WorkerDied as exc:
        raise SystemExit(f"neardup dedup: {exc}") from None
    finally:
        if not args.keep_index and not args.index:
            store.drop()
            staging.clear()
            RedisGroupForest(staging.redis, index).clear()
        store.close()


_GROUP_FIELDS = ["dup_group", "dup_of", "resemble", "contain", "status"]


def _slim(p: Prepared) -> Prepared:
    """``p`` without its page's text, fingerprints and metadata (what the output needs)."""
    d = p.doc
    if d is None:
        return p
    return dataclasses.replace(p, doc=StoredDocument(d.id, "", [], d.fp_config, d.seq))
