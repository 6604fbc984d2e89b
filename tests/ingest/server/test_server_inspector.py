"""The inspector's query builder and text segments (pure functions)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from neardup.ingest.errors import ConfigError
from neardup.ingest.server.inspector import (
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


# -- word-aligned highlights, page states, snippets ------------------------------------------

from neardup.ingest.server.inspector import (  # noqa: E402
    page_status,
    snippet,
    thresholds,
    word_aligned,
)
from neardup.verifier.config import VerifyConfig  # noqa: E402


def test_highlights_hold_whole_words_and_no_slivers() -> None:
    text = "We visited the inland towns, then the coast."
    # the region ends inside "towns" and a second one is only a space and a comma
    got = [text[s:e] for s, e in word_aligned(text, [(15, 25), (26, 28), (44, 44)])]
    assert got == ["inland"]
    got = [text[s:e] for s, e in word_aligned(text, [(17, 40)])]  # starts inside "inland"
    assert got == ["towns, then the"]
    # regions apart by white space and punctuation only are one highlight
    assert [text[s:e] for s, e in word_aligned(text, [(15, 21), (22, 27), (29, 33)])] == [
        "inland towns, then"
    ]
    # CJK characters are words of their own: nothing is cut
    zh = "今天北京的天气很好。"
    assert [zh[s:e] for s, e in word_aligned(zh, [(2, 6)])] == ["北京的天"]


@given(st.text(alphabet="ab c,.\n北京", max_size=40),
       st.lists(st.tuples(st.integers(0, 45), st.integers(0, 45)), max_size=5))  # fmt: skip
def test_word_aligned_spans_are_within_and_begin_and_end_at_word_edges(
    text: str, spans: list[tuple[int, int]]
) -> None:
    out = word_aligned(text, spans)
    covered = [(s, e) for s, e in normalise_spans(spans, len(text))]
    for s, e in out:
        assert 0 <= s < e <= len(text)
        assert any(ch.isalnum() for ch in text[s:e])
        assert any(cs <= s and e <= ce for cs, ce in _merged_with_gaps(text, covered))
        latin = lambda c: c.isascii() and c.isalnum()  # noqa: E731
        assert not (s > 0 and latin(text[s - 1]) and latin(text[s]))
        assert not (e < len(text) and latin(text[e - 1]) and latin(text[e]))
    assert out == sorted(out)


def _merged_with_gaps(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans joined across gaps without letters or digits (what word_aligned may merge)."""
    out: list[tuple[int, int]] = []
    for s, e in spans:
        if out and not any(c.isalnum() for c in text[out[-1][1]:s]):
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


def test_segments_of_word_aligned_spans_rebuild_the_text() -> None:
    text = "the inland towns and the coast"
    parts = segments(text, [(6, 14)], words=True)
    assert "".join(p["text"] for p in parts) == text
    assert [p["text"] for p in parts if p["mark"]] == []  # "land tow": no whole word


def test_page_status_explains_each_state() -> None:
    from neardup.ingest.fingerprint import PROFILES

    web = PROFILES["web"]
    base = {"id": "p", "fp_config": web.identity}
    pending = page_status({**base, "status": "pending"}, ["b:x"], None)
    assert pending["state"] == "pending" and "worker" in pending["explanation"]
    assert "too short" in pending["explanation"]
    error = page_status({**base, "status": "error", "error": "boom"}, ["f"], 1)
    assert error == {"state": "error",
                     "explanation": "verification failed: boom; the page is its own group"}  # fmt: skip
    short = page_status({**base, "status": "grouped", "dup_group": "p"}, ["b:x"], 3)
    assert short["state"] == "too-short"
    rule = (f"fewer than {web.per_bucket} distinct sentences wider than {web.min_sentence} "
            f"covering more than {web.min_cover}")
    assert rule in short["explanation"]
    assert "exact copies" in short["explanation"] and "3 identical pages" in short["explanation"]
    dup = page_status({**base, "status": "grouped", "dup_group": "r", "dup_of": "r"}, ["f"], 4)
    assert dup == {"state": "duplicate",
                   "explanation": "near-duplicate in group r of 4 pages, verified against r"}  # fmt: skip
    rep = page_status({**base, "status": "grouped", "dup_group": "p"}, ["f"], 4)
    assert rep["state"] == "representative" and "4 pages" in rep["explanation"]
    alone = page_status({**base, "status": "grouped", "dup_group": "p"}, ["f"], 1)
    assert alone["state"] == "singleton"


def test_snippet_is_one_line_cut_after_a_word() -> None:
    assert snippet("a\n\n b") == "a b"
    text = "word " * 100
    cut = snippet(text, 50)
    assert len(cut) <= 50 and cut.endswith(" …") and cut[:-2].endswith("word")
    assert snippet(None) == ""


def test_thresholds_follow_the_profile_decision() -> None:
    web = thresholds(VerifyConfig.profile("web"))
    assert web == {"decision": "content", "word_resemble": 0.525, "core_resemble": 0.70,
                   "word_contain": 0.90}  # fmt: skip
    short = thresholds(VerifyConfig.profile("short"))
    assert short["decision"] == "tlcs" and set(short) == {"decision", "resemble", "contain"}
