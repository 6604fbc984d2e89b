"""OpenSearch request bodies, as pure functions on plain dicts (unit tested without a node).

- :func:`build_candidate_query` — step 1 of the method: documents sharing fingerprints with a
  page, ordered by how many they share. Each non-stoplisted fingerprint is one
  ``constant_score``/``term`` clause of a ``bool.should`` worth exactly 1, so a hit's ``_score``
  *is* the number of shared fingerprints (a sum of at most 112 ones is exact in float32).
  Ties are broken by ``seq`` then ``id``: the rule of :mod:`neardup.ingest.store.ranking`.
- :func:`build_holders_query` — the verifier workers' candidates in the index: every page
  holding a fingerprint of a batch, with its fingerprints, ranked in the worker.
- :func:`build_window_query` / :func:`parse_window` — ``neardup search``'s groups: the best
  hits of the query, doc values only, the first hit of each group kept (a collapse over the
  top of the ranking, where the engine can skip what cannot make it).
- :func:`build_collapse_search` — one hit per ``dup_group``, collapsed by the engine, with
  the other members as ``inner_hits``: what ``neardup search`` falls back to when the window
  holds too few groups.
- :func:`build_group_details_query` / :func:`parse_group_details` — the shown groups' sizes,
  their members matching the query and the first of them, and the shown hits, in one request.
- :func:`build_largest_groups_query` / :func:`parse_largest_groups` — the inspector's list of
  the largest groups.
- :func:`build_group_sizes_query` — the real size of given groups.
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
    "MAX_WINDOW",
    "WINDOW_FACTOR",
    "MAX_CANDIDATE_TERMS",
    "build_candidate_query",
    "GROUP_FIELD",
    "build_collapse_search",
    "build_holders_query",
    "FIND_FILTERS",
    "build_find_query",
    "build_group_details_query",
    "build_group_sizes_query",
    "build_window_query",
    "build_index_overview_query",
    "build_largest_groups_query",
    "candidate_terms",
    "parse_group_details",
    "parse_group_sizes",
    "parse_window",
    "parse_index_overview",
    "parse_largest_groups",
]

# indices.query.bool.max_clause_count defaults to 1024; m = 7 buckets x 16 rotations = 112.
MAX_CANDIDATE_TERMS = 1024

_SEARCH_SOURCE = ["id", "url", "site", "title", "seq", "dup_group", "dup_of", "resemble", "contain"]
_SEARCH_FIELDS = ("title^2", "body")
_MEMBER_SOURCE = ["id", "url", "dup_group", "dup_of", "resemble", "contain"]
_MEMBER_ORDER = [{"seq": {"order": "asc"}}, {"id": {"order": "asc"}}]

#: a page's group: the id of the group's earliest page
GROUP_FIELD = "dup_group"


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


def _search_query(query_text: str, fields: Sequence[str]) -> dict[str, Any]:
    return {"multi_match": {"query": query_text, "fields": list(fields)}}


#: ``neardup search`` reads the best ``WINDOW_FACTOR`` × ``size`` hits for ``size`` groups, at
#: most ``MAX_WINDOW`` (the index's ``max_result_window``)
WINDOW_FACTOR = 5
MAX_WINDOW = 10_000


def _grouped_query(query_text: str, fields: Sequence[str]) -> dict[str, Any]:
    return {"bool": {"must": [_search_query(query_text, fields)],
                     "filter": [{"exists": {"field": GROUP_FIELD}}]}}  # fmt: skip


def build_window_query(
    query_text: str, window: int, fields: Sequence[str] = _SEARCH_FIELDS
) -> dict[str, Any]:
    """The best ``window`` hits of ``neardup search``'s query (grouped pages only), each named
    by its ``id`` and ``dup_group`` doc values — no stored field is read (``_id`` is one) — and
    no total counted: the engine skips the documents that cannot make the window (block-max
    WAND), which a collapse cannot, since any document could start a group.
    :func:`parse_window` keeps each group's first hit: the same hits, in the same order, as
    :func:`build_collapse_search`'s, as long as the window holds enough groups.

    >>> q = build_window_query("新年 讲话", 50)
    >>> q["size"], q["stored_fields"], q["docvalue_fields"], q["track_total_hits"]
    (50, '_none_', ['id', 'dup_group'], False)
    """
    if not 1 <= window <= MAX_WINDOW:
        raise ConfigError(f"window must be between 1 and {MAX_WINDOW}, got {window}")
    return {
        "size": window,
        "track_total_hits": False,
        "query": _grouped_query(query_text, fields),
        "stored_fields": "_none_",
        "docvalue_fields": ["id", GROUP_FIELD],
    }


def parse_window(
    response: Mapping[str, Any], size: int, window: int
) -> tuple[list[dict[str, Any]], bool]:
    """``([{"id", "dup_group", "score"}, ...], complete)`` of a response to
    :func:`build_window_query` of ``window`` hits: the first hit of each group, best first, at
    most ``size``. ``complete`` is false when the window was full and holds fewer than ``size``
    groups (more may follow it), or a hit has no ``id``: then ask the engine to collapse.

    >>> hit = lambda i, g, s: {"_score": s, "fields": {"id": [i], "dup_group": [g]}}
    >>> r = {"hits": {"hits": [hit("a", "a", 3.0), hit("b", "a", 2.0), hit("c", "c", 1.0)]}}
    >>> parse_window(r, 10, 50)
    ([{'id': 'a', 'dup_group': 'a', 'score': 3.0}, {'id': 'c', 'dup_group': 'c', 'score': 1.0}], True)
    >>> parse_window(r, 10, 3)[1], len(parse_window(r, 1, 3)[0])
    (False, 1)
    """
    hits = (response.get("hits") or {}).get("hits") or []
    first: dict[str, dict[str, Any]] = {}
    for h in hits:
        fields = h.get("fields") or {}
        if not fields.get("id") or not fields.get(GROUP_FIELD):
            return list(first.values()), False
        group = str(fields[GROUP_FIELD][0])
        if group not in first:
            first[group] = {"id": str(fields["id"][0]), "dup_group": group,
                            "score": h.get("_score")}  # fmt: skip
            if len(first) == size:
                break
    return list(first.values()), len(first) == size or len(hits) < window


def build_collapse_search(
    query_text: str,
    size: int = 10,
    inner_hits_size: int = 5,
    fields: Sequence[str] = _SEARCH_FIELDS,
    source: Sequence[str] = tuple(_SEARCH_SOURCE),
) -> dict[str, Any]:
    """Full-text search showing one hit per near-duplicate group, collapsed by the engine.

    Hits are collapsed on ``dup_group``; unless ``inner_hits_size`` is 0, each carries
    ``inner_hits.members``: up to ``inner_hits_size`` members of its group (the hit included)
    by ``seq`` — one more search per hit, run by the engine after this one. Only grouped
    documents take part — a pending document has no ``dup_group`` yet, and OpenSearch would
    collapse all such documents into a single group.

    To collapse, the engine scores every matching page (any of them could start a group), where
    a plain search for the best hits skips most: ~10× the plain query at a million pages
    (docs/opensearch.md, "Collapsed search"). ``neardup search`` takes its groups from the top
    of the plain ranking (:func:`build_window_query`) and comes here only when that holds too
    few groups.

    >>> body = build_collapse_search("新年 讲话", size=3, inner_hits_size=0)
    >>> body["collapse"], body["query"]["bool"]["filter"]
    ({'field': 'dup_group'}, [{'exists': {'field': 'dup_group'}}])
    """
    if size < 1 or inner_hits_size < 0:
        raise ConfigError(
            f"size must be >= 1 and inner_hits_size >= 0, got {size}, {inner_hits_size}"
        )
    collapse: dict[str, Any] = {"field": GROUP_FIELD}
    if inner_hits_size:
        collapse["inner_hits"] = {
            "name": "members",
            "size": inner_hits_size,
            "sort": [dict(s) for s in _MEMBER_ORDER],
            "_source": list(source),
        }
    return {
        "size": size,
        "query": _grouped_query(query_text, fields),
        "collapse": collapse,
        "_source": list(source),
    }


def build_group_details_query(
    query_text: str,
    group_ids: Sequence[str],
    members: int = 5,
    shown: Sequence[str] = (),
    fields: Sequence[str] = _SEARCH_FIELDS,
    source: Sequence[str] = tuple(_MEMBER_SOURCE),
) -> dict[str, Any]:
    """One search for what ``neardup search`` shows under each of ``group_ids`` (the groups of
    a page of collapsed hits): every group's size (all its pages), how many of its pages match
    ``query_text``, and the first ``members`` of those by ``seq`` (then ``id``); and, as its
    hits, the pages ``shown`` (the groups' best hits, by id: a ``post_filter``, which the
    aggregations do not see) with the fields a search lists.

    The search reads only the pages of these groups (a ``terms`` filter on ``dup_group``) —
    where ``inner_hits`` would run the whole query once more per group — and buckets them
    with a ``map`` terms aggregation: a few pages, so no global ordinals of ``dup_group`` are
    needed (a whole-index structure, built again after a refresh that changed the index:
    ~25 ms at a million pages).

    >>> q = build_group_details_query("新年", ["b", "a", "b"], members=3)
    >>> q["query"], q["aggs"]["groups"]["terms"]
    ({'bool': {'filter': [{'terms': {'dup_group': ['a', 'b']}}]}}, {'field': 'dup_group', 'size': 2, 'execution_hint': 'map'})
    >>> q["aggs"]["groups"]["aggs"]["matching"]["aggs"]["members"]["top_hits"]["size"]
    3
    >>> q = build_group_details_query("新年", ["a"], shown=["a2"])
    >>> q["size"], q["post_filter"]
    (1, {'ids': {'values': ['a2']}})
    """
    ids = sorted(set(group_ids))
    if not ids:
        raise ConfigError("no group ids to detail")
    if members < 0:
        raise ConfigError(f"members must be >= 0, got {members}")
    matching: dict[str, Any] = {"filter": _search_query(query_text, fields)}
    if members:
        matching["aggs"] = {"members": {"top_hits": {
            "size": members, "sort": [dict(s) for s in _MEMBER_ORDER], "_source": list(source),
        }}}  # fmt: skip
    body: dict[str, Any] = {
        "size": 0,
        "track_total_hits": False,
        "query": {"bool": {"filter": [{"terms": {GROUP_FIELD: ids}}]}},
        "aggs": {"groups": {
            "terms": {"field": GROUP_FIELD, "size": len(ids), "execution_hint": "map"},
            "aggs": {"matching": matching},
        }},
    }  # fmt: skip
    if shown:
        pages = sorted(set(shown))
        body.update(size=len(pages), post_filter={"ids": {"values": pages}},
                    _source=list(_SEARCH_SOURCE))
    return body


def parse_group_details(response: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """``{group id: {"size", "matching", "members": [hit, ...], "hit": hit}}`` of a response to
    :func:`build_group_details_query` (a hit: ``{"_id", "_source", ...}``, as a search's;
    ``hit``: the group's page among ``shown``, when asked for and found).

    >>> r = {"hits": {"hits": [{"_id": "a", "_source": {"dup_group": "a", "title": "t"}}]},
    ...      "aggregations": {"groups": {"buckets": [{"key": "a", "doc_count": 3,
    ...      "matching": {"doc_count": 2, "members": {"hits": {"hits": [{"_id": "a"}]}}}}]}}}
    >>> d = parse_group_details(r)["a"]
    >>> d["size"], d["matching"], d["members"], d["hit"]["_source"]["title"]
    (3, 2, [{'_id': 'a'}], 't')
    """
    buckets = ((response.get("aggregations") or {}).get("groups") or {}).get("buckets") or []
    out: dict[str, dict[str, Any]] = {}
    for b in buckets:
        matching = b.get("matching") or {}
        hits = ((matching.get("members") or {}).get("hits") or {}).get("hits") or []
        out[str(b["key"])] = {"size": int(b["doc_count"]),
                              "matching": int(matching.get("doc_count", 0)),
                              "members": list(hits)}  # fmt: skip
    for hit in (response.get("hits") or {}).get("hits") or []:
        group = (hit.get("_source") or {}).get(GROUP_FIELD)
        if group is not None and str(group) in out:
            out[str(group)]["hit"] = hit
    return out





def build_holders_query(
    terms: Iterable[str], fp_config: str, exclude_ids: Sequence[str], size: int
) -> dict[str, Any]:
    """Every page holding any of ``terms`` (of ``fp_config``) in the fingerprints index, with
    its ``id`` and ``seq``, unscored, in pages sorted by ``seq``/``id`` (``search_after``): the
    candidates of a whole batch from one search, ranked client-side (their fingerprints come
    with their texts from the pages index). Doc values only: the index keeps no ``_source``,
    and ``_id`` is a stored field (reading it decompresses a block), so the ``id`` field names
    the hit.

    >>> build_holders_query(["b", "a"], "c", [], 10)["docvalue_fields"]
    ['id', 'seq']
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
        "docvalue_fields": ["id", "seq"],
        "sort": [{"seq": "asc"}, {"id": "asc"}],
        "track_total_hits": False,
    }


