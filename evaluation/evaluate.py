"""Detection quality of neardup's LCS/TLCS method against the baselines (``neardup eval``).

Two modes, both on labelled data (see :mod:`neardup.evaluation.datasets`):

* **pairs** — every method decides every labelled pair. Ours: text of each side (the
  extractor), then :func:`neardup.verifier.compare.compare`. A baseline: ``fit`` on all texts of the
  dataset (unsupervised statistics only, never the labels), ``signature`` per text, then
  ``similar(signature(a), signature(b))``.
* **corpus** — every method proposes candidate pairs with its own scheme (ours: the paper's
  step 1 as the product runs it — sentence fingerprints of each page's main content, the
  stoplist, top-20 documents by shared terms; a baseline: its ``candidates``),
  then decides the candidates; precision/recall are over *all* pairs of the labelled
  partition, so a true pair that never became a candidate counts as missed.

Metrics are for the duplicate class. "Same-template" numbers restrict the negatives to those
whose two pages share one site template (kinds in :data:`neardup.evaluation.datasets.SAME_TEMPLATE_KINDS`,
the paper's hardest case): precision there is TP / (TP + FP on those negatives).
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

from neardup.evaluation import coverage
from neardup.evaluation.baselines import BASELINES, get_baseline
from neardup.evaluation.baselines.errors import BaselineUnavailable
from neardup.evaluation.datasets import SAME_TEMPLATE_KINDS
from neardup.ingest.extract import document_text, document_texts
from neardup.ingest.fingerprint import fingerprints
from neardup.ingest.pipeline import fingerprint_config as by_profile
from neardup.verifier.compare import compare
from neardup.verifier.config import VerifyConfig

log = logging.getLogger(__name__)

__all__ = [
    "OURS",
    "Confusion",
    "MethodResult",
    "EvalReport",
    "evaluate_corpus",
    "evaluate_pairs",
    "format_report",
    "load_jsonl",
    "resolve_methods",
]

#: the name of our method in tables and in ``--methods``
OURS = "lcs"
_OURS_ALIASES = {"lcs", "tlcs", "neardup", "ours"}


# --------------------------------------------------------------------------------------------
# Metrics
# --------------------------------------------------------------------------------------------


@dataclass
class Confusion:
    """Counts for the duplicate class."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    def add(self, label: bool, predicted: bool) -> None:
        if label and predicted:
            self.tp += 1
        elif predicted:
            self.fp += 1
        elif label:
            self.fn += 1
        else:
            self.tn += 1

    @property
    def precision(self) -> float:
        """TP / (TP + FP); 1.0 when nothing was predicted similar (no false claims)."""
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        """TP / (TP + FN); 1.0 when there are no positives."""
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def as_dict(self) -> dict[str, float | int]:
        return {
            **asdict(self),
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "f1": round(self.f1, 4),
        }


def prf(labels: Sequence[bool], predictions: Sequence[bool]) -> Confusion:
    """Confusion counts of ``predictions`` against ``labels``.

    >>> c = prf([True, True, False, False], [True, False, True, False])
    >>> (c.precision, c.recall, c.f1)
    (0.5, 0.5, 0.5)
    """
    if len(labels) != len(predictions):
        raise ValueError("labels and predictions differ in length")
    c = Confusion()
    for y, p in zip(labels, predictions, strict=True):
        c.add(bool(y), bool(p))
    return c


@dataclass
class MethodResult:
    method: str
    confusion: Confusion = field(default_factory=Confusion)
    same_template: Confusion | None = None  # positives + same-template negatives only
    seconds: float = 0.0
    n: int = 0
    by_kind: dict[str, dict[str, int]] = field(default_factory=dict)  # kind -> {n, correct}
    errors: int = 0
    skipped: str | None = None
    # corpus mode
    candidates: int | None = None
    coverage: float | None = None
    candidates_per_doc: float | None = None
    params: str = ""

    @property
    def rate(self) -> float:
        return self.n / self.seconds if self.seconds > 0 else float("inf")

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"method": self.method, "params": self.params}
        if self.skipped:
            out["skipped"] = self.skipped
            return out
        out.update(self.confusion.as_dict())
        if self.same_template is not None:
            st = self.same_template
            out["same_template"] = {
                "precision": round(st.precision, 4),
                "fp": st.fp,
                "negatives": st.fp + st.tn,
            }
        out.update(
            {
                "seconds": round(self.seconds, 3),
                "per_second": round(self.rate, 1),
                "errors": self.errors,
                "by_kind": self.by_kind,
            }
        )
        if self.candidates is not None:
            out.update(
                {
                    "candidates": self.candidates,
                    "coverage": round(self.coverage or 0, 4),
                    "candidates_per_doc": round(self.candidates_per_doc or 0, 2),
                }
            )
        return out


