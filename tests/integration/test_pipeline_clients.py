"""Pipeline tools pointed at ``neardup serve`` instead of the engine, unchanged: npm's
``elasticdump`` (``--type=data`` and ``--type=mapping``) and Debian's ``rsyslog`` with
``omelasticsearch`` in bulk mode (through an outage of neardup and its resume). No client-side
error, and the pages grouped as ``neardup dedup`` groups them. The tools are installed by
``scripts/clients.sh install`` (elasticdump under the cache, rsyslog-elasticsearch from
Debian); under ``CI=true`` a missing tool fails the run.

In front of OpenSearch 2.19 (the suite's node): both tools speak the engines' common REST API.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support.ci import unavailable
from support.corpus import corpus, partition
from support.ingest import embedded_groups, wait_grouped, write_jsonl
from support.server import free_port, start_server, stop
from support.workers import ROOT, cleanup_broker, running_workers, worker_env

CACHE = Path(os.environ.get("NEARDUP_CACHE", ROOT / ".cache"))

pytestmark = pytest.mark.slow


def _tool(path: Path | str | None, what: str) -> str:
    if path and Path(path).exists():
        return str(path)
    proc = subprocess.run([str(ROOT / "scripts" / "clients.sh"), "install"],
                          capture_output=True, text=True, timeout=900)
    if proc.returncode == 0 and path and Path(path).exists():
        return str(path)
    unavailable(f"{what} unavailable (scripts/clients.sh install: {proc.stderr[-2000:]})")


@pytest.fixture(scope="module")
def elasticdump() -> str:
    return _tool(CACHE / "npm" / "node_modules" / ".bin" / "elasticdump", "elasticdump")


@pytest.fixture
def pages(tmp_path: Path) -> tuple[list[dict[str, Any]], dict[str, str]]:
    path = tmp_path / "pages.jsonl"
    write_jsonl(path, corpus(200, seed=21))
    docs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return docs, embedded_groups(path)


@pytest.fixture
def serve(
    opensearch_url: str, redis_url: str, index_name: str, tmp_path: Path
) -> Any:
    env = worker_env(redis_url, opensearch_url, index_name)
    serve_env = {**os.environ, **env}
    try:
        with running_workers(env, tmp_path, 2):
            proc, url = start_server(serve_env, tmp_path, "serve", None)
            try:
                yield url
            finally:
                stop(proc)
    finally:
        cleanup_broker(env)


def _refused(log: Path) -> list[str]:
    """The requests in ``neardup serve``'s access log answered with a 4xx or 5xx."""
    import re

    answered = re.compile(r'"([A-Z]+) (\S+) HTTP/[0-9.]+" (\d{3})')
    return [f"{m[1]} {m[2]} -> {m[3]}" for m in answered.finditer(log.read_text(errors="replace"))
            if int(m[3]) >= 400]


def test_elasticdump_mapping_then_data(
    elasticdump: str, serve: str, index_name: str, opensearch_url: str,
    pages: tuple[list[dict[str, Any]], dict[str, str]], tmp_path: Path,
) -> None:
    docs, clean = pages
    # a mapping dumped from a neardup index elsewhere, and its pages
    from neardup.ingest.templates import load

    properties = load("pages-mappings")["template"]["mappings"]["properties"]
    mapping = tmp_path / "mapping.json"
    mapping.write_text(json.dumps({index_name: {"mappings": {"properties": properties}}}))
    data = tmp_path / "data.json"
    data.write_text("".join(
        json.dumps({"_index": index_name, "_id": d["id"], "_source": d}, ensure_ascii=False)
        + "\n" for d in docs), encoding="utf-8")
    for kind, source in (("mapping", mapping), ("data", data)):
        proc = subprocess.run(
            [elasticdump, f"--input={source}", f"--output={serve}/{index_name}",
             f"--type={kind}", "--limit=50"],
            capture_output=True, text=True, timeout=600,
        )
        out = proc.stdout + proc.stderr
        assert proc.returncode == 0 and "Error" not in out, out[-3000:]
    # every request it made was answered (elasticdump reports success over a 404 to a write)
    assert _refused(tmp_path / "serve.log") == []
    stored = wait_grouped(opensearch_url, index_name, list(clean))
    # elasticdump sends its batches in its own order: the representatives (earliest ingested)
    # may differ, the groups may not
    assert partition({i: d.dup_group for i, d in stored.items()}) == partition(clean)


