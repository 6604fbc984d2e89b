"""Shingling with min-hash sketches and super-shingles (Broder 1997; Broder et al. 1997).

Source 001: a document is the set of its w-shingles (runs of ``w`` consecutive tokens);
resemblance is the Jaccard coefficient of two shingle sets. Each document is sketched by 84
min-hashes (one per random hash function); the 84 values are cut into 6 consecutive groups of
14 and each group is hashed again into a *super-shingle*. Two documents sharing at least two
of their 6 super-shingles are near duplicates. The fraction of equal min-hashes is the
unbiased resemblance estimate, used as the score.

Tokens are lowercased words and single Han characters (:func:`~neardup.evaluation.baselines._text.tokens`).
Min-hashes come from :class:`datasketch.MinHash`.
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
from datasketch import MinHash

from neardup.evaluation.baselines._text import tokens
from neardup.ingest.errors import ConfigError

__all__ = ["ShingleSketch", "Shingling", "shingles"]


def shingles(toks: Sequence[str], w: int) -> set[bytes]:
    """The set of w-shingles of ``toks`` (UTF-8, tokens joined by a space).

    A text shorter than ``w`` tokens is one shingle, so short texts still have a sketch.

    >>> sorted(shingles(["a", "rose", "is", "a", "rose"], 2))
    [b'a rose', b'is a', b'rose is']
    """
    if not toks:
        return set()
    if len(toks) <= w:
        return {" ".join(toks).encode("utf-8")}
    return {" ".join(toks[i : i + w]).encode("utf-8") for i in range(len(toks) - w + 1)}


@dataclass(frozen=True, slots=True)
class ShingleSketch:
    """84 min-hash values and the 6 super-shingles made from them."""

    minhashes: np.ndarray
    supershingles: tuple[int, ...]


class Shingling:
    """Broder shingling: ``num_perm`` min-hashes, ``groups`` super-shingles, ≥ ``min_shared``.

    A signature is ``None`` for a text without tokens: it is similar to nothing.
    """

    name = "shingling"

    def __init__(
        self, w: int = 5, num_perm: int = 84, groups: int = 6, min_shared: int = 2, seed: int = 1
    ) -> None:
        if w < 1:
            raise ConfigError(f"w must be ≥ 1, got {w}")
        if groups < 1 or num_perm % groups:
            raise ConfigError(f"groups must divide num_perm={num_perm}, got {groups}")
        if not 1 <= min_shared <= groups:
            raise ConfigError(f"min_shared must be in [1, groups={groups}], got {min_shared}")
        self.w, self.num_perm, self.groups, self.min_shared, self.seed = (
            w,
            num_perm,
            groups,
            min_shared,
            seed,
        )

    def __repr__(self) -> str:
        return (
            f"Shingling(w={self.w}, num_perm={self.num_perm}, groups={self.groups}, "
            f"min_shared={self.min_shared}, seed={self.seed})"
        )

    def fit(self, texts: Iterable[str]) -> None:
        """No corpus statistics needed."""

    def signature(self, text: str) -> ShingleSketch | None:
        shingle_set = shingles(tokens(text), self.w)
        if not shingle_set:
            return None
        mh = MinHash(num_perm=self.num_perm, seed=self.seed)  # same seed: same hash functions
        mh.update_batch(list(shingle_set))
        values = mh.hashvalues.astype(np.uint64)
        size = self.num_perm // self.groups
        supers = tuple(
            int.from_bytes(
                hashlib.blake2b(
                    bytes([g]) + values[g * size : (g + 1) * size].tobytes(), digest_size=8
                ).digest(),
                "big",
            )
            for g in range(self.groups)
        )
        return ShingleSketch(values, supers)

    def score(self, a: ShingleSketch | None, b: ShingleSketch | None) -> float:
        """Resemblance estimate: the fraction of equal min-hashes."""
        if a is None or b is None:
            return 0.0
        return float(np.mean(a.minhashes == b.minhashes))

    def shared(self, a: ShingleSketch, b: ShingleSketch) -> int:
        """Number of equal super-shingles (compared group by group)."""
        return sum(x == y for x, y in zip(a.supershingles, b.supershingles, strict=True))

    def similar(self, a: ShingleSketch | None, b: ShingleSketch | None) -> bool:
        return a is not None and b is not None and self.shared(a, b) >= self.min_shared

    def candidates(self, signatures: Mapping[str, ShingleSketch | None]) -> set[tuple[str, str]]:
        """Pairs sharing ≥ ``min_shared`` super-shingles, counted through super-shingle buckets."""
        buckets: dict[tuple[int, int], list[str]] = defaultdict(list)
        for doc_id, sig in signatures.items():
            if sig is not None:
                for g, value in enumerate(sig.supershingles):
                    buckets[(g, value)].append(doc_id)
        counts: Counter[tuple[str, str]] = Counter()
        for bucket in buckets.values():
            for x, y in combinations(sorted(bucket), 2):
                counts[(x, y)] += 1
        return {pair for pair, n in counts.items() if n >= self.min_shared}
