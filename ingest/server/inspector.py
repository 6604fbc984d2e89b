"""The duplicate-group inspector's data: which groups are largest, and *why* members are
duplicates of their representative.

Pure functions (unit tested on plain dicts and strings): the terms aggregation on
``dup_group`` behind the list of largest groups (:mod:`ingest.store.query`, asked by
:meth:`ingest.store.base.Store.largest_groups`), and the split of a text into plain and
highlighted segments around the verifier's trustable LCS region. Segments are sent rather than
offsets because Python counts code points and JavaScript counts UTF-16 units: the page never
does offset arithmetic, it only writes each segment as text.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ingest.store.query import MAX_GROUPS, build_largest_groups_query, parse_largest_groups

__all__ = [
    "MAX_GROUPS",
    "build_largest_groups_query",
    "normalise_spans",
    "parse_largest_groups",
    "segments",
]

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
