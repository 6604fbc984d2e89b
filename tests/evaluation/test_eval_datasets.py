"""Dataset generators: deterministic, labelled as documented (tiny sizes).

The synthetic Chinese set reads the real People's Daily paragraphs, derived into the cache by
scripts/fetch_data.py (the ``people_daily`` fixture); the real-data sets (pydoc, manpages,
PAWS-X) are checked on small fake source trees so no package download is needed.
"""

from __future__ import annotations

import gzip
import random
from collections import Counter
from pathlib import Path

import pytest

from neardup.evaluation import datasets as ds
from neardup.evaluation.datasets import sites, splits
from neardup.ingest.extract import document_text

needs_people_daily = pytest.mark.usefixtures("people_daily")


def _clear_caches() -> None:
    ds.people_daily_paragraphs.cache_clear()
    ds.pydoc_paragraphs.cache_clear()
    sites.material.cache_clear()


@needs_people_daily
def test_synthetic_pairs_deterministic_and_labelled() -> None:
    one = ds.synthetic_pairs("zh", 24, split="dev")
    two = ds.synthetic_pairs("zh", 24, split="dev")
    assert one == two
    assert ds.synthetic_pairs("zh", 24, split="test") != one
    assert Counter(p["label"] for p in one) == {0: 12, 1: 12}
    for p in one:
        assert p["kind"] in (ds.POSITIVE_KINDS if p["label"] else ds.NEGATIVE_KINDS)
        assert "<html" in p["a"]["html"] and "<html" in p["b"]["html"]
        if p["kind"] in ("same-template", "product"):
            assert p["a"]["site"] == p["b"]["site"]
        if p["kind"] in ("template", "unrelated", "product-mirror"):
            assert p["a"]["site"] != p["b"]["site"]
    assert len({p["id"] for p in one}) == len(one)


@needs_people_daily
def test_template_is_web_sized() -> None:
    src = sites.material("zh", "dev")
    site = sites.site_templates(src, 1)[0]
    art = src.articles[0]
    text = document_text({"html": ds.render_page(site, random.Random(0), article=art)})
    boilerplate = len(text) - sum(len(p) for p in art.paragraphs)
    assert 300 <= boilerplate <= 900


@needs_people_daily
def test_transformations_follow_the_guidelines() -> None:
    src = sites.material("zh", "dev")
    rng = random.Random(5)
    for art in src.articles[:40]:
        cut = ds.remove_paragraphs(art, rng, 0.38)
        assert 0.62 * art.length <= cut.length <= art.length
        grown = ds.add_paragraphs(art, src, rng, 0.38)
        assert grown.length - art.length <= 0.38 * grown.length + 1
        edited = ds.small_edits(art, src, rng, 0.09, share=1.0)
        for before, after in zip(art.paragraphs, edited.paragraphs, strict=True):
            assert abs(len(after) - len(before)) <= 0.1 * len(before) + 1
        moved = ds.reorder_paragraphs(art, rng, 2)
        assert sorted(moved.paragraphs) == sorted(art.paragraphs)
        lead = ds.key_paragraphs(art, rng)
        assert lead.paragraphs == art.paragraphs[: len(lead.paragraphs)]


@needs_people_daily
def test_synthetic_corpus_groups() -> None:
    docs = ds.synthetic_corpus("zh", n_groups=30, split="dev")
    assert docs == ds.synthetic_corpus("zh", n_groups=30, split="dev")
    assert len({d["id"] for d in docs}) == len(docs)
    groups = Counter(d["group"] for d in docs)
    assert len(groups) == 30
    assert all(1 <= n <= 5 for n in groups.values())
    for d in docs:
        assert d["id"].startswith(d["group"])
        assert d["html"].startswith("<!DOCTYPE html>") and d["site"]


def test_splits_are_disjoint() -> None:
    assert splits.split_range(100, "dev") == (0, 50)
    assert splits.split_range(100, "test") == (50, 100)
    with pytest.raises(ValueError):
        splits.split_range(100, "train")


