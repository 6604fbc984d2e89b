"""The workers' candidate search under a lowered ``index.max_terms_count``, on real nodes.

Both engines refuse a ``terms`` query with more values than the index's ``index.max_terms_count``
(a dynamic index setting, 65,536 by default) — 400 ``search_phase_execution_exception``, root
cause ``query_shard_exception`` "The number of terms [N] used in the Terms Query request has
exceeded the allowed maximum of [M]" — and count only that query's values: not the ``ids`` of
the batch left out. The store reads the limit and sends a batch's terms in parts within it,
with the hits of one search; a limit lowered during a run is read again.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import urllib3
from support.corpus import corpus, stored_in_threes
from support.ingest import run_ingest, stored_groups, write_jsonl
from support.workers import ROOT, cleanup_broker, running_workers, worker_env

from neardup.ingest.fingerprint import PROFILES, fingerprints
from neardup.ingest.settings import Settings
from neardup.ingest.store import open_store
from neardup.ingest.store.opensearch import OpenSearchStore


class Admin:
    """Requests to ``engine`` as its superuser (security on) or anyone (off), over HTTP."""

    def __init__(self, engine: Any) -> None:
        admin = engine.admin_env
        self.url = engine.url
        self.http = urllib3.PoolManager(ca_certs=admin.get("OPENSEARCH_CA_CERTS"))
        self.headers = {"Content-Type": "application/json"}
        if admin.get("OPENSEARCH_USER"):
            self.headers.update(urllib3.make_headers(
                basic_auth=f"{admin['OPENSEARCH_USER']}:{admin['OPENSEARCH_PASSWORD']}"))

    def __call__(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        res = self.http.request(method, f"{self.url}/{path}", body=json.dumps(body),
                                headers=self.headers)
        return res.status, json.loads(res.data)

    def max_terms(self, index: str, limit: int) -> None:
        status, answer = self("PUT", f"{index}/_settings",
                              {"index": {"max_terms_count": limit}})
        assert status == 200, answer


def test_holders_keep_within_a_lowered_limit_on_every_engine(
    engine: Any, engine_store: Any, engine_index: str, stored_corpus: list[Any]
) -> None:
    batch, config, terms = stored_in_threes(engine_store, stored_corpus)
    left_out = [d.id for d in batch[:20]]
    want = engine_store.fingerprint_holders({config: terms}, left_out)
    assert len(want) > 20 and len(terms) > 2000
    assert engine_store.max_terms() == 65_536  # the default

    admin = Admin(engine)
    searched = f"{engine_index}-fingerprints"  # the candidate search's index
    admin.max_terms(searched, 500)
    # the node refuses one search of them all, and only the terms count: 1,000 ids left out do
    # not (the ids query has no such limit)
    status, answer = admin("POST", f"{searched}/_search", {"query": {"bool": {
        "filter": [{"terms": {"fingerprints": terms}}]}}})
    assert status == 400, answer
    error = answer["error"]
    assert error["type"] == "search_phase_execution_exception"
    assert error["root_cause"][0]["type"] == "query_shard_exception"
    assert (f"The number of terms [{len(terms)}] used in the Terms Query request has exceeded "
            "the allowed maximum of [500]") in error["root_cause"][0]["reason"]
    status, answer = admin("POST", f"{searched}/_search", {"query": {"bool": {
        "filter": [{"terms": {"fingerprints": terms[:500]}}],
        "must_not": [{"ids": {"values": [f"x{i}" for i in range(1000)]}}]}}})
    assert status == 200, answer

    store = open_store("engine", Settings.from_env(engine.client_env), index=engine_index)
    try:
        assert store.fingerprint_holders({config: terms}, left_out) == want
        assert store.max_terms() == 500
        # lowered during the run: refused, read again, sent in smaller parts
        admin.max_terms(searched, 150)
        assert store.fingerprint_holders({config: terms}, left_out) == want
        assert store.max_terms() == 150
    finally:
        store.close()


def neardup_dedup(path: Path, out: Path) -> dict[str, str]:
    """``{id: dup_group}`` of ``neardup dedup`` (the embedded backend) on ``path``."""
    proc = subprocess.run(
        [sys.executable, "-m", "neardup.ingest.cli", "dedup", str(path), "-o", str(out),
         "-j", "1", "--no-progress"],
        cwd=ROOT, capture_output=True, text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert all("error" not in r for r in rows), [r for r in rows if "error" in r][:3]
    return {r["id"]: r["dup_group"] for r in rows}


@pytest.mark.slow
def test_ingest_through_workers_under_a_lowered_limit_gives_the_dedup_groups(
    redis_url: str, opensearch_url: str, os_client: Any, index_name: str, tmp_path: Path
) -> None:
    """The fingerprints index allows 1,000 terms a ``terms`` query, and every batch of 25 pages carries
    some 2,500: ``neardup ingest --wait`` through two workers gives the groups of ``neardup
    dedup``. A first run (its pages copies of later ones, on sites of their own) has the
    workers read the default limit before it is lowered: their next searches are refused
    once, and the limit is read again."""
    pages = corpus(130, seed=77)
    first = [dict(p, id=f"{p['id']}-early", site=f"early{i}.example.cn")
             for i, p in enumerate(pages[:6])]
    rest = pages[6:]
    labels = {p["id"]: p["group"] for p in [*first, *rest]}
    early_groups = {labels[p["id"]] for p in first}
    assert sum(labels[p["id"]] in early_groups for p in rest) >= 3  # pairs across the runs
    batches = [rest[lo:lo + 25] for lo in range(0, len(rest), 25)]
    assert any(len({labels[p["id"]] for p in b}) < len(b) for b in batches)  # pairs within one
    for b in batches[:-1]:  # the last may be short
        assert len(set().union(*(fingerprints(p["text"], PROFILES["web"]) for p in b))) > 2000
    whole = write_jsonl(tmp_path / "all.jsonl", [*first, *rest])
    want = neardup_dedup(whole, tmp_path / "dedup.jsonl")

    store = OpenSearchStore(os_client, index_name)
    store.install()
    env = worker_env(redis_url, opensearch_url, index_name)
    try:
        with running_workers(env, tmp_path, 2) as workers:
            early = run_ingest(write_jsonl(tmp_path / "first.jsonl", first), env,
                               "--batch", "3", timeout=240)
            assert early["accepted"] == len(first), (early, workers.logs()[-3000:])
            os_client.indices.put_settings(index=f"{index_name}-fingerprints",
                                           body={"index": {"max_terms_count": 1000}})
            summary = run_ingest(write_jsonl(tmp_path / "rest.jsonl", rest), env,
                                 "--batch", "25", timeout=240)
            assert summary["accepted"] == len(rest) and summary["errors"] == 0, (
                summary, workers.logs()[-3000:])
            assert not summary["timed_out"]
    finally:
        cleanup_broker(env)
    stored = stored_groups(os_client, index_name)
    assert all(s["status"] == "grouped" for s in stored.values()), stored
    got = {i: s["dup_group"] for i, s in stored.items()}
    assert got == want
    assert sum(1 for g in set(got.values()) if list(got.values()).count(g) > 1) >= 10
