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
    with pytest.raises(ConfigError):
        build_collapse_search("x", size=0)


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
    assert body["aggs"]["groups"]["terms"] == {"field": "dup_group", "size": 2}
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
    short = build_find_query(None, "short")
    assert short["query"] == {"bool": {"filter": [{"prefix": {"fingerprints": "b:"}}]}}
    assert short["sort"][0] == {"seq": {"order": "asc"}}
    for bad in ({"state": "lost"}, {"size": 0}, {"offset": 9_990, "size": 20}):
        with pytest.raises(ConfigError):
            build_find_query("x", **bad)  # type: ignore[arg-type]
