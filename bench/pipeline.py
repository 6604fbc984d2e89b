"""Throughput of the whole pipeline, and how the embedded dedup scales.

(a) ``neardup ingest --wait`` + 2 Celery workers, timed from the start of ``ingest`` until every
    document is indexed with its ``dup_group`` and searchable, vs plain ``opensearchpy.helpers.bulk`` of the same
    documents (the same documents the pipeline indexes: each page's ``_source`` — body,
    url, site, ... — into an index made from the pages template, and its fingerprints document
    into one made from the fingerprints template) on the same node, in the same run, each into a
    fresh index. ``--engine elasticsearch`` (or an Elasticsearch node at ``--url``) runs the same
    on Elasticsearch, the bulk side through its official client's ``helpers.bulk``. The bulk side gets its documents already fingerprinted (untimed: they are
    fingerprinted as the helper pulls them, and that time is taken out of ``bulk_s``; the
    wall time is ``bulk_wall_s``): it is the floor of "just putting the pages into OpenSearch".
    Goal: pipeline ≥ 0.6× bulk. The ingest's summary carries the p50/p99 time from acceptance
    to searchable (``latency_s``).

    Per page (``per_page``): wall ms of each side, the node's CPU ms of each side (nodes stats)
    and their ratio, all the pipeline's CPU (node, workers, ingest), Redis bytes (the run's
    keys by ``MEMORY USAGE``, and the ``used_memory`` growth of the server over the ingest —
    noisy when others use it —, each less the chrome counts' count-min sketch, a fixed
    ~64 MB reported apart), index bytes (primaries' store, both indices refreshed; with
    ``--force-merge`` also merged to one segment). ``candidate_search_ms``: p50/p99 over the
    workers' tasks of a batch's candidate ``terms`` search (``batch_query_s`` in their logs).
    ``redis.families``: the run's keys by kind (staging, forest, chrome counts, the broker's
    queues). ``candidate_search_replay``: the first 20 batches' candidate searches sent again
    to the quiet node at the end, the node's CPU a page for the search alone (less its idle
    CPU) and the wall time a batch — with bulk's node CPU a page, the least the design's one
    search a batch costs the node. ``per_1000_pages``: refreshes and merges, how many and ms. ``shared``: the
    operations on other indices during each side and the load average, since the node's CPU
    is everyone's.

    At scale (30k / 300k / 1M pages; ``--pipeline-docs 1000000`` runs for hours, in the
    background): time per page at 1M ≤ 1.3× at 30k, the node's CPU per page ≤ 1.3× plain
    bulk's. Memory stays bounded: the corpus is written as it is made (~3.6 kB a page on
    ``--tmp``, twice that while it is written) and the bulk side streams it; the node keeps
    ~14 kB (pipeline) + ~11 kB (bulk) a page until the end (~25 GB at 1M).
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
[--pipeline-docs 3000] [--dedup-docs 10000] [--tmp DIR] [--force-merge] [--skip-pipeline]
[--skip-dedup]``. Prints one JSON object per measurement and a summary on stdout, and the
pipeline's figures as a markdown table row (with its header) on stderr.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from _pipeline_corpus import write_bench_corpus
from _workers import _start_workers

ROOT = Path(__file__).resolve().parent.parent


def _emit(record: dict[str, Any]) -> None:
    print(json.dumps(record, ensure_ascii=False), flush=True)


# --- (a) pipeline vs plain bulk -----------------------------------------------------------------




def _settings(engine: str | None, url: str | None) -> Any:
    """The settings of the environment, with ``engine`` and ``url`` over it when given (an
    empty value would read as unset and drop ``$OPENSEARCH_URL``), the engine asked of the
    node when not configured."""
    from neardup.ingest.settings import Settings
    from neardup.ingest.store import engine_settings

    given = {"NEARDUP_ENGINE": engine, "OPENSEARCH_URL": url}
    overrides = {name: value for name, value in given.items() if value}
    return engine_settings(Settings.from_env({**os.environ, **overrides}))


class _Timed:
    """An iterator's items, with the time spent making them (``s``) and how many (``n``): the
    bulk helper pulls the sources as it goes, and their preparing is not the bulk's time."""

    def __init__(self, items: Iterator[Any]) -> None:
        self._items, self.s, self.n = items, 0.0, 0

    def __iter__(self) -> Iterator[Any]:
        return self

    def __next__(self) -> Any:
        t0 = time.perf_counter()
        try:
            item = next(self._items)
        finally:
            self.s += time.perf_counter() - t0
        self.n += 1
        return item