@dataclass
class EvalReport:
    dataset: str
    mode: str
    profile: str
    n_items: int
    n_positive: int
    results: list[MethodResult]
    errors: list[str] = field(default_factory=list)
    split: str | None = None
    config: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "split": self.split,
            "mode": self.mode,
            "profile": self.profile,
            "items": self.n_items,
            "positives": self.n_positive,
            "config": self.config,
            "errors": self.errors,
            "results": [r.as_dict() for r in self.results],
        }


# --------------------------------------------------------------------------------------------
# Input
# --------------------------------------------------------------------------------------------


#: document fields that carry content (the extractor's ``MARKUP_FIELDS``, in its precedence)
CONTENT_FIELDS = ("text", "html", "rst", "markdown")


def _valid_side(side: Any) -> bool:
    return isinstance(side, Mapping) and any(isinstance(side.get(k), str) for k in CONTENT_FIELDS)


def check_record(rec: Any, mode: str) -> str | None:
    """Why ``rec`` is not a valid labelled pair / corpus document (None when it is)."""
    if not isinstance(rec, dict):
        return "not a JSON object"
    if mode == "pairs":
        if not _valid_side(rec.get("a")) or not _valid_side(rec.get("b")):
            return "'a' and 'b' must be objects with a string 'text', 'html', 'rst' or 'markdown'"
        if rec.get("label") not in (0, 1, True, False):
            return "'label' must be 0 or 1"
        return None
    if not isinstance(rec.get("id"), str | int):
        return "'id' missing"
    if not _valid_side(rec):
        return "needs a string 'text', 'html', 'rst' or 'markdown'"
    if rec.get("group") is None:
        return "'group' missing"
    return None


def detect_mode(records: Iterable[Any]) -> str:
    for rec in records:
        if isinstance(rec, dict):
            return "pairs" if "a" in rec or "b" in rec else "corpus"
    return "pairs"


def load_jsonl(
    path: str | Path, mode: str | None = None
) -> tuple[list[dict[str, Any]], str, list[str]]:
    """Read a labelled JSONL file: ``(records, mode, errors)``.

    Bad lines (invalid JSON, missing fields) are reported as ``"line N: why"`` in ``errors``
    and left out; they never stop the run.
    """
    raw: list[tuple[int, Any]] = []
    errors: list[str] = []
    with open(path, encoding="utf-8", errors="replace") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                raw.append((n, json.loads(line)))
            except json.JSONDecodeError as exc:
                errors.append(f"line {n}: invalid JSON ({exc.msg})")
    mode = mode or detect_mode(rec for _, rec in raw)
    records: list[dict[str, Any]] = []
    for n, rec in raw:
        why = check_record(rec, mode)
        if why:
            errors.append(f"line {n}: {why}")
        else:
            records.append(rec)
    return records, mode, errors


# --------------------------------------------------------------------------------------------
# Text and our method
# --------------------------------------------------------------------------------------------


def doc_text(doc: Mapping[str, Any], normalize: str | None = None) -> str:
    """The text a method sees: the extractor's output, Traditional→Simplified if asked."""

    if normalize == "t2s":
        return document_text(doc, to_simplified=True)
    return document_text(doc)


def verify_config(profile: str = "web", overrides: Mapping[str, Any] | None = None) -> Any:
    """The :class:`neardup.verifier.config.VerifyConfig` of a profile with ``overrides`` applied."""

    base = VerifyConfig.profile(profile)
    return base.replace(**dict(overrides)) if overrides else base


