"""The length unit of neardup: GBK-equivalent width.

The paper measures X (minimum sentence length), Z (fingerprint coverage) and S (skeleton window)
in GBK bytes, where a Chinese character is 2 bytes and an ASCII character 1. We keep that unit for
every script: a code point whose East Asian Width is Wide or Fullwidth (CJK ideographs, kana,
hangul, fullwidth punctuation) counts 2, every other code point counts 1. So S = 16 covers about
8 Chinese characters or 16 Latin characters (3-4 words in either language), which is what makes
the paper's values fair to Chinese and English alike.

LCS lengths, resemble and contain rates are counted in code points.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

__all__ = ["char_width", "text_width"]


@lru_cache(maxsize=65536)
def char_width(ch: str) -> int:
    """Width of one code point in GBK-equivalent units (1 or 2).

    >>> char_width("a"), char_width("中"), char_width("，")
    (1, 2, 2)
    """
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def text_width(text: str) -> int:
    """Sum of :func:`char_width` over ``text``.

    >>> text_width("abc中文")
    7
    """
    if text.isascii():
        return len(text)
    return sum(char_width(ch) for ch in text)
