"""``neardup serve`` end to end: a real server process in front of the real OpenSearch node,
Redis broker and Celery worker processes.

The bulk endpoint is fed by ``opensearchpy.helpers.bulk`` pointed at the server, exactly as a
pipeline would be, and the pages must end up in the labelled groups of the corpus.
"""

from __future__ import annotations

import gzip
import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.chrome_sites import EN_SITE, expected
from support.chrome_sites import partition as chrome_partition
from support.corpus import partition
from support.server import MAX_BODY, Stack, bulk_actions, free_port, server_env, start_server, stop


def expected_groups(docs: list[dict[str, Any]]) -> set[frozenset[str]]:
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
        {"_op_type": "index", "_id": "bulk-gone", "_source": {"text": labelled[3]["text"]}},
        {"_op_type": "delete", "_id": "bulk-gone"},
        {"_op_type": "update", "_id": base["id"], "doc": {"title": "x"}},  # no text: a 400
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
                {"update": {"_id": "bulk-new-2"}},
                {"doc": {"text": labelled[2]["text"], "title": "T"}},
                {"delete": {"_id": "bulk-never"}},
                {"index": {"_id": "bulk-bad-source"}},
            )
        )
        + "{not json\n"
    )
    with stack.http() as http:
        # refresh: wait until the batches are indexed and the changes applied by a repair
        r = http.post("/_bulk?refresh=true", content=body,
                      headers={"Content-Type": "application/x-ndjson"})
    assert r.status_code == 200
    out = r.json()
    assert out["errors"] is True and isinstance(out["took"], int)
    assert [(next(iter(i)), next(iter(i.values()))["status"],
             next(iter(i.values())).get("result")) for i in out["items"]] == [
        ("index", 201, "created"),
        ("delete", 200, "deleted"),
        ("create", 201, "created"),
        ("update", 200, "updated"),
        ("delete", 404, "not_found"),
        ("index", 400, None),
    ]
    assert out["items"][0]["index"]["_index"] == stack.index
    docs = stack.wait_grouped(["bulk-new-1", "bulk-html", "bulk-new-2"])
    assert docs["bulk-new-2"]["title"] == "T"
    with stack.http() as http:
        assert http.get("/documents/bulk-gone").status_code == 404
        # a page deleted over HTTP
        assert http.delete("/documents/bulk-html").json()["result"] == "deleted"
        assert http.delete("/documents/no-such-page").status_code == 404


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
    env = server_env("unused", f"http://127.0.0.1:{dead}", f"redis://127.0.0.1:{dead}/0", "unused")
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
    env = server_env("unused", stack.opensearch_url, f"redis://127.0.0.1:{dead}/0", stack.index)
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


def test_site_chrome_counted_in_redis_keeps_a_sites_articles_apart(stack: Stack) -> None:
    # One site's 26 short articles and 3 copies of one, inside a ~600-word header and footer
    # (tests/support/chrome_sites.py), in one bulk request: the service counts the request's
    # lines in Redis before it masks any page, so each article is its own group.
    from opensearchpy import OpenSearch, helpers

    from neardup.ingest.chrome import ChromeRule
    from neardup.ingest.workers._redis import connect
    from neardup.ingest.workers.chrome_counts import SharedChromeCounts

    pages, copies = EN_SITE
    client = OpenSearch(stack.url, http_auth=("pipeline", stack.token), timeout=120)
    actions = [{"_op_type": "index", "_index": "crawl", "_id": p["id"],
                "_source": {"text": p["text"], "url": p["url"]}} for p in pages]
    assert helpers.bulk(client, actions, chunk_size=len(actions)) == (len(pages), [])
    docs = stack.wait_grouped([p["id"] for p in pages])
    assert {d["status"] for d in docs.values()} == {"grouped"}
    assert chrome_partition({i: d["dup_group"] for i, d in docs.items()}) == \
        expected(pages, copies)
    counts = SharedChromeCounts(connect(stack.broker_url), stack.index, ChromeRule())
    assert counts.pages("courier.example") == len(pages)
    # sent again, nothing is counted twice
    assert helpers.bulk(client, actions, chunk_size=len(actions)) == (len(pages), [])
    assert counts.pages("courier.example") == len(pages)
