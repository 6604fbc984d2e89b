"""A two-node OpenSearch cluster on 127.0.0.1 (``scripts/opensearch.sh`` cluster mode: a cluster
manager and a data node, each with its own config, data and ports): the pages index with 2
shards and 1 replica, 3 Celery workers, 2,000 pages fed to ``neardup ingest``; the data node is
killed (SIGKILL) mid-run and started again. Nothing is lost, the groups are exactly
``neardup dedup``'s, and collapsed search gives one hit per group.

``NEARDUP_TEST_CLUSTER_PORTS`` (default ``9240 9242``) moves the nodes' HTTP ports (transport:
+100).
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.ci import unavailable
from support.corpus import corpus
from support.ingest import PipedIngest, dead_letters, embedded_groups, write_jsonl
from support.wait import wait_for
from support.workers import ROOT, cleanup_broker, running_workers, worker_env

from neardup.ingest.settings import Settings
from neardup.ingest.store import open_store

PORTS = os.environ.get("NEARDUP_TEST_CLUSTER_PORTS", "9240 9242").split()

pytestmark = pytest.mark.slow


def _script(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OPENSEARCH_CLUSTER_PORTS": " ".join(PORTS),
           "OPENSEARCH_HEAP": os.environ.get("NEARDUP_TEST_CLUSTER_HEAP", "256m")}
    return subprocess.run([str(ROOT / "scripts" / "opensearch.sh"), *args], env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """The two nodes, started for this module and stopped after it: the first node's URL."""
    proc = _script("start")
    if proc.returncode != 0:
        unavailable(f"scripts/opensearch.sh cluster start failed: {proc.stderr[-3000:]}")
    try:
        yield f"http://127.0.0.1:{PORTS[0]}"
    finally:
        _script("stop")


def test_two_node_cluster_loses_a_node_mid_run_and_nothing_is_lost(
    cluster: str, redis_url: str, tmp_path: Path
) -> None:
    path = tmp_path / "pages.jsonl"
    # People's Daily holds paragraphs for ~1,000 pages of this corpus: the second thousand are
    # the same articles again under other sites and edits (syndicated copies of the first)
    second = [{**d, "id": f"b-{d['id']}"} for d in corpus(1000, seed=45)]
    write_jsonl(path, corpus(1000, seed=44) + second)
    clean = embedded_groups(path)
    index = f"neardup-test-cluster-{os.getpid()}-{int(time.time())}"
    settings = Settings.from_env({"OPENSEARCH_URL": cluster})
    store = open_store("engine", settings, index=index, shards=2, replicas=1)
    store.install()
    env = worker_env(redis_url, cluster, index)
    lines = path.read_bytes().splitlines(keepends=True)
    third = 650  # whole batches of 25 (ingest --batch 25): a partial one waits for more input
    # A stream is counted for site chrome page by page (docs/chrome.md): its masks depend on
    # where in the stream a site passes T pages, the whole-file reference's do not. This test
    # is about a node lost mid-run: both sides compare the pages as they are.
    ingest = PipedIngest(env, index, tmp_path / "neardup.ingest.log", "--no-chrome")
    try:
        with running_workers(env, tmp_path, 3) as workers:
            ingest.feed(lines[:third])
            ingest.feeding.join(60)
            wait_for(lambda: _indexed(store, ingest), "the first third indexed", 180,
                     until=lambda n: n >= third)
            first = list(clean)[:third]
            wait_for(lambda: _grouped(store, first, ingest), "workers to start grouping", 180,
                     until=lambda n: n >= 50)
            killed = _script("kill", PORTS[1])  # the data node: its shard copies go with it
            assert killed.returncode == 0, killed.stderr
            ingest.feed(lines[third : 2 * third])  # written while the cluster is one node short
            ingest.feeding.join(120)
            restarted = _script("start", PORTS[1])
            assert restarted.returncode == 0, restarted.stderr
            ingest.feed(lines[2 * third :])
            summary = ingest.finish()
            assert summary["indexed"] == len(lines) and summary["errors"] == 0, (
                summary, workers.logs())
            assert not summary["timed_out"]
        assert dead_letters(env) == []
        stored = store.mget(list(clean), with_fingerprints=False)
        assert len(stored) == len(lines)  # nothing lost
        assert all(d.status == "grouped" for d in stored.values())
        assert {i: d.dup_group for i, d in stored.items()} == clean
        # both shards and their replicas are back on two nodes
        health = store.client.cluster.health(
            index=index, params={"wait_for_status": "green", "timeout": "120s"},
            request_timeout=130,
        )
        assert (health["number_of_nodes"], health["active_shards"]) == (2, 4), health
        store.refresh()
        hits = store.collapsed_search("中国", size=2000, inner_hits_size=1)
        groups = [h["fields"]["dup_group"][0] for h in hits]
        assert hits and len(groups) == len(set(groups))
        assert set(groups) <= set(clean.values())
    finally:
        ingest.kill()
        cleanup_broker(env)
        store.drop()
        store.close()


def _indexed(store: Any, ingest: PipedIngest) -> int:
    ingest.check()
    store.refresh()
    return int(store.document_count())


def _grouped(store: Any, ids: list[str], ingest: PipedIngest) -> int:
    ingest.check()
    return sum(d.status == "grouped" for d in store.mget(ids, with_fingerprints=False).values())
