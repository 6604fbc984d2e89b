"""Tokenisation and hashing shared by every baseline.

Latin-script (and other non-Han) text is split into lowercase words (``\\w+``); Han text has no
spaces, so each Han character is a token and, where a method wants word-like *terms*, adjacent
Han characters form bigrams (the usual stand-in for Chinese words without a segmenter).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable

import regex

__all__ = [
    "frequent_tokens",
    "hash64",
    "is_han",
    "terms",
    "tokens",
]

# A Han character alone, or a run of word characters that are not Han.
_TOKEN = regex.compile(r"\p{Han}|[^\W\p{Han}]+")
_RUN = regex.compile(r"(\p{Han}+)|([^\W\p{Han}]+)")
_HAN = regex.compile(r"\p{Han}")


def tokens(text: str) -> list[str]:
    """Words (lowercased) and single Han characters, in text order.

    >>> tokens("The cat 坐在垫子上.")
    ['the', 'cat', '坐', '在', '垫', '子', '上']
    """
    return [t.lower() for t in _TOKEN.findall(text)]


def terms(text: str) -> list[str]:
    """Word-like terms in text order: lowercased words, and bigrams of each Han run.

    A Han run of one character is kept as that character.

    >>> terms("Hello 人民日报 x 中")
    ['hello', '人民', '民日', '日报', 'x', '中']
    """
    out: list[str] = []
    for m in _RUN.finditer(text):
        han, word = m.group(1), m.group(2)
        if word is not None:
            out.append(word.lower())
        elif len(han) == 1:
            out.append(han)
        else:
            out.extend(han[i : i + 2] for i in range(len(han) - 1))
    return out


def is_han(token: str) -> bool:
    """True for a token that starts with a Han character."""
    return bool(token) and _HAN.match(token) is not None


def hash64(value: str) -> int:
    """A stable 64-bit hash (Python's ``hash`` is salted per process)."""
    return int.from_bytes(hashlib.blake2b(value.encode("utf-8"), digest_size=8).digest(), "big")


def frequent_tokens(texts: Iterable[str], n_words: int, n_han: int) -> frozenset[str]:
    """The ``n_words`` most frequent words and ``n_han`` most frequent Han characters.

    This is how the baselines derive stop words from the development corpus instead of a
    hand-written list: in running text the most frequent tokens are the function words.
    Ties are broken alphabetically so the result does not depend on input order. At most a
    tenth of a script's distinct tokens are taken, so a tiny corpus does not turn every word
    into a stop word (on a real corpus the cap is far above ``n``).
    """
    words: Counter[str] = Counter()
    han: Counter[str] = Counter()
    for text in texts:
        for tok in tokens(text):
            (han if is_han(tok) else words)[tok] += 1

    def top(counter: Counter[str], n: int) -> list[str]:
        n = min(n, max(1, len(counter) // 10))
        return [t for t, _ in sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))[:n]]

    return frozenset(top(words, n_words) + top(han, n_han))
