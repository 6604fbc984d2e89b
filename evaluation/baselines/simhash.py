"""SimHash (Charikar 2002) with Manku-style block tables (Manku, Jain, Das Sarma 2007).

Source 001: features with weights; each feature hashed to 64 bits; add ``+w`` where a bit is 1
and ``-w`` where it is 0; the sign of each sum is the fingerprint bit. Two pages are near
duplicates when the fingerprints differ in at most 3 bits. For lookup the 64 bits are cut
into 4 blocks of 16: two fingerprints within 3 bits agree exactly on at least one block
(pigeonhole), so one table per block, keyed by that block, finds every such pair (source 002
describes the same tables as permutations that move a block to the front).

Features are word terms (lowercased words, Han bigrams) weighted by their term frequency.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from itertools import combinations

import numpy as np

from neardup.evaluation.baselines._text import hash64, terms
from neardup.ingest.errors import ConfigError

__all__ = ["SimHash", "hamming", "simhash64"]

_BITS = 64
_SHIFTS = np.arange(_BITS - 1, -1, -1, dtype=np.uint64)  # bit 63 first


def simhash64(weighted: Mapping[str, float]) -> int:
    """The 64-bit SimHash of features with weights (0 when there are no features).

    >>> simhash64({}) == 0
    True
    """
    if not weighted:
        return 0
    hashes = np.fromiter((hash64(f) for f in weighted), dtype=np.uint64, count=len(weighted))
    weights = np.fromiter(weighted.values(), dtype=np.float64, count=len(weighted))
    bits = (hashes[:, None] >> _SHIFTS[None, :]) & np.uint64(1)  # (n, 64), bit 63 first
    sums = weights @ np.where(bits == 1, 1.0, -1.0)
    value = 0
    for positive in sums > 0:
        value = (value << 1) | int(positive)
    return value


def hamming(a: int, b: int) -> int:
    """Number of differing bits."""
    return (a ^ b).bit_count()


class SimHash:
    """SimHash over term-frequency-weighted terms; similar when Hamming distance ≤ ``k``.

    A signature is ``None`` for a text without terms: it is similar to nothing.
    """

    name = "simhash"

    def __init__(self, k: int = 3, blocks: int = 4) -> None:
        if not 0 <= k < _BITS:
            raise ConfigError(f"k must be in [0, {_BITS}), got {k}")
        if blocks <= k or _BITS % blocks:
            raise ConfigError(
                f"blocks must divide {_BITS} and exceed k={k} (pigeonhole), got {blocks}"
            )
        self.k = k
        self.blocks = blocks

    def __repr__(self) -> str:
        return f"SimHash(k={self.k}, blocks={self.blocks})"

    def fit(self, texts: Iterable[str]) -> None:
        """No corpus statistics needed."""

    def signature(self, text: str) -> int | None:
        tf = Counter(terms(text))
        return simhash64(tf) if tf else None

    def score(self, a: int | None, b: int | None) -> float:
        """``1 - hamming/64``; 0.0 when either text had no terms."""
        if a is None or b is None:
            return 0.0
        return 1.0 - hamming(a, b) / _BITS

    def similar(self, a: int | None, b: int | None) -> bool:
        return a is not None and b is not None and hamming(a, b) <= self.k

    def candidates(self, signatures: Mapping[str, int | None]) -> set[tuple[str, str]]:
        """Pairs within Hamming distance ``k``, found through one table per block."""
        width = _BITS // self.blocks
        mask = (1 << width) - 1
        pairs: set[tuple[str, str]] = set()
        for block in range(self.blocks):
            shift = block * width
            table: dict[int, list[str]] = defaultdict(list)
            for doc_id, fp in signatures.items():
                if fp is not None:
                    table[(fp >> shift) & mask].append(doc_id)
            for bucket in table.values():
                for x, y in combinations(bucket, 2):
                    if hamming(signatures[x], signatures[y]) <= self.k:  # type: ignore[arg-type]
                        pairs.add((x, y) if x < y else (y, x))
        return pairs
