"""OpenSearch request bodies, as pure functions on plain dicts (unit tested without a node).

- :func:`build_candidate_query` — step 1 of the method: documents sharing fingerprints with a
  page, ordered by how many they share. Each non-stoplisted fingerprint is one
  ``constant_score``/``term`` clause of a ``bool.should`` worth exactly 1, so a hit's ``_score``
  *is* the number of shared fingerprints (a sum of at most 112 ones is exact in float32).
  Ties are broken by ``seq`` then ``id``: the rule of :mod:`neardup.ingest.store.ranking`.
- :func:`build_holders_query` — the verifier workers' candidates in the index: every page
  holding a fingerprint of a batch, with its fingerprints, ranked in the worker.
- :func:`build_collapse_search` — ``neardup search``: one hit per ``dup_group`` with the
  other members as ``inner_hits``.
- :func:`build_largest_groups_query` / :func:`parse_largest_groups` — the inspector's list of
  the largest groups.
- :func:`build_group_sizes_query` — the real size of given groups (a search hit's
  ``inner_hits`` only count the members that match the query).
- :func:`build_index_overview_query` / :func:`parse_index_overview` — pages per status, the
  group-size distribution and duplicates per site (``neardup search`` explaining an empty
  result, the inspector's charts).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from neardup.ingest.errors import ConfigError
from neardup.ingest.store.ranking import CANDIDATE_SORT, candidate_terms

__all__ = [
    "CANDIDATE_SORT",
    "MAX_GROUPS",
    "MAX_CANDIDATE_TERMS",
    "build_candidate_query",
    "build_collapse_search",
    "build_holders_query",
    "FIND_FILTERS",
    "build_find_query",
    "build_group_sizes_query",
    "build_index_overview_query",
    "build_largest_groups_query",
    "candidate_terms",
    "parse_group_sizes",
    "parse_index_overview",
    "parse_largest_groups",
]

# indices.query.bool.max_clause_count defaults to 1024; m = 7 buckets x 16 rotations = 112.
MAX_CANDIDATE_TERMS = 1024

_SEARCH_SOURCE = ["id", "url", "site", "title", "seq", "dup_group", "dup_of", "resemble", "contain"]


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

    Raises :class:`~neardup.ingest.errors.ConfigError` when no usable fingerprint is left (the store
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





def build_holders_query(
    terms: Iterable[str], fp_config: str, exclude_ids: Sequence[str], size: int,
    with_fingerprints: bool = True,
) -> dict[str, Any]:
    """Every document holding any of ``terms`` (of ``fp_config``), with its ``id``, ``seq``,
    fingerprints (unless ``with_fingerprints`` is false) and ``dup_group``, unscored, in pages
    sorted by ``seq``/``id`` (``search_after``): the candidates of a whole batch from one
    search, ranked client-side. Doc values only: no stored field is read (``_id`` is one:
    reading it decompresses the block of stored sources it sits in), so the page's ``id``
    field names the hit.

    >>> build_holders_query(["b", "a"], "c", [], 10, False)["docvalue_fields"]
    ['id', 'seq', 'dup_group']
    """
    return {
        "size": size,
        "query": {"bool": {
            "filter": [
                {"terms": {"fingerprints": sorted(terms)}},
                {"term": {"fp_config": fp_config}},
            ],
            "must_not": [{"ids": {"values": list(exclude_ids)}}],
        }},
        "stored_fields": "_none_",
        "docvalue_fields": (["id", "seq", "fingerprints", "dup_group"] if with_fingerprints
                            else ["id", "seq", "dup_group"]),
        "sort": [{"seq": "asc"}, {"id": "asc"}],
        "track_total_hits": False,
    }





# A terms aggregation's size is bounded by search.max_buckets (65,535 by default); a page of
# groups needs far fewer.
MAX_GROUPS = 1000


def build_largest_groups_query(size: int = 20, min_size: int = 2) -> dict[str, Any]:
    """Search body for the ``size`` largest groups having at least ``min_size`` members.

    A terms aggregation on ``dup_group`` ordered by member count, ties by group id, so the
    list is stable between reloads.

    >>> q = build_largest_groups_query(5)
    >>> q["aggs"]["groups"]["terms"]["size"], q["aggs"]["groups"]["terms"]["min_doc_count"]
    (5, 2)
    """
    if not 1 <= size <= MAX_GROUPS:
        raise ConfigError(f"size must be between 1 and {MAX_GROUPS}, got {size}")
    if min_size < 1:
        raise ConfigError(f"min_size must be >= 1, got {min_size}")
    return {
        "size": 0,
        "track_total_hits": True,
        "query": {"bool": {"filter": [{"exists": {"field": "dup_group"}}]}},
        "aggs": {
            "groups": {
                "terms": {
                    "field": "dup_group",
                    "size": size,
                    "min_doc_count": min_size,
                    "order": [{"_count": "desc"}, {"_key": "asc"}],
                }
            },
            "group_count": {"cardinality": {"field": "dup_group"}},
        },
    }


def parse_largest_groups(response: Mapping[str, Any]) -> dict[str, Any]:
    """``{"groups": [{"id", "size"}...], "grouped_documents", "group_count"}`` of a response
    to :func:`build_largest_groups_query` (``group_count`` is approximate above 3,000)."""
    aggs = response.get("aggregations") or {}
    buckets = (aggs.get("groups") or {}).get("buckets") or []
    total = (response.get("hits") or {}).get("total")
    grouped = total.get("value") if isinstance(total, Mapping) else total
    return {
        "groups": [{"id": str(b["key"]), "size": int(b["doc_count"])} for b in buckets],
        "grouped_documents": grouped,
        "group_count": (aggs.get("group_count") or {}).get("value"),
    }


def build_group_sizes_query(group_ids: Sequence[str]) -> dict[str, Any]:
    """Search body counting the members of each of ``group_ids`` (a terms aggregation on
    ``dup_group`` restricted to those ids).

    >>> q = build_group_sizes_query(["a", "b"])
    >>> q["query"]["bool"]["filter"][0], q["aggs"]["groups"]["terms"]["size"]
    ({'terms': {'dup_group': ['a', 'b']}}, 2)
    """
    ids = sorted(set(group_ids))
    if not ids:
        raise ConfigError("no group ids to count")
    return {
        "size": 0,
        "track_total_hits": False,
        "query": {"bool": {"filter": [{"terms": {"dup_group": ids}}]}},
        "aggs": {"groups": {"terms": {"field": "dup_group", "size": len(ids)}}},
    }


def parse_group_sizes(response: Mapping[str, Any]) -> dict[str, int]:
    """``{group id: members}`` of a response to :func:`build_group_sizes_query`."""
    buckets = ((response.get("aggregations") or {}).get("groups") or {}).get("buckets") or []
    return {str(b["key"]): int(b["doc_count"]) for b in buckets}


# The group-size histogram counts groups per size from a terms aggregation of this many of the
# largest groups (sizes below the smallest of them are counted from the rest of the index:
# every grouped page outside these groups is taken as one of the smaller groups, see below).
OVERVIEW_GROUPS = 10_000
OVERVIEW_SITES = 20


def build_index_overview_query(
    groups: int = OVERVIEW_GROUPS, sites: int = OVERVIEW_SITES
) -> dict[str, Any]:
    """Search body for an index's overview: pages per ``status``, the ``groups`` largest groups
    (for the group-size histogram), the number of groups, and per site (the ``sites`` sites
    with most duplicates) its pages and its duplicates (pages grouped under another page).

    >>> q = build_index_overview_query(100, 5)
    >>> sorted(q["aggs"]), q["aggs"]["largest"]["terms"]["size"]
    (['group_count', 'largest', 'sites', 'status'], 100)
    """
    if groups < 1 or sites < 1:
        raise ConfigError(f"groups and sites must be >= 1, got {groups}, {sites}")
    duplicate = {"bool": {"filter": [{"exists": {"field": "dup_group"}}],
                          "must_not": [{"term": {"status": "error"}}],
                          "should": [{"exists": {"field": "dup_of"}}],
                          "minimum_should_match": 1}}  # fmt: skip
    return {
        "size": 0,
        "track_total_hits": True,
        "aggs": {
            "status": {"terms": {"field": "status", "size": 10, "missing": "pending"}},
            "largest": {
                "terms": {"field": "dup_group", "size": groups, "min_doc_count": 2,
                          "order": [{"_count": "desc"}, {"_key": "asc"}]}  # fmt: skip
            },
            "group_count": {"cardinality": {"field": "dup_group"}},
            "sites": {
                "filter": duplicate,
                "aggs": {
                    "by_site": {
                        "terms": {"field": "site", "size": sites, "missing": "(no site)",
                                  "order": [{"_count": "desc"}, {"_key": "asc"}]}  # fmt: skip
                    }
                },
            },
        },
    }


def parse_index_overview(response: Mapping[str, Any]) -> dict[str, Any]:
    """``{"documents", "status": {status: n}, "group_count", "size_histogram": [{"size", "groups"}],
    "duplicates_by_site": [{"site", "duplicates"}]}`` of a response to
    :func:`build_index_overview_query`.

    ``size_histogram`` counts groups per size, smallest size first; groups of one page (pages
    with no duplicate) are the grouped pages outside the larger groups — exact as long as the
    index has fewer than ``OVERVIEW_GROUPS`` groups of two or more.

    >>> r = {"hits": {"total": {"value": 7}},
    ...      "aggregations": {"status": {"buckets": [{"key": "grouped", "doc_count": 6},
    ...                                              {"key": "pending", "doc_count": 1}]},
    ...                       "largest": {"buckets": [{"key": "a", "doc_count": 3},
    ...                                               {"key": "b", "doc_count": 2}]},
    ...                       "group_count": {"value": 3},
    ...                       "sites": {"by_site": {"buckets": [{"key": "x", "doc_count": 3}]}}}}
    >>> o = parse_index_overview(r)
    >>> o["size_histogram"], o["duplicates_by_site"]
    ([{'size': 1, 'groups': 1}, {'size': 2, 'groups': 1}, {'size': 3, 'groups': 1}], [{'site': 'x', 'duplicates': 3}])
    """
    aggs = response.get("aggregations") or {}
    total = (response.get("hits") or {}).get("total")
    documents = int(total.get("value", 0) if isinstance(total, Mapping) else total or 0)
    status = {str(b["key"]): int(b["doc_count"])
              for b in (aggs.get("status") or {}).get("buckets") or []}  # fmt: skip
    sizes: dict[int, int] = {}
    in_larger = 0
    for b in (aggs.get("largest") or {}).get("buckets") or []:
        sizes[int(b["doc_count"])] = sizes.get(int(b["doc_count"]), 0) + 1
        in_larger += int(b["doc_count"])
    grouped = status.get("grouped", 0) + status.get("error", 0)  # an error page is its own group
    if grouped > in_larger:
        sizes[1] = grouped - in_larger
    sites = ((aggs.get("sites") or {}).get("by_site") or {}).get("buckets") or []
    return {
        "documents": documents,
        "status": status,
        "group_count": (aggs.get("group_count") or {}).get("value"),
        "size_histogram": [{"size": k, "groups": sizes[k]} for k in sorted(sizes)],
        "duplicates_by_site": [{"site": str(b["key"]), "duplicates": int(b["doc_count"])}
                               for b in sites],  # fmt: skip
    }


#: what ``build_find_query`` can filter on: a stored ``status``, or ``short`` (too short to
#: fingerprint: the page's only term is its body hash)
FIND_FILTERS = ("pending", "error", "grouped", "short")


def build_find_query(
    text: str | None = None, state: str | None = None, offset: int = 0, size: int = 20
) -> dict[str, Any]:
    """Search body for the inspector's lookup: pages whose id or URL is ``text`` (first), or
    whose title or text matches it, optionally only those in ``state``
    (:data:`FIND_FILTERS`); a page of ``size`` hits from ``offset``. Without ``text``, the
    pages in ``state`` in ingest order.

    >>> q = build_find_query("https://a.example/x", "error", 20, 10)
    >>> q["from"], q["size"], q["query"]["bool"]["filter"]
    (20, 10, [{'term': {'status': 'error'}}])
    >>> [next(iter(c)) for c in q["query"]["bool"]["should"]]
    ['ids', 'term', 'multi_match']
    """
    if state is not None and state not in FIND_FILTERS:
        raise ConfigError(f"unknown state {state!r}; known: {', '.join(FIND_FILTERS)}")
    if offset < 0 or not 1 <= size <= 100 or offset + size > 10_000:
        raise ConfigError("offset + size must be at most 10000, size between 1 and 100")
    filters: list[dict[str, Any]] = []
    if state == "short":
        filters.append({"prefix": {"fingerprints": "b:"}})
    elif state is not None:
        filters.append({"term": {"status": state}})
    body: dict[str, Any] = {"from": offset, "size": size, "track_total_hits": True}
    if text:
        body["query"] = {"bool": {
            "should": [
                {"ids": {"values": [text], "boost": 100.0}},
                {"term": {"url": {"value": text, "boost": 50.0}}},
                {"multi_match": {"query": text, "fields": ["title^2", "body"]}},
            ],
            "minimum_should_match": 1,
            "filter": filters,
        }}  # fmt: skip
        body["sort"] = ["_score", {"seq": {"order": "asc"}}]
    else:
        body["query"] = {"bool": {"filter": filters}}
        body["sort"] = [{"seq": {"order": "asc"}}, {"id": {"order": "asc"}}]
    return body
