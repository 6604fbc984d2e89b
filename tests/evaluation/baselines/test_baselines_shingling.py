from __future__ import annotations

from neardup.evaluation.baselines.minhash_lsh import MinHashLSHBaseline
from neardup.evaluation.baselines.shingling import Shingling, shingles


def test_shingles_of_short_text_is_one_shingle() -> None:
    assert shingles(["a", "b"], 5) == {b"a b"}
    assert shingles([], 5) == set()


def test_super_shingles_match_for_near_copy_and_not_for_unrelated(
    long_text: str, english: list[str]
) -> None:
    sh = Shingling()
    near = long_text.replace("aluminium", "steel")
    a, b = sh.signature(long_text), sh.signature(near)
    assert sh.shared(a, b) >= 2 and sh.similar(a, b)
    assert 0.9 < sh.score(a, b) < 1.0  # resemblance estimate: one word breaks 5 of ~200 shingles
    other = sh.signature(english[0] + " " + english[3])
    assert sh.shared(a, other) == 0 and not sh.similar(a, other)
    assert sh.candidates({"a": a, "b": b, "o": other, "e": None}) == {("a", "b")}


def test_identical_texts_share_all_super_shingles(long_text: str) -> None:
    sh = Shingling()
    assert sh.shared(sh.signature(long_text), sh.signature(long_text)) == 6


def test_minhash_lsh_finds_a_near_copy(long_text: str, english: list[str]) -> None:
    m = MinHashLSHBaseline()
    sigs = {f"p{i}": m.signature(t) for i, t in enumerate(english)}
    sigs["orig"] = m.signature(long_text)
    sigs["copy"] = m.signature(long_text.replace("Monday", "Tuesday") + " Share this page.")
    sigs["empty"] = m.signature("")
    assert m.candidates(sigs) == {("copy", "orig")}
    assert m.score(sigs["orig"], sigs["copy"]) > 0.8
    b, r = m.bands_rows
    assert b * r <= 128
