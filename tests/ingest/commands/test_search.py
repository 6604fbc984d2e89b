"""``neardup search``'s hits from the store's two answers: the groups (``top_groups``), then
the shown groups' details (``group_details``, one request)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from neardup.ingest.commands.search import format_hits, search


class TwoAnswers:
    """A store answering ``top_groups`` and ``group_details`` from fixed data, recording the
    calls."""

    def __init__(self, top: list[dict[str, Any]], details: dict[str, dict[str, Any]]) -> None:
        self.top, self.details = top, details
        self.calls: list[tuple[Any, ...]] = []

    def top_groups(self, query_text: str, size: int = 10) -> list[dict[str, Any]]:
        self.calls.append(("top_groups", query_text, size))
        return self.top[:size]

    def group_details(self, query_text: str, group_ids: Sequence[str], members: int = 5,
                      shown: Sequence[str] = ()) -> dict[str, dict[str, Any]]:
        self.calls.append(("group_details", query_text, list(group_ids), members, list(shown)))
        return self.details


def _member(doc: str, dup_of: str | None, rate: float | None) -> dict[str, Any]:
    return {"_id": doc, "_source": {"id": doc, "dup_of": dup_of, "resemble": rate,
                                    "contain": rate, "url": f"u/{doc}"}}


def test_hits_carry_group_size_matching_and_members() -> None:
    store = TwoAnswers(
        [{"id": "a2", "dup_group": "a", "score": 3.5}, {"id": "c", "dup_group": "c", "score": 1.0}],
        {"a": {"size": 4, "matching": 2,
               "members": [_member("a", None, None), _member("a2", "a", 0.9)],
               "hit": {"_id": "a2", "_source": {"dup_group": "a", "title": "T", "url": "u/a2"}}},
         "c": {"size": 1, "matching": 1, "members": [_member("c", None, None)]}},
    )  # fmt: skip
    hits = search(store, "harbour", size=10, members=3)  # type: ignore[arg-type]
    assert store.calls == [("top_groups", "harbour", 10),
                           ("group_details", "harbour", ["a", "c"], 3, ["a2", "c"])]
    assert hits[0] == {
        "id": "a2", "dup_group": "a", "score": 3.5, "title": "T", "url": "u/a2",
        "group_size": 4, "matching": 2,
        "members": [{"id": "a", "dup_of": None, "resemble": None, "contain": None, "url": "u/a"},
                    {"id": "a2", "dup_of": "a", "resemble": 0.9, "contain": 0.9, "url": "u/a2"}],
    }  # fmt: skip
    # the shown page not found any more (deleted meanwhile): listed without its fields
    assert (hits[1]["title"], hits[1]["url"], hits[1]["group_size"]) == (None, None, 1)
    text = format_hits(hits)
    assert "group a (4 pages, 2 matching)" in text and "- a  (representative)" in text


def test_no_group_no_second_request() -> None:
    store = TwoAnswers([], {})
    assert search(store, "nothing") == []  # type: ignore[arg-type]
    assert [c[0] for c in store.calls] == ["top_groups"]


def test_a_group_gone_between_the_requests_keeps_its_hit() -> None:
    store = TwoAnswers([{"id": "x", "dup_group": "x", "score": 1.0}], {})
    [hit] = search(store, "q")  # type: ignore[arg-type]
    assert hit["group_size"] is None and hit["matching"] is None and hit["members"] == []
    assert "(? pages)" in format_hits([hit])
