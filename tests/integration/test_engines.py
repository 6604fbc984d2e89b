"""The compatibility suite, on every engine of tests/support/engines.py (OpenSearch 2.19 and
3.x, Elasticsearch 8.19 and 9.x), each started by the project's own script: the engine is told
apart at connect, the templates install and upgrade, ``neardup ingest`` with Celery workers
groups exactly as ``neardup dedup`` does and search collapses on the groups, and pages sent to
``neardup serve``'s ``_bulk`` endpoint (opensearch-py's bulk helper, curl) land on the engine
grouped the same way."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support.corpus import corpus, partition
from support.ingest import embedded_groups, run_ingest, wait_grouped, write_jsonl
from support.server import start_server, stop
from support.workers import ROOT, cleanup_broker, running_workers, worker_env

from neardup.ingest.settings import Settings
from neardup.ingest.store import client_from_env, open_store
from neardup.ingest.store.detect import detect
from neardup.ingest.templates import load


def _settings(engine: Any, **extra: str) -> Settings:
    return Settings.from_env({**engine.client_env, **extra})


def _worker_env(redis_url: str, engine: Any, index: str) -> dict[str, str]:
    """:func:`worker_env` for ``engine``: its URL, and its credentials when security is on."""
    return worker_env(redis_url, engine.url, index, **engine.client_env)


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """300 pages with near-duplicates, and their groups from ``neardup dedup`` (embedded)."""
    path = tmp_path_factory.mktemp("engines") / "pages.jsonl"
    write_jsonl(path, corpus(300, seed=14))
    return path, embedded_groups(path)


def test_the_engine_is_told_apart_at_connect(engine: Any) -> None:
    found = detect(engine.url, _settings(engine))
    assert (found.engine, found.major) == (engine.engine, int(engine.version.split(".")[0]))
    store = open_store("engine", _settings(engine), index="neardup-test-none")
    info = store.engine_info()
    assert info["version"]["number"] == found.version
    assert (info["version"].get("distribution") == "opensearch") == (engine.engine == "opensearch")
    # naming the engine skips the question and opens the same backend
    named = open_store("engine", _settings(engine, NEARDUP_ENGINE=engine.engine), index="x")
    assert type(named) is type(store)
    store.close()
    named.close()


def test_templates_install_once_upgrade_and_keep_the_mapping_strict(
    engine: Any, engine_store: Any, tmp_path: Path
) -> None:
    assert set(engine_store.install_templates().values()) == {"unchanged"}
    bumped = tmp_path / "mappings"
    shutil.copytree(ROOT / "mappings", bumped, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    body = load("pages-mappings")
    body["_meta"]["version"] += 1
    (bumped / "pages-mappings.json").write_text(json.dumps(body))
    upgraded = open_store(
        "engine", _settings(engine, NEARDUP_MAPPINGS_DIR=str(bumped)), index=engine_store.index
    )
    done = upgraded.install_templates()
    assert done[f"{engine_store.index}-mappings"] == "upgraded"
    assert done[f"{engine_store.index}-settings"] == "unchanged"
    # dynamic: strict on every engine: a field outside the contract is refused
    client = client_from_env(engine.url, _settings(engine))
    with pytest.raises(Exception, match="strict_dynamic_mapping_exception"):
        client.index(index=engine_store.index, id="bad", body={"id": "bad", "no_such_field": 1})
    client.close()


@pytest.mark.slow
def test_ingest_with_workers_groups_like_dedup_and_search_collapses(
    engine: Any, engine_index: str, redis_url: str, pages: tuple[Path, dict[str, str]],
    tmp_path: Path,
) -> None:
    path, clean = pages
    env = _worker_env(redis_url, engine, engine_index)
    try:
        with running_workers(env, tmp_path, 2) as workers:
            summary = run_ingest(path, env, "--index", engine_index)
            assert summary["indexed"] == len(clean) and summary["errors"] == 0, (
                summary, workers.logs(),
            )
    finally:
        cleanup_broker(env)
    store = open_store("engine", _settings(engine), index=engine_index)
    stored = store.mget(list(clean), with_fingerprints=False)
    assert all(d.status == "grouped" for d in stored.values())
    assert {i: d.dup_group for i, d in stored.items()} == clean
    store.refresh()
    hits = store.collapsed_search("中国", size=500, inner_hits_size=3)
    groups = [h["_source"]["dup_group"] if "_source" in h else h["fields"]["dup_group"][0]
              for h in hits]
    assert hits and len(groups) == len(set(groups))
    assert any(h["inner_hits"]["members"]["hits"]["total"]["value"] > 1 for h in hits)
    store.close()


def test_backfill_tags_an_index_filled_by_the_engines_own_bulk_helper(
    engine: Any, engine_index: str, redis_url: str, pages: tuple[Path, dict[str, str]],
    tmp_path: Path,
) -> None:
    """``neardup backfill`` on an index another pipeline filled with the engine's own client
    (``helpers.bulk``, dynamic mapping): tagged in place, the partition of ``neardup dedup``."""
    import importlib
    import json
    import os
    import subprocess
    import sys

    path, clean = pages
    client = client_from_env(settings=_settings(engine))
    helpers = importlib.import_module(type(client).__module__.split(".")[0] + ".helpers")
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    ok, errors = helpers.bulk(client, ({"_index": engine_index, "_id": r["id"],
                                        "_source": {"text": r["text"], "site": r["site"]}}
                                       for r in records), refresh=True)
    assert ok == len(records) and not errors
    env = _worker_env(redis_url, engine, engine_index)
    try:
        with running_workers(env, tmp_path, 2) as workers:
            proc = subprocess.run(
                [sys.executable, "-m", "neardup.ingest.cli", "backfill", engine_index, "--no-progress"],
                cwd=ROOT, env=dict(os.environ, **env),
                capture_output=True, text=True, timeout=600,
            )
            assert proc.returncode == 0, (proc.stderr[-3000:], workers.logs())
    finally:
        cleanup_broker(env)
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert summary["accepted"] == len(records) and summary["indexed"] == len(records)
    store = open_store("engine", _settings(engine), index=engine_index)
    stored = store.mget(list(clean), with_fingerprints=False)
    assert partition({i: d.dup_group for i, d in stored.items()}) == partition(clean)
    store.close()
    client.close()


@pytest.mark.slow
def test_bulk_endpoint_with_real_clients_groups_like_dedup(
    engine: Any, engine_index: str, redis_url: str, pages: tuple[Path, dict[str, str]],
    tmp_path: Path,
) -> None:
    """Pipeline clients against ``neardup serve`` in front of the engine, each sending a share
    of the pages to ``_bulk`` unchanged: opensearch-py's ``helpers.bulk``, curl, and in front of
    Elasticsearch its official clients 8 and 9 (``helpers.bulk``, ``streaming_bulk``). No
    client-side error, and the pages grouped as ``neardup dedup`` groups them."""

    path, clean = pages
    env = _worker_env(redis_url, engine, engine_index)
    docs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    # one after the other, in the file's order: the same ingest order, so the same group ids
    n = len(engine.bulk_clients)
    cut = [len(docs) * i // n for i in range(n + 1)]
    shares = {name: docs[cut[i] : cut[i + 1]] for i, name in enumerate(engine.bulk_clients)}
    serve_env = {**os.environ, **env}
    try:
        with running_workers(env, tmp_path, 2):
            proc, url = start_server(serve_env, tmp_path, "serve", None)
            try:
                for name, share in shares.items():
                    assert SEND[name](url, engine_index, share, tmp_path) == len(share), name
                stored = wait_grouped(engine.url, engine_index, list(clean), env=engine.client_env)
            finally:
                stop(proc)
    finally:
        cleanup_broker(env)
    assert {i: d.dup_group for i, d in stored.items()} == clean


def _actions(index: str, docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"_index": index, "_id": d["id"], "_source": d} for d in docs]


def _send_opensearch_py(url: str, index: str, docs: list[dict[str, Any]], tmp: Path) -> int:
    from opensearchpy import OpenSearch, helpers

    client = OpenSearch(url, timeout=120)
    ok, errors = helpers.bulk(client, _actions(index, docs), chunk_size=40)
    client.close()
    assert errors == []
    return int(ok)


def _send_elasticsearch(package: str) -> Any:
    def send(url: str, index: str, docs: list[dict[str, Any]], tmp: Path) -> int:
        import importlib

        es = importlib.import_module(package)
        helpers = importlib.import_module(f"{package}.helpers")
        client = es.Elasticsearch(url, request_timeout=120)
        if package == "elasticsearch8":
            ok, errors = helpers.bulk(client, _actions(index, docs), chunk_size=40)
            assert errors == []
        else:
            results = list(helpers.streaming_bulk(client, _actions(index, docs), chunk_size=40))
            ok = sum(1 for good, _ in results if good)
        client.close()
        return int(ok)

    return send


def _send_curl(url: str, index: str, docs: list[dict[str, Any]], tmp: Path) -> int:
    lines = "".join(
        json.dumps({"index": {"_index": index, "_id": d["id"]}}) + "\n"
        + json.dumps(d, ensure_ascii=False) + "\n"
        for d in docs
    )
    (tmp / "bulk.ndjson").write_text(lines, encoding="utf-8")
    out = subprocess.run(
        ["curl", "-sS", "-f", "-H", "Content-Type: application/x-ndjson",
         "--data-binary", f"@{tmp / 'bulk.ndjson'}", f"{url}/_bulk"],
        capture_output=True, text=True, timeout=300, check=True,
    )
    answer = json.loads(out.stdout)
    assert answer["errors"] is False
    return len(answer["items"])


SEND = {
    "opensearch-py": _send_opensearch_py,
    "elasticsearch8": _send_elasticsearch("elasticsearch8"),
    "elasticsearch": _send_elasticsearch("elasticsearch"),
    "curl": _send_curl,
}


@pytest.mark.slow
def test_what_clients_send_besides_bulk_is_answered_as_the_engine_would(
    engine: Any, engine_index: str, redis_url: str, tmp_path: Path
) -> None:
    """The official client of the engine neardup stands in front of (opensearch-py, or the
    Elasticsearch client of the node's major), used unchanged against ``neardup serve``:
    ``HEAD /index``, single-document writes through the ingest path, ``_refresh``,
    ``_cluster/health``, ``_cat/health``, the mapping read and put; a field outside the pages
    mapping is refused in the engine's error shape, and a repeated ``_create`` conflicts."""
    import importlib

    import httpx

    env = _worker_env(redis_url, engine, engine_index)
    serve_env = {**os.environ, **env}
    package = CLIENT_OF.get(engine.name, "opensearchpy")
    module = importlib.import_module(package)
    text = "人民日报 1998 年 1 月 1 日 第 1 版。" * 20
    try:
        with running_workers(env, tmp_path, 1):
            proc, url = start_server(serve_env, tmp_path, "serve", None)
            try:
                client = (module.OpenSearch(url, timeout=60) if package == "opensearchpy"
                          else module.Elasticsearch(url, request_timeout=60))
                assert client.indices.create(index=engine_index)["acknowledged"]
                assert client.indices.exists(index=engine_index)
                assert not client.indices.exists(index=f"{engine_index}-other")
                written = client.index(index=engine_index, id="one", body={"text": text})
                assert written["result"] == "created" and written["_id"] == "one"
                again = client.index(index=engine_index, id="one", body={"text": text})
                assert again["result"] == "noop"
                with pytest.raises(module.ConflictError):
                    client.create(index=engine_index, id="one", body={"text": text + "!"})
                client.indices.refresh(index=engine_index)
                assert client.cluster.health()["status"] in ("green", "yellow")
                mapping = client.indices.get_mapping(index=engine_index)
                fields = mapping[engine_index]["mappings"]["properties"]
                assert fields["fingerprints"]["type"] == "keyword"
                assert client.indices.put_mapping(
                    index=engine_index, body={"properties": {"site": fields["site"]}}
                )["acknowledged"]
                with pytest.raises(module.BadRequestError if package != "opensearchpy"
                                   else module.RequestError):
                    client.indices.put_mapping(
                        index=engine_index, body={"properties": {"colour": {"type": "keyword"}}}
                    )
                client.close()
                cat = httpx.get(f"{url}/_cat/health", timeout=30)
                assert cat.status_code == 200 and len(cat.text.split()) >= 8
                stored = wait_grouped(engine.url, engine_index, ["one"], env=engine.client_env)
                assert stored["one"].status == "grouped"
            finally:
                stop(proc)
    finally:
        cleanup_broker(env)


CLIENT_OF = {"elasticsearch-8": "elasticsearch8", "elasticsearch-9": "elasticsearch"}
