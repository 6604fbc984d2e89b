"""The Celery application of the verification workers (broker: Redis).

Configuration comes from the environment so a worker, ``neardup ingest`` and the tests agree.
A worker (``celery -A neardup.ingest.workers.app``) has no other entry point, so this module reads
:class:`~neardup.ingest.settings.Settings` once, at import (:data:`settings`; see docs/settings.md):

- ``CELERY_BROKER_URL`` (default ``redis://127.0.0.1:6379/0``);
- ``NEARDUP_QUEUE`` (default ``neardup.verify``): the queue the ``neardup.decide_batch`` tasks
  go to (:mod:`neardup.ingest.workers.tasks`);
- logging: the OpenSearch client logs every request at INFO; a worker at ``--loglevel=INFO``
  keeps its own lines (one per batch, with its counts and timings) and shows the client's
  only at DEBUG (:func:`quiet_client_logs`).
- ``NEARDUP_VISIBILITY_TIMEOUT`` (seconds, default 300): how long Redis keeps a delivered but
  unacknowledged message before handing it to another worker. Tasks are acknowledged *after*
  they finish (``acks_late``), so a worker killed mid-task loses nothing: its messages come back
  after this timeout. It must exceed the longest task: the hard time limit below is derived from
  it (``NEARDUP_TASK_TIME_LIMIT``, default 80 % of it) and deciding a batch is far shorter.
- credentials and TLS (``OPENSEARCH_USER``/``_PASSWORD``, ``OPENSEARCH_API_KEY``,
  ``OPENSEARCH_CA_CERTS``): a worker checks them against the node when it starts
  (:func:`check_engine_access`); refused, it logs one line and exits with status 1.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import Celery
from celery.signals import after_setup_logger, celeryd_after_setup

from neardup.ingest.settings import Settings
from neardup.ingest.store import check_access
from neardup.ingest.store.errors import AccessDenied, explain

__all__ = [
    "DEFAULT_BROKER_URL",
    "DEFAULT_QUEUE",
    "app",
    "broker_url",
    "check_engine_access",
    "queue_name",
    "quiet_client_logs",
    "settings",
]

DEFAULT_BROKER_URL = Settings.broker_url
DEFAULT_QUEUE = Settings.queue

settings = Settings.from_env()


def broker_url() -> str:
    return settings.broker_url


def queue_name() -> str:
    return settings.queue


app = Celery("neardup", broker=settings.broker_url, include=["neardup.ingest.workers.tasks"])
app.conf.update(
    task_serializer="json",
    accept_content=["json"],
    result_serializer="json",
    task_ignore_result=True,  # the outcome is the pages, indexed with their dup_group
    task_acks_late=True,  # acknowledge after the work is done: redelivered if a worker dies
    task_reject_on_worker_lost=True,  # ...including when a pool child is killed
    worker_prefetch_multiplier=1,  # a worker holds one message per process, not a backlog
    task_default_queue=settings.queue,
    task_time_limit=settings.effective_task_time_limit,
    task_soft_time_limit=max(1.0, settings.effective_task_time_limit - 5),
    broker_transport_options={"visibility_timeout": settings.visibility_timeout},
    broker_connection_retry_on_startup=True,
    broker_connection_max_retries=None,  # a restarted Redis is waited for, not fatal
    worker_cancel_long_running_tasks_on_connection_loss=False,
    task_publish_retry=True,
    task_publish_retry_policy={
        "max_retries": 60,
        "interval_start": 0.2,
        "interval_step": 0.5,
        "interval_max": 2.0,
    },
    worker_hijack_root_logger=False,
)


def quiet_client_logs(loglevel: int | str | None = None, **_: Any) -> None:
    """Keep the engine clients' per-request INFO lines out of a worker's log unless the
    worker runs at DEBUG (they were two thirds of an INFO log: one line per request)."""
    level = logging.getLevelName(loglevel) if isinstance(loglevel, str) else loglevel
    if not isinstance(level, int) or level > logging.DEBUG:
        for name in ("opensearch", "elastic_transport.transport"):  # opensearch-py, Elasticsearch
            logging.getLogger(name).setLevel(logging.WARNING)


after_setup_logger.connect(quiet_client_logs)


def check_engine_access(**_: Any) -> None:
    """A worker's first step, before it takes a message: when the engine refuses its settings
    (wrong credentials or API key, an untrusted TLS certificate) it logs one line saying which
    setting to fix and exits with status 1, rather than fail batch after batch. A node that
    does not answer yet is waited for, as any outage."""
    try:
        check_access(settings)
    except AccessDenied as exc:
        logging.getLogger(__name__).error("neardup worker: %s", explain(exc, settings))
        raise SystemExit(1) from None


celeryd_after_setup.connect(check_engine_access)
