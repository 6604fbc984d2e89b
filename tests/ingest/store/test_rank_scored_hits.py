"""The workers' score-only candidate query: ties broken client-side, exact or refused."""

from __future__ import annotations

import random
from typing import Any

from ingest.store import query
from ingest.store.base import StoredDocument


def rank_scored_hits(doc: StoredDocument, hits: list[Any], k: int, size: int) -> list[str] | None:
    return query.rank_scored_hits(doc.seq, doc.id, hits, k, size)


def _hit(i: str, score: float, seq: int) -> dict:
    return {"_id": i, "_score": score, "fields": {"seq": [seq]}}


def _doc(seq: int = 100, doc_id: str = "m") -> StoredDocument:
    return StoredDocument(doc_id, "", [], "cfg", seq)


def _full_sort(doc: StoredDocument, docs: list[tuple[str, float, int]], k: int) -> list[str]:
    ranked = sorted((-s, seq, i) for i, s, seq in docs)
    return [i for _, seq, i in ranked if (seq, i) < (doc.seq, doc.id)][:k]


def test_fewer_hits_than_size_is_exact() -> None:
    hits = [_hit("b", 2.0, 5), _hit("a", 2.0, 5), _hit("c", 3.0, 9), _hit("z", 1.0, 1)]
    assert rank_scored_hits(_doc(), hits, k=3, size=10) == ["c", "a", "b"]


def test_later_documents_are_left_out() -> None:
    hits = [_hit("x", 5.0, 100), _hit("a", 5.0, 100), _hit("b", 1.0, 3)]
    # same seq: "a" < "m" comes before the document, "x" after it
    assert rank_scored_hits(_doc(), hits, k=5, size=10) == ["a", "b"]


def test_a_tie_at_the_cut_is_refused() -> None:
    # the node returned `size` hits and the k-th scores like the lowest: one left out could tie
    hits = [_hit("a", 3.0, 1), _hit("b", 2.0, 2), _hit("c", 2.0, 3)]
    assert rank_scored_hits(_doc(), hits, k=2, size=3) is None
    assert rank_scored_hits(_doc(), hits, k=1, size=3) == ["a"]


def test_random_cuts_agree_with_the_full_sort_or_refuse() -> None:
    rng = random.Random(7)
    for _ in range(2000):
        doc = _doc(seq=rng.randint(10, 40), doc_id=rng.choice("dmq"))
        docs = [(f"{c}{n}", float(rng.randint(1, 4)), rng.randint(0, 50))
                for n, c in enumerate(rng.choices("abcdmxyz", k=rng.randint(0, 30)))]
        docs = [d for d in docs if d[2] <= doc.seq]  # the query's range filter
        k, size = rng.randint(1, 6), rng.randint(1, 12)
        # the node: top `size` by score, ties in an arbitrary order
        shuffled = docs[:]
        rng.shuffle(shuffled)
        returned = sorted(shuffled, key=lambda d: -d[1])[:size]
        got = rank_scored_hits(doc, [_hit(i, s, seq) for i, s, seq in returned], k, size)
        if got is not None:
            assert got == _full_sort(doc, docs, k)
        if len(docs) < size:
            assert got is not None
