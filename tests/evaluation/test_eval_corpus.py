"""Our corpus-mode candidates: the product's step 1 (main-content fingerprints, stoplist, top-k)."""

from __future__ import annotations

import random

import pytest

from neardup.evaluation import datasets as ds
from neardup.evaluation.evaluate import (
    doc_text,
    evaluate_corpus,
    fingerprint_candidates,
    product_candidates,
)

WORDS = (
    "river mountain station library harbour council market winter garden engine letter bridge "
    "school doctor theatre village airport museum factory island valley forest orchard castle"
).split()


def _article(seed: int, sentences: int = 12) -> str:
    rnd = random.Random(seed)
    return " ".join(
        " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(10, 16))).capitalize() + "."
        for _ in range(sentences)
    )


def _page(site: int, body: str) -> str:
    rnd = random.Random(f"site{site}")
    nav = "".join(f"<li>{_article(100 + site * 10 + i, 1)}</li>" for i in range(6))
    foot = _article(200 + site, 3)
    return (
        f"<html><body><header>{_article(300 + site, 2)}</header><nav><ul>{nav}</ul></nav>"
        f"<main><p>{body}</p></main><footer>{foot} {rnd.randint(1, 99)}</footer></body></html>"
    )


def test_candidates_come_from_the_main_content() -> None:
    art, other = _article(1), _article(2)
    docs = [
        {"id": "a", "html": _page(1, art), "site": "one", "group": "A"},
        {"id": "b", "html": _page(2, art), "site": "two", "group": "A"},  # same article elsewhere
        {"id": "c", "html": _page(1, other), "site": "one", "group": "C"},  # same template only
    ]
    cands = product_candidates(docs)
    assert ("a", "b") in cands
    assert ("a", "c") not in cands  # the shared header, menu and footer are not fingerprinted
    # on the full text the template sentences make the same-template page a candidate
    full = fingerprint_candidates({d["id"]: doc_text(d) for d in docs})
    assert ("a", "c") in full


@pytest.mark.usefixtures("people_daily")
def test_corpus_coverage_of_the_synthetic_corpus() -> None:
    docs = ds.synthetic_corpus("zh", n_groups=40, split="dev")
    report = evaluate_corpus(docs, ["lcs"])
    (ours,) = report.results
    # true pairs that never became candidates are misses: coverage bounds the recall
    assert ours.coverage is not None and ours.coverage >= 0.9
    assert ours.confusion.recall <= ours.coverage
