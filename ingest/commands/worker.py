"""``neardup worker``: a Celery worker that decides accepted batches and indexes each page once,
with its ``dup_group`` (:mod:`neardup.ingest.workers`).

Runs :data:`neardup.ingest.workers.app.app` with the project's configuration (broker from
``CELERY_BROKER_URL``, queue from ``NEARDUP_QUEUE``, OpenSearch from ``OPENSEARCH_URL``).
Extra arguments after ``--`` go to ``celery worker`` unchanged.
"""

from __future__ import annotations

import argparse
from typing import Any

from neardup.ingest.cli import command_parser
from neardup.ingest.settings import Settings
from neardup.ingest.store import check_access
from neardup.ingest.workers.app import app

__all__ = ["add_parser", "worker_argv"]


def add_parser(sub: Any) -> None:
    p = command_parser(sub, "worker", __doc__)
    p.add_argument("-c", "--concurrency", type=int, default=None, help="worker processes")
    p.add_argument("-Q", "--queues", default=None, help="comma-separated queues to consume")
    p.add_argument(
        "-n", "--hostname", default="neardup@%h", help="node name (default neardup@%%h)"
    )
    p.add_argument("-l", "--loglevel", default="INFO")
    p.add_argument("--pool", default=None, help="prefork (default), solo, threads")
    p.add_argument("celery_args", nargs=argparse.REMAINDER, help="more `celery worker` options")
    p.set_defaults(func=run)


def worker_argv(args: argparse.Namespace, settings: Settings) -> list[str]:
    argv = ["worker", f"--loglevel={args.loglevel}", "-Q", args.queues or settings.queue]
    if args.concurrency:
        argv += ["--concurrency", str(args.concurrency)]
    if args.hostname:
        argv += ["-n", args.hostname]
    if args.pool:
        argv += ["--pool", args.pool]
    extra = [a for a in (args.celery_args or []) if a != "--"]
    return argv + extra


def run(args: argparse.Namespace, settings: Settings) -> int:
    # Credentials and TLS first: refused, the command ends with one line and status 1 (Celery's
    # worker_main returns no status; a worker started with `celery -A` checks the same at its
    # start, workers.app.check_engine_access)
    check_access(settings)
    app.worker_main(worker_argv(args, settings))
    return 0