def build_short_query() -> dict[str, Any]:
    """The pages too short to fingerprint, in the fingerprints index: those holding a body
    hash term (a page's only term when it has no fingerprint), the first :data:`MAX_WINDOW`
    in ingest order, ids only.

    >>> build_short_query()["query"]
    {'prefix': {'fingerprints': 'b:'}}
    """
    return {
        "size": MAX_WINDOW,
        "query": {"prefix": {"fingerprints": "b:"}},
        "docvalue_fields": ["id"],
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
    ``dup_group`` restricted to those ids; ``map``: no global ordinals for a few pages, see
    :func:`build_group_details_query`).

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
        "aggs": {"groups": {"terms": {"field": "dup_group", "size": len(ids),
                                      "execution_hint": "map"}}},
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
    text: str | None = None, state: str | None = None, offset: int = 0, size: int = 20,
    short_ids: Sequence[str] = (),
) -> dict[str, Any]:
    """Search body for the inspector's lookup: pages whose id or URL is ``text`` (first), or
    whose title or text matches it, optionally only those in ``state``
    (:data:`FIND_FILTERS`); a page of ``size`` hits from ``offset``. Without ``text``, the
    pages in ``state`` in ingest order. The pages index holds no searchable fingerprint, so
    ``short`` is the pages ``short_ids`` (found in the fingerprints index:
    :func:`build_short_query`).

    >>> q = build_find_query("https://a.example/x", "error", 20, 10)
    >>> q["from"], q["size"], q["query"]["bool"]["filter"]
    (20, 10, [{'term': {'status': 'error'}}])
    >>> build_find_query(None, "short", short_ids=["p1"])["query"]["bool"]["filter"]
    [{'ids': {'values': ['p1']}}]
    >>> [next(iter(c)) for c in q["query"]["bool"]["should"]]
    ['ids', 'term', 'multi_match']
    """
    if state is not None and state not in FIND_FILTERS:
        raise ConfigError(f"unknown state {state!r}; known: {', '.join(FIND_FILTERS)}")
    if offset < 0 or not 1 <= size <= 100 or offset + size > 10_000:
        raise ConfigError("offset + size must be at most 10000, size between 1 and 100")
    filters: list[dict[str, Any]] = []
    if state == "short":
        filters.append({"ids": {"values": list(short_ids)}})
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
