"""ingest.coverage: pure coverage arithmetic, and coverage on a small People's Daily corpus."""

from __future__ import annotations

import gzip
import random
from pathlib import Path
from typing import Any

import pytest

from ingest.coverage import build_index, candidate_coverage, coverage_of_terms, top_candidates

DATA = Path(__file__).resolve().parents[4] / "shared" / "data"


def test_top_candidates_order_and_cut() -> None:
    terms = {"a": ["x", "y", "z"], "b": ["x", "y"], "c": ["z"], "d": ["x"], "e": ["q"]}
    index = build_index(terms)
    assert top_candidates("a", terms["a"], index, None) == [("b", 2), ("c", 1), ("d", 1)]
    assert top_candidates("a", terms["a"], index, 2) == [("b", 2), ("c", 1)]
    assert build_index(terms, stoplist=frozenset({"x"}))["y"] == ["a", "b"]


def test_coverage_of_terms() -> None:
    terms = {"a": ["x"], "b": ["x"], "c": [], "d": ["y"], "e": ["y"]}
    groups = {"a": "g1", "b": "g1", "c": "g1", "d": "g2", "e": "g3"}
    report = coverage_of_terms(terms, groups, k=20)
    assert (report.true_pairs, report.covered_pairs) == (3, 1)  # a-b covered; a-c, b-c not
    assert report.zero_term_docs == 1 and report.groups == 1
    assert report.candidates_per_doc == pytest.approx(4 / 5)


def _small_corpus(n_articles: int = 40, seed: int = 11) -> list[dict[str, Any]]:
    """Articles = runs of consecutive People's Daily paragraphs; one variant each:
    a paragraph dropped or added, a few characters edited, a different head/tail, reordered."""
    path = DATA / "people_daily_199801.plain.txt.gz"
    if not path.exists():
        pytest.skip(f"{path} not found")
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        paras = [p.strip() for p in fh if len(p.strip()) >= 60][: n_articles * 10 + 50]
    rng = random.Random(seed)
    docs: list[dict[str, Any]] = []
    for a in range(n_articles):
        art = paras[a * 10 : a * 10 + 10]
        var = list(art)
        kind = a % 4
        if kind == 0:
            del var[rng.randrange(len(var))]
        elif kind == 1:
            i = rng.randrange(len(var))
            chars = list(var[i])
            for j in rng.sample(range(len(chars)), max(1, len(chars) // 20)):
                chars[j] = "改"
            var[i] = "".join(chars)
        elif kind == 2:
            var = ["本站讯 转载请注明出处"] + var + [paras[-1 - a]]
        else:
            var[1], var[3] = var[3], var[1]
        docs.append({"id": f"a{a}", "text": "\n".join(art), "group": f"g{a}"})
        docs.append({"id": f"a{a}v", "text": "\n".join(var), "group": f"g{a}"})
    return docs


def test_coverage_on_small_people_daily_corpus() -> None:
    report = candidate_coverage(_small_corpus(), k=20)
    assert report.true_pairs == 40
    assert report.coverage >= 0.95, report.summary()
    assert report.candidates_per_doc <= 3, report.summary()
