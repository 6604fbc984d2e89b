"""Faults with real processes, each ending in the same groups as a clean (embedded) run:

* a worker killed with SIGKILL mid-batch (redelivery after the visibility timeout);
* 4 workers vs 1 worker;
* a private OpenSearch node (port 9250) stopped and started again mid-ingest;
* a private Redis (port 6390) restarted mid-run, once with its append-only file (queued
  messages survive) and once without (messages lost: ``ingest --wait`` re-queues).

Two checkouts testing on one machine move the private nodes with
``NEARDUP_TEST_PRIVATE_OPENSEARCH_PORT`` and ``NEARDUP_TEST_PRIVATE_REDIS_PORT``.

The restart tests feed ``neardup ingest`` through a pipe, so the outage is guaranteed to fall
in the middle of the ingest: half of the corpus is written, the service is stopped, the other
half is written while it is down, then the service comes back.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from support.ci import IN_CI
from support.corpus import corpus, partition
from support.ingest import (
    PipedIngest,
    dead_letters,
    embedded_groups,
    run_ingest,
    stored_groups,
    write_jsonl,
)
from support.wait import wait_for
from support.workers import ROOT, Workers, cleanup_broker, running_workers, worker_env

# Private nodes of their own; two checkouts testing on one machine set other ports.
PRIVATE_OS_PORT = int(os.environ.get("NEARDUP_TEST_PRIVATE_OPENSEARCH_PORT", "9250"))
PRIVATE_REDIS_PORT = int(os.environ.get("NEARDUP_TEST_PRIVATE_REDIS_PORT", "6390"))

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
    # short visibility timeout so the killed worker's unacked messages come back quickly;
    # small messages so the victim has taken several when it is killed
    env = worker_env(redis_url, opensearch_url, index_name, NEARDUP_VISIBILITY_TIMEOUT="8",
                     NEARDUP_TASK_TIME_LIMIT="6", NEARDUP_MESSAGE_BATCH="32")
    try:
        with running_workers(env, tmp_path, 2) as workers:
            victim = workers.procs[0]
            killed = threading.Event()
            missed: list[AssertionError] = []
            log = tmp_path / "worker0.log"

            def assassin() -> None:
                try:  # kill it once it is busy with tasks
                    wait_for(lambda: log.read_text(errors="replace").count("received"),
                             "worker 0 to receive 3 tasks", 120, until=lambda n: n >= 3,
                             tolerate=(FileNotFoundError,), interval=0.05)
                except AssertionError as exc:
                    missed.append(exc)
                    return
                workers.kill9(victim)
                killed.set()
                workers.start(1)  # a replacement, as a supervisor would

            t = threading.Thread(target=assassin)
            t.start()
            summary = run_ingest(path, env, "--index", index_name, "--batch", "20")
            t.join()
            assert killed.is_set(), (missed, workers.logs())
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


# --- restarts of private services ------------------------------------------------------------


def _service(script: str, action: str, env: dict[str, str]) -> None:
    proc = subprocess.run(
        [str(ROOT / "scripts" / script), action], env=dict(os.environ, **env),
        capture_output=True, text=True, timeout=300,
    )
    if proc.returncode != 0:
        message = f"scripts/{script} {action} failed: {proc.stderr[-2000:]}"
        if action == "start" and not IN_CI:
            pytest.skip(message)
        raise AssertionError(message)


@pytest.fixture(scope="module")
def private_opensearch() -> Iterator[tuple[str, Callable[[str], None]]]:
    """A private single-node OpenSearch on 9250 (its own data dir): ``(url, control)`` where
    ``control("stop" | "start")`` drives it. Never the shared node."""
    env = {"OPENSEARCH_PORT": str(PRIVATE_OS_PORT)}
    _service("opensearch.sh", "start", env)
    try:
        yield f"http://127.0.0.1:{PRIVATE_OS_PORT}", lambda action: _service(
            "opensearch.sh", action, env
        )
    finally:
        _service("opensearch.sh", "stop", env)


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[tuple[str, Callable[[str], None], Path]]:
    """A private redis-server on 6390 with its data in ``tmp_path``: ``(url, control, dir)``."""
    env = {"REDIS_PORT": str(PRIVATE_REDIS_PORT), "NEARDUP_CACHE": str(tmp_path / "cache")}
    _service("redis.sh", "start", env)
    try:
        yield (f"redis://127.0.0.1:{PRIVATE_REDIS_PORT}/0",
               lambda action: _service("redis.sh", action, env),
               tmp_path / "cache" / "run" / f"redis-{PRIVATE_REDIS_PORT}")
    finally:
        _service("redis.sh", "stop", env)


def _queued(env: dict[str, str]) -> int:
    """Messages waiting in this test's queue (kombu's Redis transport keeps a list per queue)."""
    import redis

    r = redis.Redis.from_url(env["CELERY_BROKER_URL"])
    try:
        return int(r.llen(env["NEARDUP_QUEUE"]))
    finally:
        r.close()


def _accepted(env: dict[str, str], index: str) -> int:
    """Pages accepted for ``index`` so far (the batch staging's sequencer)."""
    import redis

    r = redis.Redis.from_url(env["CELERY_BROKER_URL"])
    try:
        return int(r.get(f"neardup:{index}:seq") or 0)
    finally:
        r.close()


def _count(client: Any, index: str, query: dict[str, Any] | None = None) -> int:
    client.indices.refresh(index=index)
    body = {"query": query or {"match_all": {}}}
    return int(client.count(index=index, body=body)["count"])


def _wipe(client: Any, index: str) -> None:
    """Delete what the test created on the private node: both indices and the templates."""
    from neardup.ingest.templates import template_names

    client.indices.delete(index=f"{index},{index}-stoplist,{index}-fingerprints",
                          ignore_unavailable=True)
    names = template_names(index)
    for stem in ("pages-template", "stoplist-template", "fingerprints-template"):
        client.indices.delete_index_template(name=names[stem], ignore=404)
    for stem in ("pages-settings", "pages-mappings"):
        client.cluster.delete_component_template(name=names[stem], ignore=404)


def test_opensearch_restarted_mid_ingest(
    small: tuple[Path, dict[str, str]], private_opensearch: tuple[str, Callable[[str], None]],
    redis_url: str, tmp_path: Path,
) -> None:
    from opensearchpy import OpenSearch
    from opensearchpy.exceptions import NotFoundError

    path, clean = small
    url, control = private_opensearch
    index = f"neardup-test-os-restart-{os.getpid()}-{int(time.time())}"
    client = OpenSearch(url, timeout=30, max_retries=0)
    env = worker_env(redis_url, url, index)
    lines = path.read_bytes().splitlines(keepends=True)
    half = len(lines) // 2
    ingest = PipedIngest(env, index, tmp_path / "neardup.ingest.log")
    try:
        with running_workers(env, tmp_path, 2) as workers:
            ingest.feed(lines[:half])
            ingest.feeding.join(60)

            def count(query: dict[str, Any] | None = None) -> int:
                ingest.check()
                return _count(client, index, query)

            # the first half indexed and (some of it) being grouped by the workers
            wait_for(count, "the first half indexed", 120, until=lambda n: n >= half,
                     tolerate=(NotFoundError,))  # until ingest's first write makes the index
            wait_for(lambda: count({"term": {"status": "grouped"}}), "workers to start grouping",
                     120, until=lambda n: n >= 20)
            before = len(ingest.logged())
            control("stop")
            ingest.feed(lines[half:])  # ingest meets the dead node with these
            ingest.wait_for_retry(before, "the stopped node")
            control("start")
            summary = ingest.finish()
            assert summary["indexed"] == len(lines) and summary["errors"] == 0, (
                summary, workers.logs())
            assert not summary["timed_out"]
        assert dead_letters(env) == []
        stored = stored_groups(client, index)
        assert len(stored) == len(lines)  # nothing lost
        assert all(s["status"] == "grouped" for s in stored.values())
        assert {i: s["dup_group"] for i, s in stored.items()} == clean
    finally:
        ingest.kill()
        cleanup_broker(env)
        try:
            _wipe(client, index)
        finally:
            client.close()


@pytest.mark.parametrize("keep_data", [True, False], ids=["aof-kept", "messages-lost"])
def test_redis_restarted_mid_run(
    keep_data: bool, small: tuple[Path, dict[str, str]],
    private_redis: tuple[str, Callable[[str], None], Path], opensearch_url: str,
    os_client: Any, index_name: str, tmp_path: Path,
) -> None:
    path, clean = small
    broker, control, redis_dir = private_redis
    env = worker_env(broker, opensearch_url, index_name)
    lines = path.read_bytes().splitlines(keepends=True)
    half = len(lines) // 2
    ingest = PipedIngest(env, index_name, tmp_path / "neardup.ingest.log", "--stall", "5")
    workers = Workers(env, tmp_path)
    try:
        if keep_data:  # the workers live through the broker's restart
            workers.start(2)
        ingest.feed(lines[:half])
        ingest.feeding.join(60)

        def accepted() -> int:
            ingest.check()
            return _accepted(env, index_name)

        wait_for(accepted, "the first half accepted", 120, until=lambda n: n >= half)
        if not keep_data:
            # No worker yet, so the first half's messages are waiting in the broker when it
            # goes down without its data: they are lost, and only ingest's re-queue of the
            # stalled documents can get them verified.
            wait_for(lambda: _queued(env), "the first half's messages queued", 60,
                     until=lambda n: n > 0)
        before = len(ingest.logged())
        control("stop")
        if not keep_data:  # a broker without persistence: every queued message is gone
            shutil.rmtree(redis_dir / "appendonlydir", ignore_errors=True)
            for f in redis_dir.glob("*.aof"):
                f.unlink()
        ingest.feed(lines[half:])  # ingest's publishes retry until the broker is back
        ingest.wait_for_retry(before, "the stopped broker")
        control("start")
        if not keep_data:
            workers.start(2)
        summary = ingest.finish()
        assert summary["indexed"] == len(lines) and summary["errors"] == 0, (
            summary, workers.logs())
        assert not summary["timed_out"], (summary, workers.logs())
        if not keep_data:  # the lost batches were accepted again
            assert summary["resent"] > 0, summary
        assert all(p.poll() is None for p in workers.procs), "a worker died with the broker"
        assert dead_letters(env) == []
    finally:
        workers.stop()
        ingest.kill()
        cleanup_broker(env)
    stored = stored_groups(os_client, index_name)
    assert len(stored) == len(lines)
    assert all(s["status"] == "grouped" for s in stored.values())
    got = {i: s["dup_group"] for i, s in stored.items()}
    if keep_data:
        assert got == clean
    else:  # pages accepted again come later in acceptance order: group ids may differ
        assert partition(got) == partition(clean)
