"""``neardup serve`` end to end: a real server process in front of the real OpenSearch node,
Redis broker and Celery worker processes.

The bulk endpoint is fed by ``opensearchpy.helpers.bulk`` pointed at the server, exactly as a
pipeline would be, and the pages must end up in the labelled groups of the corpus.
"""

from __future__ import annotations

import gzip
import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
TOKEN = "test-token-" + uuid.uuid4().hex[:8]
MAX_BODY = 1024 * 1024


def _unavailable(reason: str) -> None:
    if IN_CI:
        pytest.fail(f"required service unavailable under CI: {reason}", pytrace=False)
    pytest.skip(reason)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Stack:
    """A running ``neardup serve`` (and its workers) on a private index and queue."""

    url: str
    index: str
    queue: str
    token: str | None
    logs: Path
    opensearch_url: str = "http://127.0.0.1:9200"
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)
    broker_url: str = ""

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def http(self) -> httpx.Client:
        return httpx.Client(base_url=self.url, headers=self.auth, timeout=60)

    def refresh(self) -> None:
        from opensearchpy import OpenSearch

        client = OpenSearch(self.opensearch_url)
        client.indices.refresh(index=self.index)
        client.close()

    def tail_logs(self) -> str:
        out = []
        for log in sorted(self.logs.glob("*.log")):
            out.append(f"--- {log.name}\n{log.read_text(errors='replace')[-3000:]}")
        return "\n".join(out)

    def wait_grouped(self, ids: list[str], timeout: float = 240) -> dict[str, dict[str, Any]]:
        """GET /documents/{id} until none of ``ids`` is pending; their answers by id.

        ``GET /documents`` reads in real time; group listings are searches, which see the
        last write-backs after the index's next refresh (:meth:`refresh`)."""
        deadline = time.monotonic() + timeout
        docs: dict[str, dict[str, Any]] = {}
        with self.http() as client:
            left = list(ids)
            while left:
                for doc_id in list(left):
                    r = client.get(f"/documents/{doc_id}")
                    if r.status_code == 200 and r.json()["status"] != "pending":
                        docs[doc_id] = r.json()
                        left.remove(doc_id)
                if left and time.monotonic() > deadline:
                    pytest.fail(
                        f"{len(left)} documents still pending after {timeout}s, e.g. {left[:5]}\n"
                        + self.tail_logs()
                    )
                if left:
                    time.sleep(0.5)
        return docs


def _env(stack_queue: str, opensearch_url: str, redis_url: str, index: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        OPENSEARCH_URL=opensearch_url,
        CELERY_BROKER_URL=redis_url,
        NEARDUP_INDEX=index,
        NEARDUP_QUEUE=stack_queue,
        NEARDUP_DEAD_LETTER=f"{stack_queue}.dead",
        PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""),
        PYTHONUNBUFFERED="1",
    )
    return env


