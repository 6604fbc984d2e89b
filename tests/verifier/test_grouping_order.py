"""The groups do not depend on the order pages arrive in (verifier/grouping.py): the embedded
grouping of one corpus under shuffled acceptance orders gives one partition."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.ingest.dedup import dedup_embedded
from neardup.ingest.pipeline import fingerprint_config, prepare_lines
from neardup.verifier.grouping import GroupForest, joins

BASE = [
    "新华社北京一月一日电 今天是新年的第一天，首都各界群众欢聚一堂，共同迎接新的一年。",
    "The city council approved the new budget on Tuesday after a long debate about schools.",
    "Funding for public libraries will rise by ten percent next year, the mayor said today.",
    "Critics argued that road repairs had been neglected for far too long in the east side.",
]


def _corpus() -> list[dict[str, Any]]:
    """Groups of near-duplicates (a text with its variants) and chains of partial overlaps."""
    rng = random.Random(3)
    docs = []
    for g, text in enumerate(BASE):
        body = " ".join([text] * 6)
        for v in range(4):
            words = body.split(" ")
            for _ in range(v * 2):
                words[rng.randrange(len(words))] = "changed"
            docs.append({"id": f"g{g}-v{v}", "text": " ".join(words)})
    # pages holding two others' texts: they join groups together
    docs.append({"id": "bridge", "text": " ".join([BASE[1]] * 3 + [BASE[2]] * 3)})
    return docs


def _partition(groups: dict[str, str]) -> set[frozenset[str]]:
    out: dict[str, set[str]] = {}
    for doc_id, g in groups.items():
        out.setdefault(g, set()).add(doc_id)
    return {frozenset(v) for v in out.values()}


def _groups(docs: list[dict[str, Any]], order: list[int]) -> dict[str, str]:
    lines = [(n, json.dumps(docs[i], ensure_ascii=False)) for n, i in enumerate(order, 1)]
    prepared = list(prepare_lines(lines, fingerprint_config("web")))
    return {i: g["dup_group"] for i, g in dedup_embedded(prepared).items()}


DOCS = _corpus()
REFERENCE = _partition(_groups(DOCS, list(range(len(DOCS)))))


def test_the_reference_has_groups_to_lose() -> None:
    assert any(len(g) > 1 for g in REFERENCE) and len(REFERENCE) < len(DOCS)


@settings(max_examples=15, deadline=None)
@given(st.permutations(list(range(len(DOCS)))))
def test_any_arrival_order_gives_the_same_partition(order: list[int]) -> None:
    groups = _groups(DOCS, order)
    assert _partition(groups) == REFERENCE
    # the group id is the member accepted first
    first = {DOCS[i]["id"]: n for n, i in enumerate(order)}
    for g in set(groups.values()):
        members = [d for d, gg in groups.items() if gg == g]
        assert g == min(members, key=first.__getitem__)


def test_joins_follow_the_verdict() -> None:
    class V:
        def __init__(self, similar: bool) -> None:
            self.similar, self.resemble, self.contain = similar, 0.3, 0.5

    assert joins(V(True)) and not joins(V(False))


def test_the_forest_root_is_the_earliest_member() -> None:
    f = GroupForest()
    for n, i in enumerate("dcba"):
        f.add(i, n)
    f.union(["a", "b"])
    f.union(["c", "b"])
    assert f.find("a") == "c" and f.find("d") == "d"
