"""End to end on real services: ``neardup ingest`` → Redis → 2 ``celery worker`` processes →
``dup_group`` written back on OpenSearch → collapsed search. Plus: the OpenSearch backend gives
the same groups as the embedded one, and the labelled groups are found."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from corpus import corpus, partition  # noqa: E402
from workers import ROOT, cleanup_broker, running_workers, worker_env  # noqa: E402

pytestmark = pytest.mark.slow


def write_jsonl(path: Path, docs: list[dict[str, Any]]) -> None:
    with path.open("w", encoding="utf-8") as f:
        for d in docs:
            f.write(json.dumps({k: d[k] for k in ("id", "text", "site")}, ensure_ascii=False) + "\n")


def run_ingest(path: Path, env: dict[str, str], *extra: str, timeout: float = 900) -> dict[str, Any]:
    import os

    proc = subprocess.run(
        [sys.executable, "-m", "ingest.cli", "ingest", str(path), "--wait", "--no-progress",
         "--timeout", str(timeout - 30), *extra],
        cwd=ROOT, env=dict(os.environ, **env, PYTHONPATH=str(ROOT)),
        capture_output=True, text=True, timeout=timeout,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def stored_groups(client: Any, index: str) -> dict[str, dict[str, Any]]:
    from opensearchpy import helpers

    client.indices.refresh(index=index)
    return {
        h["_id"]: h["_source"]
        for h in helpers.scan(
            client, index=index, query={"query": {"match_all": {}}},
            _source=["dup_group", "dup_of", "status", "seq"],
        )
    }


def embedded_groups(path: Path) -> dict[str, str]:
    from ingest.commands.dedup import dedup_embedded
    from ingest.pipeline import fingerprint_config, prepare_lines, read_lines

    prepared = list(prepare_lines(read_lines(path), fingerprint_config("web")))
    return {i: g["dup_group"] for i, g in dedup_embedded(prepared, processes=2).items()}


@pytest.fixture(scope="module")
def labelled(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    docs = corpus(1000)
    path = tmp_path_factory.mktemp("corpus") / "corpus.jsonl"
    write_jsonl(path, docs)
    return path, {d["id"]: d["group"] for d in docs}


def test_end_to_end_two_workers(
    labelled: tuple[Path, dict[str, str]], redis_url: str, opensearch_url: str,
    os_client: Any, index_name: str, tmp_path: Path,
) -> None:
    path, labels = labelled
    env = worker_env(redis_url, opensearch_url, index_name)
    try:
        with running_workers(env, tmp_path, 2) as workers:
            summary = run_ingest(path, env, "--index", index_name)
            assert summary["indexed"] == 1000 and summary["errors"] == 0, (summary, workers.logs())
            assert not summary["timed_out"]
            # re-ingest changes nothing: nothing indexed or queued again
            again = run_ingest(path, env, "--index", index_name)
            assert again["unchanged"] == 1000 and again["accepted"] == 0
    finally:
        cleanup_broker(env)
    stored = stored_groups(os_client, index_name)
    assert len(stored) == 1000
    assert all(s["status"] == "grouped" and s["dup_group"] for s in stored.values())
    got = {i: s["dup_group"] for i, s in stored.items()}
    # a representative's group is itself; every group id is a representative of its group
    assert all(got[g] == g for g in set(got.values()))

    # the embedded backend gives exactly the same groups (same ids, not just the same partition)
    assert embedded_groups(path) == got

    # the labelled groups: no found group mixes two labels, and (nearly) all are found whole
    expected, found = partition(labels), partition(got)
    assert all(len({labels[i] for i in g}) == 1 for g in found)
    assert len(expected & found) >= 0.98 * len(expected), len(expected & found)

    # collapsed search: one hit per group
    from ingest.commands.search import search
    from ingest.store import open_store

    store = open_store("opensearch", client=os_client, index=index_name)
    hits = search(store, "中国", size=1000, members=3)
    groups = [h["dup_group"] for h in hits]
    assert hits and len(groups) == len(set(groups))
    res = os_client.search(
        index=index_name,
        body={"size": 0, "query": {"match": {"body": "中国"}},
              "aggs": {"g": {"cardinality": {"field": "dup_group", "precision_threshold": 40000}}}},
    )
    assert len(hits) == res["aggregations"]["g"]["value"]
    multi = [h for h in hits if h["group_size"] and h["group_size"] > 1]
    assert multi and all(len(h["members"]) > 1 for h in multi)


@pytest.mark.parametrize("k", [20, 3])
def test_batch_candidates_equal_per_document_queries(
    os_client: Any, os_store: Any, stored_corpus: list[Any], k: int
) -> None:
    """The workers' one-search-per-batch candidates (``OpenSearchStore._batch_candidates``)
    equal the per-document candidate queries, the score-only ones included, with a stoplist
    and ties (a small k makes the (seq, id) tie-break decide membership)."""
    from ingest.stoplist import StoplistConfig, refresh_stoplist
    from ingest.store.query import build_scored_candidate_query, candidate_terms, rank_scored_hits
    from verifier.worker import prefetch

    assert all(r.ok for r in os_store.put(stored_corpus))
    os_store.refresh()
    assert refresh_stoplist(os_store, StoplistConfig(max_count=8, concentrated_count=4,
                                                     max_sites=6))
    want = {d.id: os_store.earlier_candidates(d, k) for d in stored_corpus}
    assert sum(map(len, want.values())) > len(stored_corpus) // 2  # not trivially empty
    for lo in range(0, len(stored_corpus), 64):
        batch = stored_corpus[lo : lo + 64]
        got = os_store._batch_candidates(batch, k)
        assert got == {d.id: want[d.id] for d in batch}
    for d in stored_corpus[::7]:
        terms = candidate_terms(d.fingerprints, os_store.stoplist())
        if not terms:
            assert want[d.id] == []
            continue
        body = build_scored_candidate_query(terms, k, d.id, d.fp_config, d.seq)
        hits = os_client.search(index=os_store.index, body=body)["hits"]["hits"]
        ranked = rank_scored_hits(d.seq, d.id, hits, k, body["size"])
        assert ranked is None or ranked == want[d.id]
    _, cand_ids, _ = prefetch(os_store, [d.id for d in stored_corpus[:100]], k)
    assert cand_ids == {d.id: want[d.id] for d in stored_corpus[:100]}


def test_too_wide_a_batch_falls_back_to_per_document_queries(
    os_store: Any, stored_corpus: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from verifier.worker import prefetch

    assert all(r.ok for r in os_store.put(stored_corpus))
    os_store.refresh()
    batch = stored_corpus[-64:]
    want = {d.id: os_store.earlier_candidates(d, 20) for d in batch}
    monkeypatch.setattr(os_store, "batch_query_hits", 5)
    assert os_store._batch_candidates(batch, 20) is None
    _, cand_ids, _ = prefetch(os_store, [d.id for d in batch], 20)
    assert cand_ids == want


def test_update_groups_reports_each_item(os_store: Any, stored_corpus: list[Any]) -> None:
    """One ``_bulk`` of conditional updates: written, version conflict, missing — per item."""
    from ingest.store.base import GroupUpdate
    from ingest.store.errors import DocumentNotFound

    a, b, c = stored_corpus[:3]
    assert all(r.ok for r in os_store.put([a, b, c]))
    got = os_store.mget([a.id, b.id, c.id])
    stale = (got[b.id].version[0] + 5, got[b.id].version[1])
    results = os_store.update_groups([
        (GroupUpdate(a.id, a.id, None, None, None), got[a.id].version),
        (GroupUpdate(b.id, a.id, a.id, 0.9, 0.8), stale),
        (GroupUpdate("no-such-document", a.id, None, None, None), None),
        (GroupUpdate(c.id, a.id, a.id, 0.7, 0.6), None),
    ])
    assert results[0] is True and results[1] is False and results[3] is True
    assert isinstance(results[2], DocumentNotFound)
    after = os_store.mget([a.id, b.id, c.id])
    assert (after[a.id].status, after[a.id].dup_group) == ("grouped", a.id)
    assert after[b.id].status == "pending" and after[b.id].version == got[b.id].version
    assert (after[c.id].dup_group, after[c.id].dup_of, after[c.id].resemble) == (a.id, a.id, 0.7)
    assert os_store.update_groups([]) == []