def bench_pipeline(
    n_docs: int, workers: int, batch: int, engine: str | None = None, url: str | None = None,
    tmp_dir: str | None = None, force_merge: bool = False,
) -> dict[str, Any]:
    from neardup.ingest.pipeline import fingerprint_config, prepare_lines, read_lines
    from neardup.ingest.store import client_from_env, open_store

    settings = _settings(engine, url)

    tag = uuid.uuid4().hex[:8]
    pipe_index, bulk_index = f"neardup-bench-pipe-{tag}", f"neardup-bench-bulk-{tag}"
    # each side's fingerprints index (templates.template_names: "<index>-fingerprints")
    pipe_fp, bulk_fp = f"{pipe_index}-fingerprints", f"{bulk_index}-fingerprints"
    broker = os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0")
    env = dict(
        os.environ,
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
    with tempfile.TemporaryDirectory(dir=tmp_dir, prefix="neardup-bench-") as tmp:
        path = Path(tmp) / "corpus.jsonl"
        t0 = time.perf_counter()
        write_bench_corpus(path, n_docs)
        corpus_s = time.perf_counter() - t0
        # plain bulk: the same documents into indices made from the same templates (a page's
        # source into the pages index, its fingerprints into the fingerprints index),
        # fingerprinted as the helper pulls them (that time is taken out of the bulk's: it is
        # untimed)
        config = fingerprint_config("web")
        sample: list[str] = []  # the first pages' ids, for the replay of their candidate searches

        def bulk_actions() -> Iterator[dict[str, Any]]:
            for p in prepare_lines(read_lines(path), config, 1):
                if p.doc is None:
                    continue
                if len(sample) < REPLAY_BATCHES * batch:
                    sample.append(p.doc.id)
                yield {"_index": bulk_index, "_id": p.doc.id, "_source": p.doc.to_source()}
                yield {"_index": bulk_fp, "_id": p.doc.id, "_source": p.doc.fingerprints_source()}

        sources = _Timed(bulk_actions())
        bulk_store = open_store("engine", settings, client=client, index=bulk_index)
        bulk_store.install()
        procs: list[subprocess.Popen[bytes]] = []
        cpu: dict[str, float] = {}  # CPU seconds: the node's, the workers', the ingest process'
        try:
            node_cpu, node_ops = _node_cpu_s(client), _node_ops(client)
            load = {"bulk_start": os.getloadavg()[0]}
            t0 = time.perf_counter()
            ok, errors = helpers.bulk(peer, sources, chunk_size=batch, raise_on_error=False)
            peer.indices.refresh(index=f"{bulk_index},{bulk_fp}")
            bulk_wall_s = time.perf_counter() - t0
            bulk_s = bulk_wall_s - sources.s
            cpu["bulk_node"] = _node_cpu_s(client) - node_cpu
            load["bulk_end"] = os.getloadavg()[0]
            others = {"bulk": _others(client, node_ops, bulk_index)}
            assert ok == sources.n and not errors, errors
            docs = sources.n // 2
            bulk_server = _server_phases(client, bulk_index)
            bulk_server_fp = _server_phases(client, bulk_fp)
            procs = _start_workers(workers, env, Path(tmp))
            redis_before = _redis_used_memory(env)
            node_cpu, workers_cpu = _node_cpu_s(client), _procs_cpu_s(procs)
            node_ops, load["pipeline_start"] = _node_ops(client), os.getloadavg()[0]
            children = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            proc = subprocess.run(
                [sys.executable, "-m", "neardup.ingest.cli", "ingest", str(path), "--wait",
                 "--no-progress", "--index", pipe_index, "--batch", str(batch)],
                cwd=ROOT, env=env, capture_output=True, text=True,
                timeout=max(7200, n_docs // 20),
            )
            pipe_s = time.perf_counter() - t0
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu["pipeline_node"] = _node_cpu_s(client) - node_cpu
            load["pipeline_end"] = os.getloadavg()[0]
            others["pipeline"] = _others(client, node_ops, pipe_index)
            cpu["pipeline_workers"] = _procs_cpu_s(procs) - workers_cpu
            cpu["pipeline_ingest"] = (after.ru_utime + after.ru_stime
                                      - children.ru_utime - children.ru_stime)
            redis_after = _redis_used_memory(env)
            if proc.returncode != 0:
                raise SystemExit(f"ingest failed: {proc.stderr[-3000:]}")
            summary = json.loads(proc.stdout.strip().splitlines()[-1])
            tasks = _worker_tasks(Path(tmp), workers)
            worker_phases = _worker_phases(tasks)
            server = _server_phases(client, pipe_index)
            server_fp = _server_phases(client, pipe_fp)
            redis_keys = _redis_keys(env)
            replay = _replay_searches(open_store("engine", settings, client=client,
                                                 index=pipe_index), client, sample, batch)
            client.indices.refresh(index=pipe_index)
            grouped = client.count(index=pipe_index,
                                   body={"query": {"term": {"status": "grouped"}}})["count"]
            groups = client.search(index=pipe_index, body={
                "size": 0, "aggs": {"g": {"cardinality": {"field": "dup_group",
                                                          "precision_threshold": 40000}}}})
            time.sleep(STORE_STATS_CACHED_S)
            store: dict[str, Any] = {
                "pipeline": _store_bytes(client, pipe_index),
                "pipeline_fingerprints": _store_bytes(client, pipe_fp),
                "bulk": _store_bytes(client, bulk_index),
                "bulk_fingerprints": _store_bytes(client, bulk_fp)}
            if force_merge:
                t0 = time.perf_counter()
                for index in (pipe_index, pipe_fp, bulk_index, bulk_fp):
                    _force_merge(client, settings.engine, index)
                store["merged_s"] = round(time.perf_counter() - t0, 2)
                time.sleep(STORE_STATS_CACHED_S)
                store["pipeline_merged"] = _store_bytes(client, pipe_index)
                store["pipeline_fingerprints_merged"] = _store_bytes(client, pipe_fp)
                store["bulk_merged"] = _store_bytes(client, bulk_index)
                store["bulk_fingerprints_merged"] = _store_bytes(client, bulk_fp)
        finally:
            for p in procs:
                p.terminate()
            for p in procs:
                p.wait(30)
            client.indices.delete(
                index=",".join(f"{i}{suffix}" for i in (pipe_index, bulk_index)
                               for suffix in ("", "-stoplist", "-fingerprints")),
                ignore_unavailable=True,
            )
            _drop_templates(client, pipe_index, bulk_index)
            _cleanup_broker(env)
    query_s = sorted(t["batch_query_s"] for t in tasks if t.get("batch_query_n"))
    family = redis_keys["families"]
    run_bytes = sum(f["bytes"] for f in family.values())
    sketch = family.get("chrome_sketch", {}).get("bytes", 0)
    per_page = {
        "pipeline_ms": round(1000 * pipe_s / docs, 4),
        "bulk_ms": round(1000 * bulk_s / docs, 4),
        "pipeline_node_cpu_ms": round(1000 * cpu["pipeline_node"] / docs, 4),
        "bulk_node_cpu_ms": round(1000 * cpu["bulk_node"] / docs, 4),
        "node_cpu_ratio": round(cpu["pipeline_node"] / cpu["bulk_node"], 3),
        "pipeline_cpu_ms": round(1000 * (cpu["pipeline_node"] + cpu["pipeline_workers"]
                                         + cpu["pipeline_ingest"]) / docs, 4),
        "redis_used_memory_b": round((redis_after - redis_before - sketch) / docs, 1),
        "redis_keys_b": round((run_bytes - sketch) / docs, 1),
        # the pages index and the fingerprints index
        "pipeline_index_b": round((store["pipeline"]["bytes"]
                                   + store["pipeline_fingerprints"]["bytes"]) / docs, 1),
        "pipeline_fingerprints_index_b": round(store["pipeline_fingerprints"]["bytes"] / docs, 1),
        "bulk_index_b": round((store["bulk"]["bytes"] + store["bulk_fingerprints"]["bytes"])
                              / docs, 1),
    }
    if force_merge:
        per_page["pipeline_index_merged_b"] = round(
            (store["pipeline_merged"]["bytes"] + store["pipeline_fingerprints_merged"]["bytes"])
            / docs, 1)
        per_page["bulk_index_merged_b"] = round(
            (store["bulk_merged"]["bytes"] + store["bulk_fingerprints_merged"]["bytes"]) / docs, 1)
    record = {
        "bench": "pipeline-vs-bulk", "engine": settings.engine, "docs": docs, "workers": workers, "batch": batch,
        "bulk_s": round(bulk_s, 2), "bulk_docs_s": round(docs / bulk_s, 1),
        "bulk_wall_s": round(bulk_wall_s, 2), "bulk_prepare_s": round(sources.s, 2),
        "pipeline_s": round(pipe_s, 2), "pipeline_docs_s": round(docs / pipe_s, 1),
        "ratio": round(bulk_s / pipe_s, 3), "grouped": grouped,
        "groups": groups["aggregations"]["g"]["value"], "ingest": summary,
        "per_page": per_page,
        "candidate_search_ms": {"tasks": len(query_s), "p50": _ms(_quantile(query_s, 0.5)),
                                "p99": _ms(_quantile(query_s, 0.99)), "max": _ms(max(query_s, default=0.0))},
        "redis": {"used_memory_before": redis_before, "used_memory_after": redis_after,
                  "used_memory_delta": redis_after - redis_before, "run_keys_bytes": run_bytes,
                  "chrome_sketch_bytes": sketch, **redis_keys},
        "candidate_search_replay": replay,
        "index_store": store,
        "per_1000_pages": {"pipeline": _per_1000(server, docs),
                           "pipeline_fingerprints": _per_1000(server_fp, docs),
                           "bulk": _per_1000(bulk_server, docs),
                           "bulk_fingerprints": _per_1000(bulk_server_fp, docs)},
        "workers_phases": worker_phases, "server_phases": server,
        "server_phases_fingerprints": server_fp, "bulk_server_phases": bulk_server,
        "bulk_server_phases_fingerprints": bulk_server_fp,
        "cpu_s": {k: round(v, 2) for k, v in cpu.items()},
        "shared": {"others_ops": others, "load_1m": {k: round(v, 2) for k, v in load.items()}},
        "corpus_s": round(corpus_s, 2),
        "bench_max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    record["row"] = _row(record)
    _emit(record)
    return record


ROW_HEADER = ("| pages | pipeline s | bulk s | ratio | ms/page pipeline / bulk "
              "| node CPU ms/page pipeline / bulk (×) | cand. search p50 / p99 ms "
              "| Redis B/page (+ sketch MB) | index B/page pipeline / bulk |\n"
              "|---|---|---|---|---|---|---|---|---|")


def _row(r: dict[str, Any]) -> str:
    """The record as a row of :data:`ROW_HEADER`'s markdown table."""
    p, c = r["per_page"], r["candidate_search_ms"]
    return (f"| {r['docs']:,} | {r['pipeline_s']} | {r['bulk_s']} | {r['ratio']}× "
            f"| {p['pipeline_ms']:.3f} / {p['bulk_ms']:.3f} "
            f"| {p['pipeline_node_cpu_ms']:.3f} / {p['bulk_node_cpu_ms']:.3f} ({p['node_cpu_ratio']}×) "
            f"| {c['p50']} / {c['p99']} "
            f"| {p['redis_keys_b']:.0f} (+ {r['redis']['chrome_sketch_bytes'] / 2**20:.0f}) "
            f"| {p['pipeline_index_b']:.0f} / {p['bulk_index_b']:.0f} |")


# Batches whose candidate searches are sent again once the pipeline is done (_replay_searches).
REPLAY_BATCHES = 20
IDLE_S = 3.0  # seconds the node's own CPU is measured over first (background merges)


def _replay_searches(store: Any, client: Any, ids: list[str], batch: int) -> dict[str, Any]:
    """The candidate searches of the first pages' batches, sent again to the quiet node once
    the pipeline is done, as a worker sends them (``EngineCandidates.fingerprint_holders``: every usable
    fingerprint of the batch — as the pipeline indexed the page, its site chrome masked —,
    the batch's own ids left out), against the whole index: the node's CPU a page for the
    search alone (less its CPU when idle, measured first), at the end size, and its wall time
    a batch. With the bulk side's node CPU a page, what the design's one search a batch costs
    the node at the least."""
    from neardup.ingest.store.ranking import candidate_terms

    stop = store.stoplist()
    batches = [list(store.mget(ids[i:i + batch]).values()) for i in range(0, len(ids), batch)]
    cpu0, t0 = _node_cpu_s(client), time.perf_counter()
    time.sleep(IDLE_S)
    idle_rate = (_node_cpu_s(client) - cpu0) / (time.perf_counter() - t0)
    walls: list[float] = []
    cpu0, t0 = _node_cpu_s(client), time.perf_counter()
    hits = 0
    for part in batches:
        terms: dict[str, set[str]] = {}
        for d in part:
            terms.setdefault(d.fp_config, set()).update(candidate_terms(d.fingerprints, stop))
        t1 = time.perf_counter()
        hits += len(store.fingerprint_holders(terms, [d.id for d in part]))
        walls.append(time.perf_counter() - t1)
    wall = time.perf_counter() - t0
    cpu = max(0.0, _node_cpu_s(client) - cpu0 - idle_rate * wall)
    n = sum(len(b) for b in batches)
    return {"batches": len(batches), "pages": n, "hits": hits,
            "node_cpu_ms_per_page": round(1000 * cpu / max(n, 1), 4),
            "idle_node_cpu_s_per_s": round(idle_rate, 3),
            "p50_ms": _ms(_quantile(sorted(walls), 0.5)),
            "p99_ms": _ms(_quantile(sorted(walls), 0.99))}


def _quantile(values: list[float], q: float) -> float:
    """The ``q`` quantile of sorted ``values`` (nearest rank; 0 for none)."""
    if not values:
        return 0.0
    return values[min(len(values) - 1, max(0, math.ceil(q * len(values)) - 1))]


def _ms(seconds: float) -> float:
    return round(1000 * seconds, 1)


def _per_1000(phases: dict[str, Any], docs: int) -> dict[str, float]:
    """Refreshes and merges (how many, ms) per 1,000 pages."""
    return {k: round(1000 * phases[k] / docs, 3)
            for k in ("refresh_n", "refresh_ms", "merge_n", "merge_ms")}


# A shard's store size is cached this long (``index.store.stats_refresh_interval``, 10 s by
# default, not dynamic): it is read that long after the last change.
STORE_STATS_CACHED_S = 11.0


def _store_bytes(client: Any, index: str) -> dict[str, int]:
    """The primaries' store size, documents (live and deleted) and segments of ``index``
    (indices stats)."""
    p = client.indices.stats(index=index, metric="store,docs,segments")["indices"][index]["primaries"]
    return {"bytes": p["store"]["size_in_bytes"], "docs": p["docs"]["count"],
            "deleted": p["docs"]["deleted"], "segments": p["segments"]["count"]}


def _force_merge(client: Any, engine: str, index: str) -> None:
    """Merge ``index`` down to one segment, waiting for it (however long it takes)."""
    if engine == "opensearch":
        client.indices.forcemerge(index=index, max_num_segments=1, request_timeout=7200)
    else:
        client.options(request_timeout=7200).indices.forcemerge(index=index, max_num_segments=1)
    client.indices.refresh(index=index)


def _redis(env: dict[str, str]) -> Any:
    import redis

    return redis.Redis.from_url(env["CELERY_BROKER_URL"])


def _redis_used_memory(env: dict[str, str]) -> int:
    """The broker's server's ``used_memory`` (INFO memory; every database, every client's)."""
    return int(_redis(env).info("memory")["used_memory"])


# The families of an index's keys (neardup:<index>:<name>...): the staging of batches, the
# group forest, the chrome counts (the count-min sketch's cells apart: a fixed size).
_FAMILIES = (
    ("staging", ("seq", "live", "written", "pending", "refreshed", "refresh-lock", "batch:")),
    ("forest", ("parent", "pseq", "roots-written", "best", "members:")),
)


def _family(name: str) -> str:
    if name.startswith("chrome:"):
        return "chrome_sketch" if name.endswith(":cells") else "chrome_other"
    for family, prefixes in _FAMILIES:
        if any(name == p or (p.endswith(":") and name.startswith(p)) for p in prefixes):
            return family
    return "other"


def _redis_keys(env: dict[str, str]) -> dict[str, Any]:
    """``MEMORY USAGE`` of the run's keys, summed by family (bytes and keys): the index's
    (``neardup:<index>:*``) and the run's queues (``broker``: the queue, its dead letters, their
    bindings; not the database's ``unacked`` hash, which other runs may share)."""
    r = _redis(env)
    prefix = f"neardup:{env['NEARDUP_INDEX']}:".encode()
    families: dict[str, dict[str, int]] = {}
    keys = list(r.scan_iter(prefix + b"*", count=1000))
    keys += list(r.scan_iter(f"*{env['NEARDUP_QUEUE']}*", count=1000))
    for i in range(0, len(keys), 1000):
        chunk = keys[i:i + 1000]
        pipe = r.pipeline(transaction=False)
        for key in chunk:
            pipe.memory_usage(key, samples=0)
        for key, used in zip(chunk, pipe.execute(), strict=True):
            name = _family(key[len(prefix):].decode()) if key.startswith(prefix) else "broker"
            f = families.setdefault(name, {"bytes": 0, "keys": 0})
            f["bytes"] += int(used or 0)
            f["keys"] += 1
    return {"families": dict(sorted(families.items()))}


def _node_cpu_s(client: Any) -> float:
    """CPU seconds the engine's processes have used (nodes stats)."""
    nodes = client.nodes.stats(metric="process")["nodes"].values()
    return float(sum(n["process"]["cpu"]["total_in_millis"] for n in nodes)) / 1000


_OPS = (("index_n", ("indexing", "index_total")), ("query_n", ("search", "query_total")),
        ("get_n", ("get", "total")))


def _ops(stats: dict[str, Any]) -> dict[str, int]:
    return {name: stats[group][field] for name, (group, field) in _OPS}


def _node_ops(client: Any) -> dict[str, int]:
    """Index, search and get operations of every index of the engine (nodes stats)."""
    total = dict.fromkeys((name for name, _ in _OPS), 0)
    for node in client.nodes.stats(metric="indices")["nodes"].values():
        for name, n in _ops(node["indices"]).items():
            total[name] += n
    return total


def _others(client: Any, before: dict[str, int], index: str) -> dict[str, int]:
    """The operations on the engine since ``before`` (:func:`_node_ops`) that were not on
    ``index`` or its stoplist: someone else's load in the node's CPU (which is the node's).
    Negative when an index was deleted meanwhile (its operations leave the node's sums)."""
    now = _node_ops(client)
    mine = _ops(client.indices.stats(index=f"{index}*")["_all"]["total"])  # and -stoplist
    return {name: now[name] - before[name] - mine[name] for name in now}


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


def _worker_tasks(log_dir: Path, n: int) -> list[dict[str, float]]:
    """What every ``decide_batch`` returned (outcome counts, ``<phase>_s`` seconds and
    ``<phase>_n`` calls) with its ``task_s``, read from the workers' INFO logs
    (``succeeded in ...: {...}``), one dict a task."""
    import ast
    import re

    tasks: list[dict[str, float]] = []
    pattern = re.compile(r"succeeded in ([0-9.]+)s: (\{.*\})")
    for i in range(n):
        with (log_dir / f"worker{i}.log").open(errors="replace") as log:
            for line in log:
                m = pattern.search(line)
                if not m:
                    continue
                task = {"task_s": float(m.group(1))}
                for key, value in ast.literal_eval(m.group(2)).items():
                    if isinstance(value, (int, float)):
                        task[key] = value
                tasks.append(task)
    return tasks


def _worker_phases(tasks: list[dict[str, float]]) -> dict[str, Any]:
    """The sum of every task's figures (:func:`_worker_tasks`), and how many tasks."""
    total: dict[str, float] = {"tasks": len(tasks)}
    for task in tasks:
        for key, value in task.items():
            total[key] = total.get(key, 0) + value
    return {k: round(v, 2) if isinstance(v, float) else v for k, v in sorted(total.items())}


def _drop_templates(client: Any, *indices: str) -> None:
    from neardup.ingest.templates import template_names

    for index in indices:
        names = template_names(index)
        deletes = [(client.indices.delete_index_template, names[s])
                   for s in ("pages-template", "stoplist-template", "fingerprints-template")]
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


def bench_dedup(n_docs: int, tmp_dir: str | None = None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(dir=tmp_dir, prefix="neardup-bench-") as tmp:
        path = Path(tmp) / "corpus.jsonl"
        write_bench_corpus(path, n_docs)
        t0 = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", "neardup.ingest.cli", "dedup", str(path), "-o", os.devnull,
             "--no-progress"],
            cwd=ROOT,
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
                    help="the engine at --url (default: $NEARDUP_ENGINE, else asked of the node)")
    ap.add_argument("--url", default=None, help="the node (default $OPENSEARCH_URL)")
    ap.add_argument("--tmp", default=None, metavar="DIR",
                    help="where the corpus and the workers' logs go (default: $TMPDIR or /tmp); "
                         "~3.6 kB a page, twice that while the corpus is written")
    ap.add_argument("--force-merge", action="store_true",
                    help="also the index bytes after merging both indices to one segment")
    ap.add_argument("--skip-pipeline", action="store_true")
    ap.add_argument("--skip-dedup", action="store_true")
    args = ap.parse_args()
    summary: dict[str, Any] = {"cpus": os.cpu_count()}
    if not args.skip_pipeline:
        r = bench_pipeline(args.pipeline_docs, args.workers, args.batch, args.engine, args.url,
                           args.tmp, args.force_merge)
        summary["pipeline_vs_bulk"] = r["ratio"]
        summary["row"] = r["row"]
        print(f"{ROW_HEADER}\n{r['row']}", file=sys.stderr, flush=True)
    if not args.skip_dedup:
        small = bench_dedup(args.dedup_docs, args.tmp)
        large = bench_dedup(args.dedup_docs * args.scale, args.tmp)
        summary["dedup_docs_s"] = {small["docs"]: small["docs_s"], large["docs"]: large["docs_s"]}
        summary["time_per_doc_ratio"] = round(large["ms_per_doc"] / small["ms_per_doc"], 3)
    _emit({"summary": summary})


if __name__ == "__main__":
    main()