def fingerprint_config(profile: str = "web") -> Any:

    return by_profile(profile)


class _Ours:
    """Our method behind the same small interface as a baseline."""

    name = OURS

    def __init__(self, profile: str, overrides: Mapping[str, Any] | None) -> None:

        self._compare = compare
        self.config = verify_config(profile, overrides)
        self.profile = profile

    def __repr__(self) -> str:
        return str(self.config)

    def similar_texts(self, a: str, b: str) -> bool:
        return bool(self._compare(a, b, self.config).similar)

    def verdict(self, a: str, b: str) -> Any:
        return self._compare(a, b, self.config)


def resolve_methods(spec: str) -> list[str]:
    """``all`` or a comma list → method names (ours first). Unknown names raise ValueError."""

    if spec.strip() == "all":
        return [OURS, *BASELINES]
    names = [s.strip() for s in spec.split(",") if s.strip()]
    out: list[str] = []
    for name in names:
        canon = OURS if name in _OURS_ALIASES else name
        if canon != OURS and canon not in BASELINES:
            known = ", ".join([OURS, *BASELINES])
            raise ValueError(f"unknown method {name!r}; known: {known}, all")
        if canon not in out:
            out.append(canon)
    if not out:
        raise ValueError("no method given")
    return out


def _progress(iterable: Iterable[Any], desc: str, total: int | None, show: bool) -> Iterable[Any]:
    if not show:
        return iterable
    from tqdm import tqdm

    return tqdm(iterable, desc=desc, total=total, file=sys.stderr, leave=False, mininterval=0.5)


# --------------------------------------------------------------------------------------------
# Pairs mode
# --------------------------------------------------------------------------------------------


def texts_of(doc: Mapping[str, Any], normalize: str | None = None) -> tuple[str, str]:
    """``(text, verified)`` of a page in one extraction: the text the baselines see
    (:func:`doc_text`) and the one our verifier compares, as the product does — the main
    content of an HTML page (:func:`neardup.ingest.pairs.verified_text`), the text otherwise."""
    both = document_texts(doc, to_simplified=normalize == "t2s")
    return both.text, both.content


def _pair_texts(
    records: Sequence[Mapping[str, Any]], progress: bool
) -> tuple[list[tuple[str, str] | None], list[tuple[str, str] | None], list[str]]:
    """Per pair: the extracted texts (what the baselines see) and the verified texts (ours)."""
    texts: list[tuple[str, str] | None] = []
    verified: list[tuple[str, str] | None] = []
    errors: list[str] = []
    for i, rec in enumerate(_progress(records, "extract", len(records), progress)):
        norm = rec.get("normalize")
        try:
            (text_a, verified_a), (text_b, verified_b) = (
                texts_of(rec["a"], norm), texts_of(rec["b"], norm)
            )
            texts.append((text_a, text_b))
            verified.append((verified_a, verified_b))
        except Exception as exc:  # a bad page is counted and reported, never fatal
            texts.append(None)
            verified.append(None)
            errors.append(f"pair {rec.get('id', i)}: {type(exc).__name__}: {exc}")
    return texts, verified, errors


def _record_kind(rec: Mapping[str, Any]) -> str:
    return str(rec.get("kind") or ("positive" if rec.get("label") else "negative"))


def _finish(
    result: MethodResult, labels: Sequence[bool], preds: Sequence[bool | None], kinds: Sequence[str]
) -> MethodResult:
    st = Confusion()
    any_st = False
    by_kind: dict[str, dict[str, int]] = defaultdict(lambda: {"n": 0, "correct": 0})
    for y, p, k in zip(labels, preds, kinds, strict=True):
        if p is None:
            result.errors += 1
            continue
        result.confusion.add(y, p)
        result.n += 1
        by_kind[k]["n"] += 1
        by_kind[k]["label"] = int(bool(y))
        by_kind[k]["correct"] += int(bool(p) == bool(y))
        if y or k in SAME_TEMPLATE_KINDS:
            st.add(y, p)
            any_st = any_st or (not y)
    result.same_template = st if any_st else None
    result.by_kind = dict(sorted(by_kind.items()))
    return result


