"""The in-memory index that follows changes (neardup.ingest.incremental): after any sequence of
puts, updates and deletes, its groups and masks are those of neardup.dedup on the pages
present, in the order they were last put."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import neardup
from neardup.ingest.incremental import IncrementalDedup

T = 3  # chrome threshold: small, so that a few pages cross it

HEADER = ("Riverside Gazette - independent news for the valley since 1921\n"
          "Home | Politics | Business | Sports | Weather | Letters to the editor\n")
FOOTER = ("\nCopyright the Riverside Gazette, all rights reserved, reproduction prohibited\n"
          "Subscribe to our newsletter for the morning headlines in your inbox")

STORIES = [
    "The river flooded the old town on Monday night. Residents were moved to the school on the "
    "hill, where volunteers served soup until morning. The mayor said the dikes built in 1953 "
    "held for most of the night before a section gave way near the mill.",
    "The council voted to close the northern pier for repairs after engineers found rust in the "
    "main beams. Fishing boats will dock at the southern quay until the work ends in spring. "
    "Harbour fees stay the same for the season, the treasurer said.",
    "A bakery on Station Road won the regional bread prize for its rye loaf, baked in a wood oven "
    "its founder built in the cellar forty years ago. The judges praised the crust and the sour "
    "taste, and the queue outside the shop reached the corner by eight.",
    "Students of the valley school planted two hundred oak trees along the cycle path on Sunday. "
    "The forestry office gave the saplings and a retired ranger showed the children how deep to "
    "dig. The path will be shaded within ten years, the headmistress hopes.",
]
EDITS = ["", " Repairs start next week.", " The story was updated on Tuesday morning."]


def _text(story: int, edit: int, chrome: bool) -> str:
    body = STORIES[story] + EDITS[edit]
    return HEADER + body + FOOTER if chrome else body


page_ids = st.sampled_from(["a", "b", "c", "d", "e", "f", "g"])
puts = st.tuples(st.just("put"), page_ids, st.integers(0, len(STORIES) - 1),
                 st.integers(0, len(EDITS) - 1),
                 st.sampled_from(["gazette.example", "gazette.example", "other.example", None]),
                 st.sampled_from([True, True, False]))
deletes = st.tuples(st.just("delete"), page_ids)


def _partition(groups: dict[str, str]) -> set[frozenset[str]]:
    by: dict[str, set[str]] = {}
    for page, group in groups.items():
        by.setdefault(group, set()).add(page)
    return {frozenset(m) for m in by.values()}


def _replay(ops: list[tuple]) -> tuple[IncrementalDedup, list[dict]]:
    live = IncrementalDedup(chrome_min_pages=T)
    present: dict[str, dict] = {}
    for op in ops:
        if op[0] == "put":
            _, doc_id, story, edit, site, chrome = op
            page = {"id": doc_id, "text": _text(story, edit, chrome)}
            if site is not None:
                page["site"] = site
            live.put(page)
            present.pop(doc_id, None)
            present[doc_id] = page  # the last put is the latest
        else:
            assert live.delete(op[1]) == (op[1] in present)
            present.pop(op[1], None)
    return live, list(present.values())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(puts, puts, deletes), min_size=1, max_size=18))
def test_any_sequence_of_changes_groups_as_dedup_on_the_pages_present(ops: list[tuple]) -> None:
    live, present = _replay(ops)
    expected = {g.id: g.dup_group for g in neardup.dedup(present, chrome_min_pages=T)}
    assert _partition(live.groups()) == _partition(expected)
    assert set(live.groups()) == set(expected)
    # the group ids are the earliest member in put order, as dedup's in input order
    assert live.groups() == expected


def test_a_deleted_representative_hands_its_group_to_the_earliest_member_left() -> None:
    live = IncrementalDedup(chrome_min_pages=T)
    for doc_id, edit in (("a", 0), ("b", 1), ("c", 2)):
        live.put({"id": doc_id, "text": _text(0, edit, False)})
    assert live.groups() == {"a": "a", "b": "a", "c": "a"}
    live.delete("a")
    assert live.groups() == {"b": "b", "c": "b"}


def test_an_update_to_another_story_leaves_its_group() -> None:
    live = IncrementalDedup(chrome_min_pages=T)
    live.put({"id": "a", "text": _text(0, 0, False)})
    live.put({"id": "b", "text": _text(0, 1, False)})
    live.put({"id": "a", "text": _text(1, 0, False)})
    assert live.groups() == {"a": "a", "b": "b"}


def test_a_line_that_becomes_chrome_is_masked_on_the_pages_that_came_before() -> None:
    """Two different stories in one site's chrome join while the chrome is below the threshold;
    once enough pages carry it, the earlier pages lose it too and part."""
    live = IncrementalDedup(chrome_min_pages=T)
    site = {"site": "gazette.example"}
    live.put({"id": "a", "text": _text(0, 0, True), **site})
    live.put({"id": "b", "text": _text(1, 0, True), **site})
    before = live.document("a")
    assert before is not None and before.content is None  # below T: nothing masked yet
    live.put({"id": "c", "text": _text(2, 0, True), **site})
    after = live.document("a")
    assert after is not None and after.content is not None and "Gazette" not in after.content
    assert len(set(live.groups().values())) == 3
