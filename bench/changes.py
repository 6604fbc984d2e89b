"""What a living index costs: pages decided again when pages arrive, change and go.

Two Celery workers, one fresh index. (1) ``neardup ingest --wait`` of N pages of the pipeline
bench corpus (:mod:`_pipeline_corpus`: near-duplicate groups under site templates, chrome in
every page's text) — the repairs' chrome sweep at its end is part of it; (2) the same file
again with a share ``--updates`` of its pages given another text (another page's article
under their own template), timed until the repairs are done; and, as the peer, plain
``helpers.bulk`` of those changed pages' sources into a fresh index on the same node. Reports
the pages decided again per 1,000 pages of each run (summed from the repairs' results in the
workers' logs), each run's wall time, and the update run's wall time over plain bulk's of the
same pages (``update_over_bulk``). The groups after the last run are compared with ``neardup
dedup`` on its file (``equal_to_dedup``); ``--updates 0`` runs (1) alone.

``--corpus FILE`` reads the pages from a JSONL file instead (e.g. ``bench/corpus.py``'s
generated corpus; its ``truth`` field is dropped), ``--docs`` of them.

Run (services on OPENSEARCH_URL / CELERY_BROKER_URL): ``python bench/changes.py [--docs 2000]
[--updates 0.1] [--corpus FILE]``. Prints one JSON object on stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from _pipeline_corpus import bench_corpus, write_jsonl
from _workers import _start_workers

ROOT = Path(__file__).resolve().parent.parent


def _neardup(env: dict[str, str], *args: str) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, "-m", "neardup.ingest.cli", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=3600)
    if proc.returncode != 0:
        raise SystemExit(proc.stderr[-3000:])
    out: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return out


def _redecided(log_dir: Path) -> int:
    total = 0
    for log in log_dir.glob("worker*.log"):
        for m in re.finditer(r"'redecided': (\d+)", log.read_text(errors="replace")):
            total += int(m.group(1))
    return total


def _partition(groups: dict[str, str]) -> set[frozenset[str]]:
    by: dict[str, set[str]] = {}
    for page, group in groups.items():
        by.setdefault(group, set()).add(page)
    return {frozenset(v) for v in by.values()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--docs", type=int, default=2000)
    ap.add_argument("--updates", type=float, default=0.1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--corpus", type=Path, default=None, help="pages from this JSONL file")
    ap.add_argument("--keep", type=Path, default=None, metavar="DIR",
                    help="keep the files and the workers' logs here (default: a temp dir)")
    args = ap.parse_args()
    from opensearchpy import OpenSearch, helpers

    url = os.environ.get("OPENSEARCH_URL", "http://127.0.0.1:9200")
    client = OpenSearch(url, timeout=120)
    index = f"bench-changes-{uuid.uuid4().hex[:8]}"
    env = dict(os.environ, NEARDUP_INDEX=index, NEARDUP_QUEUE=f"bench.{index}")
    if args.corpus is not None:
        docs = []
        with args.corpus.open(encoding="utf-8") as f:
            for line in f:
                if len(docs) == args.docs:
                    break
                doc = json.loads(line)
                doc.pop("truth", None)
                docs.append(doc)
    else:
        docs = bench_corpus(args.docs)
    rng = random.Random(7)
    changed = rng.sample(range(len(docs)), int(len(docs) * args.updates))
    again = [dict(d) for d in docs]
    for i in changed:  # another article under the page's own template lines
        other = docs[rng.randrange(len(docs))]["text"].split("\n")
        mine = again[i]["text"].split("\n")
        again[i]["text"] = "\n".join(mine[:2] + other[2:-2] + mine[-2:])
    out: dict[str, Any] = {"docs": len(docs), "updates": len(changed)}
    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp) if args.keep is None else args.keep
        tmpdir.mkdir(parents=True, exist_ok=True)
        first, second = tmpdir / "first.jsonl", tmpdir / "second.jsonl"
        write_jsonl(first, docs)
        write_jsonl(second, again)
        procs = _start_workers(args.workers, env, tmpdir)
        try:
            t0 = time.perf_counter()
            s1 = _neardup(env, "ingest", str(first), "--wait", "--no-progress")
            out["ingest_s"] = round(time.perf_counter() - t0, 2)
            r1 = _redecided(tmpdir)
            out["redecided_per_1000_ingest"] = round(1000 * r1 / len(docs), 1)
            out["latency_s"] = s1.get("latency_s")
            if changed:
                t0 = time.perf_counter()
                s2 = _neardup(env, "ingest", str(second), "--wait", "--no-progress")
                out["update_s"] = round(time.perf_counter() - t0, 2)
                out["updated"] = s2.get("updated")
        finally:
            for p in procs:
                p.terminate()
            for p in procs:
                p.wait(timeout=60)
        if changed:  # the workers' logs complete once they have stopped
            r2 = _redecided(tmpdir) - r1
            out["redecided_per_1000_update_run"] = round(1000 * r2 / len(docs), 1)
        client.indices.refresh(index=index)
        got = {h["_id"]: h["_source"]["dup_group"] for h in helpers.scan(
            client, index=index, query={"query": {"match_all": {}}}, _source=["dup_group"])}
        ref = tmpdir / "dedup.jsonl"
        last = second if changed else first
        subprocess.run([sys.executable, "-m", "neardup.ingest.cli", "dedup", str(last), "-o",
                        str(ref), "--no-progress"], cwd=ROOT, check=True, capture_output=True)
        expected = {r["id"]: r["dup_group"] for r in map(json.loads, ref.read_text().splitlines())}
        out["equal_to_dedup"] = _partition(got) == _partition(expected)
        if not out["equal_to_dedup"]:  # pages whose group (its members) differs
            mine = {p: g for g in _partition(got) for p in g}
            theirs = {p: g for g in _partition(expected) for p in g}
            out["pages_grouped_differently"] = sum(
                1 for p in theirs if mine.get(p) != theirs[p])
        if not changed:
            for name in (index, f"{index}-*"):
                client.indices.delete(index=name, ignore_unavailable=True)
            print(json.dumps(out))
            return
        peer = f"peer-{uuid.uuid4().hex[:8]}"
        t0 = time.perf_counter()
        helpers.bulk(client, ({"_index": peer, "_id": again[i]["id"], "_source": again[i]}
                              for i in changed), refresh="wait_for")
        out["bulk_of_changed_s"] = round(time.perf_counter() - t0, 3)
        out["update_over_bulk"] = round(out["update_s"] / max(out["bulk_of_changed_s"], 1e-9), 1)
        for name in (index, f"{index}-*", peer):
            client.indices.delete(index=name, ignore_unavailable=True)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
