"""``neardup serve``: the HTTP service (ingest, ``_bulk`` compatibility, the inspector).

See docs/http.md. Configuration comes from the options, else from :class:`Settings` (the
environment of the other commands: ``OPENSEARCH_URL``, ``NEARDUP_INDEX``,
``CELERY_BROKER_URL``, ``NEARDUP_TOKEN``, ``NEARDUP_HOST``, ``NEARDUP_PORT``; docs/settings.md).
"""

from __future__ import annotations

import argparse
import logging

from neardup.ingest.cli import command_parser, usage_error
from neardup.ingest.commands.chrome_args import add_chrome_arguments, chrome_rule
from neardup.ingest.records import Limits
from neardup.ingest.server.app import create_app
from neardup.ingest.server.config import DEFAULT_MAX_BODY, ServerConfig
from neardup.ingest.server.service import IngestService
from neardup.ingest.settings import Settings, export_broker_url
from neardup.ingest.store import open_store
from neardup.ingest.workers.app import app as celery_app

log = logging.getLogger(__name__)


def _size(text: str) -> int:
    """``32MiB``, ``500kb``, ``1048576`` → bytes."""
    units = {"": 1, "b": 1, "k": 1024, "kb": 1024, "kib": 1024, "m": 1024**2, "mb": 1024**2,
             "mib": 1024**2, "g": 1024**3, "gb": 1024**3, "gib": 1024**3}  # fmt: skip
    raw = text.strip().lower()
    number = raw.rstrip("abcdefghijklmnopqrstuvwxyz")
    unit = raw[len(number) :].strip()
    if unit not in units or not number:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (try 32MiB)")
    try:
        return int(float(number) * units[unit])
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (try 32MiB)") from None


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:

    parser = command_parser(
        subparsers, "serve",
        "Index pages sent over HTTP (JSON/JSONL or the OpenSearch bulk API), queue "
        "them for verification, read groups back, and inspect duplicate groups in a browser at "
        "/inspector. See docs/http.md.", as_written=False,
    )
    parser.add_argument(
        "--host",
        default=None,
        help="address to listen on (default $NEARDUP_HOST or 127.0.0.1; 0.0.0.0 in a container)",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=None,
        help="port (default $NEARDUP_PORT or 8080)",
    )
    parser.add_argument(
        "--index", default=None, help="pages index (default $NEARDUP_INDEX or pages)"
    )
    parser.add_argument(
        "--opensearch-url",
        default=None,
        help="OpenSearch URL (default $OPENSEARCH_URL or http://127.0.0.1:9200)",
    )
    parser.add_argument(
        "--broker-url",
        default=None,
        help="Celery broker URL (default $CELERY_BROKER_URL or redis://127.0.0.1:6379/0)",
    )
    parser.add_argument(
        "--token",
        default=None,
        help="require 'Authorization: Bearer TOKEN' (default $NEARDUP_TOKEN; "
        "prefer the variable: arguments show in ps)",
    )
    parser.add_argument(
        "--max-body",
        type=_size,
        default=DEFAULT_MAX_BODY,
        metavar="SIZE",
        help="largest request body after decompression, e.g. 32MiB (default)",
    )
    parser.add_argument(
        "--text-field",
        default=None,
        metavar="FIELD",
        help="source field taken as the text when a document has none of text, html, "
        "rst, markdown (e.g. message for Logstash, log for Fluent Bit)",
    )
    parser.add_argument(
        "--profile",
        choices=("web", "precise", "short"),
        default="web",
        help="fingerprint and verifier profile (default web)",
    )
    add_chrome_arguments(parser)
    parser.add_argument(
        "--log-level",
        default="info",
        choices=("critical", "error", "warning", "info", "debug"),
        help="uvicorn log level (default info)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    if args.broker_url:
        # Before neardup.ingest.workers.app is imported: it reads its settings then, and Celery reads
        # CELERY_BROKER_URL itself.
        export_broker_url(args.broker_url)
    broker_url = args.broker_url or settings.broker_url
    try:
        chrome = chrome_rule(args, "serve")
    except ValueError as exc:
        return usage_error("serve", exc)
    host = args.host or settings.host
    port = settings.port if args.port is None else args.port
    import uvicorn


    # An HTTP client waits for its answer: give up publishing after a few seconds and answer
    # 503 for the item (the client re-sends; a pending page is queued again) instead of holding
    # the request for the workers' long publish-retry policy.
    celery_app.conf.task_publish_retry_policy = {
        "max_retries": 3,
        "interval_start": 0.2,
        "interval_step": 0.5,
        "interval_max": 1.0,
    }
    celery_app.conf.broker_connection_timeout = 2.0
    token = args.token or settings.token
    config = ServerConfig(token=token, max_body_bytes=args.max_body, text_field=args.text_field)
    store = open_store("engine", settings, url=args.opensearch_url, index=args.index)
    service = IngestService(
        store, broker_url=broker_url, profile=args.profile, limits=Limits.from_settings(settings),
        max_live=settings.max_live_batches, batch=settings.message_batch, chrome=chrome,
    )
    app = create_app(service, config)
    if token is None and host not in ("127.0.0.1", "localhost", "::1"):
        log.warning("serving on %s without a token: anyone who reaches it can write pages", host)
    uvicorn.run(
        app,
        host=host,
        port=port,
        log_level=args.log_level,
        proxy_headers=True,
        server_header=False,
    )
    return 0