def evaluate_pairs(
    records: Sequence[Mapping[str, Any]],
    methods: Sequence[str],
    *,
    profile: str = "web",
    overrides: Mapping[str, Any] | None = None,
    baseline_params: Mapping[str, Mapping[str, Any]] | None = None,
    progress: bool = False,
    dataset: str = "pairs",
    split: str | None = None,
) -> EvalReport:
    """Run every method on every labelled pair; see the module docstring."""

    texts, verified, errors = _pair_texts(records, progress)
    labels = [bool(r["label"]) for r in records]
    kinds = [_record_kind(r) for r in records]
    results: list[MethodResult] = []
    config: dict[str, Any] = {}
    for name in methods:
        res = MethodResult(name)
        preds: list[bool | None] = []
        try:
            if name == OURS:
                ours = _Ours(profile, overrides)
                res.params = repr(ours)
                config["lcs"] = res.params
                t0 = time.perf_counter()
                for pair in _progress(verified, name, len(verified), progress):
                    if pair is None:
                        preds.append(None)
                        continue
                    try:
                        preds.append(ours.similar_texts(*pair))
                    except Exception as exc:
                        log.warning("%s failed on a pair: %s", name, exc)
                        preds.append(None)
                res.seconds = time.perf_counter() - t0
            else:
                method = get_baseline(name, **dict((baseline_params or {}).get(name, {})))
                res.params = repr(method)
                t0 = time.perf_counter()
                unique: dict[str, Any] = {}
                for pair in texts:
                    if pair is not None:
                        unique.setdefault(pair[0], None)
                        unique.setdefault(pair[1], None)
                method.fit(list(unique))
                for text in _progress(list(unique), f"{name} sign", len(unique), progress):
                    unique[text] = method.signature(text)
                for pair in texts:
                    preds.append(
                        None
                        if pair is None
                        else bool(method.similar(unique[pair[0]], unique[pair[1]]))
                    )
                res.seconds = time.perf_counter() - t0
        except (BaselineUnavailable, ImportError) as exc:
            res.skipped = f"unavailable: {exc}"
            results.append(res)
            continue
        results.append(_finish(res, labels, preds, kinds))
    return EvalReport(
        dataset, "pairs", profile, len(records), sum(labels), results, errors, split, config
    )


# --------------------------------------------------------------------------------------------
# Corpus mode
# --------------------------------------------------------------------------------------------


def _truth_pairs(ids: Sequence[str], groups: Sequence[Any]) -> set[tuple[str, str]]:
    members: dict[Any, list[str]] = defaultdict(list)
    for doc_id, g in zip(ids, groups, strict=True):
        members[g].append(doc_id)
    out: set[tuple[str, str]] = set()
    for docs in members.values():
        out.update((a, b) if a < b else (b, a) for a, b in combinations(docs, 2))
    return out


def fingerprint_candidates(
    texts: Mapping[str, str], profile: str = "web", top_k: int = 20
) -> set[tuple[str, str]]:
    """Our step 1: documents sharing a sentence fingerprint, top-``top_k`` per document by the
    number of shared fingerprints (the terms query of the store, in memory)."""

    cfg = fingerprint_config(profile)
    postings: dict[Any, list[str]] = defaultdict(list)
    for doc_id, text in texts.items():
        for fp in set(fingerprints(text, cfg)):
            postings[fp].append(doc_id)
    shared: dict[str, Counter[str]] = defaultdict(Counter)
    for docs in postings.values():
        if len(docs) > 1:
            for a, b in combinations(docs, 2):
                shared[a][b] += 1
                shared[b][a] += 1
    out: set[tuple[str, str]] = set()
    for a, counts in shared.items():
        for b, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:top_k]:
            out.add((a, b) if a < b else (b, a))
    return out


