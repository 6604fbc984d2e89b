"""Grouped cross-validation of threshold rules on labelled pairs (``neardup eval``, Webis).

Pairs that share a page must not sit on both sides of a fold boundary: a page judged twice
would let the training folds see the test pair's text. :func:`pair_groups` joins pairs sharing
a page id (union-find over ``a_id`` / ``b_id``); :func:`grouped_folds` deals those groups into
``k`` folds of about equal size, differently for each seed.

A *rule* is anything with a ``fit(indices) -> params`` and a ``predict(params, i) -> bool``;
two are provided:

* :class:`ThresholdRule` — one score, similar when ``score >= t``; ``t`` is swept over the
  midpoints between consecutive distinct training scores (:func:`best_threshold`), maximising
  F1 (the "best threshold" of a baseline);
* :class:`ContentRule` — the content decision of :mod:`neardup.verifier.verdict` over precomputed
  features: similar when ``max(word_resemble, tlcs_resemble) >= t1`` and ``core_resemble >=
  t2``; ``t1``, ``t2`` on a grid (step 0.025), maximising F1 or, with ``min_precision``,
  recall subject to training precision >= ``min_precision``.

:func:`cross_validate` refits a rule on the training folds, predicts the held-out fold, pools
the held-out predictions into one confusion, and repeats for several seeds: mean and spread of
P / R / F1, and the fitted parameters of every fit.
"""

from __future__ import annotations

import math
import random
import statistics
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = [
    "CVResult",
    "ContentRule",
    "Point",
    "Rule",
    "ThresholdRule",
    "best_threshold",
    "confusion",
    "cross_validate",
    "grid",
    "grouped_folds",
    "pair_groups",
    "prf",
]


# --------------------------------------------------------------------------------------------
# Metrics
# --------------------------------------------------------------------------------------------


def confusion(labels: Sequence[bool], preds: Sequence[bool]) -> tuple[int, int, int, int]:
    """``(tp, fp, fn, tn)`` of ``preds`` against ``labels``."""
    tp = fp = fn = tn = 0
    for y, p in zip(labels, preds, strict=True):
        if y and p:
            tp += 1
        elif p:
            fp += 1
        elif y:
            fn += 1
        else:
            tn += 1
    return tp, fp, fn, tn


def prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    """Precision, recall, F1 (precision 1.0 when nothing is predicted, recall 1.0 without
    positives, as :class:`neardup.evaluation.evaluate.Confusion` counts them).

    >>> prf(3, 1, 1)
    (0.75, 0.75, 0.75)
    """
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f


@dataclass(frozen=True)
class Point:
    """P / R / F1 of one operating point, with its counts."""

    precision: float
    recall: float
    f1: float
    tp: int
    fp: int
    fn: int

    @classmethod
    def of(cls, labels: Sequence[bool], preds: Sequence[bool]) -> Point:
        tp, fp, fn, _ = confusion(labels, preds)
        return cls(*prf(tp, fp, fn), tp, fp, fn)

    def as_dict(self) -> dict[str, Any]:
        return {
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "f1": round(self.f1, 4),
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
        }


# --------------------------------------------------------------------------------------------
# Groups and folds
# --------------------------------------------------------------------------------------------


def pair_groups(pages: Sequence[tuple[Hashable, Hashable]]) -> list[int]:
    """The group of every pair: pairs sharing a page id (directly or through other pairs) are
    in one group (union-find). Groups are numbered by first appearance.

    >>> pair_groups([("a", "b"), ("c", "d"), ("b", "e"), ("f", "f")])
    [0, 1, 0, 2]
    """
    parent: dict[Hashable, Hashable] = {}

    def find(x: Hashable) -> Hashable:
        parent.setdefault(x, x)
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:  # path compression
            parent[x], x = root, parent[x]
        return root

    for a, b in pages:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[rb] = ra
    numbers: dict[Hashable, int] = {}
    return [numbers.setdefault(find(a), len(numbers)) for a, _ in pages]


def grouped_folds(groups: Sequence[int], k: int = 5, seed: int = 0) -> list[list[int]]:
    """``k`` folds (lists of pair indices) with every group wholly in one fold.

    Groups are shuffled with ``seed``, then dealt largest first to the fold holding the fewest
    pairs so far (ties: the lower fold number), so folds differ by at most the largest group.
    """
    if k < 2:
        raise ValueError(f"k must be >= 2, got {k}")
    members: dict[int, list[int]] = {}
    for i, g in enumerate(groups):
        members.setdefault(g, []).append(i)
    order = list(members)
    random.Random(seed).shuffle(order)
    order.sort(key=lambda g: -len(members[g]))  # stable: shuffled order within a size
    folds: list[list[int]] = [[] for _ in range(k)]
    for g in order:
        target = min(range(k), key=lambda f: (len(folds[f]), f))
        folds[target].extend(members[g])
    return [sorted(f) for f in folds]


# --------------------------------------------------------------------------------------------
# Threshold fits
# --------------------------------------------------------------------------------------------


