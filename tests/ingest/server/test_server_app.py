"""HTTP behaviour of ``neardup serve`` in process: the embedded store behind the app, the
queue recorded in a list (the real stack is in tests/integration/test_server.py)."""

from __future__ import annotations

import base64
import gzip
import json
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from support.fakes import FakeBatchQueue

from neardup.ingest.server.app import create_app
from neardup.ingest.server.config import ServerConfig
from neardup.ingest.server.service import IngestService
from neardup.ingest.store import open_store

with warnings.catch_warnings():
    # Starlette >= 1.x prefers httpx2 for its test client; httpx works the same here.
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

TEXT = (
    "The city council approved the new budget on Tuesday after a long debate about schools. "
    "Funding for public libraries will rise by ten percent next year, the mayor said. "
    "Critics argued that road repairs had been neglected for far too long in the east."
)


Queue = FakeBatchQueue


@pytest.fixture
def store() -> Iterator[Any]:
    store = open_store("embedded")
    yield store
    store.close()


@pytest.fixture
def queue(store: Any) -> Queue:
    return Queue(store)


@pytest.fixture
def service(queue: Queue, store: Any) -> Iterator[IngestService]:
    yield IngestService(store, queue=queue)
    store.close()


def client_for(service: IngestService, **config: Any) -> TestClient:
    return TestClient(create_app(service, ServerConfig(**config)))


@pytest.fixture
def client(service: IngestService) -> TestClient:
    return client_for(service)


def bulk_body(*lines: object) -> bytes:
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def test_healthz(client: TestClient) -> None:
    r = client.get("/healthz")
    assert r.status_code == 200 and r.json() == {"status": "ok"}


def test_post_one_document_then_read_it(client: TestClient, queue: Queue) -> None:
    r = client.post("/documents", json={"id": "a", "text": TEXT, "url": "http://x/a"})
    assert r.status_code == 201, r.text
    assert r.json() == {"id": "a", "status": 201, "result": "created", "queued": True}
    assert queue == ["a"]
    doc = client.get("/documents/a").json()
    assert doc["id"] == "a" and doc["url"] == "http://x/a" and doc["status"] == "grouped"
    assert doc["dup_group"] == "a" and doc["length"] == len(TEXT)
    assert "fingerprints" not in doc and "body" not in doc


def test_reingest_is_a_noop_and_a_change_is_a_new_version(
    client: TestClient, queue: Queue
) -> None:
    client.post("/documents", json={"id": "a", "text": TEXT})
    r = client.post("/documents", json={"id": "a", "text": TEXT})
    assert r.status_code == 200 and r.json()["result"] == "noop"
    assert queue == ["a"] and queue.changes == []  # indexed already: not accepted again
    r = client.post("/documents", json={"id": "a", "text": TEXT + " Updated.", "title": "T"})
    assert r.status_code == 200, r.text
    assert r.json() == {"id": "a", "status": 200, "result": "updated", "queued": True}
    assert queue == ["a"]  # not a batch: a change staged for a repair
    [change] = queue.changes
    assert change["op"] == "put" and change["id"] == "a" and change["counted"] == ""
    assert change["doc"].body.endswith("Updated.") and change["doc"].title == "T"
    doc = client.get("/documents/a").json()  # the fake repair applied it
    assert doc["title"] == "T" and doc["length"] == len(TEXT + " Updated.")
    # create of an id that exists stays a conflict
    r = client.put(f"/{service_index(client)}/_create/a", json={"text": TEXT})
    assert r.status_code == 409
    assert r.json()["error"]["type"] == "version_conflict_engine_exception"


def test_a_new_version_of_an_html_page_is_not_counted(client: TestClient, queue: Queue) -> None:
    html = f"<html><body><p>{TEXT}</p></body></html>"
    client.post("/documents", json={"id": "h", "html": html, "url": "http://x.org/h"})
    r = client.post("/documents", json={"id": "h", "html": html.replace("Tuesday", "Monday"),
                                        "url": "http://x.org/h"})
    assert r.json()["result"] == "updated"
    assert queue.changes[0]["counted"] is None
    r = client.post("/documents", json={"id": "t", "text": TEXT, "url": "http://www.x.org/t"})
    r = client.post("/documents", json={"id": "t", "text": TEXT + " Again.",
                                        "url": "http://www.x.org/t"})
    assert queue.changes[1]["counted"] == "x.org"