@pytest.fixture
def fake_sources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Tiny stand-ins for the shared data folder and the two Debian packages."""
    shared = tmp_path / "shared"
    (shared / "pawsx_zh").mkdir(parents=True)
    rows = ["id\tsentence1\tsentence2\tlabel"] + [
        f"{i}\t句子甲{i}号。\t句子乙{i}号。\t{i % 2}" for i in range(10)
    ]
    for name in ("dev_2k.tsv", "test_2k.tsv"):
        (shared / "pawsx_zh" / name).write_text("\n".join(rows) + "\n", encoding="utf-8")
    html_root = tmp_path / "pydoc"
    tsv = ["html_path\trst_source_path"]
    for i in range(12):
        page = f"library/m{i}.html"
        (html_root / "library").mkdir(parents=True, exist_ok=True)
        (html_root / "_sources/library").mkdir(parents=True, exist_ok=True)
        body = f"Module m{i} does thing number {i} in a rather specific way. " * 5
        (html_root / page).write_text(
            f'<html><body><div class="nav">Sphinx</div><div role="main"><p>{body}</p></div></body></html>',
            encoding="utf-8",
        )
        rst = f"Module m{i}\n=========\n\n:mod:`m{i}` -- {body}\n"
        (html_root / f"_sources/library/m{i}.rst.txt").write_text(rst, encoding="utf-8")
        tsv.append(f"{page}\t_sources/library/m{i}.rst.txt")
    (shared / "python311doc_html_vs_rst_pairs.tsv").write_text("\n".join(tsv) + "\n")
    man = tmp_path / "man" / "usr/share/man"
    tsv = ["rel_path\tidentical_after_t2s\tline_seqmatch_ratio_after_t2s\tn_chars_cn"]
    for i in range(12):
        rel = f"man1/p{i}.1.gz"
        for loc, word in (("zh_CN", "简体"), ("zh_TW", "簡體")):
            (man / loc / "man1").mkdir(parents=True, exist_ok=True)
            text = f'.TH "P{i}" 1\n.SH NAME\np{i} \\- 第{i}个{word}命令\n' + "\n".join(
                f"第{i}页 第{j}行 {word}" for j in range(10)
            )
            (man / loc / rel).write_bytes(gzip.compress(text.encode("utf-8")))
        tsv.append(f"{rel}\tFalse\t0.9\t100")
    # an alias: same Simplified text as p0, must not become a negative of p0
    (man / "zh_CN/man1/alias.1.gz").write_bytes((man / "zh_CN/man1/p0.1.gz").read_bytes())
    (man / "zh_TW/man1/alias.1.gz").write_bytes((man / "zh_TW/man1/p0.1.gz").read_bytes())
    tsv.append("man1/alias.1.gz\tFalse\t0.9\t100")
    (shared / "manpages_zh_CN_vs_TW_pairs.tsv").write_text("\n".join(tsv) + "\n")
    monkeypatch.setenv("NEARDUP_SHARED_DATA", str(shared))
    monkeypatch.setenv("NEARDUP_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("NEARDUP_DEB_PYTHON3_11_DOC", str(tmp_path / "pydoc-root"))
    monkeypatch.setenv("NEARDUP_DEB_MANPAGES_ZH", str(tmp_path / "man"))
    target = tmp_path / "pydoc-root/usr/share/doc/python3.11/html"
    target.parent.mkdir(parents=True)
    target.symlink_to(html_root)
    _clear_caches()
    yield tmp_path
    _clear_caches()


def test_pydoc_pairs(fake_sources: Path) -> None:
    dev, test = ds.pydoc_pairs("dev"), ds.pydoc_pairs("test")
    assert dev == ds.pydoc_pairs("dev")
    dev_pages = {p["id"].split("~")[0] for p in dev}
    test_pages = {p["id"].split("~")[0] for p in test}
    assert not dev_pages & test_pages
    for p in dev + test:
        if p["label"]:
            # the reST side goes through the extractor's reST converter, for every method
            assert p["kind"] == "format" and "html" in p["a"] and "rst" in p["b"]
            text = document_text(p["b"])
            assert ":mod:" not in text and "=====" not in text and "does thing number" in text
        else:
            assert p["kind"] == "same-template" and "html" in p["b"]
            assert p["a"]["html"] != p["b"]["html"]
    assert Counter(p["label"] for p in dev)[1] == Counter(p["label"] for p in dev)[0]


def test_manpages_pairs(fake_sources: Path) -> None:
    pairs = ds.manpages_pairs("dev") + ds.manpages_pairs("test")
    assert all(p["normalize"] == "t2s" for p in pairs)
    pos = [p for p in pairs if p["label"] == 1]
    assert pos and all(p["kind"] == "t2s" for p in pos)
    for p in pairs:
        simplified_b = document_text(p["b"], to_simplified=True)
        if p["label"]:
            assert simplified_b == p["a"]["text"]
        else:
            assert simplified_b != p["a"]["text"]
    ids = {p["id"] for p in pairs}
    assert not any(
        i in ids for i in ("man-man1/alias.1.gz~man1/p0.1.gz", "man-man1/p0.1.gz~man1/alias.1.gz")
    )


def test_pawsx_pairs(fake_sources: Path) -> None:
    pairs = ds.pawsx_pairs("dev", n_pairs=None)
    assert len(pairs) == 10
    assert Counter(p["label"] for p in pairs) == {0: 5, 1: 5}
    assert ds.pawsx_pairs("dev", n_pairs=4) == ds.pawsx_pairs("dev", n_pairs=4)
    assert len(ds.pawsx_pairs("test", n_pairs=4)) == 4


def test_unknown_names() -> None:
    with pytest.raises(ValueError, match="unknown dataset"):
        ds.build_dataset("nope")
    with pytest.raises(ValueError, match="unknown split"):
        ds.build_dataset("pawsx", split="train")
