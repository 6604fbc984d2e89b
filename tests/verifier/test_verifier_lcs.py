"""Myers O(ND) LCS with edit script: the paper's example and properties against an oracle."""

from __future__ import annotations

from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.verifier import _lcs_py

try:
    from neardup.verifier import _lcs as _lcs_c
except ImportError:  # pragma: no cover - the build is part of set-up
    _lcs_c = None
from neardup.verifier.lcs import (
    apply_edit_script,
    edit_script,
    edit_script_from_blocks,
    format_edit_script,
)

A, B = "abcabba", "cbabac"


def naive_lcs(a: str, b: str) -> int:
    """O(nm) dynamic programme: the oracle."""
    prev = [0] * (len(b) + 1)
    for ca in a:
        cur = [0]
        for j, cb in enumerate(b):
            cur.append(prev[j] + 1 if ca == cb else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


def script(impl: ModuleType, a: str, b: str) -> list:
    blocks = impl.matching_blocks(a, b)
    assert blocks is not None
    return edit_script_from_blocks(blocks, len(a), len(b))


def test_paper_example(impl: ModuleType) -> None:
    blocks = impl.matching_blocks(A, B)
    assert sum(n for _, _, n in blocks) == impl.lcs_length(A, B) == 4
    lcs = "".join(A[i : i + n] for i, _, n in blocks)
    assert lcs == "".join(B[j : j + n] for _, j, n in blocks)
    ops = script(impl, A, B)
    assert len(ops) == 5  # D = |A| + |B| - 2|LCS| = 7 + 6 - 8
    assert apply_edit_script(ops, A, B) == B
    # Same shape as the paper's "1D 2D 3Ib 6D 7Ic": three deletions, two insertions. Among
    # the equally short scripts the middle-snake search picks LCS "baba" rather than "caba".
    assert sorted(op for op, _, _ in ops) == ["delete"] * 3 + ["insert"] * 2
    assert format_edit_script(ops, B).count("D") == 3


def test_paper_script_notation() -> None:
    # The paper's own script, written in our operation format, rebuilds B too.
    paper = [("delete", 0, 0), ("delete", 1, 0), ("insert", 3, 1), ("delete", 5, 0), ("insert", 7, 5)]
    assert format_edit_script(paper, B) == "1D 2D 3Ib 6D 7Ic"
    assert apply_edit_script(paper, A, B) == B
    assert len(edit_script(A, B)) == len(paper)


def test_cap_on_d(impl: ModuleType) -> None:
    assert impl.matching_blocks(A, B, 5) is not None
    assert impl.matching_blocks(A, B, 4) is None
    assert impl.matching_blocks("abc", "", 2) is None
    assert impl.matching_blocks("abc", "", 3) == []


@pytest.mark.parametrize(
    ("a", "b", "n"),
    [("", "", 0), ("a", "", 0), ("", "b", 0), ("abc", "abc", 3), ("中文abc", "abc中文", 3),
     ("\ud800x\x00", "x\x00\ud800", 2)],
)
def test_edges(impl: ModuleType, a: str, b: str, n: int) -> None:
    assert impl.lcs_length(a, b) == n == naive_lcs(a, b)


small_text = st.text(alphabet=st.sampled_from("ab中文 \n"), max_size=40) | st.text(
    alphabet="abcdefghij", max_size=60
)


@st.composite
def near_copies(draw: st.DrawFn) -> tuple[str, str]:
    """A long text and a copy with a few edits: large N, small D."""
    alphabet = draw(st.sampled_from(["ab", "abcd", "的是了中国人民abc ", "abcdefghijklmnopqrstuvwxyz "]))
    a = draw(st.text(alphabet=alphabet, min_size=0, max_size=3000))
    b = list(a)
    for _ in range(draw(st.integers(0, 12))):
        pos = draw(st.integers(0, len(b)))
        kind = draw(st.sampled_from(["insert", "delete", "replace"]))
        chunk = draw(st.text(alphabet=alphabet, min_size=1, max_size=30))
        if kind == "insert":
            b[pos:pos] = chunk
        elif kind == "delete":
            del b[pos : pos + len(chunk)]
        else:
            b[pos : pos + len(chunk)] = chunk
    return a, "".join(b)


def check_against(impl: ModuleType, a: str, b: str) -> None:
    blocks = impl.matching_blocks(a, b)
    length = impl.lcs_length(a, b)
    assert length == sum(n for _, _, n in blocks) <= min(len(a), len(b))
    assert blocks == _lcs_py.matching_blocks(a, b)  # same LCS, not only the same length
    prev_i = prev_j = 0
    for i, j, n in blocks:
        assert n > 0 and i >= prev_i and j >= prev_j and a[i : i + n] == b[j : j + n]
        prev_i, prev_j = i + n, j + n
    ops = script(impl, a, b)
    assert len(ops) == len(a) + len(b) - 2 * length
    assert apply_edit_script(ops, a, b) == b
    assert impl.lcs_length(b, a) == length
    d = len(ops)
    assert impl.matching_blocks(a, b, d) == blocks
    if d:
        assert impl.matching_blocks(a, b, d - 1) is None


@settings(max_examples=150, deadline=None)
@given(small_text, small_text)
def test_small_against_oracle(impl: ModuleType, a: str, b: str) -> None:
    check_against(impl, a, b)
    assert impl.lcs_length(a, b) == naive_lcs(a, b)
    assert impl.lcs_length(a, a) == len(a)


@settings(max_examples=40, deadline=None)
@given(near_copies())
def test_near_copies(impl: ModuleType, pair: tuple[str, str]) -> None:
    a, b = pair
    check_against(impl, a, b)
    assert impl.lcs_length(a, a) == len(a)
    if len(a) * len(b) <= 40_000:
        assert impl.lcs_length(a, b) == naive_lcs(a, b)


@settings(max_examples=40, deadline=None)
@given(st.text(alphabet="abc", min_size=100, max_size=400), st.text(alphabet="abc", min_size=100, max_size=400))
def test_large_d_against_oracle(impl: ModuleType, a: str, b: str) -> None:
    # Random strings over a tiny alphabet: D is a large fraction of N.
    check_against(impl, a, b)
    assert impl.lcs_length(a, b) == naive_lcs(a, b)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab 新华\n", max_size=80), st.text(alphabet="ab 新华\n", max_size=80))
def test_skeleton_sizes_are_the_skeletons_lengths(a: str, b: str) -> None:
    an, _ = _lcs_py.normalize(a)
    bn, _ = _lcs_py.normalize(b)
    want = (len(an), len(bn), 0, 0)
    if an and bn:
        sa, _, sb, _ = _lcs_py.skeleton(an, bn, 4)
        want = (len(an), len(bn), len(sa), len(sb))
    assert _lcs_py.skeleton_sizes(a, b, 4) == want
    if _lcs_c is not None:
        assert _lcs_c.skeleton_sizes(a, b, 4) == want


# Pairs that go through the compiled filter for long skeletons far apart (skeletons longer
# together than max_d): small max_d values make short texts take that path.
PAGE = st.text(alphabet="ab 新华社北京电\n", min_size=40, max_size=400)


@pytest.mark.compiled("neardup.verifier._lcs")
@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab新华", max_size=300), st.text(alphabet="ab新华", max_size=300),
       st.integers(-2, 30))
