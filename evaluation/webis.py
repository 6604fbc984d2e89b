"""The human-judged Webis pairs in ``neardup eval`` (``--dataset webis-dev``).

``../shared/data/webis_dev_pairs.jsonl.gz`` (``Settings.shared_data``) holds 194 pairs of real
web and news pages judged by people (Webis, ECIR 2020): ``id``, ``corpus``, ``label`` 0..3,
``a_id``, ``b_id``, ``a.text``, ``b.text``; positive = label >= 1. It is read in place, never
copied.

The report (:func:`evaluate_webis`) has three parts:

* **our method at its named operating points** — profiles ``web`` (default) and ``precise``,
  and the paper's rule (``decision="tlcs"`` on the web parameters), each as it ships, on all
  pairs (no fitting), next to **grouped 5-fold cross-validation** of the same rule: pairs
  sharing a page (union-find over ``a_id`` / ``b_id``) stay in one fold; the two thresholds of
  the content rule are refitted on the training folds (grid 0.025; ``web``: best F1;
  ``precise``: best recall with training precision >= 0.97) and applied to the held-out fold;
  P / R / F1 pooled over the folds, mean (and spread) over several seeded fold draws
  (:mod:`neardup.evaluation.cv`). The features are computed once per pair
  (:func:`neardup.verifier.verdict.content_features`, with rule 1's bound disabled so that every pair
  is aligned in full);
* **anchors, tuned in hindsight** — each baseline score swept over its threshold on all pairs
  (the best F1 any threshold reaches: an upper bound nobody could have chosen beforehand), and
  the same score with its threshold chosen by the grouped CV;
* the count of our verdicts by ``reason``.

``--mode corpus`` (:func:`evaluate_webis_corpus`) runs ``neardup dedup``'s embedded grouping
on the judged pages as one corpus; a judged pair counts as predicted duplicate when both
pages land in one ``dup_group``, and P / R / F1 over the judged pairs are set beside pair mode.
"""

from __future__ import annotations

import gzip
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from neardup.evaluation import cv
from neardup.evaluation.baselines._text import tokens
from neardup.evaluation.baselines.minhash_lsh import MinHashLSHBaseline
from neardup.evaluation.baselines.shingling import shingles
from neardup.evaluation.baselines.simhash import SimHash
from neardup.evaluation.datasets import DatasetUnavailable, shared_data_dir, shared_file
from neardup.evaluation.evaluate import _table as table
from neardup.evaluation.evaluate import doc_text
from neardup.ingest.settings import Settings
from neardup.verifier import verdict
from neardup.verifier.compare import compare
from neardup.verifier.config import VerifyConfig

__all__ = [
    "WEBIS_DATASETS",
    "WEBIS_FILE",
    "PairFeatures",
    "WebisReport",
    "evaluate_webis",
    "evaluate_webis_corpus",
    "format_corpus",
    "format_webis",
    "load_webis",
    "reason_counts",
    "webis_corpus",
    "webis_path",
    "webis_records",
]

WEBIS_FILE = "webis_dev_pairs.jsonl.gz"
#: built-in dataset names evaluated by this module
WEBIS_DATASETS = frozenset({"webis-dev"})

#: the paper's rule on the web parameters
PAPER_RULE = "paper rule"


def webis_path(settings: Settings | None = None) -> Path:
    """Where the judged pairs are read from: ``<shared_data>/webis_dev_pairs.jsonl.gz``."""
    return shared_data_dir(settings) / WEBIS_FILE


