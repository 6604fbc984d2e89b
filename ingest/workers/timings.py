"""Per-batch phase timings of a worker (:mod:`neardup.ingest.workers.tasks`).

Each batch returns (and Celery logs) the seconds it spent per kind of store request and
verifying, so a run's time can be broken down from the worker logs (bench/pipeline.py does).
The counters are thread-local: :func:`start` opens a batch's, :func:`add` adds to it (a no-op
outside a batch), :func:`stop` closes it.
"""

from __future__ import annotations

import threading

__all__ = ["add", "start", "stop"]

_timing = threading.local()


def start() -> dict[str, float]:
    """Open this thread's counters: ``{"<phase>_s": seconds, "<phase>_n": calls}``."""
    current: dict[str, float] = {}
    _timing.current = current
    return current


def stop() -> None:
    _timing.current = None


def add(name: str, seconds: float, n: int = 1) -> None:
    """Count ``seconds`` (and ``n`` calls) against phase ``name`` of the open batch."""
    current: dict[str, float] | None = getattr(_timing, "current", None)
    if current is not None:
        current[f"{name}_s"] = current.get(f"{name}_s", 0.0) + seconds
        current[f"{name}_n"] = current.get(f"{name}_n", 0) + n
