"""The frequent fingerprints of a collection read page by page, in bounded memory.

The stoplist's input (:func:`neardup.ingest.stoplist.refresh_stoplist`): every fingerprint held
by at least ``min_count`` pages, with how many pages and how many distinct sites hold it. A
search engine's fingerprints index keeps its terms without doc values (they would cost every
write for a job run now and then), so the engine store counts them from the pages' own
``fingerprints`` in two passes over the pages:

1. the Misra-Gries summary with ``k`` counters keeps every term held more than ``N / (k + 1)``
   times among ``N`` term occurrences; with ``k = N // min_count`` that is every term held by at
   least ``min_count`` pages (a page counts a term once);
2. the survivors are counted exactly, with their sites.

Memory is ``k`` counters (``N / min_count``: 280,000 for a million pages of 112 fingerprints
and the stoplist's 400), never a counter for every distinct term.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

__all__ = ["frequent_fingerprints", "misra_gries"]

# (a page's fingerprints, its site or None)
Scan = Callable[[], Iterable[tuple[Sequence[str], str | None]]]


def misra_gries(pages: Iterable[Sequence[str]], k: int) -> tuple[dict[str, int], int]:
    """The Misra-Gries summary of the terms of ``pages`` (each page's terms counted once) with
    ``k`` counters, and the number of term occurrences ``N``. Every term occurring more than
    ``N / (k + 1)`` times is in the summary.

    >>> summary, n = misra_gries([["a", "b"], ["a", "c"], ["a", "d"]], 2)
    >>> "a" in summary, len(summary) <= 2, n
    (True, True, 6)
    """
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    counts: dict[str, int] = {}
    n = 0
    for terms in pages:
        for term in set(terms):
            n += 1
            if term in counts:
                counts[term] += 1
            elif len(counts) < k:
                counts[term] = 1
            else:  # every counter loses one, the new term included
                counts = {t: c - 1 for t, c in counts.items() if c > 1}
    return counts, n


def frequent_fingerprints(
    scan: Scan, min_count: int, occurrences: int
) -> dict[str, tuple[int, int]]:
    """``{fingerprint: (pages, distinct sites)}`` of the fingerprints held by at least
    ``min_count`` pages of ``scan()`` (called twice, or three times when ``occurrences``, a
    bound on the term occurrences, was too low). Pages without a site add no site.

    >>> pages = [(["t", "a"], "s1"), (["t", "b"], "s2"), (["t"], None), (["b"], "s1")]
    >>> frequent_fingerprints(lambda: pages, 2, 8)
    {'b': (2, 2), 't': (3, 2)}
    """
    min_count = max(1, min_count)
    while True:
        k = max(1, occurrences // min_count)
        survivors, n = misra_gries((fps for fps, _ in scan()), k)
        if n <= occurrences:
            break
        occurrences = n  # the bound was low: the guarantee needs k >= N // min_count
    counts = dict.fromkeys(survivors, 0)
    sites: dict[str, set[str]] = {t: set() for t in survivors}
    for fps, site in scan():
        for term in set(fps):
            if term in counts:
                counts[term] += 1
                if site:
                    sites[term].add(site)
    return {t: (c, len(sites[t])) for t, c in sorted(counts.items()) if c >= min_count}