def product_candidates(
    docs: Sequence[Mapping[str, Any]], profile: str = "web", top_k: int = 20
) -> set[tuple[str, str]]:
    """Our step 1 as the product runs it: index terms of each document's *main content*
    (:func:`neardup.evaluation.coverage.corpus_terms`: :func:`neardup.ingest.fingerprint.index_terms` of
    :func:`neardup.ingest.extract.document_texts`), the stoplist rule on the corpus' own term
    frequencies, then each document's top-``top_k`` documents by shared terms."""

    def texts_of(doc: Mapping[str, Any]) -> Any:
        return document_texts(doc, to_simplified=doc.get("normalize") == "t2s")

    doc_terms, _ = coverage.corpus_terms(docs, fingerprint_config(profile), texts_of=texts_of)
    sites = {str(d["id"]): d.get("site") for d in docs}
    index = coverage.build_index(doc_terms, coverage.corpus_stoplist(doc_terms, sites))
    out: set[tuple[str, str]] = set()
    for a, terms in doc_terms.items():
        for b, _ in coverage.top_candidates(a, terms, index, top_k):
            out.add((a, b) if a < b else (b, a))
    return out


def _corpus_candidates_ours(
    docs: Sequence[Mapping[str, Any]], texts: Mapping[str, str], profile: str
) -> set[tuple[str, str]]:
    try:
        return product_candidates(docs, profile)
    except (ImportError, AttributeError):  # an ingest without main-content terms
        return fingerprint_candidates(texts, profile)


def _corpus_method(
    name: str,
    docs: Sequence[Mapping[str, Any]],
    texts: Mapping[str, str],
    ids: Sequence[str],
    profile: str,
    overrides: Mapping[str, Any] | None,
    baseline_params: Mapping[str, Mapping[str, Any]] | None,
    progress: bool,
) -> tuple[set[tuple[str, str]], Callable[[str, str], bool], str]:
    """A method's candidate pairs, its pair decision, and its parameters."""

    if name == OURS:
        ours = _Ours(profile, overrides)

        def decide_ours(a: str, b: str) -> bool:
            return ours.similar_texts(texts[a], texts[b])

        return _corpus_candidates_ours(docs, texts, profile), decide_ours, repr(ours)
    method = get_baseline(name, **dict((baseline_params or {}).get(name, {})))
    method.fit([texts[i] for i in ids])
    sigs = {
        i: method.signature(texts[i]) for i in _progress(ids, f"{name} sign", len(ids), progress)
    }
    cands = {(a, b) if a < b else (b, a) for a, b in method.candidates(sigs)}

    def decide(a: str, b: str) -> bool:
        return bool(method.similar(sigs[a], sigs[b]))

    return cands, decide, repr(method)


def evaluate_corpus(
    docs: Sequence[Mapping[str, Any]],
    methods: Sequence[str],
    *,
    profile: str = "web",
    overrides: Mapping[str, Any] | None = None,
    baseline_params: Mapping[str, Mapping[str, Any]] | None = None,
    progress: bool = False,
    dataset: str = "corpus",
    split: str | None = None,
) -> EvalReport:
    """Candidates by each method's own scheme, then its decisions; P/R/F1 over all pairs."""

    texts: dict[str, str] = {}
    verified: dict[str, str] = {}
    groups: dict[str, Any] = {}
    errors: list[str] = []
    good_docs: list[Mapping[str, Any]] = []
    for doc in _progress(docs, "extract", len(docs), progress):
        doc_id = str(doc["id"])
        try:
            texts[doc_id], verified[doc_id] = texts_of(doc, doc.get("normalize"))
            groups[doc_id] = doc["group"]
            good_docs.append(doc)
        except Exception as exc:
            errors.append(f"doc {doc_id}: {type(exc).__name__}: {exc}")
    ids = sorted(texts)
    truth = _truth_pairs(ids, [groups[i] for i in ids])
    n_docs = len(ids)
    results: list[MethodResult] = []
    config: dict[str, Any] = {}
    for name in methods:
        res = MethodResult(name)
        try:
            t0 = time.perf_counter()
            cands, decide, res.params = _corpus_method(
                name, good_docs, verified if name == OURS else texts, ids, profile, overrides,
                baseline_params, progress,
            )
            if name == OURS:
                config["lcs"] = res.params
            predicted: set[tuple[str, str]] = set()
            for a, b in _progress(sorted(cands), f"{name} verify", len(cands), progress):
                try:
                    if decide(a, b):
                        predicted.add((a, b))
                except Exception as exc:
                    res.errors += 1
                    log.warning("%s failed on (%s, %s): %s", name, a, b, exc)
            res.seconds = time.perf_counter() - t0
        except (BaselineUnavailable, ImportError) as exc:
            res.skipped = f"unavailable: {exc}"
            results.append(res)
            continue
        c = res.confusion
        c.tp = len(predicted & truth)
        c.fp = len(predicted - truth)
        c.fn = len(truth - predicted)
        c.tn = n_docs * (n_docs - 1) // 2 - c.tp - c.fp - c.fn
        res.n = n_docs
        res.candidates = len(cands)
        res.coverage = len(cands & truth) / len(truth) if truth else 1.0
        res.candidates_per_doc = 2 * len(cands) / n_docs if n_docs else 0.0
        results.append(res)
    return EvalReport(
        dataset, "corpus", profile, n_docs, len(truth), results, errors, split, config
    )


