"""``neardup stoplist``: compute the fingerprint stoplist from the index, or show it."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable

from neardup.ingest.cli import command_parser, usage_error
from neardup.ingest.errors import ConfigError
from neardup.ingest.settings import Settings
from neardup.ingest.stoplist import StoplistConfig, refresh_stoplist
from neardup.ingest.store import BACKENDS, StoplistEntry, Store, open_store

_DEFAULTS = StoplistConfig()


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = command_parser(
        subparsers, "stoplist",
        "Fingerprints occurring in more than --max-count documents, or in more "
        "than --concentrated-count documents of at most --max-sites sites (or, with --max-share, "
        "in more than that share of all documents), are never used to look up candidates "
        "(the paper's template/spam rule).", as_written=False,
    )
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    sub.required = True
    compute = sub.add_parser("compute", help="recompute from the stored documents and store it")
    show = sub.add_parser("show", help="print the stored stoplist as JSON lines")
    for p in (compute, show):
        p.add_argument("--backend", choices=BACKENDS, default="opensearch")
        p.add_argument("--index", default=None, help="index (default $NEARDUP_INDEX or pages)")
        p.add_argument("--path", default=None, help="SQLite file of the embedded backend")
    compute.add_argument("--max-count", type=int, default=_DEFAULTS.max_count)
    compute.add_argument("--concentrated-count", type=int, default=_DEFAULTS.concentrated_count)
    compute.add_argument("--max-sites", type=int, default=_DEFAULTS.max_sites)
    compute.add_argument(
        "--max-share",
        type=float,
        default=_DEFAULTS.max_share,
        help="also stop fingerprints in more than this share of all stored documents "
        "(e.g. 0.01; off by default — the relative form of --max-count for small collections)",
    )
    compute.add_argument(
        "--dry-run", action="store_true", help="print the entries without storing them"
    )
    show.add_argument("--limit", type=int, default=None, help="at most this many entries")
    parser.set_defaults(func=run)


def _store(args: argparse.Namespace, settings: Settings) -> Store:
    if args.backend == "embedded":
        if not args.path:
            raise SystemExit("neardup stoplist: --backend embedded needs --path (an SQLite file)")
        return open_store("embedded", path=args.path)
    return open_store("engine", settings, index=args.index)


def run(args: argparse.Namespace, settings: Settings) -> int:
    config = StoplistConfig()
    if args.action == "compute":
        try:
            config = StoplistConfig(
                args.max_count, args.concentrated_count, args.max_sites, args.max_share
            )
        except ConfigError as exc:
            return usage_error("stoplist", exc)
    store = _store(args, settings)
    try:
        if args.action == "compute":
            entries = refresh_stoplist(store, config, dry_run=args.dry_run)
            if args.dry_run:
                _write(entries)
            by_reason: dict[str, int] = {}
            for e in entries:
                by_reason[e.reason or "?"] = by_reason.get(e.reason or "?", 0) + 1
            print(
                f"stoplist: {len(entries)} fingerprints {by_reason} ({config})"
                + (" [dry run]" if args.dry_run else ""),
                file=sys.stderr,
            )
        else:
            entries = store.stoplist_entries()
            _write(entries[: args.limit] if args.limit is not None else entries)
    finally:
        store.close()
    return 0


def _write(entries: Iterable[StoplistEntry]) -> None:
    for e in entries:
        row = {"fingerprint": e.fingerprint, "count": e.count, "sites": e.sites, "reason": e.reason}
        sys.stdout.write(json.dumps(row, ensure_ascii=False) + "\n")