def load_webis(path: str | Path | None = None) -> list[dict[str, Any]]:
    """The judged pairs as ``neardup eval`` pair records: ``id``, ``a``/``b`` (``{"text"}``),
    ``a_id``, ``b_id``, ``corpus``, ``grade`` (the judges' 0..3), ``label`` (grade >= 1) and
    ``kind`` (``grade-N``). Raises :class:`DatasetUnavailable` naming the path when missing."""
    if path is None:  # the shared data folder, or a copy in <cache>/data
        p = shared_file(WEBIS_FILE)
    else:
        p = Path(path)
        if not p.is_file():
            raise DatasetUnavailable(f"{p} not found: the human-judged Webis pairs")
    opener: Callable[..., Any] = gzip.open if p.suffix == ".gz" else open
    out: list[dict[str, Any]] = []
    with opener(p, "rt", encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
                grade = int(rec["label"])
                out.append(
                    {
                        "id": str(rec.get("id", n)),
                        "corpus": rec.get("corpus"),
                        "a_id": str(rec["a_id"]),
                        "b_id": str(rec["b_id"]),
                        "a": {"text": str(rec["a"]["text"])},
                        "b": {"text": str(rec["b"]["text"])},
                        "grade": grade,
                        "label": int(grade >= 1),
                        "kind": f"grade-{grade}",
                    }
                )
            except (ValueError, KeyError, TypeError) as exc:
                raise DatasetUnavailable(f"{p}: line {n} is not a judged pair ({exc})") from None
    return out


def webis_records(split: str = "dev", n: int | None = None, seed: int | None = None) -> list[
    dict[str, Any]
]:
    """The registry's builder (:data:`neardup.evaluation.datasets.DATASETS`): the dev pairs only."""
    if split != "dev":
        raise DatasetUnavailable(
            "webis-dev has a dev split only (the judged test half is held out for acceptance)"
        )
    records = load_webis()
    return records[:n] if n else records


# --------------------------------------------------------------------------------------------
# Features, computed once per pair
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PairFeatures:
    """Everything the report needs of one pair."""

    label: bool
    word: float  # max(word LCS resemble, TLCS resemble): rule 1 of the content decision
    core: float | None
    exact: bool
    empty: bool
    verdicts: dict[str, tuple[bool, str]]  # operating point -> (similar, reason)
    scores: dict[str, float]  # baseline / anchor scores
    contained: bool = False  # similar by the containment path (constants not refit)


def _operating_points() -> dict[str, Any]:

    web = VerifyConfig.profile("web")
    return {
        "web": web,
        "precise": VerifyConfig.profile("precise"),
        PAPER_RULE: web.replace(decision="tlcs"),
    }


def _scorers() -> dict[str, Callable[[str, str], float]]:
    """Anchor scores of a pair of texts (higher = more similar)."""
    from rapidfuzz.distance import LCSseq


    simhash, minhash = SimHash(), MinHashLSHBaseline()

    def jaccard(w: int) -> Callable[[str, str], float]:
        def score(a: str, b: str) -> float:
            sa, sb = shingles(tokens(a), w), shingles(tokens(b), w)
            union = len(sa | sb)
            return len(sa & sb) / union if union else 0.0

        return score

    return {
        "char LCS resemble (rapidfuzz)": lambda a, b: float(LCSseq.normalized_similarity(a, b)),
        "word 5-shingle Jaccard": jaccard(5),
        "word 8-gram Jaccard": jaccard(8),
        "SimHash (1 - distance/64)": lambda a, b: float(
            simhash.score(simhash.signature(a), simhash.signature(b))
        ),
        "MinHash Jaccard estimate": lambda a, b: float(
            minhash.score(minhash.signature(a), minhash.signature(b))
        ),
    }


#: the TLCS resemble rate of the web profile's verdict, swept like a baseline score
TLCS_ANCHOR = "TLCS resemble"


def pair_features(records: Sequence[Mapping[str, Any]]) -> list[PairFeatures]:
    """The features, operating-point verdicts and anchor scores of every pair."""

    points = _operating_points()
    full = points["web"].replace(min_word_resemble=0.0)  # no rule-1 bound: align every pair
    scorers = _scorers()
    out: list[PairFeatures] = []
    for rec in records:
        a, b = doc_text(rec["a"]), doc_text(rec["b"])
        verdicts: dict[str, tuple[bool, str]] = {}
        tlcs = 0.0
        for name, config in points.items():
            v = compare(a, b, config)
            verdicts[name] = (bool(v.similar), v.reason)
            if name == "web":
                tlcs = 0.0 if v.bound else float(v.resemble)
                scores = {TLCS_ANCHOR: float(v.resemble)}
        f = verdict.content_features(a, b, full, tlcs)
        scores.update({name: fn(a, b) for name, fn in scorers.items()})
        out.append(
            PairFeatures(
                label=bool(rec["label"]),
                word=max(f.word_resemble, tlcs),
                core=f.core_resemble,
                exact=f.reason == verdict.EXACT,
                empty=f.reason == verdict.EMPTY,
                contained=f.reason is None and f.word_contain >= full.min_word_contain,
                verdicts=verdicts,
                scores=scores,
            )
        )
    return out


# --------------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------------


@dataclass
class Row:
    """One line of the table: a rule on all pairs and under grouped CV."""

    name: str
    kind: str  # "operating point" | "tuned in hindsight"
    all_pairs: cv.Point
    params: str  # thresholds of the all-pairs figure
    cv: cv.CVResult | None = None
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "rule": self.name,
            "kind": self.kind,
            "all_pairs": self.all_pairs.as_dict(),
            "params": self.params,
        }
        if self.cv is not None:
            out["grouped_cv"] = self.cv.as_dict()
        if self.note:
            out["note"] = self.note
        return out