# --------------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------------


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [
        max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)
    ]

    def fmt(cells: Sequence[str]) -> str:
        return "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        )

    return [fmt(header), fmt(["-" * w for w in widths]), *(fmt(r) for r in rows)]


def format_report(report: EvalReport, by_kind: bool = True) -> str:
    """The report as aligned text tables: methods side by side, then per-kind accuracy."""
    title = f"dataset {report.dataset}" + (f" ({report.split})" if report.split else "")
    unit = "pairs" if report.mode == "pairs" else "docs"
    lines = [
        f"{title}: mode {report.mode}, profile {report.profile}, {report.n_items} {unit}, "
        f"{report.n_positive} positive {'pairs' if report.mode == 'corpus' else ''}".rstrip()
    ]
    header = ["method", "P", "R", "F1", "TP", "FP", "FN"]
    corpus = report.mode == "corpus"
    has_st = any(r.same_template is not None for r in report.results)
    if has_st:
        header += ["P same-tmpl", "FP same-tmpl"]
    if corpus:
        header += ["coverage", "cand/doc"]
    header += ["time s", f"{unit}/s"]
    rows = []
    skipped = []
    for r in report.results:
        if r.skipped:
            skipped.append(f"{r.method}: {r.skipped}")
            continue
        c = r.confusion
        row = [
            r.method,
            f"{c.precision:.3f}",
            f"{c.recall:.3f}",
            f"{c.f1:.3f}",
            str(c.tp),
            str(c.fp),
            str(c.fn),
        ]
        if has_st:
            st = r.same_template
            row += [f"{st.precision:.3f}", f"{st.fp}/{st.fp + st.tn}"] if st else ["-", "-"]
        if corpus:
            row += [f"{r.coverage:.3f}", f"{r.candidates_per_doc:.1f}"]
        row += [f"{r.seconds:.1f}", f"{r.rate:.0f}"]
        rows.append(row)
    lines += _table(header, rows)
    if skipped:
        lines += ["skipped: " + "; ".join(skipped)]
    if report.errors:
        lines += [f"{len(report.errors)} input error(s); first: {report.errors[0]}"]
    if by_kind and not corpus:
        done = [r for r in report.results if not r.skipped]
        kinds = sorted({k for r in done for k in r.by_kind})
        if kinds and done:
            lines += ["", "share decided correctly, by kind ((+) near-duplicate, (-) not)"]
            krows = []
            for k in kinds:
                first = next(r.by_kind[k] for r in done if k in r.by_kind)
                sign = "+" if first.get("label") else "-"
                krows.append(
                    [
                        f"{k} ({sign})",
                        str(first["n"]),
                        *(
                            f"{r.by_kind[k]['correct'] / r.by_kind[k]['n']:.3f}"
                            if k in r.by_kind and r.by_kind[k]["n"]
                            else "-"
                            for r in done
                        ),
                    ]
                )
            lines += _table(["kind", "n", *(r.method for r in done)], krows)
    return "\n".join(lines)
