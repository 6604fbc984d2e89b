"""OpenSearch request bodies, as pure functions on plain dicts (unit tested without a node).

- :func:`build_candidate_query` — step 1 of the method: documents sharing fingerprints with a
  page, ordered by how many they share. Each non-stoplisted fingerprint is one
  ``constant_score``/``term`` clause of a ``bool.should`` worth exactly 1, so a hit's ``_score``
  *is* the number of shared fingerprints (a sum of at most 112 ones is exact in float32).
  Ties are broken by ``seq`` then ``id``: the same order as the embedded store.
- :func:`build_collapse_search` — ``neardup search``: one hit per ``dup_group`` with the
  other members as ``inner_hits``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from typing import Any

from ingest.errors import ConfigError

__all__ = [
    "CANDIDATE_SORT",
    "MAX_CANDIDATE_TERMS",
    "build_candidate_query",
    "build_collapse_search",
    "candidate_terms",
]

# The order of candidates (and the tie-break that makes it deterministic).
CANDIDATE_SORT: list[dict[str, Any]] = [
    {"_score": {"order": "desc"}},
    {"seq": {"order": "asc"}},
    {"id": {"order": "asc"}},
]

# indices.query.bool.max_clause_count defaults to 1024; m = 7 buckets x 16 rotations = 112.
MAX_CANDIDATE_TERMS = 1024

_SEARCH_SOURCE = ["id", "url", "site", "title", "seq", "dup_group", "dup_of", "resemble", "contain"]


def candidate_terms(fingerprints: Iterable[str], stoplist: Collection[str]) -> list[str]:
    """The distinct non-stoplisted fingerprints, sorted (so equal inputs give equal queries)."""
    return sorted({fp for fp in fingerprints if fp not in stoplist})


def build_candidate_query(
    fingerprints: Iterable[str],
    stoplist: Collection[str],
    k: int,
    exclude_id: str | None,
    fp_config: str,
) -> dict[str, Any]:
    """Search body for the top-``k`` documents sharing fingerprints with a page.

    >>> body = build_candidate_query(["b", "a", "b", "s"], {"s"}, 5, "d1", "cfg")
    >>> [c["constant_score"]["filter"]["term"]["fingerprints"] for c in body["query"]["bool"]["should"]]
    ['a', 'b']

    Raises :class:`~ingest.errors.ConfigError` when no usable fingerprint is left (the store
    answers ``[]`` without asking the node) or when ``k`` is not positive.
    """
    if k < 1:
        raise ConfigError(f"k must be >= 1, got {k}")
    terms = candidate_terms(fingerprints, stoplist)
    if not terms:
        raise ConfigError("no fingerprints left after the stoplist: nothing to query")
    if len(terms) > MAX_CANDIDATE_TERMS:
        raise ConfigError(
            f"{len(terms)} fingerprints exceed indices.query.bool.max_clause_count "
            f"({MAX_CANDIDATE_TERMS}); is the fingerprint config sane (m x 16 terms)?"
        )
    bool_query: dict[str, Any] = {
        "should": [
            {"constant_score": {"filter": {"term": {"fingerprints": t}}, "boost": 1.0}}
            for t in terms
        ],
        "minimum_should_match": 1,
        "filter": [{"term": {"fp_config": fp_config}}],
    }
    if exclude_id is not None:
        bool_query["must_not"] = [{"ids": {"values": [exclude_id]}}]
    return {
        "size": k,
        "query": {"bool": bool_query},
        "sort": [dict(s) for s in CANDIDATE_SORT],
        "_source": False,
        "track_total_hits": False,
    }


def build_collapse_search(
    query_text: str,
    size: int = 10,
    inner_hits_size: int = 5,
    fields: Sequence[str] = ("title^2", "body"),
    source: Sequence[str] = tuple(_SEARCH_SOURCE),
) -> dict[str, Any]:
    """Full-text search showing one hit per near-duplicate group.

    Hits are collapsed on ``dup_group``; each carries ``inner_hits.members``: up to
    ``inner_hits_size`` members of its group (the hit included) by ``seq``. Only grouped
    documents take part — a pending document has no ``dup_group`` yet, and OpenSearch would
    collapse all such documents into a single group.
    """
    if size < 1 or inner_hits_size < 0:
        raise ConfigError(
            f"size must be >= 1 and inner_hits_size >= 0, got {size}, {inner_hits_size}"
        )
    return {
        "size": size,
        "query": {
            "bool": {
                "must": [{"multi_match": {"query": query_text, "fields": list(fields)}}],
                "filter": [{"exists": {"field": "dup_group"}}],
            }
        },
        "collapse": {
            "field": "dup_group",
            "inner_hits": {
                "name": "members",
                "size": inner_hits_size,
                "sort": [{"seq": {"order": "asc"}}, {"id": {"order": "asc"}}],
                "_source": list(source),
            },
        },
        "_source": list(source),
    }