def _better(
    score: tuple[float, ...], best: tuple[float, ...] | None
) -> int:
    """1 when ``score`` beats ``best``, 0 on a tie, -1 when worse (1e-12 tolerance)."""
    if best is None:
        return 1
    for s, b in zip(score, best, strict=True):
        if s > b + 1e-12:
            return 1
        if s < b - 1e-12:
            return -1
    return 0


def _objective(
    tp: int, fp: int, fn: int, min_precision: float | None
) -> tuple[float, ...]:
    p, r, f = prf(tp, fp, fn)
    if min_precision is None:
        return (f,)
    # Feasible points first; among them recall, then precision; infeasible: precision.
    feasible = p >= min_precision - 1e-12
    return (1.0, r, p) if feasible else (0.0, p, r)


def best_threshold(
    scores: Sequence[float], labels: Sequence[bool], min_precision: float | None = None
) -> tuple[float, Point]:
    """The threshold ``t`` (similar when ``score >= t``) with the best F1 on these pairs, and
    its point. Candidates are the midpoints between consecutive distinct scores, plus one
    above the highest (nothing similar). Ties go to the middle tied candidate.

    With ``min_precision``: the highest recall with precision >= ``min_precision``.

    >>> t, pt = best_threshold([0.9, 0.8, 0.4, 0.3], [True, True, False, False])
    >>> round(t, 3), pt.f1
    (0.6, 1.0)
    """
    if len(scores) != len(labels):
        raise ValueError("scores and labels differ in length")
    finite = [s if math.isfinite(s) else 0.0 for s in scores]
    values = sorted(set(finite), reverse=True)
    n_pos = sum(1 for y in labels if y)
    at: Counter[float] = Counter()
    pos_at: Counter[float] = Counter()
    for s, y in zip(finite, labels, strict=True):
        at[s] += 1
        pos_at[s] += int(bool(y))
    # Sweep from the top: threshold just below values[i] takes every score >= values[i].
    cands: list[tuple[float, int, int]] = [(values[0] + 0.5 if values else 1.0, 0, 0)]
    tp = fp = 0
    for i, v in enumerate(values):
        tp += pos_at[v]
        fp += at[v] - pos_at[v]
        t = (v + values[i + 1]) / 2 if i + 1 < len(values) else v - 0.5
        cands.append((t, tp, fp))
    best: tuple[float, ...] | None = None
    tied: list[tuple[float, int, int]] = []
    for t, tp_, fp_ in cands:
        obj = _objective(tp_, fp_, n_pos - tp_, min_precision)
        cmp = _better(obj, best)
        if cmp > 0:
            best, tied = obj, [(t, tp_, fp_)]
        elif cmp == 0:
            tied.append((t, tp_, fp_))
    t, tp_, fp_ = tied[(len(tied) - 1) // 2]
    return t, Point(*prf(tp_, fp_, n_pos - tp_), tp_, fp_, n_pos - tp_)


def grid(step: float = 0.025, lo: float = 0.0, hi: float = 1.0) -> list[float]:
    """``lo, lo + step, ..., hi`` rounded to 6 places.

    >>> grid(0.25)
    [0.0, 0.25, 0.5, 0.75, 1.0]
    """
    n = int(round((hi - lo) / step))
    return [round(lo + i * step, 6) for i in range(n + 1)]


def _last_at_most(g: Sequence[float], x: float) -> int:
    """The last index of sorted ``g`` with ``g[i] <= x`` (1e-12 tolerance), -1 when none."""
    lo, hi = 0, len(g)
    while lo < hi:
        mid = (lo + hi) // 2
        if g[mid] <= x + 1e-12:
            lo = mid + 1
        else:
            hi = mid
    return lo - 1


class Rule(Protocol):
    """A decision rule with parameters fitted on some pairs (see the module docstring)."""

    def fit(self, indices: Sequence[int]) -> Any: ...

    def predict(self, params: Any, i: int) -> bool: ...


@dataclass
class ThresholdRule:
    """Similar when ``scores[i] >= t``; ``t`` fitted by :func:`best_threshold`."""

    scores: Sequence[float]
    labels: Sequence[bool]
    min_precision: float | None = None

    def fit(self, indices: Sequence[int]) -> float:
        t, _ = best_threshold(
            [self.scores[i] for i in indices], [self.labels[i] for i in indices],
            self.min_precision,
        )
        return t

    def predict(self, params: float, i: int) -> bool:
        return self.scores[i] >= params


@dataclass
class ContentRule:
    """The content decision over precomputed features (see the module docstring).

    ``word[i]`` is ``max(word_resemble, tlcs_resemble)`` of pair ``i``; ``core[i]`` its core
    resemble (None: not computed, never similar); ``exact[i]`` pairs of the same words are
    similar whatever the thresholds, ``empty[i]`` pairs never; ``contained[i]`` pairs are
    similar by the containment path, whose constants are not refit.
    """

    word: Sequence[float]
    core: Sequence[float | None]
    labels: Sequence[bool]
    exact: Sequence[bool] = ()
    empty: Sequence[bool] = ()
    min_precision: float | None = None
    step: float = 0.025
    contained: Sequence[bool] = ()

    def decide(self, t1: float, t2: float, i: int) -> bool:
        if self.exact and self.exact[i]:
            return True
        if self.empty and self.empty[i]:
            return False
        if self.contained and self.contained[i]:
            return True
        c = self.core[i]
        return self.word[i] >= t1 - 1e-12 and c is not None and c >= t2 - 1e-12

    def fit(self, indices: Sequence[int]) -> tuple[float, float]:
        g = grid(self.step)
        n = len(g)
        # pos[a][b] / neg[a][b]: pairs passing exactly up to grid indices a (t1) and b (t2);
        # suffix sums then count the pairs similar at every (t1, t2) of the grid.
        pos = [[0] * (n + 1) for _ in range(n + 1)]
        neg = [[0] * (n + 1) for _ in range(n + 1)]
        n_pos = 0
        for i in indices:
            y = bool(self.labels[i])
            n_pos += y
            if self.exact and self.exact[i]:
                a = b = n - 1
            elif self.empty and self.empty[i]:
                continue
            else:
                c = self.core[i]
                if c is None:
                    continue
                a = _last_at_most(g, self.word[i])
                b = _last_at_most(g, c)
                if a < 0 or b < 0:
                    continue
            (pos if y else neg)[a][b] += 1
        for table in (pos, neg):
            for a in range(n - 1, -1, -1):
                for b in range(n - 1, -1, -1):
                    table[a][b] += table[a + 1][b] + table[a][b + 1] - table[a + 1][b + 1]
        best: tuple[float, ...] | None = None
        tied: list[tuple[float, float]] = []
        for a, t1 in enumerate(g):
            for b, t2 in enumerate(g):
                tp, fp = pos[a][b], neg[a][b]
                obj = _objective(tp, fp, n_pos - tp, self.min_precision)
                cmp = _better(obj, best)
                if cmp > 0:
                    best, tied = obj, [(t1, t2)]
                elif cmp == 0:
                    tied.append((t1, t2))
        # The middle of the tied plateau: median t1 of the ties, then median t2 at that t1.
        t1s = sorted({t for t, _ in tied})
        t1 = t1s[(len(t1s) - 1) // 2]
        t2s = sorted(t for a, t in tied if a == t1)
        return t1, t2s[(len(t2s) - 1) // 2]

    def predict(self, params: tuple[float, float], i: int) -> bool:
        return self.decide(params[0], params[1], i)


# --------------------------------------------------------------------------------------------
# Cross-validation
# --------------------------------------------------------------------------------------------


@dataclass
class CVResult:
    """Pooled held-out P / R / F1 of every seed, their mean and spread, and every fit."""

    points: list[Point]
    params: list[Any] = field(default_factory=list)

    def _stat(self, name: str) -> tuple[float, float, float, float]:
        xs = [getattr(p, name) for p in self.points]
        sd = statistics.pstdev(xs) if len(xs) > 1 else 0.0
        return statistics.fmean(xs), sd, min(xs), max(xs)

    @property
    def precision(self) -> float:
        return self._stat("precision")[0]

    @property
    def recall(self) -> float:
        return self._stat("recall")[0]

    @property
    def f1(self) -> float:
        return self._stat("f1")[0]

    @property
    def f1_sd(self) -> float:
        return self._stat("f1")[1]

    def common_params(self) -> tuple[Any, int]:
        """The parameters fitted most often, and how often."""
        counts = Counter(repr(p) for p in self.params)
        text, n = counts.most_common(1)[0]
        return next(p for p in self.params if repr(p) == text), n

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in ("precision", "recall", "f1"):
            mean, sd, lo, hi = self._stat(name)
            out[name] = round(mean, 4)
            out[f"{name}_sd"] = round(sd, 4)
            out[f"{name}_range"] = [round(lo, 4), round(hi, 4)]
        out["runs"] = [p.as_dict() for p in self.points]
        common, n = self.common_params()
        out["fits"] = len(self.params)
        out["most_common_fit"] = _jsonable(common)
        out["most_common_fit_count"] = n
        return out


def _jsonable(x: Any) -> Any:
    if isinstance(x, float):
        return round(x, 6)
    if isinstance(x, tuple | list):
        return [_jsonable(v) for v in x]
    return x


def cross_validate(
    rule: Rule,
    labels: Sequence[bool],
    groups: Sequence[int],
    k: int = 5,
    seeds: Sequence[int] = (0, 1, 2, 3, 4),
    on_fit: Callable[[Any], None] | None = None,
) -> CVResult:
    """Grouped ``k``-fold CV of ``rule``, one fold draw per seed (see the module docstring)."""
    if len(labels) != len(groups):
        raise ValueError("labels and groups differ in length")
    result = CVResult([])
    everything = range(len(labels))
    for seed in seeds:
        preds: list[bool] = [False] * len(labels)
        for fold in grouped_folds(groups, k, seed):
            held = set(fold)
            params = rule.fit([i for i in everything if i not in held])
            result.params.append(params)
            if on_fit is not None:
                on_fit(params)
            for i in fold:
                preds[i] = rule.predict(params, i)
        result.points.append(Point.of(labels, preds))
    return result
