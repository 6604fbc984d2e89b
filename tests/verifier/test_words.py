"""The word layer's twins: the compiled ``neardup.verifier._words`` against its reference
``neardup.verifier._words_py``, and the alignment of ``neardup.verifier.words`` with either
twin's pieces."""

from __future__ import annotations

from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.verifier import _words_py, verdict, words

try:
    from neardup.verifier import _words
except ImportError:  # pragma: no cover - the build is part of set-up
    _words = None

compiled = pytest.mark.compiled("neardup.verifier._words")

# Latin, digits, underscore, punctuation, CJK, kana, hangul, accents, a supplementary ideograph,
# and folds longer than one code point (ß -> ss, ﬁ -> fi, İ -> i + a combining dot, which is no
# word character) or that make a word character of one that is not (U+0345 -> ι).
ALPHABET = st.sampled_from(
    list("abcXYZ019_ .,-—!?") + list("新华社北京电ひらカナ한국")
    + ["é", "ß", "Σ", "ς", "\U00020001", "\n", "ﬁ", "İ", "\u0345", "Ｋ"]
)
TEXT = st.text(ALPHABET, max_size=120)


@compiled
@settings(max_examples=300, deadline=None)
@given(TEXT, TEXT)
def test_encode_and_bounds_match_the_reference(a: str, b: str) -> None:
    assert isinstance(_words, ModuleType)
    assert _words.encode(a, b) == _words_py.encode(a, b)
    sa, sb = _words_py.encode(a, b)
    assert _words.shared_upper(sa, sb) == _words_py.shared_upper(sa, sb)
    assert _words.encode_bound(a, b) == _words_py.encode_bound(a, b) == (
        sa, sb, _words_py.shared_upper(sa, sb)
    )
    for ngram, floor in ((1, 1), (2, 3), (4, 1), (16, 150)):
        assert _words.word_contain(sa, sb, ngram, floor) == pytest.approx(
            _words_py.word_contain(sa, sb, ngram, floor)
        )


@compiled
def test_the_compiled_case_folding_is_str_casefold_on_every_code_point() -> None:
    assert _words is not None
    step = 4096
    for lo in range(0, 0x110000, step):
        text = "".join(map(chr, range(lo, lo + step)))
        assert _words._casefold(text) == text.casefold(), hex(lo)
    # Each code point on its own too, after an expanding one (the buffer grows mid-text).
    text = "ß" * 3 + "".join(map(chr, range(0x80, 0x2000)))
    assert _words._casefold(text) == text.casefold()


@compiled
def test_one_token_table_serves_calls_of_any_size_in_turn() -> None:
    # The compiled encoder keeps its token table between calls (a slot counts only for the
    # call that filled it) and lets a very large one go: ids never leak from call to call.
    assert _words is not None
    small = ("alpha beta gamma", "beta delta")
    large = " ".join(f"w{i}" for i in range(600_000))  # more slots than the table keeps
    for a, b in (small, (large, "w5 w7 x"), small, ("gamma", "alpha"), small):
        assert _words.encode(a, b) == _words_py.encode(a, b)
        assert _words.encode_bound(a, b) == _words_py.encode_bound(a, b)


@compiled
def test_words_on_a_page() -> None:
    assert _words is not None
    page = "Hotel Nord, 2 nights — 北京饭店. Straße " * 50
    sa, sb = _words.encode(page, page + " extra")
    assert [ord(c) - 0x10000 for c in sa[:9]] == [0, 1, 2, 3, 4, 5, 6, 7, 8]
    assert _words.shared_upper(sa, sb) == len(sa)
    assert _words.word_contain(sa, sb, 16, 150) == 1.0


def _dp_lcs(a: str, b: str) -> int:
    """The O(nm) dynamic programme: the oracle."""
    row = [0] * (len(b) + 1)
    for ca in a:
        prev = 0
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], prev + 1 if ca == cb else max(row[j], row[j - 1])
    return row[-1]


# Encoded token sequences: few distinct tokens (long common runs, many ties) up to several
# 64-bit words of pattern (carries between words), and from the whole alphabet.
TOKENS = st.integers(1, 12).flatmap(
    lambda k: st.lists(st.integers(0, k - 1), max_size=300).map(
        lambda ids: "".join(chr(0x10000 + i) for i in ids)
    )
)


@settings(max_examples=300, deadline=None)
@given(TOKENS, TOKENS, st.integers(-2, 40))
def test_lcs_reaches_is_the_dp_oracle_and_the_capped_alignment(sa: str, sb: str, delta: int) -> None:
    from neardup.verifier import lcs

    common = _dp_lcs(sa, sb)
    impls = [_words_py.lcs_reaches] + ([_words.lcs_reaches] if _words is not None else [])
    for need in {common - 1, common, common + 1, common + delta, delta}:
        for reaches in impls:
            assert reaches(sa, sb, need) is (common >= need)
        # What the filter stands for: whether Myers capped at D = n + m - 2 need aligns them.
        max_d = len(sa) + len(sb) - 2 * need
        if max_d >= 0:
            assert (lcs.matching_blocks(sa, sb, max_d) is not None) is (common >= need)