@dataclass
class WebisReport:
    dataset: str
    n_pairs: int
    n_positive: int
    n_pages: int
    n_groups: int
    folds: int
    seeds: list[int]
    rows: list[Row]
    reasons: dict[str, dict[str, dict[str, int]]]  # point -> reason -> {"+": n, "-": n}
    seconds: float = 0.0
    checks: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "mode": "pairs",
            "items": self.n_pairs,
            "positives": self.n_positive,
            "pages": self.n_pages,
            "page_groups": self.n_groups,
            "folds": self.folds,
            "seeds": self.seeds,
            "rows": [r.as_dict() for r in self.rows],
            "reasons": self.reasons,
            "checks": self.checks,
            "seconds": round(self.seconds, 2),
        }


def reason_counts(
    labels: Sequence[bool], reasons: Sequence[str]
) -> dict[str, dict[str, int]]:
    """``{reason: {"+": positives, "-": negatives}}``, most frequent reason first.

    >>> reason_counts([True, False, True], ["content-similar", "middle-differs", "content-similar"])
    {'content-similar': {'+': 2, '-': 0}, 'middle-differs': {'+': 0, '-': 1}}
    """
    counts: dict[str, dict[str, int]] = {}
    for y, r in zip(labels, reasons, strict=True):
        c = counts.setdefault(r, {"+": 0, "-": 0})
        c["+" if y else "-"] += 1
    return dict(sorted(counts.items(), key=lambda kv: (-sum(kv[1].values()), kv[0])))


def _fmt_params(p: Any) -> str:
    if isinstance(p, tuple):
        return "/".join(f"{x:.3f}" for x in p)
    return f"{p:.3f}"


