"""Real Celery worker processes for the integration tests.

Each test gets its own queue, dead-letter key and Redis DB number (:func:`worker_env`), so
tests never consume each other's messages; workers run ``python -m celery -A
neardup.ingest.workers.app worker --pool=solo`` with cwd = the repository.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def worker_env(broker_url: str, opensearch_url: str, index: str, **extra: str) -> dict[str, str]:
    """Environment for workers and for the test process's producers (a unique queue/DB)."""
    tag = uuid.uuid4().hex[:8]
    base, _, _db = broker_url.rpartition("/")
    db = 8 + int(tag, 16) % 8  # DBs 8-15: away from the default 0 used by other sessions
    env = {
        "CELERY_BROKER_URL": f"{base}/{db}",
        "NEARDUP_QUEUE": f"neardup.test.{tag}",
        "NEARDUP_DEAD_LETTER": f"neardup.test.{tag}.dead",
        "OPENSEARCH_URL": opensearch_url,
        "NEARDUP_INDEX": index,
        "NEARDUP_VISIBILITY_TIMEOUT": "60",
    }
    env.update(extra)
    return env


def celery_worker(env: dict[str, str], log: Path, name: str | None = None
                  ) -> subprocess.Popen[bytes]:
    """One worker process (``celery -A neardup.ingest.workers.app worker``, solo pool) on
    ``env``'s ``NEARDUP_QUEUE``, over this environment, its output to ``log``."""
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "neardup.ingest.workers.app", "worker",
         "--pool=solo", "-Q", env["NEARDUP_QUEUE"], *(["-n", name] if name else []),
         "--loglevel=INFO", "--without-gossip", "--without-mingle", "--without-heartbeat"],
        cwd=ROOT, env={**os.environ, **env},
        stdout=log.open("wb"), stderr=subprocess.STDOUT,
    )


class Workers:
    """A set of worker processes sharing one environment."""

    def __init__(self, env: dict[str, str], log_dir: Path) -> None:
        self.env = dict(os.environ, **env)
        self.log_dir = log_dir
        self.procs: list[subprocess.Popen[bytes]] = []

    def start(self, n: int = 1) -> list[subprocess.Popen[bytes]]:
        new = []
        for _ in range(n):
            i = len(self.procs)
            proc = celery_worker(self.env, self.log_dir / f"worker{i}.log",
                                 f"w{i}-{uuid.uuid4().hex[:6]}@%h")
            self.procs.append(proc)
            new.append(proc)
        return new

    def kill9(self, proc: subprocess.Popen[bytes]) -> None:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)

    def stop(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
        deadline = time.monotonic() + 20
        for p in self.procs:
            try:
                p.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(5)

    def logs(self) -> str:
        return "\n".join(
            f"--- {f.name}\n{f.read_text(errors='replace')[-3000:]}"
            for f in sorted(self.log_dir.glob("worker*.log"))
        )


@contextmanager
def running_workers(env: dict[str, str], log_dir: Path, n: int) -> Iterator[Workers]:
    w = Workers(env, log_dir)
    w.start(n)
    try:
        yield w
    finally:
        w.stop()


def cleanup_broker(env: dict[str, str]) -> None:
    """Delete this test's queue, dead-letter list and unacked messages from its Redis DB."""
    import redis

    r = redis.Redis.from_url(env["CELERY_BROKER_URL"])
    q = env["NEARDUP_QUEUE"]
    keys = [q, env["NEARDUP_DEAD_LETTER"]] + [k for k in r.scan_iter(f"{q}*")]
    if env.get("NEARDUP_INDEX"):  # the accepted batches and the group forest of its index
        keys += [k for k in r.scan_iter(f"neardup:{env['NEARDUP_INDEX']}:*")]
    if keys:
        r.delete(*keys)
