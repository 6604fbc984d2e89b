"""``neardup ingest`` on a WARC file, through the real stack (OpenSearch, Redis, a Celery worker
process): each page is indexed with its record id, URL and site (the registered domain of
its host) and its group; a mirror's copy joins its page; what is not a page is counted; the
record cut short is reported with its offset and URL, and the file's end with a clear line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from support.warcs import ENCODINGS, Fetch, docs_pages, variant, write_warc
from support.workers import ROOT, cleanup_broker, running_workers, worker_env

BASE = "https://docs.python.org/3.11/"
MIRROR = "https://docs.mirror.example.org/3.11/"


def test_ingest_a_warc_then_every_page_has_its_url_site_and_group(
    python_doc_html: Path,
    redis_url: str,
    opensearch_url: str,
    os_client: Any,
    index_name: str,
    tmp_path: Path,
) -> None:
    pages = docs_pages(python_doc_html, 6)
    fetches = [Fetch("", kind="warcinfo")]
    for i, (path, html) in enumerate(pages):
        fetches += [Fetch(BASE + path, kind="request"),
                    Fetch(BASE + path, html, encoding=ENCODINGS[i % len(ENCODINGS)])]  # fmt: skip
    fetches += [Fetch(MIRROR + path, variant(html, "docs.mirror.example.org"), encoding="gzip")
                for path, html in pages[:3]]  # fmt: skip
    fetches += [Fetch(BASE + "gone.html", b"<p>gone</p>", status="404 Not Found"),
                Fetch(BASE + pages[4][0] + "?v=2", pages[4][1])]  # fmt: skip
    warc = tmp_path / "crawl.warc.gz"
    written = write_warc(warc, fetches)
    data = warc.read_bytes()
    warc.write_bytes(data[: (written[-1].offset + len(data)) // 2])  # the last record cut short
    env = worker_env(redis_url, opensearch_url, index_name)
    errors = tmp_path / "errors.jsonl"
    try:
        with running_workers(env, tmp_path, 1) as workers:
            proc = subprocess.run(
                [sys.executable, "-m", "neardup.ingest.cli", "ingest", str(warc), "--wait",
                 "--no-progress", "--errors", str(errors)],
                cwd=ROOT, env=dict(os.environ, **env),
                capture_output=True, text=True, timeout=300,
            )  # fmt: skip
            assert proc.returncode == 0, (proc.stderr, workers.logs())
    finally:
        cleanup_broker(env)
    summary = json.loads(proc.stdout.splitlines()[-1])
    assert summary["indexed"] == 9 and summary["errors"] == 1 and not summary["timed_out"]
    assert summary["warc"]["skipped"] == {"not_200": 1, "request": 6, "warcinfo": 1}
    assert f"truncated gzip member at offset {written[-1].offset}" in proc.stderr
    [error] = [json.loads(x) for x in errors.read_text().splitlines()]
    assert (error["offset"], error["url"], error["type"]) == (
        written[-1].offset, written[-1].url, "corrupt_record")  # fmt: skip
    os_client.indices.refresh(index=index_name)
    hits = os_client.search(index=index_name, body={"query": {"match_all": {}}, "size": 100})
    docs = {h["_id"]: h["_source"] for h in hits["hits"]["hits"]}
    responses = [w for w in written[:-1] if w.kind == "response" and "gone" not in w.url]
    assert set(docs) == {w.record_id for w in responses}
    for w in responses:
        doc = docs[w.record_id]
        assert doc["url"] == w.url
        assert doc["site"] == ("example.org" if w.url.startswith(MIRROR) else "python.org")
        original = next(o for o in responses if o.url == w.url.replace(MIRROR, BASE))
        assert doc["dup_group"] == original.record_id  # a mirror's copy joins its page
