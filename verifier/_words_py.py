"""Pure-Python reference of the word layer: tokens as code points, the multiset bound, word
containment, the bit-parallel LCS length and alignment.

This module is the specification: :mod:`neardup.verifier._words` (Cython) has the same API and
must give the same results; :mod:`neardup.verifier.words` picks one of the two
(``NEARDUP_IMPL``). Keep both in step.

Words are ``\\w`` runs, case-folded; every CJK character (and kana, hangul) is a word of its
own, so Chinese text aligns character by character (:func:`tokens`). Each distinct token is
mapped to one code point from ``U+10000`` (:func:`encode`), so the LCS machinery of
:mod:`neardup.verifier.lcs` aligns words as it aligns characters.
"""

from __future__ import annotations

import functools
import re
from collections import Counter, deque
from collections.abc import Iterator

IMPLEMENTATION = "python"

# One token per CJK ideograph / kana / hangul syllable; other word characters in runs.
_CJK = (
    "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
    "\U00020000-\U0002fa1f"
)
_TOKEN = f"[{_CJK}]|[^\\W{_CJK}]+"
# Tokens are mapped to code points from here on (supplementary planes: no surrogates).
_CODE_BASE = 0x10000


def tokens(text: str) -> list[str]:
    """Case-folded word tokens of ``text``; a CJK character is a token of its own.

    >>> tokens("Hotel Nord, 2 nights — 北京饭店")
    ['hotel', 'nord', '2', 'nights', '北', '京', '饭', '店']
    """
    return _token_pattern().findall(text.casefold())


@functools.cache
def _token_pattern() -> re.Pattern[str]:
    # Compiled on first use: a one-pair ``neardup compare`` should not pay for it at start-up.
    return re.compile(_TOKEN)


def encode(a: str, b: str) -> tuple[str, str]:
    """The tokens of ``a`` and ``b`` (:func:`tokens`) as strings of code points, one per
    token, equal tokens equal code points (so the compiled ``matching_blocks`` aligns words).

    >>> sa, sb = encode("the cat, the hat", "The hat")
    >>> [ord(c) - 0x10000 for c in sa], [ord(c) - 0x10000 for c in sb]
    ([0, 1, 0, 2], [0, 2])
    """
    ids: dict[str, int] = {}
    sa = "".join([chr(_CODE_BASE + ids.setdefault(t, len(ids))) for t in tokens(a)])
    sb = "".join([chr(_CODE_BASE + ids.setdefault(t, len(ids))) for t in tokens(b)])
    return sa, sb


def encode_bound(a: str, b: str) -> tuple[str, str, int]:
    """:func:`encode` and the :func:`shared_upper` bound of the two sequences."""
    sa, sb = encode(a, b)
    return sa, sb, shared_upper(sa, sb)


def shared_upper(sa: str, sb: str) -> int:
    """The size of the shared multiset of two token sequences: an upper bound of their LCS."""
    ca, cb = Counter(sa), Counter(sb)
    if len(cb) < len(ca):
        ca, cb = cb, ca
    return sum(min(c, cb[t]) for t, c in ca.items() if t in cb)


def word_contain(sa: str, sb: str, ngram: int, min_words: int) -> float:
    """Share of the shorter token sequence covered by ``ngram``-token runs that also occur in
    the other, in any order (the word-level twin of the filter skeleton); 0 when the shorter
    one has fewer than ``min_words`` tokens. ``sa``/``sb``: tokens as code points.

    >>> a = "".join(map(chr, range(0x10000, 0x10000 + 40)))
    >>> word_contain(a[20:] + a[:20], a + a, 16, 10)   # reordered halves, inside a longer page
    1.0
    """
    short, other = (sa, sb) if len(sa) <= len(sb) else (sb, sa)
    n = len(short)
    if n < max(min_words, ngram):
        return 0.0
    grams = {other[i : i + ngram] for i in range(len(other) - ngram + 1)}
    covered = 0
    end = 0  # first position not yet counted
    for i in range(n - ngram + 1):
        if short[i : i + ngram] in grams:
            covered += i + ngram - max(i, end)
            end = i + ngram
    return covered / n


