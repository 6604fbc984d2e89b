"""One site's chrome-heavy short pages through the real stack — OpenSearch, Redis and real
Celery workers (``neardup dedup --backend opensearch --start-workers``): different articles
inside one large header and footer stay apart, the edited copies of one of them group, and the
partition is the embedded backend's (both mask the chrome the whole input shows;
docs/chrome.md). A stream (``neardup ingest -``) holds a site's first pages until T more of its
pages are counted, and groups as the whole input does. Template siblings of one documentation
site stay apart there too."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from opensearchpy import helpers
from support.chrome_sites import EN_SITE, ZH_SITE, expected, partition
from support.indices import wipe
from support.sibling_sites import sibling_pages, twins
from support.workers import cleanup_broker, running_workers, worker_env

ROOT = Path(__file__).resolve().parents[2]


def _dedup(src: Path, out: Path, *extra: str, env: dict[str, str]) -> dict[str, str]:
    proc = subprocess.run(
        [sys.executable, "-m", "neardup.ingest.cli", "dedup", str(src), "-o", str(out),
         "--no-progress", *extra],
        cwd=ROOT, capture_output=True, text=True, timeout=900, env=env,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert not [r for r in rows if "error" in r], rows
    return {r["id"]: r["dup_group"] for r in rows}


@pytest.mark.parametrize("site", [EN_SITE, ZH_SITE], ids=["en-chrome", "zh-chrome"])
def test_chrome_heavy_pages_stay_apart_through_the_pipeline(
    tmp_path: Path, opensearch_url: str, redis_url: str, index_name: str,
    site: tuple[list[dict[str, Any]], set[str]],
) -> None:
    pages, copies = site
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in pages),
                   encoding="utf-8")
    env = dict(os.environ, OPENSEARCH_URL=opensearch_url, CELERY_BROKER_URL=redis_url)
    engine = _dedup(src, tmp_path / "engine.jsonl", "--backend", "opensearch", "--index",
                    index_name, "--start-workers", "2", "--timeout", "600", env=env)
    embedded = _dedup(src, tmp_path / "embedded.jsonl", env=env)
    assert partition(engine) == expected(pages, copies)
    assert engine == embedded  # the same groups, the same canonical members


def test_template_siblings_stay_apart_through_the_pipeline(
    tmp_path: Path, opensearch_url: str, redis_url: str, index_name: str,
) -> None:
    # The workers part pages of one site whose subjects differ as the embedded backend does
    # (neardup.ingest.pairs.site_verdict): each page groups with its twin only.
    pages = sibling_pages("docs.example")
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(p) + "\n" for p in pages), encoding="utf-8")
    env = dict(os.environ, OPENSEARCH_URL=opensearch_url, CELERY_BROKER_URL=redis_url)
    engine = _dedup(src, tmp_path / "engine.jsonl", "--backend", "opensearch", "--index",
                    index_name, "--start-workers", "2", "--timeout", "600", env=env)
    embedded = _dedup(src, tmp_path / "embedded.jsonl", env=env)
    assert partition(engine) == twins(pages)
    assert engine == embedded


def _streamed(tmp_path: Path, env: dict[str, str], lines: str, *extra: str) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, "-m", "neardup.ingest.cli", "ingest", "-", "--wait", "--no-progress",
         "--batch", "5", *extra],
        cwd=ROOT, input=lines, capture_output=True, text=True, timeout=600,
        env=dict(os.environ, **env),
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return summary


def test_a_stream_groups_as_the_whole_file_with_or_without_the_delay(
    tmp_path: Path, opensearch_url: str, redis_url: str, index_name: str, os_client: Any,
) -> None:
    # Read page by page, the site's first 19 pages are masked before the site has T = 20
    # pages counted: no chrome yet, and the chrome joins them. Held until 20 more of the site
    # are counted (or the input ends), each page is masked as the whole file masks it; without
    # the delay, the repairs mask those first pages again once the line reaches T, and decide
    # them again: the same partition, at the cost of deciding them twice.
    pages, copies = EN_SITE
    lines = "".join(json.dumps(p) + "\n" for p in pages)
    at_once = f"neardup-test-{uuid.uuid4().hex[:12]}"  # not under index_name's templates
    got = {}
    try:
        for name, extra in ((index_name, ()), (at_once, ("--chrome-delay", "0"))):
            env = worker_env(redis_url, opensearch_url, name)
            try:
                with running_workers(env, tmp_path, 2):
                    summary = _streamed(tmp_path, env, lines, *extra)
            finally:
                cleanup_broker(env)
            assert (summary["accepted"], summary["chrome_counted"]) == (len(pages), len(pages))
            os_client.indices.refresh(index=name)
            got[name] = {h["_id"]: h["_source"]["dup_group"] for h in helpers.scan(
                os_client, index=name, query={"query": {"match_all": {}}},
                _source=["dup_group"])}
    finally:
        wipe(os_client, at_once)
    assert partition(got[index_name]) == expected(pages, copies)
    assert partition(got[at_once]) == expected(pages, copies)
