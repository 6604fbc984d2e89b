"""Deciding before indexing, on real services (OpenSearch, Redis, Celery worker processes):
each page is indexed once, with its group, and the partition does not depend on how the pages
arrive — concurrent ingesters on overlapping files, the number of workers, a killed ingester —
nor on whether the index was filled by neardup or by another pipeline (``neardup backfill``)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from support.corpus import corpus, partition
from support.indices import wipe
from support.ingest import write_jsonl
from support.wait import wait_for
from support.workers import ROOT, cleanup_broker, running_workers, worker_env

pytestmark = pytest.mark.slow


def neardup(env: dict[str, str], *args: str, timeout: float = 600) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "neardup.ingest.cli", *args, "--no-progress"],
        cwd=ROOT, env=dict(os.environ, **env),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def finish(proc: subprocess.Popen[str], timeout: float = 600) -> dict[str, Any]:
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, err[-3000:]
    return json.loads(out.strip().splitlines()[-1])


def groups_of(client: Any, index: str) -> dict[str, str]:
    from opensearchpy import helpers

    client.indices.refresh(index=index)
    return {h["_id"]: h["_source"].get("dup_group") for h in helpers.scan(
        client, index=index, query={"query": {"match_all": {}}}, _source=["dup_group"])}


def embedded_partition(path: Path) -> set[frozenset[str]]:
    """``neardup dedup``'s partition of the file: site chrome masked by its whole input's
    counts, as the pipeline masks it by the counts on the broker."""
    from neardup.ingest.chrome_pass import chrome_counts_of_file
    from neardup.ingest.dedup import dedup_embedded
    from neardup.ingest.pipeline import fingerprint_config, prepare_lines, read_lines

    chrome = chrome_counts_of_file(path)
    prepared = list(prepare_lines(read_lines(path), fingerprint_config("web"), chrome=chrome))
    return partition({i: g["dup_group"] for i, g in dedup_embedded(prepared).items()})


@pytest.fixture(scope="module")
def pages() -> list[dict[str, Any]]:
    return corpus(600, seed=2026)


@pytest.fixture
def fresh_index(os_client: Any) -> Any:
    made: list[str] = []

    def make() -> str:
        name = f"neardup-test-{uuid.uuid4().hex[:12]}"
        made.append(name)
        return name

    yield make
    for name in made:
        wipe(os_client, name)


def test_concurrent_ingesters_on_overlapping_files_give_the_sequential_partition(
    pages: list[dict[str, Any]], tmp_path: Path, redis_url: str, opensearch_url: str,
    os_client: Any, fresh_index: Any,
) -> None:
    a = write_jsonl(tmp_path / "a.jsonl", pages[:400])
    b = write_jsonl(tmp_path / "b.jsonl", pages[200:])
    whole = write_jsonl(tmp_path / "all.jsonl", pages)
    want = embedded_partition(whole)
    seq_index = fresh_index()
    env = worker_env(redis_url, opensearch_url, seq_index)
    try:
        with running_workers(env, tmp_path, 2):
            first = finish(neardup(env, "ingest", str(a), "--wait", "--batch", "50"))
            second = finish(neardup(env, "ingest", str(b), "--wait", "--batch", "50"))
    finally:
        cleanup_broker(env)
    assert (first["accepted"], second["accepted"], second["unchanged"]) == (400, 200, 200)
    sequential = partition(groups_of(os_client, seq_index))
    assert sequential == want
    for trial in range(3):
        index = fresh_index()
        env = worker_env(redis_url, opensearch_url, index)
        try:
            with running_workers(env, tmp_path, 2):
                procs = [neardup(env, "ingest", str(f), "--wait", "--batch", str(n))
                         for f, n in ((a, 50), (b, 37))]
                summaries = [finish(p) for p in procs]
        finally:
            cleanup_broker(env)
        got = groups_of(os_client, index)
        assert len(got) == len(pages), summaries
        assert partition(got) == sequential, f"trial {trial}"


def test_one_and_four_workers_give_one_partition(
    pages: list[dict[str, Any]], tmp_path: Path, redis_url: str, opensearch_url: str,
    os_client: Any, fresh_index: Any,
) -> None:
    path = write_jsonl(tmp_path / "all.jsonl", pages)
    seen = []
    for n in (1, 4):
        index = fresh_index()
        env = worker_env(redis_url, opensearch_url, index)
        try:
            with running_workers(env, tmp_path, n):
                finish(neardup(env, "ingest", str(path), "--wait", "--batch", "40"))
        finally:
            cleanup_broker(env)
        seen.append(groups_of(os_client, index))
    assert seen[0] == seen[1]  # the same ids too: one ingester, one order of acceptance
    assert partition(seen[0]) == embedded_partition(path)


def test_wait_fails_while_pages_are_undecided_and_a_rerun_finishes(
    pages: list[dict[str, Any]], tmp_path: Path, redis_url: str, opensearch_url: str,
    os_client: Any, fresh_index: Any,
) -> None:
    path = write_jsonl(tmp_path / "some.jsonl", pages[:120])
    index = fresh_index()
    env = worker_env(redis_url, opensearch_url, index)
    try:
        proc = neardup(env, "ingest", str(path), "--wait", "--timeout", "3", "--batch", "50")
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 1, err[-2000:]
        summary = json.loads(out.strip().splitlines()[-1])
        assert summary["timed_out"] and summary["pending"] == 120
        assert "still undecided" in err
        assert not os_client.indices.exists(index=index) or os_client.count(index=index)["count"] == 0
        # the messages are lost (a broker that restarted without its data)
        import redis

        redis.Redis.from_url(env["CELERY_BROKER_URL"]).delete(env["NEARDUP_QUEUE"])
        with running_workers(env, tmp_path, 2):
            again = finish(neardup(env, "ingest", str(path), "--wait", "--batch", "50"))
    finally:
        cleanup_broker(env)
    # not indexed yet, so not "unchanged": accepted again, and decided
    assert again["accepted"] == 120 and again["unchanged"] == 0 and not again["timed_out"]
    assert partition(groups_of(os_client, index)) == embedded_partition(path)


def test_an_ingester_killed_mid_run_loses_nothing_on_a_rerun(
    pages: list[dict[str, Any]], tmp_path: Path, redis_url: str, opensearch_url: str,
    os_client: Any, fresh_index: Any,
) -> None:
    path = write_jsonl(tmp_path / "all.jsonl", pages)
    index = fresh_index()
    env = worker_env(redis_url, opensearch_url, index)
    try:
        with running_workers(env, tmp_path, 2):
            proc = neardup(env, "ingest", str(path), "--wait", "--batch", "20")

            def indexed() -> int:  # the index is made by the first write
                if not os_client.indices.exists(index=index):
                    return 0
                os_client.indices.refresh(index=index)
                return int(os_client.count(index=index)["count"])

            # kill it once some pages are indexed
            wait_for(indexed, "40 pages indexed", 120, until=lambda n: n >= 40, interval=0.05)
            proc.send_signal(signal.SIGKILL)
            proc.wait(30)
            again = finish(neardup(env, "ingest", str(path), "--wait", "--batch", "20"))
    finally:
        cleanup_broker(env)
    assert again["unchanged"] >= 40 and again["unchanged"] + again["accepted"] == len(pages)
    got = groups_of(os_client, index)
    assert len(got) == len(pages)
    assert partition(got) == embedded_partition(path)


def test_backfill_tags_a_bulk_filled_index_like_ingest(
    pages: list[dict[str, Any]], tmp_path: Path, redis_url: str, opensearch_url: str,
    os_client: Any, fresh_index: Any,
) -> None:
    """An index filled by plain ``helpers.bulk`` (its own fields, dynamic mapping) is tagged
    in place: the same partition as ingesting the pages, its fields kept; a second run has
    nothing left to do."""
    from opensearchpy import helpers

    path = write_jsonl(tmp_path / "all.jsonl", pages)
    index = fresh_index()
    ok, errors = helpers.bulk(os_client, (
        {"_index": index, "_id": d["id"],
         "_source": {"text": d["text"], "site": d["site"], "crawl": "2026-11"}}
        for d in pages
    ) , refresh=True)
    assert ok == len(pages) and not errors
    helpers.bulk(os_client, [{"_index": index, "_id": "no-text", "_source": {"title": "x"}}],
                 refresh=True)
    env = worker_env(redis_url, opensearch_url, index)
    try:
        with running_workers(env, tmp_path, 2):
            proc = neardup(env, "backfill", index, "--batch", "64")
            summary = finish(proc)
            again = finish(neardup(env, "backfill", index))
    finally:
        cleanup_broker(env)
    assert (summary["read"], summary["accepted"], summary["errors"]) == (len(pages) + 1,
                                                                         len(pages), 1)
    assert not summary["timed_out"] and summary["indexed"] == len(pages)
    assert (again["read"], again["accepted"]) == (1, 0)  # only the page without a text
    got = groups_of(os_client, index)
    got.pop("no-text")
    assert partition(got) == embedded_partition(path)
    doc = os_client.get(index=index, id=pages[0]["id"])["_source"]
    assert doc["crawl"] == "2026-11" and doc["text"] == pages[0]["text"]
    assert doc["status"] == "grouped" and doc["fingerprints"]


def test_backfill_masks_the_site_chrome_of_the_whole_index(
    tmp_path: Path, redis_url: str, opensearch_url: str, os_client: Any, fresh_index: Any,
) -> None:
    """One site's short articles inside a ~600-word chrome, bulk-filled: backfill counts every
    untagged page before it masks one, so the articles stay apart and the copies group — the
    partition ``neardup dedup`` gives the same pages."""
    from opensearchpy import helpers
    from support.chrome_sites import EN_SITE, expected

    site_pages, copies = EN_SITE
    index = fresh_index()
    ok, errors = helpers.bulk(os_client, (
        {"_index": index, "_id": d["id"], "_source": {"text": d["text"], "url": d["url"]}}
        for d in site_pages), refresh=True)
    assert ok == len(site_pages) and not errors
    env = worker_env(redis_url, opensearch_url, index)
    try:
        with running_workers(env, tmp_path, 2):
            summary = finish(neardup(env, "backfill", index, "--batch", "8"))
    finally:
        cleanup_broker(env)
    assert summary["chrome_counted"] == len(site_pages) and summary["indexed"] == len(site_pages)
    got = partition(groups_of(os_client, index))
    assert got == expected(site_pages, copies)
    src = tmp_path / "site.jsonl"
    src.write_text("".join(json.dumps(d) + "\n" for d in site_pages), encoding="utf-8")
    assert got == embedded_partition(src)
