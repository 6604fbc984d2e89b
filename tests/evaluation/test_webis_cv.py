"""Grouped CV, threshold sweeps and the Webis report on tiny hand-written fixtures."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from neardup.evaluation import cv, webis
from neardup.evaluation.datasets import DatasetUnavailable
from neardup.ingest.cli import main


def test_pairs_sharing_a_page_are_one_group_and_stay_in_one_fold() -> None:
    pages = [("a", "b"), ("c", "d"), ("b", "e"), ("e", "f"), ("g", "h"), ("i", "j"), ("d", "k")]
    groups = cv.pair_groups(pages)
    assert groups[0] == groups[2] == groups[3]  # a-b, b-e, e-f chained through b and e
    assert groups[1] == groups[6]  # c-d and d-k share d
    assert len({groups[0], groups[1], groups[4], groups[5]}) == 4
    for seed in range(6):
        folds = cv.grouped_folds(groups, k=3, seed=seed)
        assert sorted(i for f in folds for i in f) == list(range(len(pages)))
        fold_of = {i: n for n, f in enumerate(folds) for i in f}
        for i, j in [(0, 2), (2, 3), (1, 6)]:
            assert fold_of[i] == fold_of[j]
    # the draws differ between seeds
    singles = list(range(20))
    assert len({str(cv.grouped_folds(singles, 5, s)) for s in range(6)}) > 1


def test_best_threshold_sweep_finds_the_separating_midpoint() -> None:
    scores = [0.95, 0.9, 0.7, 0.65, 0.5, 0.2]
    labels = [True, True, True, False, False, False]
    t, pt = cv.best_threshold(scores, labels)
    assert t == pytest.approx(0.675)
    assert (pt.precision, pt.recall, pt.f1, pt.tp, pt.fp, pt.fn) == (1.0, 1.0, 1.0, 3, 0, 0)
    # a negative above a positive: the best F1 keeps both positives below it
    t, pt = cv.best_threshold([0.9, 0.8, 0.6, 0.1], [True, False, True, False])
    assert t == pytest.approx(0.35) and pt.f1 == pytest.approx(0.8)
    # precision-first: recall as high as precision >= 1 allows
    t, pt = cv.best_threshold([0.9, 0.8, 0.6, 0.1], [True, False, True, False], 1.0)
    assert t == pytest.approx(0.85) and (pt.precision, pt.recall) == (1.0, 0.5)


def _toy_content() -> tuple[list[float], list[float | None], list[bool]]:
    # positives: word >= 0.6 and core >= 0.7; negatives: low word, or high word + low core
    word = [0.9, 0.8, 0.7, 0.65, 0.9, 0.85, 0.3, 0.4, 0.75, 0.2]
    core: list[float | None] = [0.95, 0.9, 0.8, 0.75, 0.4, 0.5, None, 0.9, 0.3, None]
    labels = [True, True, True, True, False, False, False, False, False, False]
    return word, core, labels


def test_content_rule_refit_separates_the_toy_set() -> None:
    word, core, labels = _toy_content()
    rule = cv.ContentRule(word, core, labels)
    t1, t2 = rule.fit(range(len(labels)))
    assert 0.4 < t1 <= 0.65 and 0.5 < t2 <= 0.75
    assert [rule.predict((t1, t2), i) for i in range(len(labels))] == labels
    # exact pairs are similar whatever the thresholds, empty ones never
    exact = cv.ContentRule([0.0, 0.9], [None, 0.9], [True, True], exact=[True, False],
                           empty=[False, False])
    assert exact.decide(1.0, 1.0, 0) and not exact.decide(1.0, 1.0, 1)


def test_cross_validation_pools_held_out_predictions() -> None:
    word, core, labels = _toy_content()
    word, core, labels = word * 3, core * 3, labels * 3
    groups = list(range(len(labels)))  # every pair its own group
    res = cv.cross_validate(cv.ContentRule(word, core, labels), labels, groups, k=5, seeds=(0, 1))
    assert len(res.points) == 2 and len(res.params) == 10
    assert res.f1 == pytest.approx(1.0)
    assert all(p.tp + p.fn == sum(labels) for p in res.points)
    scores = [w * (c or 0) for w, c in zip(word, core, strict=True)]
    res = cv.cross_validate(cv.ThresholdRule(scores, labels), labels, groups, k=3, seeds=(0,))
    assert res.points[0].f1 == pytest.approx(1.0)


def test_reason_counts_split_by_label() -> None:
    counts = webis.reason_counts(
        [True, False, False, True, False],
        ["content-similar", "middle-differs", "skeleton-bound", "middle-differs",
         "middle-differs"],
    )
    assert list(counts) == ["middle-differs", "content-similar", "skeleton-bound"]
    assert counts["middle-differs"] == {"+": 1, "-": 2}
    assert counts["content-similar"] == {"+": 1, "-": 0}


ARTICLE = " ".join(
    f"Paragraph {i} tells how the river council met on day {i} and voted on bridge repairs."
    for i in range(12)
)
OTHER = " ".join(
    f"Section {i} lists the opening hours of museum wing {i} with ticket prices and tours."
    for i in range(12)
)


def _webis_file(path: Path) -> Path:
    rows = [
        ("p1", "x1", "x2", 3, ARTICLE, ARTICLE + " Share this story."),
        ("p2", "x2", "x3", 2, ARTICLE + " Share this story.", "Menu. " + ARTICLE),
        ("p3", "y1", "y2", 0, ARTICLE, OTHER),
        ("p4", "z1", "z2", 0, OTHER, ARTICLE[:200] + OTHER[200:]),
        ("p5", "w1", "w2", 1, OTHER, OTHER.replace("tours", "guided walks")),
    ]
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        for pid, a_id, b_id, label, a, b in rows:
            fh.write(json.dumps({"id": pid, "corpus": "toy", "label": label, "a_id": a_id,
                                 "b_id": b_id, "a": {"text": a}, "b": {"text": b}}) + "\n")
    return path


def test_webis_report_on_a_tiny_file(tmp_path: Path) -> None:
    records = webis.load_webis(_webis_file(tmp_path / "w.jsonl.gz"))
    assert [r["label"] for r in records] == [1, 1, 0, 0, 1]
    report = webis.evaluate_webis(records, folds=2, seeds=(0,))
    assert report.n_pages == 9 and report.n_groups == 4
    names = [r.name for r in report.rows]
    assert any(n.startswith("content, web") for n in names)
    assert any("paper rule" in n for n in names)
    assert "char LCS resemble (rapidfuzz)" in names
    assert all(report.checks.values())
    hindsight = [r for r in report.rows if r.kind == "tuned in hindsight" and r.cv is not None]
    assert hindsight and all(len(r.cv.params) == 2 for r in hindsight if r.cv)
    assert sum(sum(c.values()) for c in report.reasons["web"].values()) == 5
    text = webis.format_webis(report)
    assert "tuned in hindsight" in text and "verdicts by reason" in text
    json.dumps(report.as_dict())
    assert [d["id"] for d in webis.webis_corpus(records)][:3] == ["x1", "x2", "x3"]


def test_missing_webis_file_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(DatasetUnavailable, match="nope.jsonl.gz"):
        webis.load_webis(tmp_path / "nope.jsonl.gz")
    monkeypatch.setenv("NEARDUP_SHARED_DATA", str(tmp_path))
    assert main(["eval", "--dataset", "webis-dev"]) == 1
    assert str(tmp_path / webis.WEBIS_FILE) in capsys.readouterr().err


def test_cli_reads_webis_from_the_shared_data_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _webis_file(tmp_path / webis.WEBIS_FILE)
    monkeypatch.setenv("NEARDUP_SHARED_DATA", str(tmp_path))
    out = tmp_path / "r.json"
    assert main(["eval", "--dataset", "webis-dev", "--json", str(out)]) == 0
    assert "content, web" in capsys.readouterr().out
    assert json.loads(out.read_text())["items"] == 5
    assert main(["eval", "--dataset", "webis-dev", "--mode", "corpus"]) == 0
    assert "dedup groups (corpus)" in capsys.readouterr().out