def evaluate_webis(
    records: Sequence[Mapping[str, Any]],
    *,
    folds: int = 5,
    seeds: Sequence[int] = (0, 1, 2, 3, 4),
    dataset: str = "webis-dev",
    features: Sequence[PairFeatures] | None = None,
) -> WebisReport:
    """The report of the module docstring (features computed unless given)."""
    t0 = time.perf_counter()
    feats = list(features) if features is not None else pair_features(records)
    labels = [f.label for f in feats]
    groups = cv.pair_groups([(r["a_id"], r["b_id"]) for r in records])
    seeds = list(seeds)
    rows: list[Row] = []

    def content(min_precision: float | None) -> cv.ContentRule:
        return cv.ContentRule(
            [f.word for f in feats], [f.core for f in feats], labels,
            [f.exact for f in feats], [f.empty for f in feats], min_precision,
            contained=[f.contained for f in feats],
        )


    checks: dict[str, Any] = {}
    for point, min_p in (("web", None), ("precise", 0.97)):
        config = VerifyConfig.profile(point)
        preds = [f.verdicts[point][0] for f in feats]
        rule = content(min_p)
        replay = [
            rule.decide(config.min_word_resemble, config.min_core_resemble, i)
            for i in range(len(feats))
        ]
        # The features replay compare()'s verdict at the frozen thresholds (a self-check).
        checks[f"{point}: features replay compare()"] = sum(
            x == y for x, y in zip(preds, replay, strict=True)
        ) == len(preds)
        objective = "best F1" if min_p is None else f"best R at training P >= {min_p}"
        rows.append(
            Row(
                f"content, {point} ({config.min_word_resemble:g}/{config.min_core_resemble:g})",
                "operating point",
                cv.Point.of(labels, preds),
                f"{config.min_word_resemble:.3f}/{config.min_core_resemble:.3f}",
                cv.cross_validate(rule, labels, groups, folds, seeds),
                f"CV refits both thresholds ({objective})",
            )
        )
    preds = [f.verdicts[PAPER_RULE][0] for f in feats]
    paper = cv.Point.of(labels, preds)
    rows.append(
        Row(
            "paper rule (TLCS res>=.28 or cont>=.70)", "operating point", paper, "fixed",
            None, "fixed rule: nothing to refit",
        )
    )
    # Hindsight: the content rule's thresholds fitted on all pairs.
    for name, min_p in (("content, best F1", None), ("content, best R at P>=.97", 0.97)):
        rule = content(min_p)
        t = rule.fit(range(len(feats)))
        preds = [rule.predict(t, i) for i in range(len(feats))]
        rows.append(
            Row(name, "tuned in hindsight", cv.Point.of(labels, preds), _fmt_params(t))
        )
    names = [TLCS_ANCHOR, *(k for k in feats[0].scores if k != TLCS_ANCHOR)] if feats else []
    for name in names:
        scores = [f.scores[name] for f in feats]
        thr, pt = cv.best_threshold(scores, labels)
        rows.append(
            Row(
                name, "tuned in hindsight", pt, f"{thr:.3f}",
                cv.cross_validate(cv.ThresholdRule(scores, labels), labels, groups, folds, seeds),
            )
        )
    reasons = {
        point: reason_counts(labels, [f.verdicts[point][1] for f in feats])
        for point in ("web", "precise", PAPER_RULE)
    }
    pages = {r["a_id"] for r in records} | {r["b_id"] for r in records}
    return WebisReport(
        dataset, len(feats), sum(labels), len(pages), len(set(groups)), folds, seeds, rows,
        reasons, time.perf_counter() - t0, checks,
    )


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:

    return table(header, rows)


def format_webis(report: WebisReport) -> str:
    """The report as aligned text tables."""
    lines = [
        f"dataset {report.dataset}: {report.n_pairs} human-judged pairs, {report.n_positive} "
        f"positive (grade >= 1); {report.n_pages} pages in {report.n_groups} page groups",
        f"all pairs: each rule as it ships (operating points) or at its best threshold on all "
        f"pairs (tuned in hindsight); grouped CV: {report.folds} folds by page group, "
        f"thresholds refit on the training folds, pooled, mean of {len(report.seeds)} draws",
    ]
    rows = []
    for r in report.rows:
        a = r.all_pairs
        row = [
            r.name, r.kind, f"{a.precision:.3f}", f"{a.recall:.3f}", f"{a.f1:.3f}", r.params,
        ]
        if r.cv is not None:
            common, n = r.cv.common_params()
            row += [
                f"{r.cv.precision:.3f}", f"{r.cv.recall:.3f}", f"{r.cv.f1:.3f}",
                f"{r.cv.f1_sd:.3f}", f"{_fmt_params(common)} ({n}/{len(r.cv.params)})",
            ]
        else:
            row += ["-", "-", "-", "-", "-"]
        rows.append(row)
    lines += _table(
        ["rule", "", "P", "R", "F1", "threshold", "CV P", "CV R", "CV F1", "±sd", "CV fit (most often)"],
        rows,
    )
    for r in report.rows:
        if r.note:
            lines.append(f"  {r.name}: {r.note}")
    lines += ["", "verdicts by reason (+ judged near-duplicate / - not)"]
    points = list(report.reasons)
    # most verdicts first; ties by name, so the table does not follow the string hash seed
    all_reasons = sorted(
        {k for c in report.reasons.values() for k in c},
        key=lambda k: (-sum(sum(report.reasons[p].get(k, {}).values()) for p in points), k),
    )
    rrows = []
    for k in all_reasons:
        cells = [k]
        for p in points:
            c = report.reasons[p].get(k)
            cells.append(f"{c['+']}/{c['-']}" if c else "-")
        rrows.append(cells)
    lines += _table(["reason", *(f"{p} +/-" for p in points)], rrows)
    bad = [k for k, ok in report.checks.items() if not ok]
    if bad:
        lines.append("CHECK FAILED: " + "; ".join(bad))
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# Corpus mode: neardup dedup on the judged pages
# --------------------------------------------------------------------------------------------