@compiled
def test_lcs_reaches_on_long_sequences_stops_early_with_the_right_answer() -> None:
    assert _words is not None
    page = _words_py.encode("新华社北京一月一日电 " * 400, "")[0]
    other = page[::-1]
    common = _dp_lcs(page[:700], other[:700])
    assert _words.lcs_reaches(page[:700], other[:700], common)
    assert not _words.lcs_reaches(page[:700], other[:700], common + 1)
    assert _words.lcs_reaches(page, page, len(page))
    assert not _words.lcs_reaches(page, page[:-1], len(page))


@settings(max_examples=200, deadline=None)
@given(TEXT, TEXT, st.sampled_from([0.0, 0.2, 0.6]))
def test_the_rejection_filter_changes_no_feature(a: str, b: str, shared: float) -> None:
    from neardup.verifier.config import VerifyConfig

    config = VerifyConfig(min_contain_words=2, contain_ngram=2)
    assert verdict.content_features(a, b, config, shared, apart=True) == verdict.content_features(
        a, b, config, shared, apart=False
    )


def _check_blocks(sa: str, sb: str, blocks: list[tuple[int, int, int]]) -> None:
    """Matching, in order in both sequences, maximal (no two blocks on one diagonal touch)."""
    end_a = end_b = 0
    for n, (i, j, k) in enumerate(blocks):
        assert k > 0 and sa[i : i + k] == sb[j : j + k]
        assert i >= end_a and j >= end_b
        assert n == 0 or (i, j) != (end_a, end_b)
        end_a, end_b = i + k, j + k


@settings(max_examples=400, deadline=None)
@given(TOKENS, TOKENS)
def test_bit_blocks_is_an_lcs_of_the_dp_oracle_and_the_twins_agree(sa: str, sb: str) -> None:
    blocks = _words_py.bit_blocks(sa, sb)
    _check_blocks(sa, sb, blocks)
    assert sum(k for _, _, k in blocks) == _dp_lcs(sa, sb)
    if _words is not None:
        assert _words.bit_blocks(sa, sb) == blocks  # the same LCS, not only its length


@compiled
def test_bit_blocks_on_pages_many_words_wide_and_a_smaller_one_after() -> None:
    # Rows of several words with carries across them, the process-wide buffer grown, then
    # reused by a smaller pair.
    assert _words is not None
    page = "新华社北京一月一日电 今天是新年的第一天，首都各界群众欢聚一堂。 " * 60
    edited = page.replace("天", "日").replace("首都", "the capital")
    sa, sb = _words_py.encode(page, edited)
    for x, y in ((sa, sb), (sb, sa), (sa[:100], sb[50:300]), (sa, sa[::-1])):
        blocks = _words.bit_blocks(x, y)
        assert blocks == _words_py.bit_blocks(x, y)
        _check_blocks(x, y, blocks)
        assert sum(k for _, _, k in blocks) == _dp_lcs(x, y)
    with pytest.raises(ValueError):
        _words.bit_blocks("abc", "abd")


@settings(max_examples=300, deadline=None)
@given(TOKENS, TOKENS, st.integers(-1, 80), st.sampled_from([1 << 22, 8]), st.booleans())
def test_the_alignment_switch_is_the_same_rule_with_either_twin(
    sa: str, sb: str, max_d: int, bit_words: int, bounded: bool
) -> None:
    # words.align picks Myers (capped) or the bit-parallel alignment from the lengths and D
    # only: with the reference's pieces or the compiled ones it gives the same blocks, an LCS
    # (the DP oracle's length), and None exactly when D > max_d. The multiset's lower bound of
    # D only skips a capped attempt that would fail: the same blocks with it or without.
    from neardup.verifier import _lcs_py

    common = _dp_lcs(sa, sb)
    results = []
    impls = [(_lcs_py.matching_blocks, _words_py.bit_blocks)]
    if _words is not None:
        from neardup.verifier import _lcs as _lcs_c

        impls.append((_lcs_c.matching_blocks, _words.bit_blocks))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(words, "BIT_ALIGN_WORDS", bit_words)
        for myers, bits in impls:
            mp.setattr(words, "matching_blocks", myers)
            mp.setattr(words, "bit_blocks", bits)
            min_d = len(sa) + len(sb) - 2 * _words_py.shared_upper(sa, sb) if bounded else 0
            results.append(words.align(sa, sb, max_d, min_d))
            results.append(words.align(sa, sb, max_d))
    assert all(r == results[0] for r in results)
    blocks = results[0]
    if 0 <= max_d < len(sa) + len(sb) - 2 * common:
        assert blocks is None
    else:
        assert blocks is not None
        _check_blocks(sa, sb, [blk for blk in blocks if blk[2] > 0])
        assert sum(k for _, _, k in blocks) == common
