"""The OpenSearch store on the real node: templates, round trip, candidates, stoplist,
write-back, collapse search."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from neardup.ingest import templates
from neardup.ingest.stoplist import StoplistConfig, refresh_stoplist
from neardup.ingest.store import open_store
from neardup.ingest.store.base import GroupUpdate, StoplistEntry, StoredDocument
from neardup.ingest.store.errors import DocumentNotFound, StoreUnavailable
from neardup.ingest.store.opensearch import OpenSearchStore
from neardup.ingest.store.query import build_collapse_search


def _by_id(docs: list[StoredDocument]) -> dict[str, StoredDocument]:
    return {d.id: d for d in docs}


# --- templates --------------------------------------------------------------------------------


def test_templates_install_once_and_upgrade_on_version_bump(
    os_client: Any, index_name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = templates.install_templates(os_client, index_name)
    assert set(first.values()) == {"installed"}
    assert set(first) == {
        index_name,
        f"{index_name}-settings",
        f"{index_name}-mappings",
        f"{index_name}-stoplist",
        f"{index_name}-fingerprints",
    }
    again = templates.install_templates(os_client, index_name)
    assert set(again.values()) == {"unchanged"}

    # A newer mappings file is installed; the others stay.
    shutil.copytree(templates.mappings_dir(), tmp_path / "m")
    path = tmp_path / "m" / "pages-mappings.json"
    body = json.loads(path.read_text(encoding="utf-8"))
    body["_meta"]["version"] += 1
    path.write_text(json.dumps(body), encoding="utf-8")
    bumped = templates.install_templates(os_client, index_name, directory=tmp_path / "m")
    assert bumped[f"{index_name}-mappings"] == "upgraded"
    assert bumped[index_name] == "unchanged"
    stored = os_client.cluster.get_component_template(name=f"{index_name}-mappings")
    assert (
        stored["component_templates"][0]["component_template"]["_meta"]["version"]
        == (body["_meta"]["version"])
    )


def test_an_index_made_under_an_older_mapping_gets_the_new_fields(
    os_client: Any, index_name: str
) -> None:
    # An index as mapping version 1 made it: strict, without the main-content field.
    props = templates.load("pages-mappings")["template"]["mappings"]["properties"]
    old = {k: v for k, v in props.items() if k != "content"}
    os_client.indices.create(
        index=index_name, body={"mappings": {"dynamic": "strict", "properties": old}}
    )
    store = OpenSearchStore(os_client, index_name, stoplist_ttl=0.0)
    done = store.install()
    assert done[f"index:{index_name}"] == "exists, fields added"
    assert store.install()[f"index:{index_name}"] == "exists"  # nothing more to add
    doc = StoredDocument("h", "nav | article | footer", ["f"], "c", 1, content="article")
    assert [r.ok for r in store.put([doc])] == [True]
    got = store.get("h")
    assert got is not None and got.verified_text == "article"


def test_indices_created_from_the_templates(os_client: Any, os_store: OpenSearchStore) -> None:
    index = os_store.index
    got = os_client.indices.get(index=index)[index]
    props = got["mappings"]["properties"]
    assert got["mappings"]["dynamic"] == "strict"
    # the pages keep their fingerprints in _source only; they are terms in the fingerprints
    # index (keyword defaults, no norms and docs-only postings, are elided by GET _mapping)
    assert props["fingerprints"]["index"] is False
    searched = os_store.fingerprints_index
    fp = os_client.indices.get_field_mapping(
        index=searched, fields="fingerprints", params={"include_defaults": "true"}
    )[searched]["mappings"]["fingerprints"]["mapping"]["fingerprints"]
    assert fp["type"] == "keyword" and fp["index_options"] == "docs"
    assert fp["norms"] is False and fp["doc_values"] is False
    terms = os_client.indices.get(index=searched)[searched]["mappings"]
    assert terms["_source"] == {"enabled": False} and terms["properties"]["seq"]["type"] == "long"
    assert props["dup_group"]["type"] == "keyword"
    assert props["body"]["type"] == "text"
    assert props["seq"]["type"] == "long"
    assert got["settings"]["index"]["number_of_shards"] == "1"
    assert got["settings"]["index"]["number_of_replicas"] == "0"
    # Every field a StoredDocument writes is mapped (dynamic=strict would reject it otherwise).
    example = StoredDocument("x", "b", [], "c", 0).to_source()
    assert set(example) <= set(props)
    stop = os_client.indices.get(index=os_store.stoplist_index)[os_store.stoplist_index]
    assert stop["mappings"]["properties"]["fingerprint"]["type"] == "keyword"
    assert "fingerprints" not in stop["mappings"]["properties"]  # not the pages template


def test_unknown_field_is_rejected(os_client: Any, os_store: OpenSearchStore) -> None:
    from opensearchpy.exceptions import RequestError

    with pytest.raises(RequestError):
        os_client.index(index=os_store.index, id="bad", body={"id": "bad", "no_such_field": 1})


# --- documents --------------------------------------------------------------------------------


def test_document_round_trips_with_its_fingerprints(
    os_store: OpenSearchStore, stored_corpus: list[StoredDocument]
) -> None:
    doc = stored_corpus[0]
    assert len(doc.fingerprints) > 10
    [result] = os_store.put([doc])
    assert result.ok and result.result == "created"
    got = os_store.get(doc.id)
    assert got is not None and got.version is not None
    assert got.fingerprints == doc.fingerprints
    assert got.body == doc.body and got.fp_config == doc.fp_config and got.seq == doc.seq
    assert got.ingested_at is not None
    assert os_store.get("missing") is None

    many = os_store.mget([doc.id, "missing"], with_fingerprints=False)
    assert list(many) == [doc.id]
    assert many[doc.id].fingerprints == [] and many[doc.id].body == doc.body
    assert many[doc.id].version == got.version


def test_put_reports_each_document_in_order(os_store: OpenSearchStore) -> None:
    docs = [
        StoredDocument("p1", "one", ["f1"], "c", 1),
        StoredDocument("p2", "two", ["f2"], "c", "not a number"),  # type: ignore[arg-type]
        StoredDocument("p3", "three", ["f3"], "c", 3),
    ]
    results = list(os_store.put(docs))
    assert [r.id for r in results] == ["p1", "p2", "p3"]
    assert [r.ok for r in results] == [True, False, True]
    assert "seq" in (results[1].error or "")
    # overwrite=False keeps what is stored (a re-ingest changes nothing)
    os_store.update_group(GroupUpdate("p1", "p1", None, None, None))
    again = list(os_store.put([StoredDocument("p1", "changed", ["f9"], "c", 1)], overwrite=False))
    assert again[0].ok and again[0].result == "noop"
    kept = os_store.get("p1")
    assert kept is not None and kept.body == "one" and kept.dup_group == "p1"
    replaced = list(os_store.put([StoredDocument("p1", "changed", ["f9"], "c", 1)]))
    assert replaced[0].result == "updated"


# --- candidates -------------------------------------------------------------------------------


def test_candidates_of_a_near_duplicate_include_its_twin(
    os_store: OpenSearchStore, corpus: list[dict[str, Any]], stored_corpus: list[StoredDocument]
) -> None:
    list(os_store.put(stored_corpus))
    os_store.refresh()
    docs = _by_id(stored_corpus)
    pairs = [(d["id"], d["twin_of"]) for d in corpus if d["twin_of"]]
    found = 0
    for variant, original in pairs:
        ids = [c.id for c in os_store.candidates(docs[variant], k=20)]
        assert variant not in ids  # never itself
        found += original in ids
    assert found >= 0.95 * len(pairs)

    # The edited copy of a0001 ranks its original first, by shared fingerprints.
    variant = docs["a001-v"]
    top = os_store.candidates(variant, k=5)
    assert top[0].id == "a001"
    shared = len(set(variant.fingerprints) & set(docs["a001"].fingerprints))
    assert top[0].shared == shared
    assert [c.shared for c in top] == sorted((c.shared for c in top), reverse=True)

    # Fingerprints of another configuration never meet.
    other = StoredDocument(
        "other-config", variant.body, variant.fingerprints, "s1-x0-y1-z0-m1-r1", 0
    )
    assert os_store.candidates(other) == []


def test_stoplisted_fingerprints_are_not_used(
    os_store: OpenSearchStore, stored_corpus: list[StoredDocument]
) -> None:
    docs = _by_id(stored_corpus)
    list(os_store.put([docs["a001"], docs["a001-v"], docs["a002"]]))
    os_store.refresh()
    shared = sorted(set(docs["a001"].fingerprints) & set(docs["a001-v"].fingerprints))
    assert len(shared) >= 2
    os_store.set_stoplist(shared[1:])
    [only] = os_store.candidates(docs["a001-v"])
    assert (only.id, only.shared) == ("a001", 1)
    os_store.set_stoplist(shared)
    assert os_store.candidates(docs["a001-v"]) == []
    os_store.set_stoplist([])
    assert os_store.candidates(docs["a001-v"])[0].shared == len(shared)


def test_document_without_fingerprints_has_no_candidates(os_store: OpenSearchStore) -> None:
    empty = StoredDocument("short", "太短了。", [], "s1-x10-y4-z100-m7-r16", 0)
    list(os_store.put([empty, StoredDocument("other", "x", ["f"], empty.fp_config, 1)]))
    os_store.refresh()
    assert os_store.candidates(empty) == []
    got = os_store.get("short")
    assert got is not None and got.fingerprints == []


# --- write-back -------------------------------------------------------------------------------


def test_update_group_with_a_stale_version_returns_false(os_store: OpenSearchStore) -> None:
    list(os_store.put([StoredDocument("g1", "one", ["f"], "c", 1)]))
    seen = os_store.get("g1")
    assert seen is not None and seen.version is not None
    assert os_store.update_group(GroupUpdate("g1", "g0", "g0", 0.5, 0.9), seen.version)
    assert not os_store.update_group(GroupUpdate("g1", "g1", None, None, None), seen.version)
    now = os_store.get("g1")
    assert now is not None and now.dup_group == "g0" and now.resemble == 0.5
    assert now.status == "grouped" and now.grouped_at is not None
    assert now.version != seen.version
    assert os_store.update_group(GroupUpdate("g1", "g1", None, None, None))  # unconditional
    with pytest.raises(DocumentNotFound):
        os_store.update_group(GroupUpdate("nope", "nope", None, None, None))


def test_group_members_by_seq(os_store: OpenSearchStore) -> None:
    docs = [StoredDocument(f"m{i}", f"t{i}", [], "c", seq) for i, seq in enumerate([5, 3, 9, 3])]
    list(os_store.put(docs))
    for d in docs[:3]:
        os_store.update_group(GroupUpdate(d.id, "m1", "m1", 1.0, 1.0))
    os_store.refresh()
    assert [d.id for d in os_store.group_members("m1")] == ["m1", "m0", "m2"]
    assert all(d.version is not None for d in os_store.group_members("m1"))
    assert os_store.group_members("none") == []


# --- stoplist from frequencies ------------------------------------------------------------------


def test_frequencies_and_refresh_stoplist(os_store: OpenSearchStore) -> None:
    docs = []
    for i in range(30):
        fps = [f"own{i}", "everywhere"]
        if i < 12:
            fps.append("template")  # 12 documents on 2 sites
        docs.append(StoredDocument(f"d{i}", "b", fps, "c", i, site=f"s{i % 2 if i < 12 else i}"))
    list(os_store.put(docs))
    os_store.refresh()
    freqs = os_store.fingerprint_frequencies(2)
    assert freqs == {"everywhere": (30, 20), "template": (12, 2)}
    entries = refresh_stoplist(
        os_store, StoplistConfig(max_count=20, concentrated_count=10, max_sites=2)
    )
    assert entries == [
        StoplistEntry("everywhere", 30, 20, "frequent"),
        StoplistEntry("template", 12, 2, "concentrated"),
    ]
    assert os_store.stoplist() == {"everywhere", "template"}
    assert os_store.stoplist_entries() == entries
    # The relative rule: more than 30 % of the 30 stored documents (the node counts them).
    assert os_store.document_count() == 30
    relative = refresh_stoplist(
        os_store, StoplistConfig(max_count=100, concentrated_count=50, max_share=0.3), dry_run=True
    )
    assert relative == [StoplistEntry("everywhere", 30, 20, "frequent"),
                        StoplistEntry("template", 12, 2, "frequent")]
    assert os_store.candidates(docs[0]) == []


def test_stoplist_is_cached_for_its_ttl(os_client: Any, os_store: OpenSearchStore) -> None:
    cached = OpenSearchStore(os_client, os_store.index, stoplist_ttl=3600)
    assert cached.stoplist() == frozenset()
    os_store.set_stoplist(["x"])
    assert cached.stoplist() == frozenset()  # still the cached value
    assert os_store.stoplist() == {"x"}


# --- collapse search --------------------------------------------------------------------------


def test_collapse_search_returns_one_hit_per_group(
    os_client: Any, os_store: OpenSearchStore
) -> None:
    groups = {"r1": ["r1", "r1a", "r1b"], "r2": ["r2", "r2a"], "r3": ["r3"]}
    docs = []
    for group, members in groups.items():
        for j, member in enumerate(members):
            docs.append(
                StoredDocument(member, f"人民日报 新年讲话 {group} {j}", [], "c", len(docs))
            )
    list(os_store.put(docs))
    for group, members in groups.items():
        for member in members:
            dup_of = None if member == group else group
            os_store.update_group(GroupUpdate(member, group, dup_of, 0.9, 0.9))
    list(os_store.put([StoredDocument("pending", "新年讲话", [], "c", 99)]))
    os_store.refresh()
    body = build_collapse_search("新年讲话", size=10, inner_hits_size=5)
    hits = os_client.search(index=os_store.index, body=body)["hits"]["hits"]
    assert sorted(h["fields"]["dup_group"][0] for h in hits) == ["r1", "r2", "r3"]
    for hit in hits:
        group = hit["fields"]["dup_group"][0]
        inner = hit["inner_hits"]["members"]["hits"]
        assert [m["_id"] for m in inner["hits"]] == groups[group]  # by seq
        assert inner["total"]["value"] == len(groups[group])


def _grouped(store: OpenSearchStore, groups: dict[str, list[tuple[str, str]]]) -> None:
    """Index ``{group: [(page, text), ...]}`` (the first page is the root; ``seq`` in order),
    grouped, and one pending page; refresh."""
    docs = [StoredDocument(page, text, [], "c", 0, title=f"title {page}", url=f"u/{page}")
            for pages in groups.values() for page, text in pages]  # fmt: skip
    for seq, doc in enumerate(docs):
        doc.seq = seq
    list(store.put(docs))
    store.update_groups([
        (GroupUpdate(page, group, None if page == group else group, 0.9, 0.95), None)
        for group, pages in groups.items() for page, _ in pages
    ])  # fmt: skip
    list(store.put([StoredDocument("pending", "新年讲话 新年讲话", [], "c", 10_000)]))
    store.refresh()


def _old_search(store: OpenSearchStore, query: str, size: int, members: int
                ) -> list[tuple[Any, ...]]:
    """What ``neardup search`` showed when it collapsed with ``inner_hits`` and then counted
    the groups: (hit, group, title, size, matching, members)."""
    hits = store.collapsed_search(query, size=size, inner_hits_size=max(members, 1))
    sizes = store.group_sizes([h["_source"]["dup_group"] for h in hits])
    out = []
    for h in hits:
        inner = h["inner_hits"]["members"]["hits"]
        out.append((h["_id"], h["_source"]["dup_group"], h["_source"]["title"],
                    sizes[h["_source"]["dup_group"]], inner["total"]["value"],
                    [(m["_id"], m["_source"]["dup_of"]) for m in inner["hits"][:members]]))
    return out


def test_search_shows_what_the_collapse_with_inner_hits_showed(
    os_store: OpenSearchStore,
) -> None:
    from neardup.ingest.commands.search import search

    groups = {
        "r1": [("r1", "人民日报 新年讲话 一"), ("r1a", "新年讲话 二"), ("r1b", "人民日报 三"),
               ("r1c", "新年 讲话 新年 四")],
        "r2": [("r2", "新年讲话 新年讲话 五"), ("r2a", "讲话 六")],
        "r3": [("r3", "人民日报 七")],
        "r4": [("r4", "新年 八"), ("r4a", "新年 新年 九"), ("r4b", "新年 十")],
    }  # fmt: skip
    _grouped(os_store, groups)
    for query in ("新年讲话", "人民日报", "新年", "讲话 日报"):
        for size, members in ((10, 5), (2, 1), (1, 0)):
            got = [(h["id"], h["dup_group"], h["title"], h["group_size"], h["matching"],
                    [(m["id"], m["dup_of"]) for m in h["members"]])
                   for h in search(os_store, query, size=size, members=members)]  # fmt: skip
            assert got == _old_search(os_store, query, size, members), (query, size, members)
    hits = search(os_store, "新年讲话", size=10, members=5)
    assert "pending" not in {h["id"] for h in hits}  # grouped pages only
    r1 = next(h for h in hits if h["dup_group"] == "r1")
    assert r1["group_size"] == 4 and r1["matching"] == 3  # r1b does not match
    assert r1["url"] == f"u/{r1['id']}" and r1["members"][1]["resemble"] == 0.9


def test_top_groups_are_the_engine_s_collapse_also_past_the_window(
    os_store: OpenSearchStore,
) -> None:
    # a big group whose pages outrank every other: the window of 5 × size hits holds it alone
    big = [(f"big{i:02d}" if i else "big", "新年讲话 新年讲话 新年讲话") for i in range(30)]
    groups = {"big": big, **{f"s{i}": [(f"s{i}", f"新年 第{i}篇 人民日报 评论员 文章")]
                             for i in range(12)}}  # fmt: skip
    _grouped(os_store, groups)
    searches: list[str] = []
    os_store.observe_requests(lambda kind, _s: searches.append(kind))
    for query, size, window_only in (("新年讲话", 3, False), ("新年讲话", 8, True),
                                     ("人民日报", 5, True), ("第3篇", 10, True)):
        searches.clear()
        top = os_store.top_groups(query, size)
        collapsed = os_store.collapsed_search(query, size=size, inner_hits_size=0)
        assert [(t["id"], t["dup_group"]) for t in top] == [
            (h["_id"], h["_source"]["dup_group"]) for h in collapsed], query
        assert [t["score"] for t in top] == [h["_score"] for h in collapsed]
        # the window alone (one search, then the comparison's), or the engine's collapse too
        assert len(searches) == (2 if window_only else 3), (query, size, searches)
    assert os_store.top_groups("没有这个词", 10) == []


def test_group_details_of_the_shown_groups(os_store: OpenSearchStore) -> None:
    groups = {"r1": [("r1", "新年讲话"), ("r1a", "人民日报"), ("r1b", "新年讲话 续")],
              "r2": [("r2", "新年讲话")]}  # fmt: skip
    _grouped(os_store, groups)
    details = os_store.group_details("新年讲话", ["r1", "r2", "nothing"], members=1,
                                     shown=["r1b", "r2"])
    assert set(details) == {"r1", "r2"}  # a group without pages is absent
    assert (details["r1"]["size"], details["r1"]["matching"]) == (3, 2)
    assert [m["_id"] for m in details["r1"]["members"]] == ["r1"]  # the first by seq
    assert details["r1"]["hit"]["_id"] == "r1b"
    assert details["r1"]["hit"]["_source"]["title"] == "title r1b"
    assert "body" not in details["r1"]["hit"]["_source"]
    assert os_store.group_details("新年讲话", []) == {}


# --- errors and configuration -----------------------------------------------------------------


def test_unreachable_node_raises_store_unavailable() -> None:
    store = open_store("opensearch", url="http://127.0.0.1:9", index="pages")
    store.client.transport.max_retries = 0
    with pytest.raises(StoreUnavailable):
        store.get("x")


def test_open_store_reads_the_environment(
    opensearch_url: str, index_name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENSEARCH_URL", opensearch_url)
    monkeypatch.setenv("NEARDUP_INDEX", index_name)
    store = open_store("opensearch")
    assert isinstance(store, OpenSearchStore) and store.index == index_name
    assert store.install()[f"index:{index_name}"] == "created"
    store.close()


# --- command line -------------------------------------------------------------------------------


def test_cli_templates_and_stoplist(
    opensearch_url: str,
    index_name: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from neardup.ingest.cli import main

    monkeypatch.setenv("OPENSEARCH_URL", opensearch_url)
    monkeypatch.setenv("NEARDUP_INDEX", index_name)
    assert main(["templates", "install", "--create-indices"]) == 0
    out = capsys.readouterr().out
    assert f"{index_name}\tinstalled" in out and f"index:{index_name}\tcreated" in out
    assert main(["templates", "install"]) == 0
    assert set(line.split("\t")[1] for line in capsys.readouterr().out.splitlines()) == {
        "unchanged"
    }

    store = open_store("opensearch", index=index_name, stoplist_ttl=0)
    docs = [StoredDocument(f"d{i}", "b", ["tpl", f"own{i}"], "c", i, site="one") for i in range(5)]
    list(store.put(docs))
    store.refresh()
    args = [
        "stoplist",
        "compute",
        "--max-count",
        "10",
        "--concentrated-count",
        "4",
        "--max-sites",
        "1",
    ]
    assert main(args) == 0
    capsys.readouterr()
    assert main(["stoplist", "show"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rows == [{"fingerprint": "tpl", "count": 5, "sites": 1, "reason": "concentrated"}]
    assert store.stoplist() == {"tpl"}
    store.close()

