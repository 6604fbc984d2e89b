"""The Dashboards saved objects (mappings/dashboards/neardup.ndjson) and their import command.

Structure: every line a JSON object, unique ids, every reference resolvable inside the file,
embedded JSON strings parseable, ref names used where they are declared. Fields: every field a
visualisation or the saved search uses exists in the pages mapping, with an aggregatable type
where it is aggregated. Import: against a small local HTTP server standing in for Dashboards.
"""

from __future__ import annotations

import email.parser
import email.policy
import json
import re
import threading
from base64 import b64decode
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from neardup.ingest import dashboards
from neardup.ingest.cli import main
from neardup.ingest.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]
NDJSON = ROOT / "mappings" / "dashboards" / "neardup.ndjson"
MAPPINGS = ROOT / "mappings"

KNOWN_TYPES = {"index-pattern", "search", "visualization", "dashboard"}
AGGREGATABLE = {
    "keyword", "long", "integer", "short", "byte", "double", "float", "half_float",
    "scaled_float", "date", "date_nanos", "boolean", "ip",
}  # fmt: skip
# Bucket/metric aggregations of visualisations whose field must be aggregatable.
FIELD_AGGS = {
    "terms", "significant_terms", "histogram", "date_histogram", "range", "date_range",
    "cardinality", "avg", "sum", "min", "max", "median", "percentiles", "top_hits",
}  # fmt: skip


