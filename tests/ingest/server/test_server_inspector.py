"""The inspector's query builder and text segments (pure functions)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ingest.errors import ConfigError
from ingest.server.inspector import (
    MAX_GROUPS,
    build_largest_groups_query,
    normalise_spans,
    parse_largest_groups,
    segments,
)


def test_largest_groups_query() -> None:
    body = build_largest_groups_query(10, min_size=3)
    terms = body["aggs"]["groups"]["terms"]
    assert terms == {
        "field": "dup_group",
        "size": 10,
        "min_doc_count": 3,
        "order": [{"_count": "desc"}, {"_key": "asc"}],
    }
    assert body["size"] == 0
    assert body["query"]["bool"]["filter"] == [{"exists": {"field": "dup_group"}}]


@pytest.mark.parametrize("size, min_size", [(0, 2), (MAX_GROUPS + 1, 2), (5, 0)])
def test_largest_groups_query_bounds(size: int, min_size: int) -> None:
    with pytest.raises(ConfigError):
        build_largest_groups_query(size, min_size)


def test_parse_largest_groups() -> None:
    response = {
        "hits": {"total": {"value": 12, "relation": "eq"}, "hits": []},
        "aggregations": {
            "groups": {"buckets": [{"key": "g1", "doc_count": 5}, {"key": "g2", "doc_count": 2}]},
            "group_count": {"value": 7},
        },
    }
    assert parse_largest_groups(response) == {
        "groups": [{"id": "g1", "size": 5}, {"id": "g2", "size": 2}],
        "grouped_documents": 12,
        "group_count": 7,
    }
    assert parse_largest_groups({})["groups"] == []


def test_segments_mark_the_region() -> None:
    assert segments("abcdef", [(2, 4)]) == [
        {"text": "ab", "mark": False},
        {"text": "cd", "mark": True},
        {"text": "ef", "mark": False},
    ]
    assert segments("abc", None) == [{"text": "abc", "mark": False}]
    assert segments("", [(0, 3)]) == [{"text": "", "mark": False}]
    assert segments("abc", [(0, 3)]) == [{"text": "abc", "mark": True}]


def test_segments_count_code_points_not_utf16_units() -> None:
    text = "😀😀中文abc"
    assert segments(text, [(2, 4)])[1] == {"text": "中文", "mark": True}


def test_segments_carry_markup_as_text() -> None:
    # Escaping is the page's job (textContent); the server must not alter the text either.
    text = "<script>alert(1)</script>"
    assert "".join(s["text"] for s in segments(text, [(0, 8)])) == text


@given(
    st.text(max_size=60),
    st.lists(st.tuples(st.integers(-5, 70), st.integers(-5, 70)), max_size=5),
)
def test_segments_rejoin_to_the_text(text: str, spans: list[tuple[int, int]]) -> None:
    parts = segments(text, spans)
    assert "".join(p["text"] for p in parts) == text
    clean = normalise_spans(spans, len(text))
    assert [p["text"] for p in parts if p["mark"]] == [text[s:e] for s, e in clean]
    assert all(a[1] < b[0] for a, b in zip(clean, clean[1:], strict=False))  # disjoint and apart