def test_reads_say_whether_repairs_may_still_move_groups(
    client: TestClient, queue: Queue, monkeypatch: pytest.MonkeyPatch
) -> None:
    client.post("/documents", json={"id": "a", "text": TEXT})
    assert client.get("/documents/a").json()["settled"] is True
    assert client.get("/groups/a").json()["settled"] is True
    monkeypatch.setattr(queue, "repairs_pending", lambda: {"changes": 1, "sites": 0})
    assert client.get("/documents/a").json()["settled"] is False
    assert client.get("/groups/a").json()["settled"] is False

    def down() -> dict[str, int]:
        raise ConnectionError("broker down")

    monkeypatch.setattr(queue, "repairs_pending", down)
    assert client.get("/documents/a").json()["settled"] is None


def test_delete_a_document(client: TestClient, queue: Queue) -> None:
    client.post("/documents", json={"id": "a", "text": TEXT})
    r = client.delete("/documents/a")
    assert r.status_code == 200, r.text
    assert r.json() == {"id": "a", "status": 200, "result": "deleted", "queued": True}
    assert queue.changes == [{"op": "delete", "id": "a"}]
    assert client.get("/documents/a").status_code == 404  # the fake repair applied it
    r = client.delete("/documents/a")
    assert r.status_code == 404 and r.json()["error"]["type"] == "document_missing_exception"
    assert len(queue.changes) == 1
    # an id no page can have
    assert client.delete("/documents/%20").status_code == 400


def test_delete_over_the_engine_api(client: TestClient, queue: Queue) -> None:
    index = service_index(client)
    client.post("/documents", json={"id": "a", "text": TEXT})
    r = client.delete(f"/{index}/_doc/a")
    assert r.status_code == 200 and r.json()["result"] == "deleted"
    r = client.delete(f"/{index}/_doc/a")
    assert r.status_code == 404 and r.json()["result"] == "not_found"


def test_changes_when_the_broker_is_down_are_503(client: TestClient, queue: Queue) -> None:
    client.post("/documents", json={"id": "a", "text": TEXT})
    queue.fail = True
    r = client.post("/documents", json={"id": "a", "text": TEXT + " Updated."})
    assert r.status_code == 503 and r.json()["error"]["type"] == "queue_unavailable"
    assert client.delete("/documents/a").status_code == 503
    queue.fail = False
    assert client.delete("/documents/a").status_code == 200


def test_a_page_accepted_and_not_yet_decided_reads_as_pending(store: Any) -> None:
    pipeline = Queue()  # no worker: accepted pages stay undecided
    client = client_for(IngestService(store, queue=pipeline))
    assert client.post("/documents", json={"id": "a", "text": TEXT}).status_code == 201
    doc = client.get("/documents/a").json()
    assert doc["status"] == "pending" and doc["state"] == "pending"
    assert client.get("/documents/b").status_code == 404
    # accepted already: the same page again changes nothing, another text is a new version
    r = client.post("/documents", json={"id": "a", "text": TEXT})
    assert r.status_code == 200 and r.json()["result"] == "noop"
    r = client.post("/documents", json={"id": "a", "text": TEXT + " More."})
    assert r.status_code == 200 and r.json()["result"] == "updated"
    assert pipeline == ["a"] and [c["op"] for c in pipeline.changes] == ["put"]
    # an undecided page can be deleted
    assert client.delete("/documents/a").json()["result"] == "deleted"
    assert client.get("/documents/a").status_code == 404
    assert client.delete("/documents/a").status_code == 404


def test_queue_outage_is_a_503_item_and_a_resend_heals_it(client: TestClient, queue: Queue) -> None:
    queue.fail = True
    r = client.post("/documents", json={"id": "a", "text": TEXT})
    assert r.status_code == 503 and r.json()["error"]["type"] == "queue_unavailable"
    assert client.get("/documents/a").status_code == 404  # nothing was accepted
    queue.fail = False
    r = client.post("/documents", json={"id": "a", "text": TEXT})
    assert r.json() == {"id": "a", "status": 201, "result": "created", "queued": True}
    assert queue == ["a"]


