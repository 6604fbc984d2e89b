"""``neardup backfill INDEX``: tag the pages of an index that another pipeline filled.

For an index that already holds pages (indexed by someone else's pipeline, e.g. plain
``helpers.bulk`` of ``{"text"|"html"|..., "url", "site", "title"}`` documents) and no
``dup_group``: every page without a ``dup_group`` is read back (a scroll), validated,
extracted and fingerprinted like an ingested one (the document's ``_id`` is its id), and
accepted for the workers in batches; the workers decide each page's group exactly as for
``neardup ingest`` and write neardup's fields onto it in place — a partial update: its own
fields stay as they are (docs/workers.md, "Backfill").

neardup's fields are added to the index's mapping first (``body``, ``content``,
``fingerprints``, ``dup_group``...; an index that maps one of them otherwise is refused with
the engine's error). Resume: a page already tagged is not read again, so a run stopped
half-way goes on where it stopped. Per-page errors (no text, not a page) are reported as JSONL
``{"id", "error", "type"}`` on ``--errors`` (default stderr) and the page is left untagged.
Summary on stdout (JSON): ``{"read", "accepted", "errors", "indexed", ...}``; exit 1 when pages
are still undecided at ``--timeout``.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from neardup.ingest.chrome_pass import observe_input
from neardup.ingest.cli import command_parser, usage_error
from neardup.ingest.commands.chrome_args import add_chrome_arguments, chrome_rule
from neardup.ingest.commands.progress import progress_bar
from neardup.ingest.errors import DocumentError
from neardup.ingest.jsoncodec import dumps_str
from neardup.ingest.pipeline import fingerprint_config, prepare_document
from neardup.ingest.records import Limits, validate_page
from neardup.ingest.settings import Settings
from neardup.ingest.store import open_store
from neardup.ingest.store.base import StoredDocument, now_iso
from neardup.ingest.submit import Submitter, WaitReport, wait_for_groups
from neardup.ingest.workers._redis import connect
from neardup.ingest.workers.app import broker_url
from neardup.ingest.workers.batch import DEFAULT_K
from neardup.ingest.workers.chrome_counts import SharedChromeCounts
from neardup.ingest.workers.repair import repairs_pending, wait_quiet
from neardup.ingest.workers.staging import BatchStaging
from neardup.ingest.workers.tasks import queue_consumers

__all__ = ["add_parser", "backfill", "count_chrome", "find_dangling"]


def add_parser(sub: Any) -> None:
    p = command_parser(sub, "backfill", __doc__)
    p.add_argument("index", help="the index holding the pages")
    p.add_argument("--profile", choices=("web", "precise", "short"), default="web")
    p.add_argument("-k", "--candidates", type=int, default=DEFAULT_K,
                   help="the most candidates a page is verified against (default: %(default)s)")
    p.add_argument("--queue", default=None, help="Celery queue (default $NEARDUP_QUEUE)")
    p.add_argument("--batch", type=int, default=None,
                   help="pages per accepted batch (default: $NEARDUP_MESSAGE_BATCH or 250)")
    p.add_argument("--errors", default=None, help="per-page errors as JSONL (default stderr)")
    p.add_argument("--timeout", type=float, default=300.0,
                   help="give up when no page has been tagged for this many seconds "
                   "(default: %(default)s)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.add_argument("--repair", action="store_true",
                   help="find the pages deleted from the index behind neardup's back (their "
                   "fingerprints left behind, groups named after them) and repair their groups")
    add_chrome_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    try:
        config = fingerprint_config(args.profile)
        rule = chrome_rule(args, "backfill")
    except ValueError as exc:
        return usage_error("backfill", exc)
    store = open_store("engine", settings, index=args.index)
    if not store.index_exists():
        print(f"neardup backfill: no index {args.index!r} on {settings.opensearch_url}",
              file=sys.stderr)
        return 1
    store.install()  # neardup's fields onto the index's mapping; its stoplist index
    queue = args.queue or settings.queue
    if args.repair:
        return _repair(store, args, settings, queue)
    submitter = Submitter(store, BatchStaging.from_url(broker_url(), args.index), args.profile,
                          args.candidates, queue, max_live=settings.max_live_batches,
                          mode="update")
    errors_out: TextIO = sys.stderr if args.errors is None else open(args.errors, "w")
    try:
        chrome = None if rule is None else SharedChromeCounts(
            connect(broker_url()), args.index, rule)
        summary = backfill(
            store, submitter, config, Limits.from_settings(settings),
            batch=args.batch or settings.message_batch,
            on_error=lambda rec: errors_out.write(dumps_str(rec) + "\n"),
            progress=progress_bar(args), chrome=chrome,
        )
        summary.update(wait_for_groups(
            submitter, idle_timeout=args.timeout,
            report=None if args.no_progress else WaitReport(sys.stderr),
            consumers=queue_consumers,
        ))
    finally:
        if errors_out is not sys.stderr:
            errors_out.close()
        store.close()
    print(json.dumps(summary))
    if summary.get("timed_out"):
        print(f"neardup backfill: gave up waiting: {summary.get('pending')} pages still "
              f"undecided (is a worker running on queue {queue!r}?)", file=sys.stderr)
        return 1
    return 0


def find_dangling(store: Any) -> tuple[list[str], list[str]]:
    """``(gone, orphans)``: the pages whose fingerprints document outlived them (deleted from
    the pages index behind neardup's back), and the pages whose ``dup_group`` names a page the
    index no longer holds."""
    fingerprinted = set(store.fingerprinted_ids())
    groups = dict(store.group_ids())
    present = set(groups)
    present |= store.existing(sorted(fingerprinted - present)) if fingerprinted - present \
        else set()
    gone = sorted(fingerprinted - present)
    orphans = sorted(i for i, g in groups.items() if g not in present)
    return gone, orphans


def _repair(store: Any, args: argparse.Namespace, settings: Settings, queue: str) -> int:
    gone, orphans = find_dangling(store)
    submitter = Submitter(store, BatchStaging.from_url(broker_url(), args.index), args.profile,
                          args.candidates, queue)
    try:
        submitter.stage_changes([{"op": "delete", "id": i} for i in gone]
                                + [{"op": "regroup", "id": i} for i in orphans])
        summary: dict[str, Any] = {"deleted": len(gone), "regrouped": len(orphans)}
        if submitter.changes:
            staging = submitter.staging
            done = wait_quiet(staging.redis, args.index, args.timeout,
                              kick=submitter.kick_repair)
            if not done:
                summary["repairs_pending"] = repairs_pending(staging.redis, args.index)
                print(json.dumps(summary))
                return 1
    finally:
        store.close()
    print(json.dumps(summary))
    return 0


def backfill(
    store: Any,
    submitter: Submitter,
    config: Any,
    limits: Limits,
    batch: int = 250,
    on_error: Any = None,
    progress: Any = None,
    chrome: SharedChromeCounts | None = None,
) -> dict[str, Any]:
    """Read every untagged page of the store, prepare it and accept it (``mode="update"``);
    returns ``{"read", "accepted", "errors", "messages"}`` (and ``"chrome_counted"``).

    ``chrome``: the index's site-chrome counts on the broker. The untagged pages are read
    twice then: every plain-text page is counted first, and each page is masked with the
    counts of all of them (the two-pass rule of ``neardup dedup``, docs/chrome.md)."""
    counts = {"read": 0, "accepted": 0, "errors": 0, "messages": 0}
    if chrome is not None:
        counts["chrome_counted"] = count_chrome(store, chrome, limits)
    now = now_iso()
    pages: list[StoredDocument] = []
    total = store.count_untagged()
    items = store.untagged(size=max(batch, 100))
    if progress is not None:
        items = progress(items, desc="backfill", total=total)
    for doc_id, source in items:
        counts["read"] += 1
        record = {k: v for k, v in source.items() if k != "id"}
        record["id"] = doc_id
        try:
            page = validate_page(record, limits)
            doc = prepare_document(page, 0, config, limits, chrome=chrome)
        except DocumentError as exc:
            counts["errors"] += 1
            if on_error:
                on_error({"id": doc_id, "error": str(exc.with_id(doc_id)), "type": exc.type})
            continue
        except Exception as exc:  # an extractor crash is still one page's failure
            counts["errors"] += 1
            if on_error:
                on_error({"id": doc_id, "error": f"{doc_id}: {type(exc).__name__}: {exc}",
                          "type": "document_error"})
            continue
        doc.ingested_at = now
        pages.append(doc)
        if len(pages) >= batch:
            submitter.submit(pages)
            counts["accepted"] += len(pages)
            counts["messages"] += 1
            pages = []
    if pages:
        submitter.submit(pages)
        counts["accepted"] += len(pages)
        counts["messages"] += 1
    return counts



def count_chrome(store: Any, chrome: SharedChromeCounts, limits: Limits,
                 chunk: int = 500) -> int:
    """Count the plain-text pages among the store's untagged pages into ``chrome`` (a page
    counted before, by id, is not counted again); returns how many were new."""
    sources = ((0, {**{k: v for k, v in source.items() if k != "id"}, "id": doc_id})
               for doc_id, source in store.untagged(size=chunk))
    return observe_input(chrome, sources, limits, chunk)