def _bit_rows(pattern: str, text: str) -> Iterator[int]:
    """The bit-parallel rows of ``pattern`` against ``text`` (Allison & Dix 1986; Hyyrö
    2004), one after the other: row 0 is all ones, row i + 1 the one after token i of
    ``text``, whose bit j is 1 when L[i + 1][j + 1] = L[i + 1][j] (L: the LCS table of the
    first tokens of ``text`` and of ``pattern``). Each token updates all bits with one
    addition, whatever the edit distance."""
    masks: dict[str, int] = {}
    for j, token in enumerate(pattern):
        masks[token] = masks.get(token, 0) | (1 << j)
    full = (1 << len(pattern)) - 1
    v = full
    yield v
    for token in text:
        u = v & masks.get(token, 0)
        v = ((v + u) | (v - u)) & full
        yield v


def lcs_reaches(sa: str, sb: str, need: int) -> bool:
    """True when the LCS of token sequences ``sa`` and ``sb`` has at least ``need`` tokens.

    Bit-parallel (:func:`_bit_rows`, the shorter sequence as the pattern): bit j of the last
    row is 0 where the LCS grew at j, so the cost does not depend on the edit distance.
    The rejection filter before the word alignment: its answer is exactly whether Myers capped
    at ``len(sa) + len(sb) - 2 * need`` finds an alignment.

    >>> lcs_reaches("abcabba", "cbabac", 4), lcs_reaches("abcabba", "cbabac", 5)
    (True, False)
    """
    short, other = (sa, sb) if len(sa) <= len(sb) else (sb, sa)
    (last,) = deque(_bit_rows(short, other), maxlen=1)  # only the last row counts
    return len(short) - bin(last).count("1") >= need


def bit_blocks(sa: str, sb: str) -> list[tuple[int, int, int]]:
    """One LCS of token sequences ``sa`` and ``sb`` as matching blocks ``[(i, j, n)]``
    (maximal, in order): the alignment of long, densely edited pairs.

    The common prefix and suffix are blocks of their own. Between them, bit j of row i is 1
    when L[i][j + 1] = L[i][j] (L: the LCS table of the first i tokens of ``sa`` and the first
    j of ``sb``; :func:`_bit_rows`). The backtrack from the end takes a match wherever the two
    tokens are equal (then L[i][j] = L[i-1][j-1] + 1), else moves left while L[i][j] =
    L[i][j-1], else up: one LCS, fixed by that rule, not necessarily the one Myers' middle
    snake finds.

    >>> bit_blocks("abcabba", "cbabac")
    [(2, 0, 1), (4, 1, 1), (5, 3, 2)]
    """
    n, m = len(sa), len(sb)
    pre = 0
    while pre < min(n, m) and sa[pre] == sb[pre]:
        pre += 1
    suf = 0
    while suf < min(n, m) - pre and sa[n - 1 - suf] == sb[m - 1 - suf]:
        suf += 1
    head = [(0, 0, pre)] if pre else []
    tail = [(n - suf, m - suf, suf)] if suf else []
    a, b = sa[pre : n - suf], sb[pre : m - suf]
    if not a or not b:
        return head + tail
    rows = list(_bit_rows(b, a))
    blocks: list[tuple[int, int, int]] = []
    i, j, run = len(a), len(b), 0
    while i > 0 and j > 0:
        if a[i - 1] == b[j - 1]:
            i, j, run = i - 1, j - 1, run + 1
            continue
        if run:
            blocks.append((pre + i, pre + j, run))
            run = 0
        if rows[i] >> (j - 1) & 1:
            j -= 1
        else:
            i -= 1
    if run:
        blocks.append((pre + i, pre + j, run))
    return head + blocks[::-1] + tail
