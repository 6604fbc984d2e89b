"""Faults with real processes: a worker killed with SIGKILL mid-batch (redelivery after the
visibility timeout), and 4 workers vs 1 worker: the same groups as a clean run every time."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from corpus import corpus  # noqa: E402
from test_workers_e2e import embedded_groups, run_ingest, stored_groups, write_jsonl  # noqa: E402
from workers import cleanup_broker, running_workers, worker_env  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    path = tmp_path_factory.mktemp("faults") / "corpus.jsonl"
    write_jsonl(path, corpus(400, seed=7))
    return path, embedded_groups(path)


def _groups(client: Any, index: str) -> dict[str, str]:
    stored = stored_groups(client, index)
    assert all(s["status"] == "grouped" for s in stored.values())
    return {i: s["dup_group"] for i, s in stored.items()}


def test_kill_9_worker_mid_batch(
    small: tuple[Path, dict[str, str]], redis_url: str, opensearch_url: str,
    os_client: Any, index_name: str, tmp_path: Path,
) -> None:
    path, clean = small
    # short visibility timeout so the killed worker's unacked messages come back quickly
    env = worker_env(redis_url, opensearch_url, index_name, NEARDUP_VISIBILITY_TIMEOUT="8",
                     NEARDUP_TASK_TIME_LIMIT="6")
    try:
        with running_workers(env, tmp_path, 2) as workers:
            victim = workers.procs[0]
            killed = threading.Event()

            def assassin() -> None:
                deadline = time.monotonic() + 120
                log = tmp_path / "worker0.log"
                while time.monotonic() < deadline:  # kill once it is busy with tasks
                    if log.exists() and log.read_text(errors="replace").count("received") >= 3:
                        workers.kill9(victim)
                        killed.set()
                        workers.start(1)  # a replacement, as a supervisor would
                        return
                    time.sleep(0.05)

            t = threading.Thread(target=assassin)
            t.start()
            summary = run_ingest(path, env, "--index", index_name, "--batch", "100")
            t.join()
            assert killed.is_set(), workers.logs()
            assert summary["indexed"] == 400 and not summary["timed_out"]
    finally:
        cleanup_broker(env)
    assert _groups(os_client, index_name) == clean


@pytest.mark.parametrize("n_workers", [1, 4])
def test_worker_count_does_not_change_groups(
    n_workers: int, small: tuple[Path, dict[str, str]], redis_url: str, opensearch_url: str,
    os_client: Any, index_name: str, tmp_path: Path,
) -> None:
    path, clean = small
    env = worker_env(redis_url, opensearch_url, index_name)
    try:
        with running_workers(env, tmp_path, n_workers):
            summary = run_ingest(path, env, "--index", index_name)
            assert summary["indexed"] == 400 and not summary["timed_out"]
    finally:
        cleanup_broker(env)
    assert _groups(os_client, index_name) == clean