def test_a_large_request_is_accepted_in_batches_and_a_backlog_refuses_only_the_rest(
    store: Any, queue: Queue
) -> None:
    """A request is accepted in batches of ``batch`` pages (as ingest makes them, so the
    backpressure counts alike); when the workers' backlog is full at the third batch, the
    pages of the first two are queued and the others get a 429 to send again."""
    from neardup.ingest.server.broker import Backlogged

    class Full(FakeBatchQueue):
        def submit(self, pages: list[dict[str, Any]], *args: Any, **kwargs: Any) -> str:
            if self.batches == 2:
                raise Backlogged("8 batches are waiting for the workers")
            return super().submit(pages)

    full = Full(store)
    client = client_for(IngestService(store, queue=full, batch=3))
    lines: list[object] = []
    for i in range(8):
        lines += [{"index": {"_id": f"d{i}"}}, {"text": f"{TEXT} Page {i}."}]
    items = [i["index"] for i in client.post("/_bulk", content=bulk_body(*lines)).json()["items"]]
    assert [i["status"] for i in items] == [201] * 6 + [429] * 2
    assert items[7]["error"]["type"] == "es_rejected_execution_exception"
    assert full.batches == 2 and full == [f"d{i}" for i in range(6)]


def test_repeated_id_in_one_request_last_version_wins(client: TestClient, queue: Queue) -> None:
    body = bulk_body(
        {"index": {"_id": "a"}},
        {"text": TEXT},
        {"index": {"_id": "a"}},
        {"text": TEXT},
        {"index": {"_id": "a"}},
        {"text": TEXT + " changed"},
    )
    items = client.post("/_bulk", content=body).json()["items"]
    assert [(i["index"]["status"], i["index"]["result"]) for i in items] == [
        (201, "created"), (200, "noop"), (200, "updated")]
    assert queue == ["a"]  # the first version in a batch, the last one staged after it
    assert [c["doc"].body for c in queue.changes] == [TEXT + " changed"]


def test_bulk_index_delete_create_in_one_request(client: TestClient, queue: Queue) -> None:
    body = bulk_body(
        {"index": {"_id": "n"}}, {"text": TEXT},
        {"delete": {"_id": "n"}},
        {"create": {"_id": "n"}}, {"text": TEXT + " Again."},
        {"delete": {"_id": "never"}},
    )
    out = client.post("/_bulk", content=body).json()
    flat = [(next(iter(i)), *(lambda v: (v["status"], v.get("result")))(next(iter(i.values()))))
            for i in out["items"]]
    assert flat == [("index", 201, "created"), ("delete", 200, "deleted"),
                    ("create", 201, "created"), ("delete", 404, "not_found")]
    assert out["errors"] is False  # not_found is no error, as in OpenSearch
    assert queue == ["n"]
    assert [(c["op"], c["id"]) for c in queue.changes] == [("delete", "n"), ("put", "n")]
    assert client.get("/documents/n").json()["length"] == len(TEXT + " Again.")


def test_bulk_update_merges_over_the_page(client: TestClient, queue: Queue) -> None:
    client.post("/documents", json={"id": "a", "text": TEXT, "url": "http://x.org/a",
                                     "title": "Old"})
    body = bulk_body(
        {"update": {"_id": "a"}}, {"doc": {"text": TEXT + " New."}},
        {"update": {"_id": "a"}}, {"doc": {"title": "only metadata"}},
        {"update": {"_id": "a"}}, {"script": {"source": "ctx._source.x = 1"}},
        {"update": {"_id": "missing"}}, {"doc": {"text": TEXT}},
        {"update": {"_id": "up"}}, {"doc": {"text": TEXT + " Up."}, "doc_as_upsert": True},
        {"update": {"_id": "a"}}, {"doc": {"text": TEXT + " New."}},
    )
    out = client.post("/_bulk", content=body).json()
    flat = [i["update"] for i in out["items"]]
    assert [f["status"] for f in flat] == [200, 400, 400, 404, 201, 200]
    assert flat[0]["result"] == "updated" and flat[5]["result"] == "noop"
    assert "text" in flat[1]["error"]["reason"]
    assert flat[3]["error"]["type"] == "document_missing_exception"
    assert flat[4]["result"] == "created"
    [change] = queue.changes
    doc = change["doc"]  # the stored URL and title kept, the site following the URL
    assert doc.body == TEXT + " New." and doc.url == "http://x.org/a" and doc.title == "Old"
    assert doc.site == "x.org"
    assert queue == ["a", "up"]


