"""Query builders on plain dicts (no node)."""

from __future__ import annotations

import json

import pytest

from neardup.ingest.errors import ConfigError
from neardup.ingest.store.query import (
    CANDIDATE_SORT,
    MAX_CANDIDATE_TERMS,
    build_candidate_query,
    build_collapse_search,
    candidate_terms,
)


def _terms(body: dict) -> list[str]:
    return [
        c["constant_score"]["filter"]["term"]["fingerprints"]
        for c in body["query"]["bool"]["should"]
    ]


def test_candidate_query_counts_each_usable_fingerprint_once() -> None:
    body = build_candidate_query(["c", "a", "b", "a", "stop"], {"stop"}, 20, "doc-1", "cfg")
    assert _terms(body) == ["a", "b", "c"]  # distinct, sorted, stoplist removed
    for clause in body["query"]["bool"]["should"]:
        assert clause["constant_score"]["boost"] == 1.0  # so _score == shared count
    q = body["query"]["bool"]
    assert q["minimum_should_match"] == 1
    assert q["filter"] == [{"term": {"fp_config": "cfg"}}]
    assert q["must_not"] == [{"ids": {"values": ["doc-1"]}}]
    assert body["size"] == 20
    assert body["sort"] == CANDIDATE_SORT
    assert [next(iter(s)) for s in body["sort"]] == ["_score", "seq", "id"]
    assert body["_source"] is False
    json.dumps(body)  # plain JSON


def test_candidate_query_is_deterministic() -> None:
    a = build_candidate_query(["x", "y", "z"], set(), 5, "d", "c")
    b = build_candidate_query(["z", "y", "x", "x"], frozenset(), 5, "d", "c")
    assert a == b


def test_candidate_query_without_exclusion() -> None:
    body = build_candidate_query(["a"], (), 1, None, "c")
    assert "must_not" not in body["query"]["bool"]


@pytest.mark.parametrize(
    ("fps", "stop", "k"),
    [([], set(), 5), (["a"], {"a"}, 5), (["a"], set(), 0)],
)
def test_candidate_query_refuses_nothing_to_ask(fps: list[str], stop: set[str], k: int) -> None:
    with pytest.raises(ConfigError):
        build_candidate_query(fps, stop, k, "d", "c")


def test_candidate_query_stays_under_the_clause_limit() -> None:
    many = [f"f{i}" for i in range(MAX_CANDIDATE_TERMS + 1)]
    with pytest.raises(ConfigError, match="max_clause_count"):
        build_candidate_query(many, set(), 5, "d", "c")
    assert len(_terms(build_candidate_query(many[:112], set(), 5, "d", "c"))) == 112


def test_candidate_terms() -> None:
    assert candidate_terms(["b", "a", "b"], {"b"}) == ["a"]


def test_collapse_search() -> None:
    body = build_collapse_search("新年 讲话", size=7, inner_hits_size=3)
    assert body["size"] == 7
    assert body["collapse"]["field"] == "dup_group"
    inner = body["collapse"]["inner_hits"]
    assert inner["name"] == "members" and inner["size"] == 3
    assert inner["sort"] == [{"seq": {"order": "asc"}}, {"id": {"order": "asc"}}]
    q = body["query"]["bool"]
    assert q["must"][0]["multi_match"]["query"] == "新年 讲话"
    assert q["filter"] == [{"exists": {"field": "dup_group"}}]
    assert "body" not in body["_source"]  # results list metadata, not whole pages
    assert build_collapse_search("x", inner_hits_size=0)["collapse"] == {"field": "dup_group"}
    with pytest.raises(ConfigError):
        build_collapse_search("x", size=0)


# -- neardup search: the window collapse and the shown groups' details ----------------------

from neardup.ingest.store.query import (  # noqa: E402
    MAX_WINDOW,
    build_group_details_query,
    build_window_query,
    parse_group_details,
    parse_window,
)


