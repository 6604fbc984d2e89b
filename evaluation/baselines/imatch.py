"""I-Match (Chowdhury, Frieder, Grossman, McCabe 2002) and its multi-lexicon variant
(Kolcz, Chowdhury, Alspector 2004).

Source 001: rank the collection's terms by IDF and drop a share of the highest and of the
lowest; the terms in between are the lexicon. A document's signature is the SHA-1 of its
unique lexicon terms (sorted, so word order does not matter); equal signatures mean near
duplicates. The multi-lexicon variant makes extra lexicons by randomly dropping a small share
of the main lexicon's terms and calls two documents near duplicates when *any* of their
signatures (one per lexicon) agree, which repairs a single signature broken by one term.

The IDF bounds are expressed on document frequency: terms in fewer than ``min_df`` documents
(the highest IDF: typos, numbers, ids) and terms in more than ``max_df`` of the documents (the
lowest IDF: function words, template words) are dropped. Terms are lowercased words and Han
bigrams. The lexicon is built by :meth:`IMatch.fit` from the development corpus.
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from itertools import combinations

from neardup.evaluation.baselines._text import terms
from neardup.evaluation.baselines.errors import NotFittedError
from neardup.ingest.errors import ConfigError

__all__ = ["IMatch", "MultiLexiconIMatch", "idf_lexicon"]


def idf_lexicon(texts: Iterable[str], min_df: int, max_df: float) -> frozenset[str]:
    """Terms whose document frequency is at least ``min_df`` and at most ``max_df`` × N."""
    df: Counter[str] = Counter()
    n_docs = 0
    for text in texts:
        n_docs += 1
        df.update(set(terms(text)))
    ceiling = max(max_df * n_docs, min_df)  # tiny corpora: never an empty band
    return frozenset(t for t, n in df.items() if min_df <= n <= ceiling)


def _sha1(words: Iterable[str]) -> bytes | None:
    ordered = sorted(words)
    if not ordered:
        return None
    return hashlib.sha1("\n".join(ordered).encode("utf-8")).digest()


def _hash_pairs(signatures: Mapping[str, tuple[bytes | None, ...] | None]) -> set[tuple[str, str]]:
    buckets: dict[tuple[int, bytes], list[str]] = defaultdict(list)
    for doc_id, sigs in signatures.items():
        for i, digest in enumerate(sigs or ()):
            if digest is not None:
                buckets[(i, digest)].append(doc_id)
    pairs: set[tuple[str, str]] = set()
    for bucket in buckets.values():
        pairs.update(combinations(sorted(set(bucket)), 2))
    return pairs


class _LexiconMethod:
    """The lexicon that both I-Match variants build in ``fit``."""

    name: str

    def __init__(self, min_df: int, max_df: float) -> None:
        if min_df < 1:
            raise ConfigError(f"min_df must be ≥ 1, got {min_df}")
        if not 0.0 < max_df <= 1.0:
            raise ConfigError(f"max_df must be a fraction of documents in (0, 1], got {max_df}")
        self.min_df, self.max_df = min_df, max_df
        self.lexicon: frozenset[str] | None = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(min_df={self.min_df}, max_df={self.max_df})"

    def fit(self, texts: Iterable[str]) -> None:
        """Build the IDF-filtered lexicon from the development corpus."""
        self.lexicon = idf_lexicon(texts, self.min_df, self.max_df)

    def _lexicon_terms(self, text: str) -> set[str]:
        if self.lexicon is None:
            raise NotFittedError(self.name)
        return {t for t in terms(text) if t in self.lexicon}


class IMatch(_LexiconMethod):
    """Single-lexicon I-Match. Signature: SHA-1 digest, or ``None`` without lexicon terms."""

    name = "i-match"

    def __init__(self, min_df: int = 2, max_df: float = 0.1) -> None:
        super().__init__(min_df=min_df, max_df=max_df)

    def signature(self, text: str) -> bytes | None:
        return _sha1(self._lexicon_terms(text))

    def score(self, a: bytes | None, b: bytes | None) -> float:
        """1.0 for equal signatures, else 0.0 (I-Match has no graded similarity)."""
        return float(self.similar(a, b))

    def similar(self, a: bytes | None, b: bytes | None) -> bool:
        return a is not None and a == b

    def candidates(self, signatures: Mapping[str, bytes | None]) -> set[tuple[str, str]]:
        """Pairs with equal signatures, found by hashing the signatures."""
        return _hash_pairs({k: (v,) for k, v in signatures.items()})


class MultiLexiconIMatch(_LexiconMethod):
    """I-Match with the main lexicon plus ``extra`` randomised lexicons.

    Extra lexicon ``i`` drops each main-lexicon term with probability ``drop`` (decided by 16
    bits of a seeded hash of the term, so lexicons are reproducible without being stored). Signature: a
    tuple of one digest per lexicon, or ``None`` when no lexicon term occurs.
    """

    name = "i-match-multi"

    def __init__(
        self,
        min_df: int = 2,
        max_df: float = 0.1,
        extra: int = 10,
        drop: float = 0.2,
        seed: int = 1,
    ) -> None:
        super().__init__(min_df=min_df, max_df=max_df)
        if not 1 <= extra <= 32:
            raise ConfigError(f"extra must be in [1, 32], got {extra}")
        if not 0.0 < drop < 1.0:
            raise ConfigError(f"drop must be in (0, 1), got {drop}")
        self.extra, self.drop, self.seed = extra, drop, seed
        self._key = str(seed).encode()
        self._cache: dict[str, tuple[bool, ...]] = {}

    def __repr__(self) -> str:
        return (
            f"MultiLexiconIMatch(min_df={self.min_df}, max_df={self.max_df}, "
            f"extra={self.extra}, drop={self.drop}, seed={self.seed})"
        )

    def _membership(self, term: str) -> tuple[bool, ...]:
        """For each extra lexicon, whether it keeps ``term`` (one 16-bit hash per lexicon)."""
        kept = self._cache.get(term)
        if kept is None:
            digest = hashlib.blake2b(
                term.encode("utf-8"), digest_size=2 * self.extra, key=self._key
            ).digest()
            cut = self.drop * 65536
            kept = tuple(
                int.from_bytes(digest[2 * i : 2 * i + 2], "big") >= cut for i in range(self.extra)
            )
            self._cache[term] = kept
        return kept

    def signature(self, text: str) -> tuple[bytes | None, ...] | None:
        found = self._lexicon_terms(text)
        if not found:
            return None
        member = {t: self._membership(t) for t in found}
        extra = (_sha1(t for t in found if member[t][i]) for i in range(self.extra))
        return (_sha1(found), *extra)

    def score(
        self, a: tuple[bytes | None, ...] | None, b: tuple[bytes | None, ...] | None
    ) -> float:
        """Fraction of lexicons on which the two signatures agree."""
        if a is None or b is None:
            return 0.0
        return sum(x is not None and x == y for x, y in zip(a, b, strict=True)) / len(a)

    def similar(
        self, a: tuple[bytes | None, ...] | None, b: tuple[bytes | None, ...] | None
    ) -> bool:
        return self.score(a, b) > 0.0

    def candidates(
        self, signatures: Mapping[str, tuple[bytes | None, ...] | None]
    ) -> set[tuple[str, str]]:
        """Pairs agreeing on at least one lexicon's signature (one hash table per lexicon)."""
        return _hash_pairs(signatures)
