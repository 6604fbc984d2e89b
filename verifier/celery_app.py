"""The Celery application of the verification workers (broker: Redis).

Configuration comes from the environment so a worker, ``neardup ingest`` and the tests agree:

- ``CELERY_BROKER_URL`` (default ``redis://127.0.0.1:6379/0``);
- ``NEARDUP_QUEUE`` (default ``neardup.verify``): the queue ``verify`` tasks go to;
- ``NEARDUP_VISIBILITY_TIMEOUT`` (seconds, default 300): how long Redis keeps a delivered but
  unacknowledged message before handing it to another worker. Tasks are acknowledged *after*
  they finish (``acks_late``), so a worker killed mid-task loses nothing: its messages come back
  after this timeout. It must exceed the longest task: the hard time limit below is derived from
  it (``NEARDUP_TASK_TIME_LIMIT``, default 80 % of it) and a batch of ``verify`` is far shorter.
"""

from __future__ import annotations

import os

from celery import Celery

__all__ = ["DEFAULT_BROKER_URL", "DEFAULT_QUEUE", "app", "broker_url", "queue_name"]

DEFAULT_BROKER_URL = "redis://127.0.0.1:6379/0"
DEFAULT_QUEUE = "neardup.verify"


def broker_url() -> str:
    return os.environ.get("CELERY_BROKER_URL", DEFAULT_BROKER_URL)


def queue_name() -> str:
    return os.environ.get("NEARDUP_QUEUE", DEFAULT_QUEUE)


def _visibility_timeout() -> float:
    return float(os.environ.get("NEARDUP_VISIBILITY_TIMEOUT", "300"))


def _time_limit() -> float:
    default = 0.8 * _visibility_timeout()
    return float(os.environ.get("NEARDUP_TASK_TIME_LIMIT", default))


app = Celery("neardup", broker=broker_url(), include=["verifier.tasks"])
app.conf.update(
    task_serializer="json",
    accept_content=["json"],
    result_serializer="json",
    task_ignore_result=True,  # results are the documents' dup_group, written to the store
    task_acks_late=True,  # acknowledge after the work is done: redelivered if a worker dies
    task_reject_on_worker_lost=True,  # ...including when a pool child is killed
    worker_prefetch_multiplier=1,  # a worker holds one message per process, not a backlog
    task_default_queue=queue_name(),
    task_time_limit=_time_limit(),
    task_soft_time_limit=max(1.0, _time_limit() - 5),
    broker_transport_options={"visibility_timeout": _visibility_timeout()},
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