def test_jsonl_batch_with_per_document_errors(client: TestClient, queue: Queue) -> None:
    body = "\n".join(
        [
            json.dumps({"id": "a", "text": TEXT}),
            "{broken",
            json.dumps({"id": "b"}),
            json.dumps({"id": 7.5, "text": TEXT}),
            json.dumps({"text": TEXT}),
            json.dumps({"id": "c", "html": f"<html><body><p>{TEXT}</p></body></html>"}),
            json.dumps({"id": "d", "text": "\x00\x01\x02\x03" * 50}),
        ]
    )
    r = client.post("/documents", content=body)
    assert r.status_code == 200
    out = r.json()
    assert out["errors"] is True
    statuses = [(i["id"], i["line"], i["status"]) for i in out["items"]]
    assert statuses == [
        ("a", 1, 201),
        (None, 2, 400),
        ("b", 3, 400),
        (None, 4, 400),
        (None, 5, 400),
        ("c", 6, 201),
        ("d", 7, 400),
    ]
    assert out["items"][2]["error"]["type"] == "empty_document"
    assert sorted(queue) == ["a", "c"]


def test_single_bad_document_is_a_4xx_never_a_500(client: TestClient) -> None:
    for doc in ({"id": "a"}, {"id": "a", "text": ""}, {"id": "a", "text": 5}, {"id": ""}):
        r = client.post("/documents", json=doc)
        assert r.status_code == 400, (doc, r.text)
        assert r.json()["error"]["type"]


@pytest.mark.parametrize("body", [b"", b"nope", b"[]", b"42"])
def test_malformed_documents_body(client: TestClient, body: bytes) -> None:
    r = client.post("/documents", content=body)
    assert r.status_code == 400
    assert r.json()["error"]["type"] == "parse_exception"


def test_unknown_document_and_group_are_404(client: TestClient) -> None:
    r = client.get("/documents/none")
    assert r.status_code == 404 and r.json()["error"]["type"] == "document_missing_exception"
    assert client.get("/groups/none").status_code == 404
    assert client.get("/api/groups/none/explain").status_code == 404
    r = client.get("/no/such/thing")
    assert r.status_code == 404 and r.json()["status"] == 404


def test_bulk_items_in_order_with_create_conflict_delete_and_update(
    client: TestClient, queue: Queue
) -> None:
    body = bulk_body(
        {"index": {"_index": "logs", "_id": "a"}},
        {"text": TEXT},
        {"create": {"_id": "a"}},
        {"text": TEXT},
        {"delete": {"_id": "a"}},
        {"update": {"_id": "a"}},
        {"doc": {"title": "t", "text": TEXT}},
        {"index": {}},
        {"text": TEXT + " Other."},
        {"create": {"_id": "e"}},
        {"text": ""},
    )
    r = client.post("/logs/_bulk", content=body, headers={"Content-Type": "application/x-ndjson"})
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["errors"] is True and isinstance(out["took"], int)
    items = out["items"]
    assert [next(iter(i)) for i in items] == [
        "index",
        "create",
        "delete",
        "update",
        "index",
        "create",
    ]
    flat = [next(iter(i.values())) for i in items]
    # the update follows the delete: the page is gone, an update of it is a 404
    assert [f["status"] for f in flat] == [201, 409, 200, 404, 201, 400]
    assert all(f["_index"] == service_index(client) for f in flat)
    assert flat[0]["result"] == "created" and flat[0]["_id"] == "a"
    assert flat[1]["error"]["type"] == "version_conflict_engine_exception"
    assert flat[2]["result"] == "deleted"
    assert flat[3]["error"]["type"] == "document_missing_exception"
    generated = flat[4]["_id"]
    assert len(generated) == 20
    assert sorted(queue) == sorted(["a", generated])
    assert queue.changes == [{"op": "delete", "id": "a"}]


def service_index(client: TestClient) -> str:
    return client.app.state.service.index  # type: ignore[attr-defined]


def test_bulk_without_errors_and_gzip(client: TestClient) -> None:
    body = bulk_body(
        {"index": {"_id": "a"}}, {"text": TEXT}, {"index": {"_id": "b"}}, {"text": TEXT}
    )
    r = client.post("/_bulk", content=gzip.compress(body), headers={"Content-Encoding": "gzip"})
    assert r.status_code == 200
    assert r.json()["errors"] is False


@pytest.mark.parametrize("body", [b"", b"garbage\n", b'{"index":{}}\n', b'{"upsert":{}}\n{}\n'])
def test_bulk_malformed_body_is_400(client: TestClient, body: bytes) -> None:
    r = client.post("/_bulk", content=body)
    assert r.status_code == 400
    assert r.json()["error"]["type"] == "illegal_argument_exception"


