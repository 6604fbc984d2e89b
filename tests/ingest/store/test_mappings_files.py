"""mappings/*.json: loaded by one function, filled for the configured index."""

from __future__ import annotations

from pathlib import Path

import pytest

from neardup.ingest import templates
from neardup.ingest.errors import ConfigError
from neardup.ingest.settings import Settings
from neardup.ingest.store import client_from_env, default_index
from neardup.ingest.store.base import StoredDocument


def test_every_file_loads_with_a_version() -> None:
    for name in templates.TEMPLATE_FILES:
        body = templates.load(name)
        assert isinstance(body["_meta"]["version"], int)
    assert templates.load("pages-template.json") == templates.load("pages-template")
    with pytest.raises(ConfigError):
        templates.load("nope")


def test_load_returns_a_copy() -> None:
    templates.load("pages-template")["_meta"]["version"] = -1
    assert templates.load("pages-template")["_meta"]["version"] >= 1


def test_render_fills_the_index_name() -> None:
    body = templates.render("pages-template", "news", shards=3, replicas=1)
    assert body["index_patterns"] == ["news", "news-*"]
    assert body["composed_of"] == ["news-settings", "news-mappings"]
    assert body["template"]["settings"]["index"] == {"number_of_shards": 3, "number_of_replicas": 1}
    stop = templates.render("stoplist-template", "news")
    assert stop["index_patterns"] == ["news-stoplist"]
    assert stop["priority"] > body["priority"]  # beats news-* for the stoplist index
    assert templates.template_names("news")["pages-template"] == "news"
    with pytest.raises(ConfigError):
        templates.render("pages-template", "Bad*Name")


def test_pages_mapping_covers_the_stored_document() -> None:
    mapping = templates.load("pages-mappings")["template"]["mappings"]
    assert mapping["dynamic"] == "strict"
    props = mapping["properties"]
    assert set(StoredDocument("x", "", [], "c", 0).to_source()) == set(props)
    # kept for inspection only: the candidate search is the fingerprints index's
    assert props["fingerprints"]["index"] is False and props["fingerprints"]["doc_values"] is False
    assert props["dup_group"]["type"] == "keyword"


def test_fingerprints_mapping_holds_what_the_candidate_path_reads() -> None:
    body = templates.render("fingerprints-template", "news", shards=2)
    assert body["index_patterns"] == ["news-fingerprints"]
    assert body["priority"] > templates.render("pages-template", "news")["priority"]
    assert body["template"]["settings"]["index"]["number_of_shards"] == 2
    mapping = body["template"]["mappings"]
    assert mapping["dynamic"] == "strict"
    props = mapping["properties"]
    assert mapping["_source"] == {"enabled": False}  # the page's is in the pages index
    doc = StoredDocument("x", "body", ["f"], "c", 3, url="u", site="s", content="main")
    assert set(doc.fingerprints_source()) == set(props)
    fps = props["fingerprints"]
    assert fps["index_options"] == "docs" and fps["norms"] is False and fps["doc_values"] is False
    assert templates.template_names("news")["fingerprints-template"] == "news-fingerprints"


def test_mappings_dir_from_the_settings(tmp_path: Path) -> None:
    directory = Settings.from_env({"NEARDUP_MAPPINGS_DIR": str(tmp_path)}).mappings_dir
    assert templates.mappings_dir(directory) == tmp_path
    with pytest.raises(ConfigError):
        templates.load("pages-template", directory)


def test_client_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENSEARCH_URL", "https://search.example:9201")
    monkeypatch.setenv("OPENSEARCH_USER", "neardup")
    monkeypatch.setenv("OPENSEARCH_PASSWORD", "secret")
    monkeypatch.setenv("OPENSEARCH_VERIFY_CERTS", "false")
    monkeypatch.setenv("NEARDUP_ENGINE", "opensearch")  # named: nothing is asked of the node
    client = client_from_env()
    conn = client.transport.connection_pool.connections[0]
    assert conn.host == "https://search.example:9201"
    assert "authorization" in {k.lower() for k in conn.headers}
    monkeypatch.setenv("OPENSEARCH_VERIFY_CERTS", "perhaps")
    with pytest.raises(ConfigError, match="OPENSEARCH_VERIFY_CERTS"):
        client_from_env()


def test_default_index(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NEARDUP_INDEX", raising=False)
    assert default_index() == "pages"
    monkeypatch.setenv("NEARDUP_INDEX", "news")
    assert default_index() == "news"
