"""The bad-input corpus (tests/support/badinput.py) through ``neardup compare``, ``neardup dedup``
and the HTTP service (``POST /documents`` on the embedded store): every record gets a result or a
per-record error naming its line or id, with the type docs/limits.md gives it; the good records
are all processed; no traceback on stderr; no 5xx. Through ``neardup ingest`` with workers and a
running server on OpenSearch: tests/integration/test_bad_input_stack.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path
from urllib.parse import quote

import pytest
from support.badinput import CASES, OK, PAGE_LIMIT, jsonl, line_numbers, pairs_jsonl
from support.fakes import FakeBatchQueue

from neardup.ingest.server.app import create_app
from neardup.ingest.server.config import ServerConfig
from neardup.ingest.server.service import IngestService
from neardup.ingest.store import open_store

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

ROOT = Path(__file__).resolve().parents[2]


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NEARDUP_MAX_DOC_BYTES": str(PAGE_LIMIT)}
    return subprocess.run(
        [sys.executable, "-m", "neardup.ingest.cli", *args], capture_output=True, text=True, env=env,
        cwd=ROOT, timeout=600,
    )


def test_corpus_has_every_kind() -> None:
    names = [c.name for c in CASES]
    assert len(names) == len(set(names)) and len(CASES) >= 60
    assert sum(c.expect == OK for c in CASES) >= 20  # good records among the bad


def test_corpus_through_compare(tmp_path: Path) -> None:
    pairs, out = tmp_path / "pairs.jsonl", tmp_path / "out.jsonl"
    pairs.write_bytes(pairs_jsonl())
    proc = run_cli("compare", str(pairs), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    rows = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == len(CASES)
    for n, (case, row) in enumerate(zip(CASES, rows, strict=True), start=1):
        if case.compare_expect == OK:
            assert "error" not in row and isinstance(row["similar"], bool), (case.name, row)
            assert row["case"] == case.name
        else:
            assert row["line"] == n and row["type"] == case.compare_expect, (case.name, row)
            assert row["error"]


@pytest.mark.parametrize("processes", ["1", "2"])
def test_corpus_through_dedup(tmp_path: Path, processes: str) -> None:
    src, out = tmp_path / "pages.jsonl", tmp_path / "groups.jsonl"
    src.write_bytes(jsonl())
    proc = run_cli("dedup", str(src), "-o", str(out), "-j", processes, "--no-progress")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    rows = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == len(CASES)  # one per record, blank lines are none
    for case, line, row in zip(CASES, line_numbers(), rows, strict=True):
        if case.expect == OK:
            assert "error" not in row and row["dup_group"], (case.name, row)
        else:
            assert row["type"] == case.expect and row["line"] == line, (case.name, row)
            assert row["error"]
    summary = json.loads(proc.stderr.strip().splitlines()[-1])
    assert summary["documents"] == len(CASES)
    assert summary["errors"] == sum(c.expect != OK for c in CASES)


Queue = FakeBatchQueue


def test_corpus_through_post_documents() -> None:
    from neardup.ingest.records import Limits

    store = open_store("embedded")
    queue = Queue(store)
    service = IngestService(store, queue=queue, limits=Limits(max_doc_bytes=PAGE_LIMIT))
    client = TestClient(create_app(service, ServerConfig()), raise_server_exceptions=True)
    r = client.post("/documents", content=jsonl())
    assert r.status_code == 200, r.text
    items = r.json()["items"]
    assert len(items) == len(CASES)
    for case, line, item in zip(CASES, line_numbers(), items, strict=True):
        assert item["line"] == line, (case.name, item)
        assert item["status"] < 500, (case.name, item)
        if case.http == "noop":
            assert item["status"] == 200 and item["result"] == "noop", (case.name, item)
        elif isinstance(case.http, int):  # a new version of a page: staged as a change
            assert item["status"] == case.http, (case.name, item)
        elif case.expect == OK:
            assert item["status"] == 201 and item["id"], (case.name, item)
            doc = client.get(f"/documents/{quote(item['id'], safe='')}")
            assert doc.status_code == 200, (case.name, doc.text)
            if case.text:
                stored = store.get(item["id"])
                assert stored is not None and case.text in stored.body, case.name
        else:
            assert item["status"] == 400 and item["error"]["type"] == case.expect, (case.name, item)
    good = [c for c in CASES if c.expect == OK]
    assert len(set(queue)) == len(good)  # every good page queued for the workers
    store.close()
