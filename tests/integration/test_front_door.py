"""The Python front door on the real stack (OpenSearch, Redis, a Celery worker process):
``neardup.submit`` hands pages to the workers and ``neardup.group_of`` reads their groups back,
in a fresh Python process as a crawler would call them; the groups are those of the embedded
``neardup.dedup`` on the same pages."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from support.corpus import paragraphs
from support.workers import cleanup_broker, running_workers, worker_env

PROGRAM = """
import json, sys
import neardup

pages = json.load(sys.stdin)
summary = neardup.submit(pages, wait=True, timeout=120)
groups = {p["id"]: neardup.group_of(p["id"]) for p in pages if "id" in p}
embedded = {g.id: g.dup_group for g in neardup.dedup(pages)}
print(json.dumps({
    "summary": summary,
    "groups": {k: (g.dup_group if g else None) for k, g in groups.items()},
    "missing": neardup.group_of("no-such-page") is None,
    "embedded": embedded,
}))
"""


def _pages() -> list[dict[str, Any]]:
    paras = paragraphs()
    article, other = "\n".join(paras[:8]), "\n".join(paras[8:16])
    return [
        {"id": "a", "text": article, "site": "one.example.cn"},
        {"id": "b", "html": "<p>" + article.replace("\n", "</p><p>") + "</p><p>转载</p>"},
        {"id": "c", "text": other},
        {"id": "d", "text": "   "},  # a bad page: its error, and nothing else lost
    ]


def test_submit_then_group_of_matches_the_embedded_groups(
    redis_url: str, opensearch_url: str, index_name: str, tmp_path: Path
) -> None:
    env = worker_env(redis_url, opensearch_url, index_name)
    try:
        with running_workers(env, tmp_path, 1) as workers:
            proc = subprocess.run(
                [sys.executable, "-c", PROGRAM], input=json.dumps(_pages()),
                cwd=tmp_path, env=dict(os.environ, **env), capture_output=True, text=True,
                timeout=300,
            )
            assert proc.returncode == 0, (proc.stderr[-3000:], workers.logs())
    finally:
        cleanup_broker(env)
    out = json.loads(proc.stdout)
    summary = out["summary"]
    assert (summary["accepted"], summary["errors"]) == (3, 1), summary
    assert summary["indexed"] == 3 and not summary["timed_out"], summary
    assert out["groups"] == {"a": "a", "b": "a", "c": "c", "d": None}
    assert out["missing"] is True
    assert out["embedded"] == {"a": "a", "b": "a", "c": "c", "d": None}
