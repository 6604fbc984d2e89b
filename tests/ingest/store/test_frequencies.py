"""The frequent fingerprints counted in bounded memory equal the exact counts."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.ingest.store.frequencies import frequent_fingerprints, misra_gries

TERMS = st.sampled_from([f"t{i}" for i in range(12)])
PAGES = st.lists(st.tuples(st.lists(TERMS, max_size=6),
                           st.one_of(st.none(), st.sampled_from(["s1", "s2", "s3"]))),
                 max_size=60)


def exact(pages: list[tuple[list[str], str | None]], min_count: int) -> dict[str, tuple[int, int]]:
    counts: Counter[str] = Counter()
    sites: dict[str, set[str]] = {}
    for fps, site in pages:
        for t in set(fps):
            counts[t] += 1
            if site:
                sites.setdefault(t, set()).add(site)
    return {t: (c, len(sites.get(t, ()))) for t, c in sorted(counts.items()) if c >= min_count}


@settings(max_examples=300, deadline=None)
@given(PAGES, st.integers(1, 8), st.integers(0, 400))
def test_the_two_passes_give_the_exact_counts(
    pages: list[tuple[list[str], str | None]], min_count: int, bound: int
) -> None:
    """Whatever the bound on the occurrences (too low: the first pass runs again)."""
    calls = []

    def scan() -> list[tuple[list[str], str | None]]:
        calls.append(1)
        return pages

    assert frequent_fingerprints(scan, min_count, bound) == exact(pages, min_count)
    assert len(calls) in (2, 3)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(TERMS, max_size=6), max_size=60), st.integers(1, 10))
def test_the_summary_holds_every_frequent_term_in_k_counters(
    pages: list[list[str]], k: int
) -> None:
    summary, n = misra_gries(pages, k)
    counts = Counter(t for p in pages for t in set(p))
    assert n == sum(counts.values()) and len(summary) <= k
    assert {t for t, c in counts.items() if c > n / (k + 1)} <= set(summary)


def test_memory_is_the_counters_not_the_distinct_terms() -> None:
    """A million distinct terms and one in every page: 10 counters keep the common one."""
    pages = [[f"u{i}", "common"] for i in range(500_000)]
    summary, n = misra_gries(pages, 10)
    assert n == 1_000_000 and "common" in summary and len(summary) <= 10
    with pytest.raises(ValueError):
        misra_gries(pages, 0)