def start_server(
    env: dict[str, str], logs: Path, name: str, token: str | None, *extra: str
) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = dict(env)
    env.pop("NEARDUP_TOKEN", None)
    if token:
        env["NEARDUP_TOKEN"] = token
    log = (logs / f"{name}.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "neardup.ingest.cli", "serve", "--port", str(port), *extra],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    stop(proc)
    _unavailable(f"neardup serve did not start:\n{(logs / f'{name}.log').read_text()[-3000:]}")
    raise AssertionError("unreachable")


def stop(proc: subprocess.Popen[bytes]) -> None:
    """End a process this test started (and its children, in their own session)."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=15)
    except (subprocess.TimeoutExpired, ProcessLookupError):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=10)


def wipe_index(client: Any, name: str) -> None:
    """Delete ``name``, ``name-*`` indices and templates (exact names only)."""
    from opensearchpy.exceptions import NotFoundError

    def owned(names: Any) -> list[str]:
        return sorted(n for n in names if n == name or n.startswith(f"{name}-"))

    try:
        indices = client.indices.get(index=f"{name},{name}-*", expand_wildcards="open,closed")
    except NotFoundError:
        indices = {}
    for index in owned(indices):
        client.indices.delete(index=index, ignore_unavailable=True)
    try:
        found = client.indices.get_index_template(name=f"{name}*")["index_templates"]
    except NotFoundError:
        found = []
    for template in owned(t["name"] for t in found):
        client.indices.delete_index_template(name=template)
    try:
        found = client.cluster.get_component_template(name=f"{name}*")["component_templates"]
    except NotFoundError:
        found = []
    for template in owned(t["name"] for t in found):
        client.cluster.delete_component_template(name=template)


@pytest.fixture(scope="module")
def stack(
    opensearch_url: str, redis_url: str, os_client: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    """``neardup serve`` with a token and a 1 MiB body limit, and two worker processes
    (tests/integration/workers.py), on a fresh index, queue and Redis DB; everything is stopped
    and deleted afterwards."""
    from workers import Workers, cleanup_broker, worker_env

    name = f"neardup-test-serve-{uuid.uuid4().hex[:10]}"
    logs = tmp_path_factory.mktemp("serve-logs")
    wenv = worker_env(redis_url, opensearch_url, name)
    env = _env(wenv["NEARDUP_QUEUE"], opensearch_url, wenv["CELERY_BROKER_URL"], name)
    env.update(wenv)
    workers = Workers(wenv, logs)
    server = None
    try:
        server, url = start_server(env, logs, "server", TOKEN, "--max-body", str(MAX_BODY))
        workers.start(2)
        yield Stack(url, name, wenv["NEARDUP_QUEUE"], TOKEN, logs, opensearch_url, [server],
                    wenv["CELERY_BROKER_URL"])
    finally:
        if server is not None:
            stop(server)
        workers.stop()
        wipe_index(os_client, name)
        cleanup_broker(wenv)


@pytest.fixture(scope="module")
def labelled(people_daily: Path) -> list[dict[str, Any]]:
    """40 pages in labelled near-duplicate groups (tests/integration/corpus.py)."""
    from corpus import corpus

    return corpus(40, seed=2024)


def bulk_actions(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``helpers.bulk`` actions for the labelled pages (with fields neardup drops)."""
    return [
        {
            "_op_type": "index",
            "_index": "crawl-2024.05",
            "_id": d["id"],
            "_source": {"text": d["text"], "site": d["site"], "title": d["id"], "crawler": "x"},
        }
        for d in docs
    ]


@pytest.fixture(scope="module")
def grouped(stack: Stack, labelled: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The labelled pages sent (again: a noop after the bulk test) and grouped."""
    from opensearchpy import OpenSearch, helpers

    client = OpenSearch(stack.url, headers=stack.auth, timeout=120)
    assert helpers.bulk(client, bulk_actions(labelled)) == (len(labelled), [])
    docs = stack.wait_grouped([d["id"] for d in labelled])
    stack.refresh()
    return docs


def expected_groups(docs: list[dict[str, Any]]) -> set[frozenset[str]]:
    from corpus import partition

    return partition({d["id"]: d["group"] for d in docs})


# -- tests ---------------------------------------------------------------------------------------


def test_opensearch_py_bulk_helper_through_neardup_groups_the_pages(
    stack: Stack, labelled: list[dict[str, Any]]
) -> None:
    from opensearchpy import OpenSearch, helpers

    # a pipeline's client, pointed at neardup instead of OpenSearch (basic auth: token as password)
    client = OpenSearch(stack.url, http_auth=("pipeline", stack.token), timeout=120)
    assert client.info()["version"]["distribution"] == "opensearch"
    actions = bulk_actions(labelled)
    ok, errors = helpers.bulk(client, actions, chunk_size=15)
    assert (ok, errors) == (len(labelled), [])

    docs = stack.wait_grouped([d["id"] for d in labelled])
    assert all(d["status"] == "grouped" for d in docs.values()), [
        (i, d["status"], d["error"]) for i, d in docs.items() if d["status"] != "grouped"
    ]
    found: dict[str, set[str]] = {}
    for doc_id, doc in docs.items():
        found.setdefault(doc["dup_group"], set()).add(doc_id)
    assert {frozenset(s) for s in found.values()} == expected_groups(labelled)

    # every group answers with its representative (earliest member) and scored members
    stack.refresh()
    with stack.http() as http:
        for group_id, members in found.items():
            group = http.get(f"/groups/{group_id}").json()
            assert group["size"] == len(members)
            assert group["representative"]["id"] == group_id
            assert {m["id"] for m in group["members"]} == members - {group_id}
            for m in group["members"]:
                assert m["dup_group"] == group_id
                assert m["contain"] is not None and m["resemble"] is not None

    # sending the same bulk again changes nothing
    results = list(helpers.streaming_bulk(client, actions, chunk_size=40))
    assert all(ok for ok, _ in results)
    assert {item["index"]["result"] for _, item in results} == {"noop"}
    with stack.http() as http:
        again = {d["id"]: http.get(f"/documents/{d['id']}").json() for d in labelled}
    assert {i: d["dup_group"] for i, d in again.items()} == {
        i: d["dup_group"] for i, d in docs.items()
    }


def test_bulk_response_keeps_order_and_reports_per_item_errors(
    stack: Stack, labelled: list[dict[str, Any]]
) -> None:
    from opensearchpy import OpenSearch, helpers
    from opensearchpy.helpers import BulkIndexError

    client = OpenSearch(stack.url, headers=stack.auth, timeout=120)
    base = labelled[0]
    actions = [
        {"_op_type": "create", "_id": "bulk-new-1", "_source": {"text": base["text"] + " 新"}},
        {"_op_type": "create", "_id": base["id"], "_source": {"text": base["text"]}},
        {"_op_type": "delete", "_id": base["id"]},
        {"_op_type": "update", "_id": base["id"], "doc": {"title": "x"}},
        {"_op_type": "index", "_id": "bulk-empty", "_source": {"text": "   "}},
        {"_op_type": "index", "_id": "bulk-html", "_source": {"html": "<p>" + labelled[1]["text"] + "</p>"}},
    ]  # fmt: skip
    with pytest.raises(BulkIndexError) as failure:
        helpers.bulk(client, actions)
    failed = {next(iter(e.values()))["_id"]: next(iter(e.values())) for e in failure.value.errors}
    assert set(failed) == {base["id"], "bulk-empty"}

    # the raw answer, in the bulk format and the request's order
    body = (
        "".join(
            json.dumps(line) + "\n"
            for line in (
                {"index": {"_id": "bulk-new-2"}},
                {"text": labelled[2]["text"]},
                {"delete": {"_id": "bulk-new-2"}},
                {"create": {"_id": "bulk-new-2"}},
                {"text": labelled[2]["text"]},
                {"index": {"_id": "bulk-bad-source"}},
            )
        )
        + "{not json\n"
    )
    with stack.http() as http:
        r = http.post("/_bulk", content=body, headers={"Content-Type": "application/x-ndjson"})
    assert r.status_code == 200
    out = r.json()
    assert out["errors"] is True and isinstance(out["took"], int)
    assert [(next(iter(i)), next(iter(i.values()))["status"]) for i in out["items"]] == [
        ("index", 201),
        ("delete", 400),
        ("create", 409),
        ("index", 400),
    ]
    assert out["items"][0]["index"]["_index"] == stack.index
    stack.wait_grouped(["bulk-new-1", "bulk-html", "bulk-new-2"])


def test_documents_round_trip(
    stack: Stack, labelled: list[dict[str, Any]], grouped: dict[str, dict[str, Any]]
) -> None:
    group = [d for d in labelled if d["group"] == labelled[0]["group"]]
    text = group[0]["text"]
    jsonl = "\n".join(
        json.dumps(d, ensure_ascii=False)
        for d in (
            {"id": "docs-a", "text": text, "url": "https://a.example/1", "site": "a.example"},
            {"id": "docs-b", "html": f"<html><body><nav>菜单</nav><p>{text}</p></body></html>"},
            {"id": "docs-c", "text": "这是一篇完全不同的文章，讲的是天气和农业。" * 5},
            {"id": "docs-bad"},
        )
    )
    with stack.http() as http:
        r = http.post("/documents", content=jsonl.encode())
        assert r.status_code == 200
        out = r.json()
        assert out["errors"] is True
        assert [(i["id"], i["status"]) for i in out["items"]] == [
            ("docs-a", 201),
            ("docs-b", 201),
            ("docs-c", 201),
            ("docs-bad", 400),
        ]
        docs = stack.wait_grouped(["docs-a", "docs-b", "docs-c"])
        stack.refresh()
        # docs-a repeats a page of the corpus ingested earlier: same group as that page
        first = http.get(f"/documents/{group[0]['id']}").json()
        assert docs["docs-a"]["dup_group"] == docs["docs-b"]["dup_group"] == first["dup_group"]
        assert docs["docs-a"]["url"] == "https://a.example/1"
        assert docs["docs-c"]["dup_group"] == "docs-c"  # a page of its own: representative
        g = http.get(f"/groups/{first['dup_group']}").json()
        assert {"docs-a", "docs-b"} <= {m["id"] for m in g["members"]}
        assert http.get("/documents/no-such-doc").status_code == 404
        assert http.get("/groups/no-such-group").status_code == 404


def test_auth_size_limit_and_malformed_bodies(stack: Stack) -> None:
    with httpx.Client(base_url=stack.url, timeout=30) as anon:
        for method, path in (("POST", "/documents"), ("POST", "/_bulk"), ("GET", "/groups/x"),
                             ("GET", "/documents/x"), ("GET", "/api/groups"), ("GET", "/")):  # fmt: skip
            r = anon.request(method, path, content=b"{}")
            assert r.status_code == 401, (method, path)
            assert r.json()["error"]["type"] == "security_exception"
        wrong = anon.get("/documents/x", headers={"Authorization": "Bearer wrong"})
        assert wrong.status_code == 401
        assert anon.get("/healthz").status_code == 200
        assert anon.get("/readyz").status_code == 200
        assert anon.get("/inspector/").status_code == 200

    with stack.http() as http:
        big = json.dumps({"id": "big", "text": "字" * MAX_BODY}).encode()
        r = http.post("/documents", content=big)
        assert r.status_code == 413
        assert r.json()["error"]["type"] == "request_entity_too_large"
        r = http.post("/_bulk", content=gzip.compress(b'{"index":{}}\n' + big + b"\n"),
                      headers={"Content-Encoding": "gzip"})  # fmt: skip
        assert r.status_code == 413
        for body in (b"{", b"[]", b"\xff\xfe"):
            r = http.post("/documents", content=body)
            assert r.status_code == 400 and r.json()["error"]["type"] == "parse_exception"
        r = http.post("/_bulk", content=b"garbage\n")
        assert r.status_code == 400
        assert "Malformed action/metadata line [1]" in r.json()["error"]["reason"]
        r = http.get("/api/groups", params={"size": "lots"})
        assert r.status_code == 400


def test_readyz_reports_the_dependencies(stack: Stack, tmp_path: Path) -> None:
    r = httpx.get(f"{stack.url}/readyz", timeout=30)
    assert r.status_code == 200
    assert r.json() == {"status": "ready", "checks": {"opensearch": "ok", "broker": "ok"}}

    # a server whose OpenSearch and broker are gone: alive, not ready, 503 on ingest
    dead = free_port()
    env = _env("unused", f"http://127.0.0.1:{dead}", f"redis://127.0.0.1:{dead}/0", "unused")
    proc, url = start_server(env, tmp_path, "dead-deps", None)
    try:
        assert httpx.get(f"{url}/healthz", timeout=10).status_code == 200
        r = httpx.get(f"{url}/readyz", timeout=30)
        assert r.status_code == 503
        checks = r.json()["checks"]
        assert checks["opensearch"] != "ok" and checks["broker"] != "ok"
        r = httpx.post(f"{url}/documents", json={"id": "a", "text": "x" * 100}, timeout=120)
        assert r.status_code == 503 and r.headers["retry-after"]
        assert r.json()["error"]["type"] == "unavailable"
    finally:
        stop(proc)


def test_broker_outage_answers_503_items_quickly_and_a_resend_heals(
    stack: Stack, tmp_path: Path
) -> None:
    dead = free_port()
    env = _env("unused", stack.opensearch_url, f"redis://127.0.0.1:{dead}/0", stack.index)
    proc, url = start_server(env, tmp_path, "dead-broker", None)
    doc = {"id": "outage-1", "text": "这是一篇关于港口维修的新闻，北码头将从三月起关闭。" * 6}
    try:
        started = time.monotonic()
        r = httpx.post(f"{url}/documents", json=doc, timeout=120)
        assert time.monotonic() - started < 30
        assert r.status_code == 503 and r.json()["error"]["type"] == "queue_unavailable"
    finally:
        stop(proc)
    # nothing accepted; the same page sent to a healthy server is accepted and grouped
    with stack.http() as http:
        assert http.get("/documents/outage-1").status_code == 404
        r = http.post("/documents", json=doc)
        assert r.json() == {"id": "outage-1", "status": 201, "result": "created", "queued": True}
    assert stack.wait_grouped(["outage-1"])["outage-1"]["status"] == "grouped"


def test_inspector_api_lists_the_largest_groups_and_explains_them(
    stack: Stack, grouped: dict[str, dict[str, Any]]
) -> None:
    with stack.http() as http:
        groups = http.get("/api/groups", params={"size": 3}).json()
    assert groups["index"] == stack.index
    sizes = [g["size"] for g in groups["groups"]]
    assert sizes == sorted(sizes, reverse=True) and len(sizes) <= 3 and sizes[0] >= 2
    largest = groups["groups"][0]
    assert largest["snippet"]
    with stack.http() as http:
        explained = http.get(f"/api/groups/{largest['id']}/explain").json()
    assert explained["size"] == largest["size"]
    assert explained["representative"]["id"] == largest["id"]
    for member in explained["members"]:
        assert member["verdict"]["similar"] is True
        for side in ("member_segments", "representative_segments"):
            marked = "".join(s["text"] for s in member[side] if s["mark"])
            whole = "".join(s["text"] for s in member[side])
            # one central region covering most of the article (the variants drop up to 30 %)
            assert sum(s["mark"] for s in member[side]) == 1
            assert len(marked) >= 0.5 * len(whole)
        # the head template (site name, navigation) is left out
        whole = "".join(s["text"] for s in member["member_segments"])
        assert not member["member_segments"][0]["mark"]
        assert whole.startswith(member["member_segments"][0]["text"])
