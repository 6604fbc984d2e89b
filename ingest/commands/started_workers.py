"""The workers a command starts for its own run (``neardup dedup --backend opensearch
--start-workers N``), watched while the run needs them.

Each worker is a single-process Celery worker on the run's queue that logs to a file of its
own. A worker that exits before the run ends — it could not import neardup, its settings were
refused, it was killed — ends the run at once with :class:`WorkerDied`, which names the worker,
its exit status and its last log line: the run never waits for groups no one will decide.
The parent learns of the exit from ``SIGCHLD``, so the error comes whatever the run is doing
(reading pages, waiting for room on the broker, waiting for groups); off the main thread,
where no signal handler can be set, :meth:`StartedWorkers.check` is the only watch.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any

from neardup.errors import NeardupError
from neardup.ingest.settings import child_environ

__all__ = ["StartedWorkers", "WorkerDied", "start_workers", "worker_argv"]


class WorkerDied(NeardupError):
    """A worker started for the run exited before the run ended."""


def worker_argv(queue: str, name: str) -> list[str]:
    """The command line of one single-process Celery worker named ``name`` on ``queue``."""
    return [sys.executable, "-m", "celery", "-A", "neardup.ingest.workers.app", "worker",
            "--pool=solo", "-Q", queue, "-n", f"{name}@%h", "--loglevel=WARNING",
            "--without-gossip", "--without-mingle", "--without-heartbeat"]


def start_workers(n: int, queue: str) -> StartedWorkers:
    """``n`` Celery workers on ``queue``, with this process's environment (its settings); to
    be entered (``with start_workers(n, queue):``), which starts them."""
    argvs = {f"dedup{i}-{queue}": worker_argv(queue, f"dedup{i}-{queue}") for i in range(n)}
    return StartedWorkers(argvs, child_environ(NEARDUP_QUEUE=queue))


class StartedWorkers:
    """Child processes (``argvs``: a name -> its command line), each logging to a file, that
    must outlive the ``with`` block: entering starts them, leaving stops them; between the
    two, one that exits raises :class:`WorkerDied` in the main thread."""

    def __init__(self, argvs: Mapping[str, Sequence[str]], env: Mapping[str, str]) -> None:
        self.argvs = dict(argvs)
        self.env = dict(env)
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self._logs = tempfile.TemporaryDirectory(prefix="neardup-workers-")
        self._owner = os.getpid()
        self._watching = False
        self._handled = False  # whether SIGCHLD is ours, and what it was before
        self._previous: Any = None

    def log_path(self, name: str) -> Path:
        return Path(self._logs.name) / f"{name}.log"

    def __enter__(self) -> StartedWorkers:
        if hasattr(signal, "SIGCHLD") and threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGCHLD, self._child_exited)
            self._handled = True
        self._watching = True
        try:
            for name, argv in self.argvs.items():
                with open(self.log_path(name), "wb") as log:
                    self.procs[name] = subprocess.Popen(
                        list(argv), env=self.env, stdin=subprocess.DEVNULL, stdout=log,
                        stderr=subprocess.STDOUT)
            self.check()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._watching = False  # first: a worker stopped below is no error
        if self._handled:
            signal.signal(signal.SIGCHLD,
                          signal.SIG_DFL if self._previous is None else self._previous)
            self._handled = False
        for proc in self.procs.values():
            proc.terminate()
        for proc in self.procs.values():
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self._logs.cleanup()

    def check(self) -> None:
        """Raise :class:`WorkerDied` for the first worker that has exited, if any."""
        for name, proc in self.procs.items():
            status = proc.poll()
            if status is not None and self._watching:
                raise WorkerDied(f"worker {name} exited with status {status} "
                                 f"({self.last_line(name)})")

    def last_line(self, name: str) -> str:
        """The last line the worker ``name`` logged, or that it logged nothing."""
        try:
            lines = self.log_path(name).read_bytes().decode("utf-8", "replace").splitlines()
        except OSError:
            lines = []
        last = next((line.strip() for line in reversed(lines) if line.strip()), None)
        return f"its last log line: {last}" if last else "it logged nothing"

    def _child_exited(self, signum: int, frame: FrameType | None) -> None:
        if callable(self._previous):
            self._previous(signum, frame)
        if os.getpid() == self._owner:  # not in a process forked from this one
            self.check()
