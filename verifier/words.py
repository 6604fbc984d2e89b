"""The public door to the word layer: the compiled implementation or the reference.

``neardup.verifier._words`` (Cython) is used when it is built; ``neardup.verifier._words_py`` is
the pure-Python reference with the same API (and the specification: tokens, their code points,
the bounds). ``NEARDUP_IMPL`` chooses, once, at import, as for every twin of neardup
(:func:`neardup.verifier.implementation.select`): ``python`` forces the reference, ``cython``
the compiled module (its absence is an error).

The word alignment is chosen here, in one place, from the two twins' pieces (:func:`align`):
Myers' ``matching_blocks`` of :mod:`neardup.verifier.lcs` or the bit-parallel
:func:`bit_blocks`.
"""

from __future__ import annotations

import math
import operator
from typing import TYPE_CHECKING

from neardup.verifier.implementation import bind, select
from neardup.verifier.lcs import matching_blocks

if TYPE_CHECKING:  # the twins' API, read in its specification (bound below, by bind)
    from neardup.verifier._words_py import (
        IMPLEMENTATION,
        bit_blocks,
        encode,
        encode_bound,
        lcs_reaches,
        shared_upper,
        word_contain,
    )

__all__ = [
    "BIT_ALIGN_WORDS",
    "IMPLEMENTATION",
    "align",
    "bit_blocks",
    "encode",
    "encode_bound",
    "lcs_reaches",
    "shared_upper",
    "word_contain",
]

COMPILED = "neardup.verifier._words"
REFERENCE = "neardup.verifier._words_py"

# The largest bit-parallel word alignment, in 64-bit words of rows (32 MB): :func:`align`.
BIT_ALIGN_WORDS = 1 << 22
_SIZE = operator.itemgetter(2)  # of a matching block (i, j, n)


def align(
    sa: str, sb: str, max_d: int, min_d: int = 0
) -> list[tuple[int, int, int]] | None:
    """The word alignment: matching blocks of one LCS of token sequences ``sa`` and ``sb``
    (:func:`encode`), or None when their edit distance D exceeds ``max_d`` (-1: no cap).
    ``min_d`` is a known lower bound of D (from the shared token multiset).

    Myers' O(ND) costs about D² steps, the bit-parallel alignment (:func:`bit_blocks`) n·m/64
    word operations and n·⌈m/64⌉ words of rows whatever D is, each word about as dear as a
    step of Myers: Myers runs first, capped at √(n·m/64), where it is the cheaper of the two
    (pairs with few edits); past that cap (the failed attempt costs about a quarter of the
    bit-parallel alignment) the bit-parallel alignment takes over, unless its rows would exceed
    ``BIT_ALIGN_WORDS`` (pages of more than ~16,000 tokens: Myers, capped at ``max_d``).
    When ``min_d`` is already above the cap, the capped attempt is skipped (it would fail).
    The rule reads only the lengths and D, so both twins pick the same LCS.

    >>> sa, sb = encode("the cat sat on the mat", "The cat on a mat")
    >>> align(sa, sb, -1), align(sa, sb, 1)  # 'the cat', 'on', 'mat'; D = 3
    ([(0, 0, 2), (3, 2, 1), (5, 4, 1)], None)
    """
    n, m = len(sa), len(sb)
    cap = math.isqrt(n * m // 64)
    blocks: list[tuple[int, int, int]] | None
    if 0 <= max_d <= cap or n * ((m + 63) // 64) > BIT_ALIGN_WORDS:
        blocks = matching_blocks(sa, sb, max_d)
        return blocks
    if min_d <= cap:
        blocks = matching_blocks(sa, sb, cap)
        if blocks is not None:
            return blocks
    blocks = bit_blocks(sa, sb)
    if max_d >= 0 and n + m - 2 * sum(map(_SIZE, blocks)) > max_d:
        return None
    return blocks


bind(globals(), select(COMPILED, REFERENCE))  # the twin's API: the names of __all__ not defined above
