"""The workers ``neardup dedup --start-workers`` starts are watched: one that exits before the
run ends raises :class:`WorkerDied` in the main thread within moments, whatever it is blocked
on, with the worker's exit status and last log line; the end of the run stops them quietly.
(The same through the CLI, with real Celery workers that cannot import neardup:
tests/integration/test_cli_dedup.py.)"""

from __future__ import annotations

import os
import signal
import sys
import time

import pytest

from neardup.ingest.commands.started_workers import StartedWorkers, WorkerDied

HEALTHY = [sys.executable, "-c", "import time; print('ready.', flush=True); time.sleep(300)"]
BROKEN = [sys.executable, "-c",
          "import sys, time; print('starting', flush=True); time.sleep(0.5); "
          "print(\"ModuleNotFoundError: No module named 'neardup.ingest'\", file=sys.stderr); "
          "sys.exit(3)"]


def test_a_worker_that_exits_ends_the_wait_at_once_with_its_last_log_line() -> None:
    before = signal.getsignal(signal.SIGCHLD)
    workers = StartedWorkers({"w0": HEALTHY, "w1": BROKEN}, os.environ)
    t0 = time.monotonic()
    with pytest.raises(WorkerDied) as died:
        with workers:
            time.sleep(120)  # a run waiting for its groups
    assert time.monotonic() - t0 < 15
    message = str(died.value)
    assert "worker w1 exited with status 3" in message
    assert "its last log line: ModuleNotFoundError: No module named 'neardup.ingest'" in message
    assert workers.procs["w0"].poll() is not None  # the others are stopped with the run
    assert signal.getsignal(signal.SIGCHLD) == before


def test_a_worker_killed_before_it_logged_says_so() -> None:
    with pytest.raises(WorkerDied, match=r"worker w0 exited with status -9 \(it logged nothing\)"):
        with StartedWorkers({"w0": [sys.executable, "-c", "import time; time.sleep(300)"]},
                            os.environ) as workers:
            workers.procs["w0"].kill()
            time.sleep(60)


def test_the_end_of_the_run_stops_the_workers_without_an_error() -> None:
    with StartedWorkers({"w0": HEALTHY, "w1": HEALTHY}, os.environ) as workers:
        time.sleep(0.2)
        workers.check()  # both alive
    assert all(p.poll() is not None for p in workers.procs.values())
