"""The HTTP path against the CLI: the same pages through ``neardup serve`` and ``neardup ingest``.

    python bench/http_path.py [--docs 20000] [--workers 2] [--request 500] [--clients 2]

Same node, same broker, same workers (2 Celery processes), same run; the corpus of
``bench/pipeline.py``. (a) ``neardup ingest FILE --wait`` into one index, timed from its start
until every page is indexed and searchable. (b) ``neardup serve`` on a free port (started and
ready before the clock starts), the pages POSTed as JSONL to ``/documents`` in requests of
``--request`` pages by ``--clients`` concurrent clients, then ``POST /<index>/_refresh`` (it
returns once the accepted pages are indexed); timed from the first request until the index
counts every page. Prints one JSON line per path and a summary with ``http_vs_cli`` = HTTP time
/ CLI time (goal ≤ 1.5).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from _pipeline_corpus import bench_corpus, write_jsonl  # noqa: E402
from pipeline import _cleanup_broker, _drop_templates, _emit, _start_workers  # noqa: E402


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _post(url: str, body: bytes, timeout: float = 600) -> dict[str, Any]:
    req = urllib.request.Request(url, data=body, method="POST",
                                 headers={"Content-Type": "application/x-ndjson"})
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        return dict(json.loads(resp.read() or b"{}"))


def bench(n_docs: int, workers: int, request: int, clients: int) -> dict[str, Any]:
    from neardup.ingest.settings import Settings
    from neardup.ingest.store import client_from_env, engine_settings

    settings = engine_settings(Settings.from_env(dict(os.environ)))
    client = client_from_env(settings=settings)
    tag = uuid.uuid4().hex[:8]
    cli_index, http_index = f"neardup-bench-cli-{tag}", f"neardup-bench-http-{tag}"
    broker = os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0")
    env = dict(
        os.environ,
        CELERY_BROKER_URL=f"{broker.rpartition('/')[0]}/{8 + int(tag, 16) % 8}",
        NEARDUP_QUEUE=f"neardup.bench.{tag}", NEARDUP_DEAD_LETTER=f"neardup.bench.{tag}.dead",
        NEARDUP_ENGINE=settings.engine, OPENSEARCH_URL=settings.opensearch_url,
    )
    docs = bench_corpus(n_docs)
    procs: list[subprocess.Popen[bytes]] = []
    server: subprocess.Popen[bytes] | None = None
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "corpus.jsonl"
        write_jsonl(path, docs)
        lines = path.read_bytes().splitlines(keepends=True)
        try:
            procs = _start_workers(workers, env, Path(tmp))
            t0 = time.perf_counter()
            proc = subprocess.run(
                [sys.executable, "-m", "neardup.ingest.cli", "ingest", str(path), "--wait",
                 "--no-progress", "--index", cli_index],
                cwd=ROOT, env={**env, "NEARDUP_INDEX": cli_index}, capture_output=True,
                text=True, timeout=7200,
            )
            cli_s = time.perf_counter() - t0
            if proc.returncode != 0:
                raise SystemExit(f"ingest failed: {proc.stderr[-3000:]}")
            cli_summary = json.loads(proc.stdout.strip().splitlines()[-1])

            port = _free_port()
            log = open(Path(tmp) / "serve.log", "wb")
            server = subprocess.Popen(
                [sys.executable, "-m", "neardup.ingest.cli", "serve", "--port", str(port), "--index",
                 http_index],
                cwd=ROOT, env={**env, "NEARDUP_INDEX": http_index}, stdout=log,
                stderr=subprocess.STDOUT,
            )
            base = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 120
            while True:
                try:
                    with urllib.request.urlopen(f"{base}/readyz", timeout=5) as r:
                        if r.status == 200:
                            break
                except OSError:
                    pass
                if time.monotonic() > deadline:
                    raise SystemExit("neardup serve did not become ready")
                time.sleep(0.2)
            bodies = [b"".join(lines[i:i + request]) for i in range(0, len(lines), request)]
            t0 = time.perf_counter()
            with ThreadPoolExecutor(clients) as pool:
                answers = list(pool.map(lambda b: _post(f"{base}/documents", b), bodies))
            posted_s = time.perf_counter() - t0
            _post(f"{base}/{http_index}/_refresh", b"")
            while client.count(index=http_index)["count"] < len(docs):
                if time.perf_counter() - t0 > 7200:
                    raise SystemExit("the HTTP path did not finish")
                time.sleep(0.1)
                _post(f"{base}/{http_index}/_refresh", b"")
            http_s = time.perf_counter() - t0
            errors = sum(1 for a in answers for i in a.get("items", [])
                         if int(i.get("status", 500)) >= 300)
        finally:
            if server is not None:
                server.terminate()
                server.wait(30)
            for p in procs:
                p.terminate()
            for p in procs:
                p.wait(30)
            client.indices.delete(
                index=f"{cli_index},{cli_index}-stoplist,{http_index},{http_index}-stoplist",
                ignore_unavailable=True,
            )
            _drop_templates(client, cli_index, http_index)
            for index in (cli_index, http_index):
                _cleanup_broker({**env, "NEARDUP_INDEX": index})
    record = {
        "bench": "http-vs-cli", "docs": len(docs), "workers": workers, "request": request,
        "clients": clients, "cli_s": round(cli_s, 2), "http_s": round(http_s, 2),
        "http_posted_s": round(posted_s, 2), "http_errors": errors,
        "http_vs_cli": round(http_s / cli_s, 3), "cli": cli_summary,
    }
    _emit(record)
    return record


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", type=int, default=20000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--request", type=int, default=500, help="pages per HTTP request")
    ap.add_argument("--clients", type=int, default=2, help="concurrent HTTP clients")
    args = ap.parse_args()
    r = bench(args.docs, args.workers, args.request, args.clients)
    _emit({"summary": {"cpus": os.cpu_count(), "http_vs_cli": r["http_vs_cli"]}})


if __name__ == "__main__":
    main()
