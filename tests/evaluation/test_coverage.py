"""neardup.evaluation.coverage: pure coverage arithmetic, and coverage on a small People's Daily corpus."""

from __future__ import annotations

import gzip
import random
from pathlib import Path
from typing import Any

import pytest

from neardup.evaluation.coverage import (
    build_index,
    candidate_coverage,
    coverage_of_terms,
    top_candidates,
)


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


def _small_corpus(path: Path, n_articles: int = 40, seed: int = 11) -> list[dict[str, Any]]:
    """Articles = runs of consecutive People's Daily paragraphs (``path``); one variant each:
    a paragraph dropped or added, a few characters edited, a different head/tail, reordered."""
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


def test_coverage_on_small_people_daily_corpus(people_daily: Path) -> None:
    report = candidate_coverage(_small_corpus(people_daily), k=20)
    assert report.true_pairs == 40
    assert report.coverage >= 0.95, report.summary()
    assert report.candidates_per_doc <= 3, report.summary()


def test_tlcs_coverage_counts_similar_pairs_among_candidates() -> None:
    from neardup.evaluation.coverage import tlcs_coverage

    terms = {"a": ["x", "y"], "b": ["x"], "c": ["y"], "d": ["q"], "e": []}
    similar = {("a", "b"), ("a", "d"), ("c", "e")}
    report = tlcs_coverage(terms, similar, {"a": "g", "b": "g", "c": "h", "d": "i", "e": "h"})
    assert (report.similar_pairs, report.covered_pairs, report.labelled_similar) == (3, 1, 2)
    assert report.coverage == pytest.approx(1 / 3)
    # per document x/X: a 1/2, b 1/1, d 0/1, c 0/1, e 0/1
    assert report.mean_doc_coverage == pytest.approx((0.5 + 1) / 5)
    assert report.compared_pairs == 10
    assert tlcs_coverage(terms, {("a", "b")}, k=0).coverage == 0.0  # nothing within top-0


def test_similar_pairs_uses_the_verifier() -> None:
    from neardup.evaluation.coverage import similar_pairs

    page = "新华社北京一月一日电 今天是新年的第一天，首都各界群众欢聚一堂，共庆佳节。" * 4
    other = "全国各地的农民正在积极准备春耕生产，各级政府加强了对农业的支持力度。" * 4
    texts = {"a": page, "b": "广告 " + page + " 版权所有", "c": other, "d": ""}
    assert similar_pairs(texts) == {("a", "b")}


def test_corpus_stoplist_applies_the_product_rule() -> None:
    from neardup.evaluation.coverage import corpus_stoplist
    from neardup.ingest.stoplist import StoplistConfig

    terms = {f"d{i}": ["t", f"u{i}"] + (["s"] if i < 3 else []) for i in range(20)}
    sites = {f"d{i}": f"site{i % 2}" for i in range(20)}
    assert corpus_stoplist(terms, sites) == frozenset()  # the paper's thresholds: 10000 / 400
    # relative: more than 10 % of 20 documents = more than 2
    assert corpus_stoplist(terms, sites, StoplistConfig(max_share=0.1)) == {"t", "s"}
    assert corpus_stoplist(terms, sites, StoplistConfig(max_share=0.2)) == {"t"}
    concentrated = StoplistConfig(concentrated_count=10, max_count=100, max_sites=2)
    assert corpus_stoplist(terms, sites, concentrated) == {"t"}


def test_stoplist_max_share_rule() -> None:
    from neardup.ingest.errors import ConfigError
    from neardup.ingest.stoplist import FREQUENT, StoplistConfig, compute_stoplist

    config = StoplistConfig(max_share=0.01)
    assert config.frequent_count(1000) == 10 and config.min_count_for(1000) == 11
    assert config.frequent_count(10**9) == 10000  # the absolute threshold decides at scale
    assert compute_stoplist({"a": (11, 9), "b": (10, 9)}, config, 1000) == {"a": FREQUENT}
    assert StoplistConfig().min_count_for(50) == 401 and "docs" not in str(StoplistConfig())
    with pytest.raises(ConfigError):
        config.frequent_count()  # a share needs the collection size
    for bad in (0, 1, 1.5, True, "0.1"):
        with pytest.raises(ConfigError):
            StoplistConfig(max_share=bad)  # type: ignore[arg-type]
