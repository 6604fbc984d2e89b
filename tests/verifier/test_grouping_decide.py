"""verifier.grouping: the pure decision rules, with fake verdicts."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from verifier.grouping import (
    Decision,
    GroupForest,
    Peer,
    assign_groups,
    decide,
    pending_peers,
    representatives,
)


@dataclass(frozen=True)
class V:
    similar: bool
    resemble: float = 0.0
    contain: float = 0.0


def oracle(similar_to: set[str]):
    calls: list[str] = []

    def compare(rep: str) -> V:
        calls.append(rep)
        return V(rep in similar_to, 0.9 if rep in similar_to else 0.1, 0.5)

    compare.calls = calls  # type: ignore[attr-defined]
    return compare


def test_no_candidates_makes_a_representative() -> None:
    d = decide(5, "e", [], oracle(set()))
    assert d.ready and d.is_representative and d.similar_reps == () and d.compared == 0


def test_waits_for_pending_earlier_candidates_without_comparing() -> None:
    cmp = oracle({"a"})
    peers = [Peer("a", 1), Peer("b", 2, status="pending"), Peer("z", 9, status="pending")]
    d = decide(5, "e", peers, cmp)
    assert d.wait_for == ("b",)  # z is later: never waited for
    assert not d.ready and cmp.calls == []


def test_later_and_error_peers_are_ignored() -> None:
    peers = [Peer("a", 1, status="error"), Peer("z", 9)]
    assert representatives(5, "e", peers) == []
    assert pending_peers(5, "e", [Peer("z", 9, status="pending")]) == []


def test_ties_on_seq_are_broken_by_id() -> None:
    peers = [Peer("a", 5), Peer("f", 5)]
    assert representatives(5, "e", peers) == [(5, "a")]


def test_compares_with_representatives_not_members() -> None:
    # b is a member of a's group, c a representative; d shares candidates b and c
    peers = [Peer("b", 2, dup_of="a", dup_of_seq=1), Peer("c", 3)]
    cmp = oracle({"a"})
    d = decide(4, "d", peers, cmp)
    assert cmp.calls == ["a", "c"]  # earliest first, every representative (bridges)
    assert d.dup_of == "a" and d.resemble == 0.9 and d.similar_reps == ("a",)


def test_bridge_lists_every_strongly_similar_representative_earliest_first() -> None:
    peers = [Peer("c", 3), Peer("b", 2, dup_of="a", dup_of_seq=1), Peer("e", 5)]
    d = decide(6, "d", peers, oracle({"a", "c", "e"}))
    assert d.dup_of == "a" and d.similar_reps == ("a", "c", "e")


def scored(resembles: dict[str, float]):
    def compare(rep: str) -> V:
        return V(rep in resembles, resembles.get(rep, 0.0), 0.5)

    return compare


def test_joins_the_representative_it_resembles_most() -> None:
    peers = [Peer("a", 1), Peer("c", 3)]
    d = decide(4, "d", peers, scored({"a": 0.37, "c": 0.68}))
    assert d.dup_of == "c" and d.resemble == 0.68
    assert d.similar_reps == ("c",)  # a weak second match does not merge a's group into c's


def test_equal_resemblance_goes_to_the_earliest() -> None:
    d = decide(4, "d", [Peer("c", 3), Peer("a", 1)], scored({"a": 0.8, "c": 0.8}))
    assert d.dup_of == "a" and d.similar_reps == ("a", "c")


def test_bridges_only_at_or_above_the_bridge_resemblance() -> None:
    peers = [Peer("a", 1), Peer("b", 2), Peer("c", 3)]
    cmp = scored({"a": 0.5, "b": 0.49, "c": 0.9})
    assert decide(4, "d", peers, cmp).similar_reps == ("c", "a")
    assert decide(4, "d", peers, cmp, bridge_resemble=0.4).similar_reps == ("c", "a", "b")
    assert decide(4, "d", peers, cmp, bridge_resemble=1.0).similar_reps == ("c",)


def test_representative_reached_twice_is_compared_once() -> None:
    peers = [Peer("a", 1), Peer("b", 2, dup_of="a", dup_of_seq=1)]
    cmp = oracle(set())
    assert decide(3, "c", peers, cmp).is_representative
    assert cmp.calls == ["a"]


def test_missing_dup_of_seq_is_a_bug() -> None:
    with pytest.raises(ValueError, match="dup_of_seq"):
        representatives(3, "c", [Peer("b", 2, dup_of="a")])


def test_forest_root_is_earliest() -> None:
    f = GroupForest()
    for i, name in enumerate("abcd"):
        f.add(name, i)
    assert f.union(["d", "c"]) == "c"
    assert f.union(["d", "b"]) == "b"
    assert {f.find(x) for x in "bcd"} == {"b"} and f.find("a") == "a"
    with pytest.raises(ValueError):
        f.union([])


def test_assign_groups_merges_bridged_groups() -> None:
    order = [("a", 1), ("b", 2), ("c", 3), ("d", 4), ("x", 5)]
    decisions = {
        "a": Decision(),
        "b": Decision(),
        "c": Decision(dup_of="b", similar_reps=("b",)),
        "d": Decision(dup_of="a", similar_reps=("a", "b")),  # bridges a and b
    }
    groups = assign_groups(order, decisions)
    assert groups == {"a": "a", "b": "a", "c": "a", "d": "a"}  # x (an error) is absent
