"""The candidate-ranking rule of step 1, written once.

A page's candidates are the documents of the same fingerprint config sharing at least one
*non-stoplisted* fingerprint with it (:func:`candidate_terms`), ordered by

1. the number of distinct shared fingerprints, descending,
2. ``seq`` ascending (earliest ingest first),
3. ``id`` ascending (deterministic),

and cut at the top ``k`` (:func:`rank_candidates`). Both backends answer with this order: the
OpenSearch query sorts by :data:`CANDIDATE_SORT` (``_score`` *is* the shared count, see
:mod:`neardup.ingest.store.query`) and the embedded store's SQL by :data:`CANDIDATE_ORDER_SQL`; every
ranking done in Python (the workers' batch queries, ``neardup dedup``, the coverage
evaluation) calls :func:`rank_candidates`.
"""

from __future__ import annotations

import heapq
from collections.abc import Collection, Iterable, Mapping
from typing import Any

from neardup.ingest.store.base import Candidate

__all__ = [
    "CANDIDATE_ORDER_SQL",
    "CANDIDATE_SORT",
    "candidate_key",
    "candidate_terms",
    "rank_candidates",
]

# The rule as an OpenSearch sort (the hit's score is its shared count).
CANDIDATE_SORT: list[dict[str, Any]] = [
    {"_score": {"order": "desc"}},
    {"seq": {"order": "asc"}},
    {"id": {"order": "asc"}},
]

# The rule as an SQL ORDER BY over ``shared`` (a count), ``d.seq`` and ``p.id``. SQLite compares
# TEXT by its UTF-8 bytes, as Lucene sorts keywords, so the tie-break agrees too.
CANDIDATE_ORDER_SQL = "shared DESC, d.seq ASC, p.id ASC"


def candidate_terms(fingerprints: Iterable[str], stoplist: Collection[str]) -> list[str]:
    """The distinct non-stoplisted fingerprints, sorted (so equal inputs give equal queries).

    >>> candidate_terms(["b", "a", "b", "s"], {"s"})
    ['a', 'b']
    """
    return sorted({fp for fp in fingerprints if fp not in stoplist})


def candidate_key(shared: int, seq: int, doc_id: str) -> tuple[int, int, str]:
    """The sort key of a candidate: more shared fingerprints first, then ``seq``, then ``id``."""
    return (-shared, seq, doc_id)


def rank_candidates(
    shared: Mapping[str, int],
    k: int | None,
    seq_of: Mapping[str, int] | None = None,
    before: tuple[int, str] | None = None,
) -> list[Candidate]:
    """The top-``k`` of ``{candidate id: shared count}`` (all when ``k`` is None).

    ``seq_of`` gives each candidate's ``seq`` (without it, ties go by id alone); with
    ``before`` = ``(seq, id)`` of the page, only candidates that come before it in
    ``(seq, id)`` are kept — the earlier candidates, independent of what was indexed later.

    >>> rank_candidates({"c": 1, "b": 2, "a": 2}, 2, {"a": 5, "b": 3, "c": 1})
    [Candidate(id='b', shared=2), Candidate(id='a', shared=2)]
    >>> rank_candidates({"c": 1, "b": 2, "a": 2}, None, {"a": 5, "b": 3, "c": 1}, before=(4, "x"))
    [Candidate(id='b', shared=2), Candidate(id='c', shared=1)]
    """

    def seq(doc_id: str) -> int:
        return 0 if seq_of is None else seq_of[doc_id]

    items: Iterable[tuple[str, int]] = shared.items()
    if before is not None:
        items = [(c, n) for c, n in items if (seq(c), c) < before]
    keyed = ((candidate_key(n, seq(c), c), c, n) for c, n in items)
    ranked = sorted(keyed) if k is None else heapq.nsmallest(k, keyed)
    return [Candidate(c, n) for _, c, n in ranked]