def test_bit_parallel_filter_is_the_dp_oracle(a: str, b: str, delta: int) -> None:
    assert _lcs_c is not None
    common = naive_lcs(a, b)
    for need in {common - 1, common, common + 1, common + delta, delta}:
        assert _lcs_c._skeleton_lcs_reaches(a, b, need) is (common >= need)


@pytest.mark.compiled("neardup.verifier._lcs")
@settings(max_examples=150, deadline=None)
@given(PAGE, PAGE, st.sampled_from([0, 3, 10, 40, 120]), st.booleans())
def test_long_skeletons_far_apart_verify_as_the_reference(
    a: str, b: str, max_d: int, iterative: bool
) -> None:
    from neardup.verifier.config import VerifyConfig

    assert _lcs_c is not None
    assert _lcs_c._skeleton_lcs_reaches(a, a, len(a))
    config = VerifyConfig(window=4, max_d=max_d, iterative=iterative, min_iteration_tlcs=4,
                          resemble=0.01, contain=0.01, min_block_size=4)
    assert _lcs_c.verify(a, b, config) == _lcs_py.verify(a, b, config)


def _densely_edited(seed: int, n: int, rate: float) -> tuple[str, str]:
    import random

    rng = random.Random(seed)
    a = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz ") for _ in range(n))
    b = "".join(rng.choice("0123456789") if rng.random() < rate else c for c in a)
    quarter = n // 4  # and the quarters of B reversed: the skeletons do not align in full
    return a, b[3 * quarter :] + b[2 * quarter : 3 * quarter] + b[quarter : 2 * quarter] + b[:quarter]


@pytest.mark.compiled("neardup.verifier._lcs")
@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from([300, 1500, 4000]), st.sampled_from([0.03, 0.06, 0.1]),
       st.sampled_from([0, 30, 400, 20000]), st.booleans())
def test_pages_edited_too_densely_for_any_region_verify_as_the_reference(
    seed: int, n: int, rate: float, max_d: int, iterative: bool
) -> None:
    # Every block keeps under 1 - theta of its characters in the skeleton: the compiled twin
    # skips Myers there (no alignment can give a region) and takes the LCS from the
    # bit-parallel length; the reference aligns.
    from neardup.verifier.config import VerifyConfig

    assert _lcs_c is not None
    a, b = _densely_edited(seed, n, rate)
    config = VerifyConfig(max_d=max_d, iterative=iterative, resemble=0.01, contain=0.01)
    assert _lcs_c.verify(a, b, config) == _lcs_py.verify(a, b, config)


def _max_block_coverage(a: str, b: str, config: object) -> float:
    """The largest share of a block of A (the longer text; blocks as the region search's)
    that A's skeleton keeps."""
    an, _ = _lcs_py.normalize(a)
    bn, _ = _lcs_py.normalize(b)
    if len(bn) > len(an) or (len(bn) == len(an) and bn < an):
        an, bn = bn, an
    _, kept, _, _ = _lcs_py.skeleton(an, bn, config.window)  # type: ignore[attr-defined]
    na = len(an)
    s = max(config.min_block_size, -(-na // config.blocks))  # type: ignore[attr-defined]
    return max(
        sum(1 for x in kept if lo <= x < min(lo + s, na)) / (min(lo + s, na) - lo)
        for lo in range(0, na, s)
    )


def test_a_densely_edited_page_has_common_text_but_no_region() -> None:
    # The case the test above is about: every block keeps under 1 - theta of its text in the
    # skeleton, so no region exists, yet the skeletons share text (lcs > 0).
    from neardup.verifier.config import VerifyConfig

    config = VerifyConfig()
    a, b = _densely_edited(3, 3000, 0.1)
    assert _max_block_coverage(a, b, config) < 1 - config.theta
    want = _lcs_py.verify(a, b, config)
    assert want[3] == 0 and want[4] > 500 and want[7] is None
    if _lcs_c is not None:
        assert _lcs_c.verify(a, b, config) == want
        capped = VerifyConfig(max_d=100)
        assert _lcs_c.verify(a, b, capped) == _lcs_py.verify(a, b, capped)
        assert _lcs_c.verify(a, b, capped)[7] == "edit_distance"
