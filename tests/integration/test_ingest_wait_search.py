"""What a user sees around ``neardup ingest --wait`` and ``neardup search``, on the real stack
(OpenSearch, Redis, a Celery worker process):

* a search run right after ``ingest --wait`` returns finds the groups (``--wait`` refreshes);
* ``--wait`` reports its progress, and with no worker on the queue it warns, then gives up
  after ``--timeout`` seconds without progress (exit 1) instead of waiting silently;
* the search prints each group's real size, not the number of its members that match;
* an empty result says why (pages still pending, nothing matches; a missing index is one line
  on stderr);
* no noise: no 404 warnings on a first ingest, no per-request INFO lines in the worker's log.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.corpus import paragraphs
from support.workers import ROOT, cleanup_broker, running_workers, worker_env


def _neardup(env: dict[str, str], *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "neardup.ingest.cli", *args],
        cwd=ROOT, env=dict(os.environ, **env),
        capture_output=True, text=True, timeout=timeout,
    )


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A group of three copies of one article (two carry ``harbour``, one ``lighthouse``)
    and an unrelated article."""
    paras = paragraphs()
    article = "\n".join(paras[:8])
    other = "\n".join(paras[8:16])
    docs = [
        {"id": "a", "text": article, "site": "one.example.cn"},
        {"id": "b", "text": article + "\nHarbour notes.", "site": "two.example.cn"},
        {"id": "c", "text": article + "\nThe lighthouse keeper's harbour notes.", "site": "three.example.cn"},
        {"id": "d", "text": other, "site": "one.example.cn"},
    ]  # fmt: skip
    path = tmp_path_factory.mktemp("pages") / "pages.jsonl"
    path.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs))
    return path


def test_wait_then_search_finds_groups_at_their_real_size_without_noise(
    pages: Path, redis_url: str, opensearch_url: str, os_client: Any, index_name: str,
    tmp_path: Path,
) -> None:
    env = worker_env(redis_url, opensearch_url, index_name)
    try:
        with running_workers(env, tmp_path, 1) as workers:
            ingest = _neardup(env, "ingest", str(pages), "--wait")
            assert ingest.returncode == 0, (ingest.stderr, workers.logs())
            search = _neardup(env, "search", "lighthouse")
            words = _neardup(env, "search", "harbour")
            worker_log = workers.logs()
    finally:
        cleanup_broker(env)
    summary = json.loads(ingest.stdout.splitlines()[-1])
    assert summary["indexed"] == 4 and not summary["timed_out"]
    # progress on stderr, and nothing else there: no 404 warnings for the missing templates
    assert "4 of 4 pages grouped" in ingest.stderr
    # (an HTTP 404 as a word: the run's queue name is random hex, and may hold "404")
    assert "WARNING" not in ingest.stderr and not re.search(r"\b404\b", ingest.stderr), \
        ingest.stderr
    # searched right away: found, with the group's three pages although one matches
    assert search.returncode == 0, search.stderr
    first = search.stdout.splitlines()[0]
    assert "group a (3 pages, 1 matching)" in first, search.stdout
    assert "(2 pages" not in words.stdout and "group a (3 pages, 2 matching)" in words.stdout
    # the worker's log keeps its own lines, not one INFO line per OpenSearch request
    assert "succeeded in" in worker_log
    assert "INFO opensearch" not in worker_log and "[status:200" not in worker_log, worker_log


def test_wait_without_a_worker_warns_and_gives_up(
    pages: Path, redis_url: str, opensearch_url: str, index_name: str
) -> None:
    env = worker_env(redis_url, opensearch_url, index_name)
    try:
        ingest = _neardup(env, "ingest", str(pages), "--wait", "--timeout", "5")
        search = _neardup(env, "search", "lighthouse")
    finally:
        cleanup_broker(env)
    assert ingest.returncode == 1, ingest.stderr
    summary = json.loads(ingest.stdout.splitlines()[-1])
    assert summary["timed_out"] and summary["pending"] == 4
    assert f"no worker consumes queue '{env['NEARDUP_QUEUE']}'" in ingest.stderr
    assert "neardup worker" in ingest.stderr and "gave up waiting" in ingest.stderr
    assert search.returncode == 0
    assert search.stdout.startswith("no hits: 4 pages accepted for")
    assert "not decided yet" in search.stdout and "worker" in search.stdout


def test_search_explains_a_missing_index_and_no_match(
    pages: Path, redis_url: str, opensearch_url: str, index_name: str, tmp_path: Path
) -> None:
    env = worker_env(redis_url, opensearch_url, index_name)
    missing = _neardup(env, "search", "anything")
    assert missing.returncode == 1 and missing.stdout == ""
    # one line saying so and what to do (neardup.ingest.cli.service_message), never a traceback
    assert f"neardup search: index [{index_name}] does not exist; nothing was ingested into it" \
        in missing.stderr
    assert "Traceback" not in missing.stderr
    try:
        with running_workers(env, tmp_path, 1):
            assert _neardup(env, "ingest", str(pages), "--wait").returncode == 0
    finally:
        cleanup_broker(env)
    none = _neardup(env, "search", "zyzzyva")
    assert none.stdout.strip() == (
        f"no hits: no grouped page of the 4 pages in '{index_name}' matches 'zyzzyva'"
    )


def test_ingest_help_shows_the_defaults() -> None:
    out = _neardup({}, "ingest", "--help").stdout
    assert "(default: 300.0)" in out  # --timeout
    assert "(default: 30.0)" in out  # --stall
    assert "no page has been grouped" in out
