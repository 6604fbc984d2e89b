"""Throughput of the whole pipeline, and how the embedded dedup scales.

(a) ``neardup ingest --wait`` + 2 Celery workers, timed from the start of ``ingest`` until every
    document is indexed with its ``dup_group`` and searchable, vs plain ``opensearchpy.helpers.bulk`` of the same
    documents (the same ``_source`` the pipeline indexes: body, fingerprints, url, site, ...,
    into an index made from the same template) on the same node, in the same run, each into a
    fresh index. ``--engine elasticsearch`` (or an Elasticsearch node at ``--url``) runs the same
    on Elasticsearch, the bulk side through its official client's ``helpers.bulk``. The bulk side gets its documents already fingerprinted (untimed): it is the
    floor of "just putting the pages into OpenSearch". Goal: pipeline ≥ 0.6× bulk. The
    ingest's summary carries the p50/p99 time from acceptance to searchable (``latency_s``).
(b) ``neardup dedup`` (embedded backend, default ``-j``) on N and 10×N documents of the same
    kind: docs/s and the ratio of time per document (goal ≤ 1.3×, i.e. linear cost growth).

The corpus: near-duplicate groups (sizes 1-5, mean ~2.6) of People's Daily (January 1998)
paragraphs. An article is 6-10 paragraphs drawn at random and disguised per group (15 % of the
characters substituted, so articles of different groups do not share sentences even when
they drew the same paragraph and the density of shared fingerprints does not grow with N);
its variants drop or add a paragraph and edit ~3 % of one paragraph; every page gets a site
head/tail template (site name, navigation, editor, copyright) as on the web.

Run (services on OPENSEARCH_URL / CELERY_BROKER_URL, as for the integration tests):
``python bench/pipeline.py [--engine opensearch|elasticsearch] [--url URL]
[--pipeline-docs 3000] [--dedup-docs 10000] [--skip-pipeline] [--skip-dedup]``. Prints one JSON object per measurement and a summary.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _pipeline_corpus import bench_corpus, write_jsonl  # noqa: E402


def _emit(record: dict[str, Any]) -> None:
    print(json.dumps(record, ensure_ascii=False), flush=True)


# --- (a) pipeline vs plain bulk -----------------------------------------------------------------


def _start_workers(n: int, env: dict[str, str], log_dir: Path) -> list[subprocess.Popen[bytes]]:
    procs = []
    for i in range(n):
        log = open(log_dir / f"worker{i}.log", "wb")
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "neardup.ingest.workers.app", "worker", "--pool=solo",
             "-Q", env["NEARDUP_QUEUE"], "-n", f"bench{i}-{uuid.uuid4().hex[:6]}@%h",
             "--loglevel=INFO", "--without-gossip", "--without-mingle", "--without-heartbeat"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        ))
    deadline = time.monotonic() + 120
    for i in range(n):  # timing starts with the workers ready, as in production
        while b" ready." not in (log_dir / f"worker{i}.log").read_bytes():
            if time.monotonic() > deadline:
                raise SystemExit(f"worker {i} did not become ready")
            time.sleep(0.2)
    return procs


def bench_pipeline(
    n_docs: int, workers: int, batch: int, engine: str | None = None, url: str | None = None
) -> dict[str, Any]:
    from neardup.ingest.pipeline import fingerprint_config, prepare_lines, read_lines
    from neardup.ingest.settings import Settings
    from neardup.ingest.store import client_from_env, engine_settings, open_store

    overrides = {"NEARDUP_ENGINE": engine or "", "OPENSEARCH_URL": url or ""}
    settings = engine_settings(Settings.from_env({**os.environ, **overrides}))

    tag = uuid.uuid4().hex[:8]
    pipe_index, bulk_index = f"neardup-bench-pipe-{tag}", f"neardup-bench-bulk-{tag}"
    broker = os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0")
    env = dict(
        os.environ,
        PYTHONPATH=str(ROOT),
        CELERY_BROKER_URL=f"{broker.rpartition('/')[0]}/{8 + int(tag, 16) % 8}",
        NEARDUP_QUEUE=f"neardup.bench.{tag}",
        NEARDUP_DEAD_LETTER=f"neardup.bench.{tag}.dead",
        NEARDUP_INDEX=pipe_index,
        NEARDUP_ENGINE=settings.engine,
        OPENSEARCH_URL=settings.opensearch_url,
    )
    client = client_from_env(settings=settings)
    # the peer: the bulk helper of the engine's own client (opensearchpy.helpers,
    # elasticsearch8.helpers...) as it comes, with its stock JSON serializer
    stock = ({"serializer": importlib.import_module("opensearchpy.serializer").JSONSerializer()}
             if settings.engine == "opensearch" else {})
    peer = client_from_env(settings=settings, **stock)
    helpers = importlib.import_module(type(peer).__module__.split(".")[0] + ".helpers")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "corpus.jsonl"
        write_jsonl(path, bench_corpus(n_docs))
        # plain bulk: the same sources into an index made from the same template
        config = fingerprint_config("web")
        sources = [p.doc.to_source() for p in prepare_lines(read_lines(path), config, 1)
                   if p.doc is not None]
        bulk_store = open_store("engine", settings, client=client, index=bulk_index)
        bulk_store.install()
        procs: list[subprocess.Popen[bytes]] = []
        cpu: dict[str, float] = {}  # CPU seconds: the node's, the workers', the ingest process'
        try:
            node_cpu = _node_cpu_s(client)
            t0 = time.perf_counter()
            ok, errors = helpers.bulk(
                peer, ({"_index": bulk_index, "_id": s["id"], "_source": s} for s in sources),
                chunk_size=batch, raise_on_error=False,
            )
            peer.indices.refresh(index=bulk_index)
            bulk_s = time.perf_counter() - t0
            cpu["bulk_node"] = _node_cpu_s(client) - node_cpu
            assert ok == len(sources) and not errors, errors
            bulk_server = _server_phases(client, bulk_index)
            procs = _start_workers(workers, env, Path(tmp))
            node_cpu, workers_cpu = _node_cpu_s(client), _procs_cpu_s(procs)
            children = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            proc = subprocess.run(
                [sys.executable, "-m", "neardup.ingest.cli", "ingest", str(path), "--wait",
                 "--no-progress", "--index", pipe_index, "--batch", str(batch)],
                cwd=ROOT, env=env, capture_output=True, text=True, timeout=7200,
            )
            pipe_s = time.perf_counter() - t0
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu["pipeline_node"] = _node_cpu_s(client) - node_cpu
            cpu["pipeline_workers"] = _procs_cpu_s(procs) - workers_cpu
            cpu["pipeline_ingest"] = (after.ru_utime + after.ru_stime
                                      - children.ru_utime - children.ru_stime)
            if proc.returncode != 0:
                raise SystemExit(f"ingest failed: {proc.stderr[-3000:]}")
            summary = json.loads(proc.stdout.strip().splitlines()[-1])
            worker_phases = _worker_phases(Path(tmp), workers)
            server = _server_phases(client, pipe_index)
            client.indices.refresh(index=pipe_index)
            grouped = client.count(index=pipe_index,
                                   body={"query": {"term": {"status": "grouped"}}})["count"]
            groups = client.search(index=pipe_index, body={
                "size": 0, "aggs": {"g": {"cardinality": {"field": "dup_group",
                                                          "precision_threshold": 40000}}}})
        finally:
            for p in procs:
                p.terminate()
            for p in procs:
                p.wait(30)
            client.indices.delete(
                index=f"{pipe_index},{pipe_index}-stoplist,{bulk_index},{bulk_index}-stoplist",
                ignore_unavailable=True,
            )
            _drop_templates(client, pipe_index, bulk_index)
            _cleanup_broker(env)
    record = {
        "bench": "pipeline-vs-bulk", "engine": settings.engine, "docs": len(sources), "workers": workers, "batch": batch,
        "bulk_s": round(bulk_s, 2), "bulk_docs_s": round(len(sources) / bulk_s, 1),
        "pipeline_s": round(pipe_s, 2), "pipeline_docs_s": round(len(sources) / pipe_s, 1),
        "ratio": round(bulk_s / pipe_s, 3), "grouped": grouped,
        "groups": groups["aggregations"]["g"]["value"], "ingest": summary,
        "workers_phases": worker_phases, "server_phases": server, "bulk_server_phases": bulk_server,
        "cpu_s": {k: round(v, 2) for k, v in cpu.items()},
    }
    _emit(record)
    return record


def _node_cpu_s(client: Any) -> float:
    """CPU seconds the engine's processes have used (nodes stats)."""
    nodes = client.nodes.stats(metric="process")["nodes"].values()
    return sum(n["process"]["cpu"]["total_in_millis"] for n in nodes) / 1000


