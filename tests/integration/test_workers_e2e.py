"""End to end on real services: ``neardup ingest`` → Redis → 2 ``celery worker`` processes →
each page indexed once on OpenSearch, with its ``dup_group`` → collapsed search. Plus: the OpenSearch backend gives
the same groups as the embedded one, and the labelled groups are found."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.corpus import corpus, partition, stored_in_threes
from support.ingest import embedded_groups, run_ingest, stored_groups, write_jsonl
from support.workers import cleanup_broker, running_workers, worker_env

pytestmark = pytest.mark.slow


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
    from neardup.ingest.commands.search import search
    from neardup.ingest.store import open_store

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


def test_fingerprint_holders_are_every_page_sharing_a_term(
    os_client: Any, os_store: Any, stored_corpus: list[Any]
) -> None:
    """The workers' one search per batch for candidates in the fingerprints index
    (``fingerprint_holders``, paged with ``search_after``) returns exactly the pages holding
    one of the terms, with their seq, in seq order, but not the batch's own."""
    docs = stored_corpus
    batch, config, terms = stored_in_threes(os_store, docs)
    os_store.page, page = 7, os_store.page  # several pages of hits
    try:
        got = os_store.fingerprint_holders({config: terms}, [d.id for d in batch[:20]])
    finally:
        os_store.page = page
    want = {d.id for d in docs if d.id not in {b.id for b in batch[:20]}
            and d.fp_config == config and set(d.fingerprints) & set(terms)}
    assert len(want) > 20 and {h[0] for h in got} == want and len(got) == len(want)
    by_id = {d.id: d for d in docs}
    assert [(i, seq, cfg) for i, seq, cfg in got] == sorted(
        ((i, by_id[i].seq, config) for i in want), key=lambda h: (h[1], h[0]))


def test_update_groups_reports_each_item(os_store: Any, stored_corpus: list[Any]) -> None:
    """One ``_bulk`` of conditional updates: written, version conflict, missing — per item."""
    from neardup.ingest.store.base import GroupUpdate
    from neardup.ingest.store.errors import DocumentNotFound

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
