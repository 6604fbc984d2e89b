"""Celery workers for the pipeline benches, started as production starts them."""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

__all__ = ["_start_workers"]


def _start_workers(n: int, env: dict[str, str], log_dir: Path) -> list[subprocess.Popen[bytes]]:
    procs = []
    for i in range(n):
        log = open(log_dir / f"worker{i}.log", "wb")
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "neardup.ingest.workers.app", "worker", "--pool=solo",
             "-Q", env["NEARDUP_QUEUE"], "-n", f"bench{i}-{uuid.uuid4().hex[:6]}@%h",
             "--loglevel=INFO", "--without-gossip", "--without-mingle", "--without-heartbeat"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        ))
    deadline = time.monotonic() + 120
    for i in range(n):  # timing starts with the workers ready, as in production
        while b" ready." not in (log_dir / f"worker{i}.log").read_bytes():
            if time.monotonic() > deadline:
                raise SystemExit(f"worker {i} did not become ready")
            time.sleep(0.2)
    return procs
