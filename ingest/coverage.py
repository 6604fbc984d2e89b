"""Candidate coverage of the fingerprints (the paper's "coverage rate", §5), in memory.

Step 1 of the method only has to bring true near-duplicates together as *candidates*; steps 2-3
(LCS verification) decide. So step 1 is judged by

* **coverage**: the share of true near-duplicate pairs (two documents of one labelled
  ``group``) in which one document is among the other's candidates — documents sharing at least
  one fingerprint, keeping the top ``k`` by number of shared fingerprints (ties by id), as the
  store's ``candidates(doc, k)`` does;
* **candidates per document**: the average size of that candidate list (the verification cost).

Everything here is a pure function over an inverted index ``fingerprint -> document ids`` held
in a dict; no store, no server. ``python -m ingest.coverage`` prints the figures for the
development corpora of :mod:`ingest.datasets`.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from itertools import combinations
from typing import Any

from ingest.errors import DocumentError
from ingest.extract import document_text
from ingest.fingerprint import PROFILES, FingerprintConfig, fingerprints

__all__ = [
    "CoverageReport",
    "build_index",
    "candidate_coverage",
    "coverage_of_terms",
    "top_candidates",
]


@dataclass(frozen=True, slots=True)
class CoverageReport:
    docs: int
    groups: int  # groups with at least two documents
    true_pairs: int
    covered_pairs: int  # true pairs that are candidates (within the top k)
    covered_pairs_any: int  # true pairs sharing at least one term (no top-k cut)
    candidates_per_doc: float  # average candidate-list length, top-k cut applied
    candidates_per_doc_any: float  # without the cut
    zero_term_docs: int  # documents without any term (they can only stay singletons)
    terms_per_doc: float
    k: int | None

    @property
    def coverage(self) -> float:
        return self.covered_pairs / self.true_pairs if self.true_pairs else 1.0

    @property
    def coverage_any(self) -> float:
        return self.covered_pairs_any / self.true_pairs if self.true_pairs else 1.0

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "coverage": self.coverage, "coverage_any": self.coverage_any}

    def summary(self) -> str:
        return (
            f"coverage {self.coverage:.4f} ({self.covered_pairs}/{self.true_pairs} pairs; "
            f"{self.coverage_any:.4f} without the top-{self.k} cut), "
            f"{self.candidates_per_doc:.2f} candidates/doc "
            f"({self.candidates_per_doc_any:.2f} uncut), {self.docs} docs, "
            f"{self.terms_per_doc:.1f} fingerprints/doc, {self.zero_term_docs} with none"
        )


def build_index(
    doc_terms: Mapping[str, Sequence[str]], stoplist: frozenset[str] = frozenset()
) -> dict[str, list[str]]:
    """Inverted index ``term -> [doc ids]`` (in ``doc_terms`` order), stoplisted terms left out."""
    index: dict[str, list[str]] = defaultdict(list)
    for doc_id, terms in doc_terms.items():
        for term in dict.fromkeys(terms):
            if term not in stoplist:
                index[term].append(doc_id)
    return dict(index)


def top_candidates(
    doc_id: str, terms: Iterable[str], index: Mapping[str, Sequence[str]], k: int | None = 20
) -> list[tuple[str, int]]:
    """Documents sharing a term with ``doc_id``: ``(id, shared count)``, most shared first, ties
    by id, ``doc_id`` itself excluded, at most ``k`` (all when ``k`` is None)."""
    shared: Counter[str] = Counter()
    for term in dict.fromkeys(terms):
        shared.update(index.get(term, ()))
    shared.pop(doc_id, None)
    ranked = sorted(shared.items(), key=lambda item: (-item[1], item[0]))
    return ranked if k is None else ranked[:k]


def coverage_of_terms(
    doc_terms: Mapping[str, Sequence[str]],
    groups: Mapping[str, str],
    k: int | None = 20,
    stoplist: frozenset[str] = frozenset(),
) -> CoverageReport:
    """Coverage of true pairs (same ``groups`` label) by the candidates the terms produce."""
    index = build_index(doc_terms, stoplist)
    cut: dict[str, set[str]] = {}
    uncut: dict[str, set[str]] = {}
    for doc_id, terms in doc_terms.items():
        ranked = top_candidates(doc_id, terms, index, None)
        uncut[doc_id] = {c for c, _ in ranked}
        cut[doc_id] = {c for c, _ in (ranked if k is None else ranked[:k])}
    members: dict[str, list[str]] = defaultdict(list)
    for doc_id in doc_terms:
        members[groups[doc_id]].append(doc_id)
    true_pairs = covered = covered_any = 0
    for ids in members.values():
        for a, b in combinations(ids, 2):
            true_pairs += 1
            covered += b in cut[a] or a in cut[b]
            covered_any += b in uncut[a]
    n = len(doc_terms) or 1
    return CoverageReport(
        docs=len(doc_terms),
        groups=sum(1 for ids in members.values() if len(ids) > 1),
        true_pairs=true_pairs,
        covered_pairs=covered,
        covered_pairs_any=covered_any,
        candidates_per_doc=sum(map(len, cut.values())) / n,
        candidates_per_doc_any=sum(map(len, uncut.values())) / n,
        zero_term_docs=sum(1 for t in doc_terms.values() if not t),
        terms_per_doc=sum(map(len, doc_terms.values())) / n,
        k=k,
    )


def candidate_coverage(
    docs: Iterable[Mapping[str, Any]],
    config: FingerprintConfig = PROFILES["web"],
    k: int | None = 20,
    text_of: Callable[[Mapping[str, Any]], str] = document_text,
) -> CoverageReport:
    """:func:`coverage_of_terms` for documents ``{"id", "text"|"html", "group"}``.

    Documents whose text cannot be extracted count as having no fingerprints.
    """
    doc_terms: dict[str, list[str]] = {}
    groups: dict[str, str] = {}
    for doc in docs:
        doc_id = str(doc["id"])
        try:
            doc_terms[doc_id] = fingerprints(text_of(doc), config)
        except DocumentError:
            doc_terms[doc_id] = []
        groups[doc_id] = str(doc["group"])
    return coverage_of_terms(doc_terms, groups, k)


def pairs_as_corpus(pairs: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Positive pairs ``{"id", "a", "b", "label": 1}`` as a corpus of two-document groups.

    A document appearing in several pairs (same content) is kept once per pair; different
    pairs are different groups, so their documents count as non-duplicates of each other.
    """
    out: list[dict[str, Any]] = []
    for pair in pairs:
        if pair.get("label") != 1:
            continue
        for side in ("a", "b"):
            out.append({**pair[side], "id": f"{pair['id']}/{side}", "group": str(pair["id"])})
    return out


def _dev_corpora() -> Iterable[tuple[str, list[dict[str, Any]]]]:
    from ingest import datasets

    yield "synthetic-zh", datasets.synthetic_corpus("zh", split="dev")
    yield "synthetic-en", datasets.synthetic_corpus("en", split="dev")
    yield "pydoc html-vs-rst", pairs_as_corpus(datasets.pydoc_pairs("dev"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ingest.coverage",
        description="Candidate coverage of the fingerprints on the development corpora.",
    )
    parser.add_argument("--profile", choices=sorted(PROFILES), default="web")
    parser.add_argument("-k", type=int, default=20, help="top-k candidates per document")
    args = parser.parse_args(argv)
    config = PROFILES[args.profile]
    print(f"fingerprint config {config.identity}, k = {args.k}")
    for name, corpus in _dev_corpora():
        report = candidate_coverage(corpus, config, args.k)
        print(f"{name}: {report.summary()}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