def _procs_cpu_s(procs: list[subprocess.Popen[bytes]]) -> float:
    """CPU seconds (user + system) the running processes ``procs`` have used."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for p in procs:
        fields = Path(f"/proc/{p.pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


def _server_phases(client: Any, index: str) -> dict[str, Any]:
    """Where the node spent its time on an index (primaries' stats, ms): indexing
    (bulk + updates), searches, realtime gets, refreshes (with how many were internal: a
    realtime get of a document written since the last refresh forces one), merges."""
    p = client.indices.stats(index=index)["indices"][index]["primaries"]
    refresh = p["refresh"]
    return {
        "index_ms": p["indexing"]["index_time_in_millis"], "index_n": p["indexing"]["index_total"],
        "query_ms": p["search"]["query_time_in_millis"], "query_n": p["search"]["query_total"],
        "fetch_ms": p["search"]["fetch_time_in_millis"],
        "get_ms": p["get"]["time_in_millis"], "get_n": p["get"]["total"],
        "refresh_ms": refresh["total_time_in_millis"], "refresh_n": refresh["total"],
        "refresh_external_n": refresh.get("external_total"),
        "merge_ms": p["merges"]["total_time_in_millis"], "merge_n": p["merges"]["total"],
        "segments": p["segments"]["count"],
    }


def _worker_phases(log_dir: Path, n: int) -> dict[str, Any]:
    """Sum of what every ``decide_batch`` returned (outcome counts, ``<phase>_s`` seconds and
    ``<phase>_n`` calls), read from the workers' INFO logs (``succeeded in ...: {...}``)."""
    import ast
    import re

    total: dict[str, float] = {"tasks": 0}
    pattern = re.compile(r"succeeded in ([0-9.]+)s: (\{.*\})")
    for i in range(n):
        for line in (log_dir / f"worker{i}.log").read_text(errors="replace").splitlines():
            m = pattern.search(line)
            if not m:
                continue
            total["tasks"] += 1
            total["task_s"] = total.get("task_s", 0.0) + float(m.group(1))
            for key, value in ast.literal_eval(m.group(2)).items():
                if isinstance(value, (int, float)):
                    total[key] = total.get(key, 0) + value
    return {k: round(v, 2) if isinstance(v, float) else v for k, v in sorted(total.items())}


def _drop_templates(client: Any, *indices: str) -> None:
    from neardup.ingest.templates import template_names

    for index in indices:
        names = template_names(index)
        deletes = [(client.indices.delete_index_template, names[s])
                   for s in ("pages-template", "stoplist-template")]
        deletes += [(client.cluster.delete_component_template, names[s])
                    for s in ("pages-settings", "pages-mappings")]
        for delete, name in deletes:
            try:
                delete(name=name)
            except Exception:  # noqa: BLE001 - already gone: the clients' 404s differ
                pass


def _cleanup_broker(env: dict[str, str]) -> None:
    import redis

    r = redis.Redis.from_url(env["CELERY_BROKER_URL"])
    keys = [k for k in r.scan_iter(f"{env['NEARDUP_QUEUE']}*")]
    keys += [k for k in r.scan_iter(f"neardup:{env['NEARDUP_INDEX']}:*")]
    if keys:
        r.delete(*keys)


# --- (b) embedded dedup scaling -----------------------------------------------------------------


def bench_dedup(n_docs: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "corpus.jsonl"
        write_jsonl(path, bench_corpus(n_docs))
        t0 = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", "neardup.ingest.cli", "dedup", str(path), "-o", os.devnull,
             "--no-progress"],
            cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)),
            capture_output=True, text=True, timeout=4 * 3600,
        )
        elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"dedup failed: {proc.stderr[-3000:]}")
    summary = json.loads(proc.stderr.strip().splitlines()[-1])
    record = {
        "bench": "dedup-embedded", "docs": n_docs, "s": round(elapsed, 2),
        "docs_s": round(n_docs / elapsed, 1), "ms_per_doc": round(1000 * elapsed / n_docs, 3),
        "summary": summary,
    }
    _emit(record)
    return record


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pipeline-docs", type=int, default=3000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--batch", type=int, default=500)
    ap.add_argument("--dedup-docs", type=int, default=10000, help="N: runs N and 10×N")
    ap.add_argument("--scale", type=int, default=10, help="the larger run is scale × N")
    ap.add_argument("--engine", choices=("opensearch", "elasticsearch"), default=None,
                    help="the engine at --url (default: asked of the node)")
    ap.add_argument("--url", default=None, help="the node (default $OPENSEARCH_URL)")
    ap.add_argument("--skip-pipeline", action="store_true")
    ap.add_argument("--skip-dedup", action="store_true")
    args = ap.parse_args()
    summary: dict[str, Any] = {"cpus": os.cpu_count()}
    if not args.skip_pipeline:
        r = bench_pipeline(args.pipeline_docs, args.workers, args.batch, args.engine, args.url)
        summary["pipeline_vs_bulk"] = r["ratio"]
    if not args.skip_dedup:
        small = bench_dedup(args.dedup_docs)
        large = bench_dedup(args.dedup_docs * args.scale)
        summary["dedup_docs_s"] = {small["docs"]: small["docs_s"], large["docs"]: large["docs_s"]}
        summary["time_per_doc_ratio"] = round(large["ms_per_doc"] / small["ms_per_doc"], 3)
    _emit({"summary": summary})


if __name__ == "__main__":
    main()
