"""Candidate coverage of the fingerprints (the paper's "coverage rate", §5), in memory.

Step 1 of the method only has to bring true near-duplicates together as *candidates*; steps 2-3
(LCS verification) decide. So step 1 is judged by

* **coverage (labels)**: the share of labelled near-duplicate pairs (two documents of one
  ``group``) in which one document is among the other's candidates — documents sharing at least
  one non-stoplisted term, keeping the top ``k`` by number of shared terms (ties by id), as the
  store's ``candidates(doc, k)`` does;
* **coverage (TLCS)**, the paper's definition: of the pairs the verifier
  (:func:`neardup.verifier.compare.compare` on the full texts) judges similar, the share that are
  candidates — here over *all* pairs of the corpus (unrelated pairs are rejected early by the
  verifier's skeleton bound, so a corpus of ~1,000 documents takes tens of seconds); reported as
  the share of pairs and, as the paper words it, the mean over documents of x/X (similar
  documents found among its candidates / similar documents in the whole corpus);
* **candidates per document**: the average size of that candidate list (the verification cost).

Terms are what the product indexes: :func:`neardup.ingest.fingerprint.index_terms` of each document's
main content (:func:`neardup.ingest.extract.document_texts`; the zero-fingerprint term included), and
the stoplist is the product's rule (:mod:`neardup.ingest.stoplist`) applied to the corpus' own term
frequencies. Everything is a pure function over an inverted index ``term -> document ids`` held
in a dict; no store, no server. ``python -m neardup.evaluation.coverage`` prints the figures for the
development corpora of :mod:`neardup.evaluation.datasets`.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from itertools import combinations
from typing import Any

from neardup.evaluation import datasets
from neardup.ingest.errors import DocumentError
from neardup.ingest.extract import ExtractedText, document_texts
from neardup.ingest.fingerprint import PROFILES, FingerprintConfig, index_terms
from neardup.ingest.stoplist import StoplistConfig, compute_stoplist
from neardup.ingest.store.ranking import candidate_terms, rank_candidates
from neardup.verifier.compare import DEFAULT_CONFIG, compare
from neardup.verifier.errors import VerifierInputError

_PAPER_STOPLIST = StoplistConfig()  # the paper's thresholds (the product default)

__all__ = [
    "CoverageReport",
    "TlcsCoverage",
    "build_index",
    "candidate_coverage",
    "corpus_stoplist",
    "coverage_of_terms",
    "similar_pairs",
    "tlcs_coverage",
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
        for term in candidate_terms(terms, stoplist):
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
    # the store's rule (neardup.ingest.store.ranking); a corpus has no ingest order, so ties go by id
    return [(c.id, c.shared) for c in rank_candidates(shared, k)]


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


def corpus_stoplist(
    doc_terms: Mapping[str, Sequence[str]],
    sites: Mapping[str, str | None],
    config: StoplistConfig = _PAPER_STOPLIST,
) -> frozenset[str]:
    """The product's stoplist rule (:func:`neardup.ingest.stoplist.compute_stoplist`) on the corpus' own
    term frequencies: ``(documents, distinct known sites)`` per term."""
    docs_of: dict[str, int] = Counter()
    sites_of: dict[str, set[str]] = defaultdict(set)
    for doc_id, terms in doc_terms.items():
        site = sites.get(doc_id)
        for term in set(terms):
            docs_of[term] += 1
            if site:
                sites_of[term].add(site)
    floor = config.min_count_for(len(doc_terms))
    freqs = {t: (c, len(sites_of[t])) for t, c in docs_of.items() if c >= floor}
    return frozenset(compute_stoplist(freqs, config, len(doc_terms)))


def corpus_terms(
    docs: Iterable[Mapping[str, Any]],
    config: FingerprintConfig = PROFILES["web"],
    content: bool = True,
    texts_of: Callable[[Mapping[str, Any]], ExtractedText] = document_texts,
) -> tuple[dict[str, list[str]], dict[str, ExtractedText]]:
    """Index terms (and texts) of a corpus, as the product computes them: fingerprints of the
    main content (``content=False``: of the full text). A document whose text cannot be
    extracted has no terms and empty texts."""
    doc_terms: dict[str, list[str]] = {}
    texts: dict[str, ExtractedText] = {}
    for doc in docs:
        doc_id = str(doc["id"])
        try:
            both = texts_of(doc)
        except DocumentError:
            doc_terms[doc_id], texts[doc_id] = [], ExtractedText("", "")
            continue
        texts[doc_id] = both
        doc_terms[doc_id] = index_terms(
            both.text, config, content=both.content if content else None
        )
    return doc_terms, texts


def candidate_coverage(
    docs: Iterable[Mapping[str, Any]],
    config: FingerprintConfig = PROFILES["web"],
    k: int | None = 20,
    stoplist: StoplistConfig | None = _PAPER_STOPLIST,
    content: bool = True,
) -> CoverageReport:
    """:func:`coverage_of_terms` for documents ``{"id", "text"|"html"|"rst"|"markdown",
    "group", "site"?}`` with the product's terms and stoplist rule (``None``: no stoplist).

    Documents whose text cannot be extracted count as having no terms.
    """
    docs = list(docs)
    doc_terms, _ = corpus_terms(docs, config, content)
    groups = {str(d["id"]): str(d["group"]) for d in docs}
    stop: frozenset[str] = frozenset()
    if stoplist is not None:
        stop = corpus_stoplist(doc_terms, {str(d["id"]): d.get("site") for d in docs}, stoplist)
    return coverage_of_terms(doc_terms, groups, k, stop)


@dataclass(frozen=True, slots=True)
class TlcsCoverage:
    similar_pairs: int  # pairs the verifier judges similar (all pairs of the corpus compared)
    covered_pairs: int  # of those, pairs where one is among the other's top-k candidates
    labelled_similar: int  # similar pairs that are also labelled near-duplicates
    mean_doc_coverage: float  # mean over documents with a similar partner of x / X
    compared_pairs: int

    @property
    def coverage(self) -> float:
        return self.covered_pairs / self.similar_pairs if self.similar_pairs else 1.0

    def summary(self) -> str:
        return (
            f"TLCS coverage {self.coverage:.4f} ({self.covered_pairs}/{self.similar_pairs} "
            f"similar pairs, {self.labelled_similar} of them labelled; per document "
            f"{self.mean_doc_coverage:.4f}) over {self.compared_pairs} compared pairs"
        )


def similar_pairs(texts: Mapping[str, str], verify_config: Any = None) -> set[tuple[str, str]]:
    """All pairs ``(a, b)`` (``a < b``) of ``texts`` that :func:`neardup.verifier.compare.compare`
    judges similar. Quadratic in the number of documents: for development corpora."""

    config = verify_config or DEFAULT_CONFIG
    ids = sorted(i for i, t in texts.items() if t.strip())
    found: set[tuple[str, str]] = set()
    for x, a in enumerate(ids):
        ta = texts[a]
        for b in ids[x + 1 :]:
            try:
                if compare(ta, texts[b], config).similar:
                    found.add((a, b))
            except VerifierInputError:
                continue  # too large for the verifier: never similar
    return found


def tlcs_coverage(
    doc_terms: Mapping[str, Sequence[str]],
    similar: set[tuple[str, str]],
    groups: Mapping[str, str] | None = None,
    k: int | None = 20,
    stoplist: frozenset[str] = frozenset(),
) -> TlcsCoverage:
    """Coverage by the paper's definition: the verifier's similar pairs among the candidates."""
    index = build_index(doc_terms, stoplist)
    cut = {
        doc_id: {c for c, _ in top_candidates(doc_id, terms, index, k)}
        for doc_id, terms in doc_terms.items()
    }
    partners: dict[str, set[str]] = defaultdict(set)
    covered = 0
    for a, b in similar:
        partners[a].add(b)
        partners[b].add(a)
        covered += b in cut.get(a, ()) or a in cut.get(b, ())
    per_doc = [
        sum(1 for o in others if o in cut.get(d, ()) or d in cut.get(o, ())) / len(others)
        for d, others in partners.items()
    ]
    n = len(doc_terms)
    return TlcsCoverage(
        similar_pairs=len(similar),
        covered_pairs=covered,
        labelled_similar=sum(1 for a, b in similar if groups and groups[a] == groups[b]),
        mean_doc_coverage=sum(per_doc) / len(per_doc) if per_doc else 1.0,
        compared_pairs=n * (n - 1) // 2,
    )


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

    yield "synthetic-zh", datasets.synthetic_corpus("zh", split="dev")
    yield "synthetic-en", datasets.synthetic_corpus("en", split="dev")
    yield "pydoc html-vs-rst", pairs_as_corpus(datasets.pydoc_pairs("dev"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m neardup.evaluation.coverage",
        description="Candidate coverage of the fingerprints on the development corpora.",
    )
    parser.add_argument("--profile", choices=sorted(PROFILES), default="web")
    parser.add_argument(
        "--config", default=None, help="a fingerprint config identity (overrides --profile)"
    )
    parser.add_argument("-k", type=int, default=20, help="top-k candidates per document")
    parser.add_argument(
        "--full-text", action="store_true", help="fingerprint the full text, not the main content"
    )
    parser.add_argument(
        "--stop-share",
        type=float,
        default=None,
        help="stoplist: also stop terms in more than this share of the documents (max_share)",
    )
    parser.add_argument("--no-stoplist", action="store_true", help="no stoplist at all")
    parser.add_argument(
        "--tlcs", action="store_true", help="also the paper's coverage (all pairs verified)"
    )
    args = parser.parse_args(argv)
    config = FingerprintConfig.from_identity(args.config) if args.config else PROFILES[args.profile]
    stop_config = None if args.no_stoplist else StoplistConfig(max_share=args.stop_share)
    print(
        f"fingerprint config {config.identity}, k = {args.k}, "
        f"{'full text' if args.full_text else 'main content'}, stoplist {stop_config}"
    )
    for name, corpus in _dev_corpora():
        doc_terms, texts = corpus_terms(corpus, config, not args.full_text)
        groups = {str(d["id"]): str(d["group"]) for d in corpus}
        stop: frozenset[str] = frozenset()
        if stop_config is not None:
            sites = {str(d["id"]): d.get("site") for d in corpus}
            stop = corpus_stoplist(doc_terms, sites, stop_config)
        report = coverage_of_terms(doc_terms, groups, args.k, stop)
        print(f"{name}: {report.summary()}, {len(stop)} stoplisted", flush=True)
        if args.tlcs:
            similar = similar_pairs({i: t.text for i, t in texts.items()})
            print(f"  {tlcs_coverage(doc_terms, similar, groups, args.k, stop).summary()}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