@pytest.fixture(autouse=True)
def _opensearch_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are about the Dashboards objects: the engine is named, nothing is asked."""
    monkeypatch.setenv("NEARDUP_ENGINE", "opensearch")


@pytest.fixture(scope="module")
def lines() -> list[str]:
    return [line for line in NDJSON.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def objects(lines: list[str]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in lines]


def _page_properties() -> dict[str, dict[str, Any]]:
    """Field mappings of the pages index: pages-template.json and the component templates it is
    composed of (``{index}-mappings`` is ``pages-mappings.json``)."""
    template = json.loads((MAPPINGS / "pages-template.json").read_text(encoding="utf-8"))
    sources = [template]
    for name in template.get("composed_of", []):
        stem = name.replace("{index}", "pages")
        sources.append(json.loads((MAPPINGS / f"{stem}.json").read_text(encoding="utf-8")))
    props: dict[str, dict[str, Any]] = {}
    for source in sources:
        mappings = source.get("template", {}).get("mappings", {})
        props.update(_flatten(mappings.get("properties", {})))
    return props


def _flatten(properties: dict[str, Any], prefix: str = "") -> dict[str, dict[str, Any]]:
    out = {}
    for name, spec in properties.items():
        out[prefix + name] = spec
        out.update(_flatten(spec.get("properties", {}), f"{prefix}{name}."))
        out.update(_flatten(spec.get("fields", {}), f"{prefix}{name}."))
    return out


def _json_attr(obj: dict[str, Any], *path: str) -> Any:
    value: Any = obj["attributes"]
    for key in path:
        value = value[key]
    assert isinstance(value, str), f"{obj['id']}: {'.'.join(path)} must be a JSON string"
    return json.loads(value)


def _of_type(objects: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [o for o in objects if o["type"] == kind]


def _kuery_fields(query: str) -> set[str]:
    return set(re.findall(r"([A-Za-z_][\w.]*)\s*:", query))


# --- structure ------------------------------------------------------------------------------


def test_every_line_is_a_saved_object(lines: list[str]) -> None:
    for number, line in enumerate(lines, 1):
        obj = json.loads(line)
        assert isinstance(obj, dict), number
        assert {"id", "type", "attributes", "references"} <= obj.keys(), number
        assert obj["type"] in KNOWN_TYPES, number
        assert obj["attributes"].get("title"), number


def test_the_expected_objects_are_there(objects: list[dict[str, Any]]) -> None:
    counts = {kind: len(_of_type(objects, kind)) for kind in KNOWN_TYPES}
    assert counts == {"index-pattern": 1, "search": 1, "visualization": 5, "dashboard": 1}
    (pattern,) = _of_type(objects, "index-pattern")
    assert pattern["attributes"]["title"] == "pages*"
    assert pattern["attributes"]["timeFieldName"] == "ingested_at"
    vis_types = {_json_attr(v, "visState")["type"] for v in _of_type(objects, "visualization")}
    assert vis_types == {"vega", "table", "horizontal_bar", "area", "metric"}


def test_ids_are_unique(objects: list[dict[str, Any]]) -> None:
    ids = [(o["type"], o["id"]) for o in objects]
    assert len(ids) == len(set(ids))
    assert len({o["id"] for o in objects}) == len(objects)
    for o in objects:
        assert o["id"].startswith("neardup-pages-"), o["id"]


def test_every_reference_resolves(objects: list[dict[str, Any]]) -> None:
    present = {(o["type"], o["id"]) for o in objects}
    for o in objects:
        names = [r["name"] for r in o["references"]]
        assert len(names) == len(set(names)), f"{o['id']}: duplicate reference names"
        for ref in o["references"]:
            assert (ref["type"], ref["id"]) in present, f"{o['id']} -> {ref}"


def test_embedded_json_parses_and_ref_names_are_declared(objects: list[dict[str, Any]]) -> None:
    for o in objects:
        attrs = o["attributes"]
        declared = {r["name"] for r in o["references"]}
        used: set[str] = set()
        if "kibanaSavedObjectMeta" in attrs:
            source = _json_attr(o, "kibanaSavedObjectMeta", "searchSourceJSON")
            if "indexRefName" in source:
                used.add(source["indexRefName"])
            for f in source.get("filter", []):
                if "indexRefName" in f.get("meta", {}):
                    used.add(f["meta"]["indexRefName"])
        if o["type"] == "visualization":
            state = _json_attr(o, "visState")
            assert state["title"] == attrs["title"]
            _json_attr(o, "uiStateJSON")
            if "savedSearchRefName" in attrs:
                used.add(attrs["savedSearchRefName"])
            if state["type"] == "vega":
                json.loads(state["params"]["spec"])
        if o["type"] == "dashboard":
            _json_attr(o, "optionsJSON")
            panels = _json_attr(o, "panelsJSON")
            assert len({p["panelIndex"] for p in panels}) == len(panels)
            used |= {p["panelRefName"] for p in panels}
        if o["type"] == "index-pattern":
            _json_attr(o, "fields")
            _json_attr(o, "fieldFormatMap")
        assert used == declared, f"{o['id']}: used {used} != declared {declared}"


def test_dashboard_shows_every_visualisation_and_the_search(
    objects: list[dict[str, Any]],
) -> None:
    (dash,) = _of_type(objects, "dashboard")
    shown = {(r["type"], r["id"]) for r in dash["references"]}
    wanted = {(o["type"], o["id"]) for o in objects if o["type"] in ("visualization", "search")}
    assert shown == wanted


def test_saved_search_lists_duplicates(objects: list[dict[str, Any]]) -> None:
    (search,) = _of_type(objects, "search")
    assert search["attributes"]["columns"] == [
        "dup_group", "dup_of", "resemble", "contain", "site", "url",
    ]  # fmt: skip
    source = _json_attr(search, "kibanaSavedObjectMeta", "searchSourceJSON")
    (flt,) = source["filter"]
    assert flt["exists"] == {"field": "dup_of"} and flt["meta"]["negate"] is False


# --- fields against the mapping -------------------------------------------------------------


def _used_fields(objects: list[dict[str, Any]]) -> Iterator[tuple[str, str, bool]]:
    """(object id, field, must be aggregatable) for every field the objects use."""
    for o in objects:
        attrs = o["attributes"]
        if o["type"] == "index-pattern":
            yield o["id"], attrs["timeFieldName"], True
            for name in _json_attr(o, "fieldFormatMap"):
                yield o["id"], name, False
        if o["type"] == "search":
            for column in attrs["columns"]:
                yield o["id"], column, False
            for name, _order in attrs["sort"]:
                yield o["id"], name, True
        if "kibanaSavedObjectMeta" in attrs:
            source = _json_attr(o, "kibanaSavedObjectMeta", "searchSourceJSON")
            for name in _kuery_fields(source.get("query", {}).get("query", "")):
                yield o["id"], name, False
            for f in source.get("filter", []):
                if "exists" in f:
                    yield o["id"], f["exists"]["field"], False
                if "key" in f.get("meta", {}):
                    yield o["id"], f["meta"]["key"], False
        if o["type"] == "visualization":
            state = _json_attr(o, "visState")
            for agg in state.get("aggs", []):
                params = agg.get("params", {})
                if "field" in params:
                    yield o["id"], params["field"], agg["type"] in FIELD_AGGS
                if "sortField" in params:
                    yield o["id"], params["sortField"], True
                for flt in params.get("filters", []):
                    for name in _kuery_fields(flt["input"]["query"]):
                        yield o["id"], name, False
            if state["type"] == "vega":
                spec = json.loads(state["params"]["spec"])
                url = spec["data"]["url"]
                yield o["id"], url["%timefield%"], True
                for agg in url["body"]["aggs"].values():
                    for body in agg.values():
                        yield o["id"], body["field"], True


def test_mapping_is_there() -> None:
    props = _page_properties()
    assert {"dup_group", "dup_of", "ingested_at", "site", "url"} <= props.keys()


def test_every_used_field_exists_in_the_mapping(objects: list[dict[str, Any]]) -> None:
    props = _page_properties()
    used = list(_used_fields(objects))
    assert len(used) > 20  # the walk really finds the fields
    for object_id, name, aggregated in used:
        assert name in props, f"{object_id}: field {name!r} is not in the pages mapping"
        kind = props[name].get("type")
        if aggregated:
            assert kind in AGGREGATABLE, f"{object_id}: {name} ({kind}) is aggregated"
            assert props[name].get("doc_values", True), f"{object_id}: {name} has no doc_values"


def test_vega_spec_reads_the_pattern_with_dashboard_context(objects: list[dict[str, Any]]) -> None:
    (vega,) = [
        v for v in _of_type(objects, "visualization") if _json_attr(v, "visState")["type"] == "vega"
    ]
    url = json.loads(_json_attr(vega, "visState")["params"]["spec"])["data"]["url"]
    (pattern,) = _of_type(objects, "index-pattern")
    assert url["index"] == pattern["attributes"]["title"]
    assert url["%context%"] is True  # follows the dashboard's time range and filters


# --- retargeting ----------------------------------------------------------------------------


def test_retarget_renames_ids_pattern_and_vega_index(objects: list[dict[str, Any]]) -> None:
    before = json.dumps(objects)
    news = dashboards.retarget(objects, "news")
    assert json.dumps(objects) == before, "input must not be modified"
    assert all(o["id"].startswith("neardup-news-") for o in news)
    present = {(o["type"], o["id"]) for o in news}
    for o in news:
        for ref in o["references"]:
            assert (ref["type"], ref["id"]) in present
        assert "(pages)" not in o["attributes"]["title"]
    (pattern,) = _of_type(news, "index-pattern")
    assert pattern["attributes"]["title"] == "news*"
    for v in _of_type(news, "visualization"):
        state = _json_attr(v, "visState")
        assert state["title"] == v["attributes"]["title"]
        if state["type"] == "vega":
            assert json.loads(state["params"]["spec"])["data"]["url"]["index"] == "news*"


def test_retarget_to_pages_is_identity(objects: list[dict[str, Any]]) -> None:
    again = dashboards.retarget(objects, "pages")
    assert [o["id"] for o in again] == [o["id"] for o in objects]
    for a, b in zip(again, objects, strict=True):
        assert a["attributes"]["title"] == b["attributes"]["title"]


@pytest.mark.parametrize("bad", ["", "News", "a b", "x*", "-x", "a,b", "p/q"])
def test_retarget_rejects_bad_index_names(objects: list[dict[str, Any]], bad: str) -> None:
    with pytest.raises(ConfigError):
        dashboards.retarget(objects, bad)


def test_load_finds_the_file() -> None:
    assert dashboards.ndjson_path().resolve() == NDJSON.resolve()
    assert dashboards.load() == [json.loads(x) for x in NDJSON.read_text().splitlines() if x]


def test_export_ndjson(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dashboards", "export-ndjson", "--index", "news"]) == 0
    out = capsys.readouterr().out
    exported = [json.loads(line) for line in out.splitlines()]
    assert exported == dashboards.retarget(dashboards.load(), "news")
    assert out.endswith("\n")


# --- import against a stand-in server -------------------------------------------------------


class _FakeDashboards(BaseHTTPRequestHandler):
    """Records each request; answers what the test put in ``server.answer``."""

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        length = int(self.headers["Content-Length"])
        body = self.rfile.read(length)
        self.server.requests.append((self.path, dict(self.headers.items()), body))  # type: ignore[attr-defined]
        status, answer = self.server.answer  # type: ignore[attr-defined]
        payload = json.dumps(answer).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


@pytest.fixture()
def fake_dashboards() -> Iterator[ThreadingHTTPServer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _FakeDashboards)
    server.requests = []  # type: ignore[attr-defined]
    server.answer = (200, {"success": True, "successCount": 8})  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def _url(server: ThreadingHTTPServer) -> str:
    host, port = server.server_address[:2]
    return f"http://{host}:{port}"


def _multipart_files(headers: dict[str, str], body: bytes) -> dict[str, tuple[str, bytes]]:
    content_type = next(v for k, v in headers.items() if k.lower() == "content-type")
    assert content_type.startswith("multipart/form-data; boundary=")
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + body
    )
    assert message.is_multipart()
    files = {}
    for part in message.iter_parts():
        disposition = part["Content-Disposition"]
        assert disposition.startswith("form-data")
        name = part.get_param("name", header="content-disposition")
        files[name] = (part.get_filename(), part.get_payload(decode=True))
    return files


def test_import_posts_multipart_with_xsrf_header(
    fake_dashboards: ThreadingHTTPServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.delenv("OPENSEARCH_DASHBOARDS_USER", raising=False)
    monkeypatch.setenv("OPENSEARCH_USER", "reader")
    monkeypatch.setenv("OPENSEARCH_PASSWORD", "s3cret")
    rc = main(["dashboards", "import", "--url", _url(fake_dashboards) + "/", "--index", "news"])
    assert rc == 0
    assert "imported 8 saved objects" in capsys.readouterr().out
    ((path, headers, body),) = fake_dashboards.requests  # type: ignore[attr-defined]
    split = urlsplit(path)
    assert split.path == "/api/saved_objects/_import"
    assert parse_qs(split.query) == {"overwrite": ["true"]}
    lower = {k.lower(): v for k, v in headers.items()}
    assert lower["osd-xsrf"] == "true"
    scheme, token = lower["authorization"].split()
    assert scheme == "Basic" and b64decode(token) == b"reader:s3cret"
    files = _multipart_files(headers, body)
    assert list(files) == ["file"]
    filename, content = files["file"]
    assert filename.endswith(".ndjson")
    sent = [json.loads(line) for line in content.decode().splitlines()]
    assert sent == dashboards.retarget(dashboards.load(), "news")


def test_import_without_credentials_sends_no_authorization(
    fake_dashboards: ThreadingHTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in (
        "OPENSEARCH_USER",
        "OPENSEARCH_PASSWORD",
        "OPENSEARCH_DASHBOARDS_USER",
        "OPENSEARCH_DASHBOARDS_PASSWORD",
    ):
        monkeypatch.delenv(name, raising=False)
    rc = main(["dashboards", "import", "--url", _url(fake_dashboards), "--tenant", "global"])
    assert rc == 0
    ((_path, headers, _body),) = fake_dashboards.requests  # type: ignore[attr-defined]
    lower = {k.lower(): v for k, v in headers.items()}
    assert "authorization" not in lower
    assert lower["securitytenant"] == "global"


def test_dashboards_credentials_take_precedence(
    fake_dashboards: ThreadingHTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENSEARCH_USER", "indexer")
    monkeypatch.setenv("OPENSEARCH_PASSWORD", "x")
    monkeypatch.setenv("OPENSEARCH_DASHBOARDS_USER", "viewer")
    monkeypatch.setenv("OPENSEARCH_DASHBOARDS_PASSWORD", "y")
    assert main(["dashboards", "import", "--url", _url(fake_dashboards)]) == 0
    ((_path, headers, _body),) = fake_dashboards.requests  # type: ignore[attr-defined]
    token = {k.lower(): v for k, v in headers.items()}["authorization"].split()[1]
    assert b64decode(token) == b"viewer:y"


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ((400, {"statusCode": 400, "message": "bad ndjson"}), "HTTP 400"),
        (
            (
                200,
                {
                    "success": False,
                    "successCount": 7,
                    "errors": [
                        {
                            "id": "neardup-pages-dashboard",
                            "type": "dashboard",
                            "error": {"type": "missing_references"},
                        }
                    ],
                },
            ),
            "dashboard/neardup-pages-dashboard: missing_references",
        ),
    ],
)
def test_import_failures_exit_1_with_the_reason(
    fake_dashboards: ThreadingHTTPServer,
    capsys: pytest.CaptureFixture[str],
    answer: tuple[int, dict[str, Any]],
    message: str,
) -> None:
    fake_dashboards.answer = answer  # type: ignore[attr-defined]
    assert main(["dashboards", "import", "--url", _url(fake_dashboards)]) == 1
    assert message in capsys.readouterr().err


def test_import_unreachable_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _FakeDashboards)
    url = _url(server)
    server.server_close()  # nothing listens there now
    assert main(["dashboards", "import", "--url", url, "--timeout", "5"]) == 1
    assert "cannot reach OpenSearch Dashboards" in capsys.readouterr().err