def webis_corpus(records: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The unique pages of the pairs, in order of first appearance: ``{"id", "text"}``."""
    seen: dict[str, dict[str, Any]] = {}
    for r in records:
        for side in ("a", "b"):
            page_id = str(r[f"{side}_id"])
            if page_id not in seen:
                seen[page_id] = {"id": page_id, "text": r[side]["text"]}
    return list(seen.values())


@dataclass
class CorpusReport:
    dataset: str
    n_pages: int
    n_pairs: int
    n_positive: int
    corpus: cv.Point
    pairs: cv.Point
    groups: int
    errors: int
    seconds: float
    profile: str = "web"

    def as_dict(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "mode": "corpus",
            "profile": self.profile,
            "pages": self.n_pages,
            "items": self.n_pairs,
            "positives": self.n_positive,
            "corpus": self.corpus.as_dict(),
            "pairs": self.pairs.as_dict(),
            "f1_gap": round(self.corpus.f1 - self.pairs.f1, 4),
            "dup_groups": self.groups,
            "errors": self.errors,
            "seconds": round(self.seconds, 2),
        }


def evaluate_webis_corpus(
    records: Sequence[Mapping[str, Any]],
    group: Callable[[Sequence[dict[str, Any]], str], Mapping[str, str]],
    *,
    profile: str = "web",
    dataset: str = "webis-dev",
) -> CorpusReport:
    """Group the judged pages as one corpus with ``group(docs, profile) -> {id: dup_group}``
    (``neardup eval`` passes ``neardup dedup``'s embedded grouping); P / R / F1 over the
    judged pairs (same ``dup_group`` = predicted duplicate), beside pair mode's verdicts. A
    page missing from the answer (an error) counts as a group of its own."""
    t0 = time.perf_counter()
    docs = webis_corpus(records)
    groups = group(docs, profile)
    labels = [bool(r["label"]) for r in records]
    in_corpus = []
    for r in records:
        ga, gb = groups.get(str(r["a_id"])), groups.get(str(r["b_id"]))
        in_corpus.append(ga is not None and ga == gb)
    config = VerifyConfig.profile(profile)
    pair_preds = [
        bool(compare(doc_text(r["a"]), doc_text(r["b"]), config).similar) for r in records
    ]
    return CorpusReport(
        dataset, len(docs), len(records), sum(labels), cv.Point.of(labels, in_corpus),
        cv.Point.of(labels, pair_preds), len(set(groups.values())),
        len(docs) - len(groups), time.perf_counter() - t0, profile,
    )


def format_corpus(report: CorpusReport) -> str:
    lines = [
        f"dataset {report.dataset}: mode corpus (neardup dedup, embedded), profile "
        f"{report.profile}, {report.n_pages} pages -> {report.groups} dup groups; "
        f"P/R/F1 over the {report.n_pairs} judged pairs ({report.n_positive} positive)",
    ]
    rows = [
        [name, f"{p.precision:.3f}", f"{p.recall:.3f}", f"{p.f1:.3f}", str(p.tp), str(p.fp), str(p.fn)]
        for name, p in (("dedup groups (corpus)", report.corpus), ("compare (pairs)", report.pairs))
    ]
    lines += _table(["mode", "P", "R", "F1", "TP", "FP", "FN"], rows)
    lines.append(f"F1 corpus - pairs: {report.corpus.f1 - report.pairs.f1:+.3f}")
    if report.errors:
        lines.append(f"{report.errors} page(s) in error")
    return "\n".join(lines)
