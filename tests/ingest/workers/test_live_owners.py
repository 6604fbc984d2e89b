"""The batch's own pages by fingerprint (``neardup.ingest.workers.live.Owners``), which the live
and the index matches of ``decide_batch`` count shared fingerprints with, against the plain
definition: the pages holding a term, and per page how many distinct terms of a set it holds."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from neardup.ingest.workers.live import Owners


def _pages(rng: random.Random, n: int, shared_rate: float) -> list[tuple[str, frozenset[str]]]:
    common = [f"common{i}" for i in range(n // 2)]  # terms several pages may hold
    pages = []
    for i in range(n):
        terms = {f"p{i}-{j}" for j in range(20)}  # its own
        terms |= {t for t in common if rng.random() < shared_rate}
        pages.append((f"p{i}", frozenset(terms)))
    return pages


@pytest.mark.parametrize("shared_rate", [0.0, 0.05, 0.5])
def test_owners_agree_with_the_definition(shared_rate: float) -> None:
    rng = random.Random(11)
    pages = _pages(rng, 60, shared_rate)
    owners = Owners(pages)
    every = {t for _, terms in pages for t in terms} | {"absent"}
    for t in every:
        assert sorted(owners.of(t)) == sorted(p for p, terms in pages if t in terms)
    several = [t for t in every if len(owners.of(t)) > 1]
    assert bool(several) == (shared_rate > 0)  # the multi-holder path is exercised
    for _ in range(30):
        asked = rng.sample(sorted(every), 50)
        asked += asked[:5]  # repeated terms count once
        want = Counter(p for p, terms in pages for t in set(asked) if t in terms)
        assert owners.count(asked) == want