RSYSLOG_CONF = """\
global(workDirectory="{work}" maxMessageSize="4m")
module(load="imfile")
module(load="mmjsonparse")
module(load="omelasticsearch")
template(name="doc" type="list") {{ property(name="$!all-json") }}
template(name="docid" type="list") {{ property(name="$!id") }}
input(type="imfile" file="{pages}" tag="pages" addMetadata="off" readMode="0")
action(type="mmjsonparse" cookie="")
action(type="omelasticsearch" server="127.0.0.1" serverport="{port}" searchIndex="{index}"
       searchType="" template="doc" bulkmode="on" dynbulkid="on" bulkid="docid"
       errorfile="{work}/errors.json" action.resumeRetryCount="-1" action.resumeInterval="1"
       queue.type="LinkedList" queue.size="10000" queue.dequeueBatchSize="50")
"""


@pytest.fixture(scope="module")
def rsyslogd() -> str:
    found = shutil.which("rsyslogd") or "/usr/sbin/rsyslogd"
    module = next(Path("/usr/lib").glob("*/rsyslog/omelasticsearch.so"), None)
    return _tool(found if module else None, "rsyslogd with omelasticsearch")


def test_rsyslog_omelasticsearch_bulk_through_an_outage(
    rsyslogd: str, opensearch_url: str, redis_url: str, index_name: str,
    pages: tuple[list[dict[str, Any]], dict[str, str]], tmp_path: Path,
) -> None:
    docs, clean = pages
    env = worker_env(redis_url, opensearch_url, index_name)
    serve_env = {**os.environ, **env}
    port = free_port()  # both servers: back on the same port
    work = tmp_path / "rsyslog"
    work.mkdir()
    feed = tmp_path / "feed.jsonl"
    feed.write_text("")
    conf = tmp_path / "rsyslog.conf"
    conf.write_text(RSYSLOG_CONF.format(work=work, pages=feed, port=port, index=index_name))
    half = len(docs) // 2

    def append(part: list[dict[str, Any]]) -> None:
        with feed.open("a", encoding="utf-8") as fh:
            fh.writelines(json.dumps(d, ensure_ascii=False) + "\n" for d in part)

    rsyslog = subprocess.Popen(
        [rsyslogd, "-n", "-f", str(conf), "-i", str(work / "rsyslogd.pid")],
        stdout=(tmp_path / "rsyslogd.log").open("wb"), stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        with running_workers(env, tmp_path, 2):
            proc, url = start_server(serve_env, tmp_path, "serve", None, port=port)
            try:
                append(docs[:half])
                wait_grouped(opensearch_url, index_name, [d["id"] for d in docs[:half]])
            finally:
                stop(proc)  # the outage: rsyslog keeps the rest queued and retries
            append(docs[half:])
            proc, url = start_server(serve_env, tmp_path, "serve2", None, port=port)
            try:
                stored = wait_grouped(opensearch_url, index_name, list(clean))
            finally:
                stop(proc)
    finally:
        rsyslog.terminate()
        rsyslog.wait(30)
        cleanup_broker(env)
    errors = work / "errors.json"
    assert not errors.exists() or not errors.read_text().strip(), errors.read_text()[-2000:]
    assert _refused(tmp_path / "serve.log") == [] and _refused(tmp_path / "serve2.log") == []
    assert {i: d.dup_group for i, d in stored.items()} == clean
