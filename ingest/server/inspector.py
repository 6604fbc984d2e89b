"""The duplicate-group inspector's data: which groups are largest, and *why* members are
duplicates of their representative.

Pure functions (unit tested on plain dicts and strings): the terms aggregation on
``dup_group`` behind the list of largest groups, and the split of a text into plain and
highlighted segments around the verifier's trustable LCS region. Segments are sent rather than
offsets because Python counts code points and JavaScript counts UTF-16 units: the page never
does offset arithmetic, it only writes each segment as text.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ingest.errors import ConfigError

__all__ = [
    "MAX_GROUPS",
    "build_largest_groups_query",
    "normalise_spans",
    "parse_largest_groups",
    "segments",
]

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


def normalise_spans(spans: Iterable[Sequence[int]] | None, length: int) -> list[tuple[int, int]]:
    """Sorted, clipped, non-overlapping ``(start, end)`` pairs within ``[0, length]``.

    >>> normalise_spans([(5, 9), (0, 3), (2, 4), (8, 99)], 10)
    [(0, 4), (5, 10)]
    """
    clean: list[tuple[int, int]] = []
    for span in spans or ():
        start, end = max(0, int(span[0])), min(length, int(span[1]))
        if start < end:
            clean.append((start, end))
    clean.sort()
    merged: list[tuple[int, int]] = []
    for start, end in clean:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def segments(text: str, spans: Iterable[Sequence[int]] | None) -> list[dict[str, Any]]:
    """``text`` cut into ``{"text", "mark"}`` pieces; ``mark`` is True inside a span.

    >>> segments("abcdef", [(1, 3)])
    [{'text': 'a', 'mark': False}, {'text': 'bc', 'mark': True}, {'text': 'def', 'mark': False}]
    """
    out: list[dict[str, Any]] = []
    pos = 0
    for start, end in normalise_spans(spans, len(text)):
        if start > pos:
            out.append({"text": text[pos:start], "mark": False})
        out.append({"text": text[start:end], "mark": True})
        pos = end
    if pos < len(text) or not out:
        out.append({"text": text[pos:], "mark": False})
    return out
