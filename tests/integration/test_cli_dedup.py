"""``neardup dedup`` on bad input: per-document errors, everything else processed, exit 0."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ARTICLE = "新华社北京一月一日电 今天是新年的第一天，首都各界群众欢聚一堂，庆祝新年的到来。" * 12


def test_bad_input_is_reported_per_document(tmp_path: Path) -> None:
    lines = [
        json.dumps({"id": "ok-1", "text": ARTICLE}),
        "{not json",
        json.dumps({"text": "no id"}),
        json.dumps({"id": "", "text": ARTICLE}),
        json.dumps({"id": "empty", "text": "   "}),
        json.dumps({"id": "no-text"}),
        json.dumps({"id": "ok-1", "text": ARTICLE}),  # duplicate id
        json.dumps({"id": 'q*"/ 中文 id', "text": ARTICLE + "\n"}),  # query metacharacters
        json.dumps({"id": "junk", "text": "\x00\x01\x02\x03" * 500}),
        json.dumps({"id": "huge", "text": "x" * (9 * 1024 * 1024)}),
    ]
    src = tmp_path / "in.jsonl"
    src.write_bytes("\n".join(lines).encode() + b"\n\xff\xfe binary\n")
    out = tmp_path / "out.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "neardup.ingest.cli", "dedup", str(src), "-o", str(out), "-j", "1"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(rows) == 11  # one per input line, same order
    ok = [r for r in rows if "error" not in r]
    assert [r["id"] for r in ok] == ["ok-1", 'q*"/ 中文 id']
    assert ok[1]["dup_group"] == "ok-1"  # the metacharacter id is grouped with its twin
    assert sum("error" in r for r in rows) == 9
    assert rows[6]["id"] == "ok-1" and "duplicate" in rows[6]["error"]
    assert rows[9]["id"] == "huge" and "exceeds" in rows[9]["error"]


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "neardup.ingest.cli", "dedup", str(tmp_path / "missing.jsonl")],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 2


def test_a_started_worker_that_dies_ends_the_run_with_its_last_log_line(
    tmp_path: Path, opensearch_url: str, redis_url: str
) -> None:
    # Run from a folder holding another package named `neardup`: the command (a console
    # script) does not import from its working directory, the workers it starts
    # (`python -m celery`) do, and die importing neardup.ingest.workers.app.
    (tmp_path / "neardup").mkdir()
    (tmp_path / "neardup" / "__init__.py").write_text("")
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({"id": f"p{i}", "text": f"{ARTICLE} {i}"}) + "\n"
                           for i in range(20)))
    env = dict(os.environ, OPENSEARCH_URL=opensearch_url, CELERY_BROKER_URL=redis_url)
    t0 = time.monotonic()
    proc = subprocess.run(
        [str(Path(sys.executable).parent / "neardup"), "dedup", str(src), "--no-progress",
         "--backend", "opensearch", "--start-workers", "2", "--timeout", "600"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=180,
    )
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert time.monotonic() - t0 < 120
    assert re.search(r"neardup dedup: worker dedup\d-\S+ exited with status \d+ \(its last log "
                     r"line: ModuleNotFoundError: No module named 'neardup\.ingest'\)",
                     proc.stderr), proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr  # the workers' log lines, not the command's
