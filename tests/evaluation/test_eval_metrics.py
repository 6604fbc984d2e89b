"""Precision / recall / F1 of ``neardup eval`` on hand-checked cases."""

from __future__ import annotations

import pytest

from neardup.evaluation.evaluate import (
    Confusion,
    EvalReport,
    MethodResult,
    _finish,
    _truth_pairs,
    check_record,
    format_report,
    prf,
)


def test_prf_hand_case() -> None:
    # 3 positives, 3 negatives; predicted: TP=2, FN=1, FP=1, TN=2
    c = prf([1, 1, 1, 0, 0, 0], [1, 1, 0, 1, 0, 0])
    assert (c.tp, c.fn, c.fp, c.tn) == (2, 1, 1, 2)
    assert c.precision == pytest.approx(2 / 3)
    assert c.recall == pytest.approx(2 / 3)
    assert c.f1 == pytest.approx(2 / 3)


def test_prf_asymmetric() -> None:
    c = prf([1, 1, 1, 1, 0], [1, 0, 0, 0, 0])
    assert c.precision == 1.0
    assert c.recall == 0.25
    assert c.f1 == pytest.approx(2 * 1.0 * 0.25 / 1.25)


def test_degenerate_cases() -> None:
    nothing_predicted = prf([1, 0], [0, 0])
    assert nothing_predicted.precision == 1.0  # no false claims
    assert nothing_predicted.recall == 0.0
    assert nothing_predicted.f1 == 0.0
    assert Confusion().recall == 1.0
    with pytest.raises(ValueError):
        prf([1], [1, 0])


def test_same_template_subset_and_kinds() -> None:
    labels = [True, True, False, False, False]
    preds = [True, False, True, True, False]
    kinds = ["reorder", "template", "same-template", "unrelated", "product"]
    res = _finish(MethodResult("m"), labels, preds, kinds)
    assert (res.confusion.tp, res.confusion.fp, res.confusion.fn) == (1, 2, 1)
    # same-template subset: positives + same-template/product negatives -> TP 1, FP 1
    assert res.same_template is not None
    assert res.same_template.precision == 0.5
    assert res.same_template.fp + res.same_template.tn == 2
    assert res.by_kind["unrelated"] == {"n": 1, "correct": 0, "label": 0}
    assert res.by_kind["reorder"]["correct"] == 1


def test_errors_are_counted_not_scored() -> None:
    res = _finish(MethodResult("m"), [True, False], [None, False], ["a", "b"])
    assert res.errors == 1
    assert res.n == 1
    assert res.confusion.tn == 1


def test_truth_pairs_of_a_partition() -> None:
    truth = _truth_pairs(["a", "b", "c", "d"], [1, 1, 1, 2])
    assert truth == {("a", "b"), ("a", "c"), ("b", "c")}


def test_check_record() -> None:
    good = {"a": {"text": "x"}, "b": {"html": "<p>y</p>"}, "label": 1}
    assert check_record(good, "pairs") is None
    assert check_record({**good, "label": 2}, "pairs")
    assert check_record({"a": {"text": 1}, "b": {"text": "y"}, "label": 0}, "pairs")
    assert check_record([], "pairs")
    assert check_record({"id": "1", "text": "x", "group": "g"}, "corpus") is None
    # markup sources are content too (the extractor converts them); other keys are not
    assert check_record({"a": {"html": "<p>x</p>"}, "b": {"rst": "x\n="}, "label": 1}, "pairs") is None
    assert check_record({"id": "1", "markdown": "# x", "group": "g"}, "corpus") is None
    assert check_record({"a": {"text": "x"}, "b": {"pdf": "x"}, "label": 1}, "pairs")
    assert check_record({"id": "1", "text": "x"}, "corpus")


def test_table_is_aligned() -> None:
    r1 = _finish(
        MethodResult("lcs", seconds=1.0), [True, False], [True, False], ["k", "same-template"]
    )
    r2 = _finish(
        MethodResult("simhash", seconds=2.0), [True, False], [False, False], ["k", "same-template"]
    )
    text = format_report(EvalReport("tiny", "pairs", "web", 2, 1, [r1, r2]))
    lines = text.splitlines()
    header, rule, row1, row2 = lines[1:5]
    assert header.split()[:4] == ["method", "P", "R", "F1"]
    assert len(header) == len(rule) == len(row1) == len(row2)
    assert row1.startswith("lcs") and "1.000" in row1
    assert row2.split()[2] == "0.000"  # simhash recall


def test_content_fields_follow_the_extractor() -> None:
    from neardup.evaluation import evaluate
    from neardup.ingest.extract import MARKUP_FIELDS

    assert evaluate.CONTENT_FIELDS == MARKUP_FIELDS
