"""``neardup delete ID ...``: take pages out of the index, and out of their groups.

Each id is staged as a delete (:mod:`neardup.ingest.workers.changes`); a worker's repair
removes the page from the pages and fingerprints indices and from the chrome counts, and
decides the rest of its group again: a group whose representative goes gets the earliest
member left as its representative, and members joined only through the deleted page part
(docs/workers.md, "Changes"). Ids come as arguments or one a line from ``--file`` (``-``:
standard input). With ``--wait`` the command returns once the repair is done. Summary on
stdout (JSON): ``{"staged", "waited_s"}``; exit 1 when the repair is not done within
``--timeout`` seconds.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from neardup.ingest.cli import command_parser
from neardup.ingest.settings import Settings
from neardup.ingest.store import open_store
from neardup.ingest.submit import Submitter
from neardup.ingest.workers.app import broker_url
from neardup.ingest.workers.repair import repairs_pending, wait_quiet
from neardup.ingest.workers.staging import BatchStaging

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    p = command_parser(sub, "delete", __doc__)
    p.add_argument("ids", nargs="*", help="ids of the pages to delete")
    p.add_argument("--file", default=None, help="ids one a line (- for standard input)")
    p.add_argument("--index", default=None, help="pages index (default $NEARDUP_INDEX)")
    p.add_argument("--queue", default=None, help="Celery queue (default $NEARDUP_QUEUE)")
    p.add_argument("--profile", choices=("web", "precise", "short"), default="web")
    p.add_argument("--wait", action="store_true", help="return once the repair is done")
    p.add_argument("--timeout", type=float, default=300.0,
                   help="with --wait: give up after this many seconds (default: %(default)s)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    ids = list(args.ids)
    if args.file is not None:
        stream = sys.stdin if args.file == "-" else open(args.file, encoding="utf-8")
        try:
            ids += [line.strip() for line in stream if line.strip()]
        finally:
            if stream is not sys.stdin:
                stream.close()
    if not ids:
        print("neardup delete: no id given", file=sys.stderr)
        return 2
    index = args.index or settings.index
    store = open_store("engine", settings, index=index)
    staging = BatchStaging.from_url(broker_url(), index)
    try:
        submitter = Submitter(store, staging, args.profile, queue=args.queue or settings.queue)
        submitter.stage_changes([{"op": "delete", "id": i} for i in dict.fromkeys(ids)])
        summary: dict[str, Any] = {"staged": submitter.changes}
        if args.wait:
            t0 = time.monotonic()
            done = wait_quiet(staging.redis, index, args.timeout, kick=submitter.kick_repair)
            summary["waited_s"] = round(time.monotonic() - t0, 2)
            if not done:
                summary["repairs_pending"] = repairs_pending(staging.redis, index)
                print(json.dumps(summary))
                print("neardup delete: the repair is not done (is a worker running?)",
                      file=sys.stderr)
                return 1
    finally:
        store.close()
    print(json.dumps(summary))
    return 0