def test_window_query_is_the_collapse_query_without_collapse_nor_stored_fields() -> None:
    body = build_window_query("新年 讲话", 50)
    collapse = build_collapse_search("新年 讲话")
    assert body["query"] == collapse["query"]  # the same ranking
    assert body["size"] == 50 and body["track_total_hits"] is False
    assert body["stored_fields"] == "_none_" and "_source" not in body
    assert body["docvalue_fields"] == ["id", "dup_group"]
    assert "collapse" not in body and "sort" not in body  # by score
    for bad in (0, MAX_WINDOW + 1):
        with pytest.raises(ConfigError):
            build_window_query("x", bad)


def _hit(doc: str, group: str, score: float) -> dict:
    return {"_score": score, "fields": {"id": [doc], "dup_group": [group]}}


def test_parse_window_keeps_each_group_s_best_hit_in_rank_order() -> None:
    hits = [_hit("b2", "b", 9.0), _hit("a", "a", 8.0), _hit("b", "b", 7.0),
            _hit("c", "c", 7.0), _hit("a3", "a", 1.0)]  # fmt: skip
    answer = {"hits": {"hits": hits}}
    top, complete = parse_window(answer, 10, 50)
    assert [(t["id"], t["dup_group"], t["score"]) for t in top] == [
        ("b2", "b", 9.0), ("a", "a", 8.0), ("c", "c", 7.0)]
    assert complete  # fewer hits than the window: every group is there
    # the window was full and holds fewer groups than asked: more may follow
    assert parse_window(answer, 10, 5) == (top, False)
    # enough groups: complete however full the window
    assert parse_window(answer, 2, 5) == (top[:2], True)
    # a hit that cannot be named (a page without the id field): the engine must collapse
    assert parse_window({"hits": {"hits": [{"_score": 1.0, "fields": {"dup_group": ["a"]}}]}},
                        10, 50) == ([], False)
    assert parse_window({"hits": {"hits": []}}, 10, 50) == ([], True)


def test_group_details_query_reads_only_the_shown_groups() -> None:
    body = build_group_details_query("新年 讲话", ["b", "a", "b"], members=3, shown=["b2", "a"])
    assert body["query"] == {"bool": {"filter": [{"terms": {"dup_group": ["a", "b"]}}]}}
    groups = body["aggs"]["groups"]
    assert groups["terms"] == {"field": "dup_group", "size": 2, "execution_hint": "map"}
    matching = groups["aggs"]["matching"]
    # the same text query as the search, as a filter: the members that match
    assert matching["filter"] == build_window_query("新年 讲话", 1)["query"]["bool"]["must"][0]
    top = matching["aggs"]["members"]["top_hits"]
    assert top["size"] == 3
    assert top["sort"] == [{"seq": {"order": "asc"}}, {"id": {"order": "asc"}}]
    assert {"id", "url", "dup_of", "resemble", "contain"} <= set(top["_source"])
    # the shown pages are the hits, the aggregations see the whole groups
    assert body["post_filter"] == {"ids": {"values": ["a", "b2"]}} and body["size"] == 2
    assert body["_source"] == build_collapse_search("x")["_source"]
    plain = build_group_details_query("x", ["a"], members=0)
    assert "aggs" not in plain["aggs"]["groups"]["aggs"]["matching"]
    assert plain["size"] == 0 and "post_filter" not in plain
    with pytest.raises(ConfigError):
        build_group_details_query("x", [])
    with pytest.raises(ConfigError):
        build_group_details_query("x", ["a"], members=-1)


def test_parse_group_details() -> None:
    member = {"_id": "a", "_source": {"id": "a", "dup_of": None}}
    answer = {
        "hits": {"hits": [{"_id": "b2", "_source": {"dup_group": "b", "title": "t"}},
                          {"_id": "x", "_source": {"dup_group": "gone"}}]},
        "aggregations": {"groups": {"buckets": [
            {"key": "a", "doc_count": 4,
             "matching": {"doc_count": 2, "members": {"hits": {"hits": [member]}}}},
            {"key": "b", "doc_count": 1, "matching": {"doc_count": 1}},
        ]}},
    }  # fmt: skip
    got = parse_group_details(answer)
    assert got["a"] == {"size": 4, "matching": 2, "members": [member]}
    assert got["b"]["size"] == got["b"]["matching"] == 1 and got["b"]["members"] == []
    assert got["b"]["hit"]["_source"]["title"] == "t"
    assert set(got) == {"a", "b"}  # a shown page of no asked group is left out


