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
from neardup.ingest.server.app import create_app
from neardup.ingest.server.config import ServerConfig
from neardup.ingest.server.service import IngestService
from neardup.ingest.store import open_store
from support.fakes import FakeBatchQueue

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


def test_reingest_is_a_noop_and_a_change_is_refused(client: TestClient, queue: Queue) -> None:
    client.post("/documents", json={"id": "a", "text": TEXT})
    r = client.post("/documents", json={"id": "a", "text": TEXT})
    assert r.status_code == 200 and r.json()["result"] == "noop"
    assert queue == ["a"]  # indexed already: not accepted again
    r = client.post("/documents", json={"id": "a", "text": TEXT + " Updated."})
    assert r.status_code == 409
    assert "first version" in r.json()["error"]["reason"]
    assert queue == ["a"]


def test_a_page_accepted_and_not_yet_decided_reads_as_pending(store: Any) -> None:
    pipeline = Queue()  # no worker: accepted pages stay undecided
    client = client_for(IngestService(store, queue=pipeline))
    assert client.post("/documents", json={"id": "a", "text": TEXT}).status_code == 201
    doc = client.get("/documents/a").json()
    assert doc["status"] == "pending" and doc["state"] == "pending"
    assert client.get("/documents/b").status_code == 404
    # accepted already: the same page again changes nothing, another text conflicts
    r = client.post("/documents", json={"id": "a", "text": TEXT})
    assert r.status_code == 200 and r.json()["result"] == "noop"
    assert client.post("/documents", json={"id": "a", "text": TEXT + " More."}).status_code == 409
    assert pipeline == ["a"]


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


def test_repeated_id_in_one_request_first_version_wins(client: TestClient, queue: Queue) -> None:
    body = bulk_body(
        {"index": {"_id": "a"}},
        {"text": TEXT},
        {"index": {"_id": "a"}},
        {"text": TEXT},
        {"index": {"_id": "a"}},
        {"text": TEXT + " changed"},
    )
    items = client.post("/_bulk", content=body).json()["items"]
    assert [i["index"]["status"] for i in items] == [201, 200, 409]
    assert queue == ["a"]


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


def test_bulk_items_in_order_with_create_conflict_and_rejected_actions(
    client: TestClient, queue: Queue
) -> None:
    body = bulk_body(
        {"index": {"_index": "logs", "_id": "a"}},
        {"text": TEXT},
        {"create": {"_id": "a"}},
        {"text": TEXT},
        {"delete": {"_id": "a"}},
        {"update": {"_id": "a"}},
        {"doc": {"title": "t"}},
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
    assert [f["status"] for f in flat] == [201, 409, 400, 400, 201, 400]
    assert all(f["_index"] == service_index(client) for f in flat)
    assert flat[0]["result"] == "created" and flat[0]["_id"] == "a"
    assert flat[1]["error"]["type"] == "version_conflict_engine_exception"
    assert "delete" in flat[2]["error"]["reason"]
    generated = flat[4]["_id"]
    assert len(generated) == 20
    assert sorted(queue) == sorted(["a", generated])


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
