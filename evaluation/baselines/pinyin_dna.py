"""Pinyin-initial "DNA" fingerprints (source 002, a production copy-tracking system).

Source 002: turn the text into pinyin and keep each character's initial letter (26 symbols:
insensitive to encodings, Traditional/Simplified forms and homophone substitution); cut the
letter string into granules of ``m`` letters overlapping by 50 %; per granule count the letter
frequencies, subtract the reference distribution, normalise each letter's value into a small
closed range ([0, 3] here, 26 × 2 bits ≈ 7 bytes) and concatenate the digits in letter order:
that string is the granule's fingerprint. A document is the list of its granule fingerprints.

Source 002 gives no pair rule; here two documents are similar when at least ``threshold`` of
the shorter one's granule fingerprints also occur in the other (multiset overlap), and granule
fingerprint equality is the lookup key for candidates. The deviation of a count ``c`` from its
expectation ``e`` is scaled as ``(c - e) / sqrt(e + 1)`` before rounding to a digit; the
pseudo-code's radix rule in 002 is garbled. Non-Chinese words contribute their first letter
(the analogue of one syllable's initial). The reference distribution is the development
corpus's letter distribution (:meth:`PinyinDNA.fit`), uniform until fitted.
"""

from __future__ import annotations

import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from itertools import combinations

import numpy as np
import regex

from neardup.ingest.errors import ConfigError

__all__ = ["PinyinDNA", "initials"]

_RUN = regex.compile(r"(\p{Han}+)|([^\W\p{Han}]+)")
_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_INDEX = {c: i for i, c in enumerate(_LETTERS)}


def _word_initial(word: str) -> str | None:
    for ch in unicodedata.normalize("NFKD", word.lower()):
        if ch in _INDEX:
            return ch
        if ch.isalpha() and not unicodedata.combining(ch):
            return None  # a non-Latin letter (Greek, Cyrillic, kana …): no initial
    return None


def initials(text: str) -> str:
    """One letter per Han character (its pinyin initial) and per other word (its first letter).

    >>> initials("人民日报 Daily news 2024")
    'rmrbdn'
    """
    from pypinyin import Style, lazy_pinyin

    out: list[str] = []
    for m in _RUN.finditer(text):
        han, word = m.group(1), m.group(2)
        if han is not None:
            for syl in lazy_pinyin(han, style=Style.FIRST_LETTER, errors="ignore"):
                if syl and syl[0] in _INDEX:
                    out.append(syl[0])
        else:
            letter = _word_initial(word)
            if letter is not None:
                out.append(letter)
    return "".join(out)


class PinyinDNA:
    """Granule fingerprints of pinyin initials; similar when ≥ ``threshold`` of granules match.

    A signature is a tuple of 26-digit strings, or ``None`` for a text without letters.
    """

    name = "pinyin"

    def __init__(self, granule: int = 100, levels: int = 4, threshold: float = 0.5) -> None:
        if granule < 2:
            raise ConfigError(f"granule must be ≥ 2 letters, got {granule}")
        if not 2 <= levels <= 10:
            raise ConfigError(f"levels must be in [2, 10] (one decimal digit), got {levels}")
        if not 0.0 < threshold <= 1.0:
            raise ConfigError(f"threshold must be in (0, 1], got {threshold}")
        self.granule, self.levels, self.threshold = granule, levels, threshold
        self.reference = np.full(len(_LETTERS), 1.0 / len(_LETTERS))

    def __repr__(self) -> str:
        return (
            f"PinyinDNA(granule={self.granule}, levels={self.levels}, threshold={self.threshold})"
        )

    def fit(self, texts: Iterable[str]) -> None:
        """Take the reference letter distribution from the development corpus."""
        counts: Counter[str] = Counter()
        for text in texts:
            counts.update(initials(text))
        total = sum(counts.values())
        if total:
            ref = np.array([counts[c] for c in _LETTERS], dtype=np.float64) + 1.0  # add-one
            self.reference = ref / ref.sum()

    def _granules(self, letters: str) -> list[str]:
        m = self.granule
        if len(letters) <= m:
            return [letters]
        step = m // 2
        starts = list(range(0, len(letters) - m + 1, step))
        if starts[-1] + m < len(letters):
            starts.append(len(letters) - m)  # the tail, aligned to the end
        return [letters[s : s + m] for s in starts]

    def _dna(self, granule: str) -> str:
        counts = np.zeros(len(_LETTERS))
        for ch in granule:
            counts[_INDEX[ch]] += 1
        expected = self.reference * len(granule)
        z = (counts - expected) / np.sqrt(expected + 1.0)
        digits = np.clip(np.floor(z) + self.levels // 2, 0, self.levels - 1).astype(int)
        return "".join(map(str, digits))

    def signature(self, text: str) -> tuple[str, ...] | None:
        letters = initials(text)
        if not letters:
            return None
        return tuple(self._dna(g) for g in self._granules(letters))

    def score(self, a: tuple[str, ...] | None, b: tuple[str, ...] | None) -> float:
        """Shared granule fingerprints (multiset) over the shorter document's count."""
        if not a or not b:
            return 0.0
        shared = sum((Counter(a) & Counter(b)).values())
        return shared / min(len(a), len(b))

    def similar(self, a: tuple[str, ...] | None, b: tuple[str, ...] | None) -> bool:
        return self.score(a, b) >= self.threshold

    def candidates(self, signatures: Mapping[str, tuple[str, ...] | None]) -> set[tuple[str, str]]:
        """Pairs sharing a granule fingerprint (fingerprint index), kept when similar."""
        index: dict[str, set[str]] = defaultdict(set)
        for doc_id, sig in signatures.items():
            for dna in sig or ():
                index[dna].add(doc_id)
        pairs: set[tuple[str, str]] = set()
        for bucket in index.values():
            pairs.update(combinations(sorted(bucket), 2))
        return {(x, y) for x, y in pairs if self.similar(signatures[x], signatures[y])}