# -- group sizes, the index overview, the inspector's lookup --------------------------------

from neardup.ingest.store.query import (  # noqa: E402
    build_find_query,
    build_group_sizes_query,
    build_index_overview_query,
    parse_group_sizes,
    parse_index_overview,
)


def test_group_sizes_query_counts_whole_groups() -> None:
    body = build_group_sizes_query(["b", "a", "b"])
    assert body["query"] == {"bool": {"filter": [{"terms": {"dup_group": ["a", "b"]}}]}}
    assert body["aggs"]["groups"]["terms"] == {"field": "dup_group", "size": 2,
                                               "execution_hint": "map"}
    answer = {"aggregations": {"groups": {"buckets": [{"key": "a", "doc_count": 5}]}}}
    assert parse_group_sizes(answer) == {"a": 5}
    with pytest.raises(ConfigError):
        build_group_sizes_query([])


def test_index_overview_histogram_counts_singletons_from_the_rest() -> None:
    body = build_index_overview_query(10, 3)
    assert body["aggs"]["largest"]["terms"]["min_doc_count"] == 2
    assert body["aggs"]["sites"]["aggs"]["by_site"]["terms"]["size"] == 3
    answer = {
        "hits": {"total": {"value": 12}},
        "aggregations": {
            "status": {"buckets": [{"key": "grouped", "doc_count": 10},
                                   {"key": "error", "doc_count": 1},
                                   {"key": "pending", "doc_count": 1}]},
            "largest": {"buckets": [{"key": "g1", "doc_count": 4}, {"key": "g2", "doc_count": 2},
                                    {"key": "g3", "doc_count": 2}]},
            "group_count": {"value": 6},
            "sites": {"by_site": {"buckets": [{"key": "a.example", "doc_count": 4},
                                              {"key": "(no site)", "doc_count": 1}]}},
        },
    }  # fmt: skip
    got = parse_index_overview(answer)
    # 11 decided pages: 8 in the three larger groups, so 3 pages alone (the error one included)
    assert got["size_histogram"] == [{"size": 1, "groups": 3}, {"size": 2, "groups": 2},
                                     {"size": 4, "groups": 1}]  # fmt: skip
    assert got["duplicates_by_site"] == [{"site": "a.example", "duplicates": 4},
                                         {"site": "(no site)", "duplicates": 1}]  # fmt: skip
    assert got["status"] == {"grouped": 10, "error": 1, "pending": 1} and got["documents"] == 12


def test_find_query_looks_up_ids_urls_and_words_in_a_state() -> None:
    body = build_find_query("https://a.example/p", "pending", 40, 20)
    should = body["query"]["bool"]["should"]
    assert should[0] == {"ids": {"values": ["https://a.example/p"], "boost": 100.0}}
    assert should[1] == {"term": {"url": {"value": "https://a.example/p", "boost": 50.0}}}
    assert body["query"]["bool"]["filter"] == [{"term": {"status": "pending"}}]
    assert (body["from"], body["size"]) == (40, 20)
    # the pages index holds no searchable fingerprint: short pages are the ids the
    # fingerprints index names (build_short_query)
    short = build_find_query(None, "short", short_ids=["p1", "p2"])
    assert short["query"] == {"bool": {"filter": [{"ids": {"values": ["p1", "p2"]}}]}}
    assert short["sort"][0] == {"seq": {"order": "asc"}}
    for bad in ({"state": "lost"}, {"size": 0}, {"offset": 9_990, "size": 20}):
        with pytest.raises(ConfigError):
            build_find_query("x", **bad)  # type: ignore[arg-type]
