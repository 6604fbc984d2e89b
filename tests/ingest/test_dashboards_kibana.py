"""The Kibana saved objects (mappings/dashboards/kibana.ndjson), checked against the documented
saved-objects export format (Kibana 8: one object a line with ``id``, ``type``, ``attributes``,
``references``, ``coreMigrationVersion`` and ``typeMigrationVersion``; references by name from
``searchSourceJSON``'s ``indexRefName``, ``panelsJSON``'s ``panelRefName`` and a
visualisation's ``savedSearchRefName``), and ``neardup dashboards`` choosing the file and the
write header by engine. Kibana itself is not run here."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from neardup.ingest import dashboards
from neardup.ingest.cli import main

ROOT = Path(__file__).resolve().parents[2]
KIBANA = ROOT / "mappings" / "dashboards" / "kibana.ndjson"
TYPES = {"index-pattern", "search", "visualization", "dashboard"}
VERSION = re.compile(r"^\d+\.\d+\.\d+$")


@pytest.fixture(scope="module")
def objects() -> list[dict[str, Any]]:
    return dashboards.load(KIBANA)


def _names_used(obj: dict[str, Any]) -> set[str]:
    """Reference names an object's attributes point at."""
    attrs = obj["attributes"]
    used: set[str] = set()
    source = attrs.get("kibanaSavedObjectMeta", {}).get("searchSourceJSON")
    if source:
        parsed = json.loads(source)
        if "indexRefName" in parsed:
            used.add(parsed["indexRefName"])
        for f in parsed.get("filter", []):
            if "indexRefName" in f.get("meta", {}):
                used.add(f["meta"]["indexRefName"])
    if "panelsJSON" in attrs:
        used.update(p["panelRefName"] for p in json.loads(attrs["panelsJSON"]))
    if "savedSearchRefName" in attrs:
        used.add(attrs["savedSearchRefName"])
    return used


def test_every_line_is_a_kibana_8_saved_object(objects: list[dict[str, Any]]) -> None:
    assert {o["type"] for o in objects} == TYPES
    ids = [o["id"] for o in objects]
    assert len(ids) == len(set(ids))
    for o in objects:
        assert set(o) == {"id", "type", "attributes", "references", "coreMigrationVersion",
                          "typeMigrationVersion"}, o["id"]
        assert VERSION.match(o["coreMigrationVersion"]) and o["coreMigrationVersion"] >= "8"
        assert VERSION.match(o["typeMigrationVersion"]), o["id"]
        assert isinstance(o["attributes"].get("title"), str) and o["attributes"]["title"]
        for ref in o["references"]:
            assert set(ref) == {"name", "type", "id"}


def test_references_resolve_both_ways(objects: list[dict[str, Any]]) -> None:
    by_id = {o["id"]: o for o in objects}
    for o in objects:
        names = {r["name"] for r in o["references"]}
        assert _names_used(o) == names, o["id"]  # no dangling name, no unused reference
        for ref in o["references"]:
            assert by_id[ref["id"]]["type"] == ref["type"], (o["id"], ref)


def test_the_data_view_the_group_search_and_the_group_size_visualisation(
    objects: list[dict[str, Any]],
) -> None:
    by_id = {o["id"]: o for o in objects}
    view = by_id["neardup-pages-index-pattern"]["attributes"]
    assert (view["title"], view["timeFieldName"]) == ("pages*", "ingested_at")
    groups = by_id["neardup-pages-groups"]["attributes"]
    source = json.loads(groups["kibanaSavedObjectMeta"]["searchSourceJSON"])
    # one row per group: the representatives (no dup_of), sorted on dup_group
    [only] = source["filter"]
    assert only["meta"]["negate"] is True and only["query"] == {"exists": {"field": "dup_of"}}
    assert groups["sort"][0] == ["dup_group", "asc"] and "dup_group" in groups["columns"]
    vis = json.loads(by_id["neardup-pages-group-size-distribution"]["attributes"]["visState"])
    spec = json.loads(vis["params"]["spec"])
    assert vis["type"] == "vega" and spec["data"]["url"]["index"] == "pages*"
    dashboard = by_id["neardup-pages-dashboard"]
    assert {r["id"] for r in dashboard["references"]} >= {
        "neardup-pages-groups", "neardup-pages-group-size-distribution",
    }


def test_retargeted_for_another_index(objects: list[dict[str, Any]]) -> None:
    news = dashboards.retarget(objects, "news")
    assert all(o["id"].startswith("neardup-news-") for o in news)
    assert all(r["id"].startswith("neardup-news-") for o in news for r in o["references"])
    vis = next(o for o in news if o["type"] == "visualization")
    assert json.loads(json.loads(vis["attributes"]["visState"])["params"]["spec"])["data"][
        "url"]["index"] == "news*"


def test_the_engine_chooses_the_file_and_the_write_header() -> None:
    kibana, osd = dashboards.target("elasticsearch"), dashboards.target("opensearch")
    assert (kibana.ndjson, kibana.xsrf_header) == ("kibana.ndjson", "kbn-xsrf")
    assert (osd.ndjson, osd.xsrf_header) == ("neardup.ndjson", "osd-xsrf")
    assert dashboards.ndjson_path(engine="elasticsearch").resolve() == KIBANA.resolve()


@pytest.mark.parametrize(("engine", "first_type"), [("elasticsearch", "index-pattern")])
def test_export_for_elasticsearch_writes_the_kibana_objects(
    engine: str, first_type: str, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("NEARDUP_ENGINE", engine)
    assert main(["dashboards", "export-ndjson", "--index", "news"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines[0]["type"] == first_type
    assert {o["id"] for o in lines} == {
        o["id"] for o in dashboards.retarget(dashboards.load(KIBANA), "news")
    }
    assert all("coreMigrationVersion" in o for o in lines)
    assert main(["--engine", "opensearch", "dashboards", "export-ndjson"]) == 0
    assert all("coreMigrationVersion" not in json.loads(line)
               for line in capsys.readouterr().out.splitlines())
