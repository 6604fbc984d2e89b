"""Issue 13's list of what bad input and faults did, each through every path it applies to:
``compare``, ``dedup`` (one process and a pool), ``ingest`` (the command, on the embedded
store with the queue recorded), ``POST /documents``, ``/_bulk`` and the workers. Each test
failed on the code before the input layer (neardup.ingest.records). Paths that need a real
OpenSearch (a missing index in ``search``, a server's log while OpenSearch is down) are in
tests/integration/test_bad_input_stack.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.fakes import FakeBatchQueue, fake_cli_pipeline

from neardup.ingest.cli import main
from neardup.ingest.server.app import create_app
from neardup.ingest.server.config import ServerConfig
from neardup.ingest.server.service import IngestService
from neardup.ingest.settings import Settings
from neardup.ingest.store import open_store
from neardup.ingest.store.roles import Store

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

ROOT = Path(__file__).resolve().parents[2]
TEXT = (
    "The city council approved the new budget on Tuesday after a long debate about schools. "
    "Funding for public libraries will rise by ten percent next year, the mayor said. "
    "Critics argued that road repairs had been neglected for far too long in the east."
)
DEEP_600 = b'{"id": "deep", "text": "' + TEXT.encode() + b'", "x": ' + b"[" * 600 + b"]" * 600 + b"}"
DEEP_5000 = b'{"id": "deeper", "text": "t", "x": ' + b"[" * 5000 + b"]" * 5000 + b"}"
GOOD = json.dumps({"id": "good", "text": TEXT}).encode()
DEEP_HTML = ("<html><body><p>" + TEXT + "</p>" + "<div>" * 300 + "deep inside the page"
             + "</div>" * 300 + "<p>after the deep part</p></body></html>")


def lines(*records: bytes) -> bytes:
    return b"".join(r + b"\n" for r in records)


# --- the paths ---------------------------------------------------------------------------------


def run_dedup(tmp_path: Path, body: bytes, processes: int = 2,
              settings: Settings | None = None) -> list[dict[str, Any]]:
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_bytes(body)
    code = main(["dedup", str(src), "-o", str(out), "-j", str(processes), "--no-progress"],
                settings=settings or Settings())
    assert code == 0
    return [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]


def run_compare(tmp_path: Path, body: bytes, settings: Settings | None = None) -> list[dict[str, Any]]:
    src, out = tmp_path / "pairs.jsonl", tmp_path / "out.jsonl"
    src.write_bytes(body)
    assert main(["compare", str(src), "-o", str(out)], settings=settings or Settings()) == 0
    return [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]


def pair(side_b: bytes, **extra: str) -> bytes:
    keys = b"".join(b'"%s": "%s", ' % (k.encode(), v.encode()) for k, v in extra.items())
    return b"{" + keys + b'"a": {"text": "' + TEXT.encode() + b'"}, "b": ' + side_b + b"}"


def run_ingest(tmp_path: Path, body: bytes, monkeypatch: pytest.MonkeyPatch,
               settings: Settings | None = None) -> tuple[dict[str, Any], list[dict[str, Any]], Store]:
    """``neardup ingest`` itself, on an embedded store (its queue recorded): the summary, the
    error records and the store."""
    store = open_store("embedded", path=tmp_path / "store.db")
    store.index = "pages"  # type: ignore[attr-defined]
    queued = fake_cli_pipeline(monkeypatch, store)
    monkeypatch.setattr(store, "close", lambda: None)
    src, errors = tmp_path / "in.jsonl", tmp_path / "errors.jsonl"
    src.write_bytes(body)
    code = main(["ingest", str(src), "--errors", str(errors), "-j", "2", "--no-progress"],
                settings=settings or Settings())
    assert code == 0
    summary = {"queued_ids": list(queued)}
    return summary, [json.loads(x) for x in errors.read_text().splitlines()], store


Queue = FakeBatchQueue


@pytest.fixture
def service() -> Iterator[IngestService]:
    store = open_store("embedded")
    yield IngestService(store, queue=Queue(store))
    store.close()


@pytest.fixture
def client(service: IngestService) -> TestClient:
    return TestClient(create_app(service, ServerConfig()), raise_server_exceptions=False)


def bulk(*pairs: tuple[dict[str, Any] | bytes, bytes]) -> bytes:
    out = b""
    for action, source in pairs:
        out += (action if isinstance(action, bytes) else json.dumps(action).encode()) + b"\n"
        out += source + b"\n"
    return out


# --- 1. deep nesting ---------------------------------------------------------------------------


@pytest.mark.parametrize("processes", [1, 2])
def test_1_deep_json_through_dedup(tmp_path: Path, processes: int) -> None:
    rows = run_dedup(tmp_path, lines(GOOD, DEEP_600, DEEP_5000), processes)
    assert rows[0]["id"] == "good" and rows[0]["dup_group"] == "good"
    for row, line in zip(rows[1:], (2, 3), strict=True):
        assert row["line"] == line and row["type"] == "parse_exception"
        assert "nested deeper than 100 levels" in row["error"]


def test_1_deep_json_through_ingest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    summary, errors, store = run_ingest(tmp_path, lines(GOOD, DEEP_600, DEEP_5000), monkeypatch)
    assert summary["queued_ids"] == ["good"] and store.get("good") is not None
    assert [(e["line"], e["type"]) for e in errors] == [(2, "parse_exception"), (3, "parse_exception")]


def test_1_deep_json_through_compare(tmp_path: Path) -> None:
    rows = run_compare(tmp_path, lines(pair(DEEP_600), pair(GOOD), pair(DEEP_5000)))
    assert rows[0]["type"] == rows[2]["type"] == "parse_exception"
    assert rows[1]["similar"] is True


def test_1_deep_json_over_http(client: TestClient) -> None:
    r = client.post("/documents", content=lines(GOOD, DEEP_600, DEEP_5000))
    assert r.status_code == 200, r.text
    assert [(i["status"], i.get("error", {}).get("type")) for i in r.json()["items"]] == [
        (201, None), (400, "parse_exception"), (400, "parse_exception")]
    r = client.post("/documents", content=DEEP_5000)
    assert r.status_code == 400 and "nested deeper" in r.json()["error"]["reason"]
    r = client.post("/_bulk", content=bulk(({"index": {}}, DEEP_600), ({"index": {}}, DEEP_5000),
                                           ({"index": {"_id": "b2"}}, GOOD.replace(b"good", b"b2"))))
    assert r.status_code == 200, r.text
    statuses = [next(iter(i.values())) for i in r.json()["items"]]
    assert [(s["status"], s.get("error", {}).get("type")) for s in statuses] == [
        (400, "parse_exception"), (400, "parse_exception"), (201, None)]
    # a deep action line fails the whole request, as a 400 (OpenSearch's rule)
    r = client.post("/_bulk", content=b'{"index": ' + b"[" * 3000 + b"]" * 3000 + b"}\n{}\n")
    assert r.status_code == 400 and "nested deeper" in r.json()["error"]["reason"]


# --- 2. a line that is not UTF-8 ------------------------------------------------------------------


def test_2_invalid_utf8_line_in_compare(tmp_path: Path) -> None:
    rows = run_compare(tmp_path, lines(pair(GOOD, n="1"), b"\xff\xfe not utf-8 \x81",
                                       pair(b'{"text": "\xe4\xb8"}'), pair(GOOD, n="4")))
    assert len(rows) == 4
    assert rows[0]["n"] == "1" and rows[3]["n"] == "4" and rows[3]["similar"] is True
    assert [(r["line"], r["type"]) for r in rows[1:3]] == [(2, "parse_exception")] * 0 + [
        (2, "parse_exception"), (3, "parse_exception")]
    assert "not UTF-8" in rows[1]["error"]


def test_2_invalid_utf8_line_everywhere_else(tmp_path: Path, client: TestClient,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    body = lines(GOOD, b'{"id": "x", "text": "\xc3\x28"}')
    rows = run_dedup(tmp_path, body)
    assert rows[1] == {"id": None, "line": 2, "type": "parse_exception", "error": rows[1]["error"]}
    _, errors, _ = run_ingest(tmp_path, body, monkeypatch)
    assert [(e["line"], e["type"]) for e in errors] == [(2, "parse_exception")]
    items = client.post("/documents", content=body).json()["items"]
    assert [i["status"] for i in items] == [201, 400]


# --- 3. lone surrogates ----------------------------------------------------------------------------


def test_3_lone_surrogate_id_over_http(client: TestClient, service: IngestService) -> None:
    bad = b'{"id": "\\ud800", "text": "' + TEXT.encode() + b'"}'
    r = client.post("/documents", content=lines(GOOD, bad))
    assert r.status_code == 200, r.text
    items = r.json()["items"]
    assert items[0]["status"] == 201 and items[0]["result"] == "created"
    assert items[1] == {"id": None, "line": 2, "status": 400, "error": items[1]["error"]}
    assert items[1]["error"]["type"] == "illegal_argument_exception"
    assert "lone surrogate" in items[1]["error"]["reason"]
    r = client.post("/documents", content=bad)
    assert r.status_code == 400
    r = client.post("/_bulk", content=bulk(({"index": {"_id": "\ud800"}}, b'{"text": "t"}'),
                                           ({"index": {}}, bad),
                                           ({"index": {"_id": "ok3"}}, b'{"text": "fine"}')))
    assert r.status_code == 200, r.text
    flat = [next(iter(i.values())) for i in r.json()["items"]]
    assert [f["status"] for f in flat] == [400, 400, 201] and flat[0]["_id"] is None
    assert service.store.get("good") is not None and service.store.get("ok3") is not None


def test_3_lone_surrogates_elsewhere_are_kept_readable(tmp_path: Path, client: TestClient) -> None:
    rec = b'{"id": "s", "text": "' + TEXT.encode() + b'\\udc00", "title": "t\\ud800"}'
    rows = run_dedup(tmp_path, lines(rec, b'{"id": "\\ud800", "text": "x"}'))
    assert rows[0]["dup_group"] == "s" and rows[1]["type"] == "illegal_argument_exception"
    # compare passes other keys through as they came, escaped (valid UTF-8 output)
    out = run_compare(tmp_path, lines(pair(GOOD, note="\\ud800")))
    assert out[0]["note"] == "\ud800" and out[0]["similar"] is True
    assert client.post("/documents", content=rec).status_code == 201
    assert client.get("/documents/s").json()["title"] == "t\ufffd"


# --- 4. GET /documents/, OpenSearch down, the CLI at start ---------------------------------------


def dead_opensearch_client(token: str | None = None) -> TestClient:
    store = open_store("opensearch", Settings(), url="http://127.0.0.1:9", index="nothing-here")
    service = IngestService(store, queue=Queue(), broker_url="redis://127.0.0.1:9/0")
    return TestClient(create_app(service, ServerConfig(token=token)), raise_server_exceptions=False)


def test_4_get_documents_without_an_id_is_a_400(client: TestClient) -> None:
    for path in ("/documents/", "/groups/", "/documents/%20", "/documents/" + "x" * 600):
        r = client.get(path)
        assert r.status_code == 400, (path, r.text)
        assert r.json()["error"]["type"] == "illegal_argument_exception"
    # on the OpenSearch store too (its client refused the empty id: a 500)
    assert dead_opensearch_client().get("/documents/").status_code == 400


def test_4_opensearch_down_is_a_503_everywhere() -> None:
    client = dead_opensearch_client()
    for method, path, body in (
        ("GET", "/", None), ("GET", "/documents/a", None), ("GET", "/groups/a", None),
        ("GET", "/api/groups", None), ("GET", "/api/groups/a/explain", None),
        ("POST", "/documents", GOOD), ("POST", "/_bulk", bulk(({"index": {}}, GOOD))),
    ):
        r = client.request(method, path, content=body)
        assert r.status_code == 503, (path, r.text)
        assert r.headers["retry-after"] == "5"
        error = r.json()["error"]
        assert error["type"] == "unavailable" and "retry" in error["reason"]
        assert "127.0.0.1" not in r.text and ":9" not in r.text  # no host or port to anyone


@pytest.mark.parametrize(
    "argv",
    [
        ["ingest", "{pages}"],
        ["search", "harbour"],
        ["templates", "install"],
        ["stoplist", "show"],
        ["dedup", "{pages}", "--backend", "opensearch", "--no-progress"],
    ],
)
def test_4_unreachable_opensearch_at_start_is_one_line(tmp_path: Path, argv: list[str]) -> None:
    pages = tmp_path / "pages.jsonl"
    pages.write_bytes(lines(GOOD))
    env = {"PATH": "/usr/bin:/bin", "OPENSEARCH_URL": "http://neardup:s3cret@127.0.0.1:9",
           "HOME": str(tmp_path)}
    proc = subprocess.run(
        [sys.executable, "-m", "neardup.ingest.cli", *[a.format(pages=pages) for a in argv]],
        capture_output=True, text=True, env=env, timeout=120, cwd=ROOT,
    )
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    message = [x for x in proc.stderr.splitlines() if x.startswith("neardup ")]
    assert len(message) == 1, proc.stderr
    assert "OpenSearch is not reachable at http://neardup:***@127.0.0.1:9" in message[0]
    assert "connection refused" in message[0] and "OPENSEARCH_URL" in message[0]
    assert "s3cret" not in proc.stderr
    assert len(proc.stderr.splitlines()) <= 6, proc.stderr  # transport warnings: one line each


# --- 5. size limits ------------------------------------------------------------------------------


def test_5_the_documented_page_limit_over_http(client: TestClient) -> None:
    limit = 8 * 1024 * 1024
    for field, value in (("text", "x" * (limit + 1)), ("html", "<p>" + "y" * limit + "</p>")):
        r = client.post("/documents", json={"id": field, field: value})
        assert r.status_code == 400, r.text[:300]
        assert r.json()["error"]["type"] == "document_too_large"
        r = client.post("/_bulk", content=bulk(({"index": {"_id": field}},
                                                json.dumps({field: value}).encode())))
        assert next(iter(r.json()["items"][0].values()))["error"]["type"] == "document_too_large"
    assert client.post("/documents", json={"id": "fits", "text": "z" * limit}).status_code == 201


def test_5_one_page_limit_on_every_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = Settings(max_doc_bytes=4096)
    big = json.dumps({"id": "big", "text": "字" * 2000}).encode()  # 6000 bytes of UTF-8
    big_html = json.dumps({"id": "bightml", "html": "<p>" + "w" * 5000 + "</p>"}).encode()
    rows = run_dedup(tmp_path, lines(GOOD, big, big_html), settings=settings)
    assert [r.get("type") for r in rows] == [None, "document_too_large", "document_too_large"]
    _, errors, _ = run_ingest(tmp_path, lines(GOOD, big, big_html), monkeypatch, settings)
    assert [e["type"] for e in errors] == ["document_too_large"] * 2
    rows = run_compare(tmp_path, lines(pair(big), pair(GOOD)), settings=settings)
    assert rows[0]["type"] == "document_too_large" and rows[1]["similar"] is True
    from neardup.ingest.records import Limits

    store = open_store("embedded")
    service = IngestService(store, queue=Queue(store), limits=Limits(4096))
    http = TestClient(create_app(service, ServerConfig()))
    items = http.post("/documents", content=lines(GOOD, big, big_html)).json()["items"]
    assert [i.get("error", {}).get("type") for i in items] == [None, "document_too_large",
                                                                "document_too_large"]


# --- 6. one bad line of a JSONL body ------------------------------------------------------------


def test_6_a_bad_jsonl_line_fails_alone(client: TestClient, service: IngestService) -> None:
    body = lines(GOOD, b"\xff not utf-8", b'{"id": "two", "text": "' + TEXT.encode() + b'"}')
    r = client.post("/documents", content=body)
    assert r.status_code == 200, r.text
    items = r.json()["items"]
    assert [(i["line"], i["status"]) for i in items] == [(1, 201), (2, 400), (3, 201)]
    assert "line 2" in items[1]["error"]["reason"]
    assert sorted(service.queue) == ["good", "two"]  # type: ignore[arg-type]


# --- 7. dedup's error records name their line ---------------------------------------------------


def test_7_dedup_errors_name_their_line(tmp_path: Path) -> None:
    rows = run_dedup(tmp_path, lines(GOOD, b"{broken") + b"\n\n" + lines(b'{"id": "e", "text": ""}'))
    assert rows[1] == {"id": None, "line": 2, "type": "parse_exception", "error": rows[1]["error"]}
    assert rows[2]["id"] == "e" and rows[2]["line"] == 5 and rows[2]["type"] == "empty_document"


# --- 8. one id rule everywhere -------------------------------------------------------------------


def test_8_one_id_rule_on_every_path(tmp_path: Path, client: TestClient,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    number = json.dumps({"id": 7, "text": TEXT}).encode()
    boolean = json.dumps({"id": True, "text": TEXT + " b"}).encode()
    rows = run_dedup(tmp_path, lines(number, boolean))
    assert rows[0]["id"] == "7" and rows[0]["dup_group"] == "7"
    assert rows[1]["type"] == "illegal_argument_exception"
    summary, errors, store = run_ingest(tmp_path, lines(number, boolean), monkeypatch)
    assert summary["queued_ids"] == ["7"] and [e["type"] for e in errors] == [
        "illegal_argument_exception"]
    items = client.post("/documents", content=lines(number, boolean)).json()["items"]
    assert [(i["id"], i["status"]) for i in items] == [("7", 201), (None, 400)]
    r = client.post("/_bulk", content=bulk(
        ({"index": {"_id": 8}}, b'{"text": "eight"}'),
        ({"index": {"_id": True}}, b'{"text": "true"}'),
        ({"index": {}}, b'{"id": false, "text": "false"}'),
        ({"index": {}}, b'{"id": 9, "text": "nine"}'),
        ({"index": {"_id": 1.5}}, b'{"text": "float"}'),
    ))
    flat = [next(iter(i.values())) for i in r.json()["items"]]
    assert [(f["_id"], f["status"]) for f in flat] == [
        ("8", 201), (None, 400), (None, 400), ("9", 201), (None, 400)]
    assert all(f["error"]["type"] == "illegal_argument_exception" for f in flat if "error" in f)


def test_8_a_worker_message_without_a_batch_key_is_dead_lettered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from neardup.ingest.workers import tasks

    dead: list[dict[str, Any]] = []
    monkeypatch.setattr(tasks, "_dead_letter", dead.append)
    for junk in (["a", "b"], 7, "../x", "", None):
        assert tasks.decide_batch_task.run(junk) == {}
    assert [d["type"] for d in dead] == ["parse_exception"] * 5
    assert all(d["id"] is None and "batch key" in d["error"] for d in dead)


# --- 9. deep HTML ---------------------------------------------------------------------------------


def test_9_deep_html_keeps_its_full_text(tmp_path: Path, client: TestClient,
                                         service: IngestService) -> None:
    page = json.dumps({"id": "deep-html", "html": DEEP_HTML}).encode()
    rows = run_dedup(tmp_path, lines(page))
    assert rows[0]["dup_group"] == "deep-html"
    assert client.post("/documents", content=page).status_code == 201
    stored = service.store.get("deep-html")
    assert stored is not None
    assert "deep inside the page" in stored.body and "after the deep part" in stored.body
    plain = json.dumps({"text": TEXT + "\n\ndeep inside the page\n\nafter the deep part"}).encode()
    out = run_compare(tmp_path, lines(b'{"a": ' + page + b', "b": ' + plain + b"}"))
    assert out[0]["similar"] is True and out[0]["reason"] == "exact", out


# --- 10. hardening ---------------------------------------------------------------------------------


def test_10_headers(client: TestClient) -> None:
    for r in (client.get("/healthz"), client.post("/documents", content=b"{"),
              client.get("/no/such"), client.get("/inspector/inspector.js")):
        assert r.headers["x-content-type-options"] == "nosniff", r.url
        assert "frame-ancestors 'none'" in r.headers["content-security-policy"]
    page = client.get("/inspector/")
    csp = page.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "'unsafe-inline'" not in csp
    assert page.headers["x-frame-options"] == "DENY"
    assert "<script>" not in page.text and " style=" not in page.text  # no inline code


def test_10_headers_on_401(service: IngestService) -> None:
    r = TestClient(create_app(service, ServerConfig(token="t"))).get("/documents/a")
    assert r.status_code == 401 and r.headers["x-content-type-options"] == "nosniff"


def test_10_inspector_links_only_http_urls() -> None:
    from neardup.ingest.server.app import INSPECTOR_DIR

    script = (INSPECTOR_DIR / "inspector.js").read_text()
    assert "href: doc.url" not in script
    assert 'parsed.protocol === "http:" || parsed.protocol === "https:"' in script


def test_10_readyz_tells_anonymous_callers_no_hosts() -> None:
    r = dead_opensearch_client().get("/readyz")
    assert r.status_code == 503
    assert r.json()["checks"] == {"opensearch": "unavailable", "broker": "unavailable"}
    client = dead_opensearch_client(token="s3cret")
    r = client.get("/readyz")
    assert r.status_code == 503 and "127.0.0.1" not in r.text
    r = client.get("/readyz", headers={"Authorization": "Bearer s3cret"})
    assert "127.0.0.1" in r.json()["checks"]["opensearch"]  # the token holder sees why