def test_body_size_limit(service: IngestService) -> None:
    client = client_for(service, max_body_bytes=4096)
    big = json.dumps({"id": "a", "text": "x" * 5000}).encode()
    r = client.post("/documents", content=big)
    assert r.status_code == 413
    assert r.json()["error"]["type"] == "request_entity_too_large"
    # chunked, without Content-Length
    r = client.post("/documents", content=iter([big[:3000], big[3000:]]))
    assert r.status_code == 413
    # a gzip bomb: small on the wire, large once inflated
    bomb = gzip.compress(bulk_body({"index": {"_id": "a"}}, {"text": "y" * 100_000}))
    assert len(bomb) < 4096
    r = client.post("/_bulk", content=bomb, headers={"Content-Encoding": "gzip"})
    assert r.status_code == 413


def test_bad_gzip_and_unknown_encoding(client: TestClient) -> None:
    r = client.post("/_bulk", content=b"not gzip", headers={"Content-Encoding": "gzip"})
    assert r.status_code == 400
    r = client.post("/_bulk", content=b"x", headers={"Content-Encoding": "br"})
    assert r.status_code == 415


def test_token_auth(service: IngestService) -> None:
    client = client_for(service, token="s3cret")
    doc = {"id": "a", "text": TEXT}
    r = client.post("/documents", json=doc)
    assert r.status_code == 401
    assert r.headers["www-authenticate"].startswith("Bearer")
    assert r.json()["error"]["type"] == "security_exception"
    assert (
        client.post("/documents", json=doc, headers={"Authorization": "Bearer nope"}).status_code
        == 401
    )
    assert client.get("/documents/a", headers={"Authorization": "Bearer"}).status_code == 401
    ok = client.post("/documents", json=doc, headers={"Authorization": "Bearer s3cret"})
    assert ok.status_code == 201
    basic = base64.b64encode(b"logstash:s3cret").decode()
    r = client.get("/documents/a", headers={"Authorization": f"Basic {basic}"})
    assert r.status_code == 200
    bad = base64.b64encode(b"logstash:wrong").decode()
    assert client.get("/documents/a", headers={"Authorization": f"Basic {bad}"}).status_code == 401
    assert client.get("/api/groups", headers={"Authorization": "Basic !!"}).status_code == 401
    # probes and the inspector's static page stay open
    assert client.get("/healthz").status_code == 200
    page = client.get("/inspector/")
    assert page.status_code == 200 and "neardup inspector" in page.text


def test_inspector_static_files(client: TestClient) -> None:
    r = client.get("/inspector", follow_redirects=False)
    assert r.status_code == 308 and r.headers["location"] == "/inspector/"
    for name, kind in (("inspector.js", "javascript"), ("inspector.css", "css")):
        r = client.get(f"/inspector/{name}")
        assert r.status_code == 200 and kind in r.headers["content-type"]


def test_inspector_script_never_writes_html() -> None:
    from neardup.ingest.server.app import INSPECTOR_DIR

    script = (INSPECTOR_DIR / "inspector.js").read_text()
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
        assert sink not in script


def test_group_and_explain_from_written_groups(service: IngestService, client: TestClient) -> None:
    from neardup.ingest.store.base import GroupUpdate

    other = "A completely different page about gardening, tomatoes and summer rain in June."
    client.post(
        "/documents",
        content="\n".join(
            json.dumps(d)
            for d in (
                {"id": "r", "text": TEXT, "title": "rep"},
                {"id": "m", "text": "Menu | Home | News\n" + TEXT + "\nCopyright 2024"},
                {"id": "o", "text": other},
            )
        ),
    )
    # what a worker would write back
    service.store.update_group(GroupUpdate("r", "r", None, None, None))
    service.store.update_group(GroupUpdate("m", "r", "r", 0.9, 1.0))
    service.store.update_group(GroupUpdate("o", "o", None, None, None))
    group = client.get("/groups/r").json()
    assert group["size"] == 2
    assert group["representative"]["id"] == "r"
    assert [(m["id"], m["dup_of"], m["contain"]) for m in group["members"]] == [("m", "r", 1.0)]
    assert client.get("/documents/m").json()["dup_group"] == "r"

    explained = client.get("/api/groups/r/explain").json()
    [member] = explained["members"]
    assert member["verdict"]["similar"] is True
    marked_rep = "".join(s["text"] for s in member["representative_segments"] if s["mark"])
    marked_member = "".join(s["text"] for s in member["member_segments"] if s["mark"])
    assert marked_rep and marked_member
    assert "Menu" not in marked_member and "Copyright" not in marked_member
    assert "".join(s["text"] for s in member["member_segments"]).startswith("Menu | Home")
