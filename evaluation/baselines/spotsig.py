"""SpotSig (Theobald, Siddharth, Paepcke 2008).

Source 001: in the body of a news article stop words occur evenly and often; in navigation
bars, link lists and ads they hardly occur. A *spot signature* starts at an antecedent (a stop
word, the anchor) and takes the next ``chain`` tokens that are not stop words, e.g.
``a:rally:kick`` (the ``to`` in between is skipped). A document is its set of spot signatures;
similarity is their Jaccard coefficient. For lookup, documents are grouped by the size of
their signature set (two sets whose sizes differ by more than a factor τ cannot reach
Jaccard τ) and each group is searched through an inverted index.

Stop words are not a hand-written list: :meth:`SpotSig.fit` takes the most frequent words of
the development corpus (and, for Chinese, the most frequent Han characters — the function
characters 的, 了, 在, 是, …); the ``anchors`` most frequent are the antecedents, the
``stopwords`` most frequent are skipped inside a chain.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping

from neardup.evaluation.baselines._text import frequent_tokens, tokens
from neardup.evaluation.baselines.errors import NotFittedError
from neardup.ingest.errors import ConfigError

__all__ = ["SpotSig", "jaccard", "spot_signatures"]


def spot_signatures(
    toks: list[str], anchors: frozenset[str], stopwords: frozenset[str], chain: int
) -> frozenset[str]:
    """Spot signatures ``anchor:t1:…:tchain`` of a token sequence.

    An anchor followed by fewer than ``chain`` non-stop tokens yields no spot.

    >>> sorted(spot_signatures("a rally to kick off the game".split(),
    ...                        frozenset({"a", "the"}), frozenset({"a", "the", "to"}), 2))
    ['a:rally:kick']
    """
    spots: set[str] = set()
    for i, tok in enumerate(toks):
        if tok not in anchors:
            continue
        follow: list[str] = []
        for nxt in toks[i + 1 :]:
            if nxt not in stopwords:
                follow.append(nxt)
                if len(follow) == chain:
                    spots.add(":".join([tok, *follow]))
                    break
    return frozenset(spots)


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """|A ∩ B| / |A ∪ B| (0.0 when both are empty)."""
    union = len(a | b)
    return len(a & b) / union if union else 0.0


class SpotSig:
    """SpotSig with corpus-derived antecedents; similar when Jaccard ≥ ``tau``.

    A signature is ``None`` for a text without spots (e.g. navigation text only): it is
    similar to nothing.
    """

    name = "spotsig"

    def __init__(
        self,
        tau: float = 0.4,
        chain: int = 3,
        anchors: int = 10,
        stopwords: int = 50,
        han_anchors: int = 10,
        han_stopwords: int = 20,
    ) -> None:
        if not 0.0 < tau <= 1.0:
            raise ConfigError(f"tau must be in (0, 1], got {tau}")
        if chain < 1:
            raise ConfigError(f"chain must be ≥ 1, got {chain}")
        if not (1 <= anchors <= stopwords and 1 <= han_anchors <= han_stopwords):
            raise ConfigError("need 1 ≤ anchors ≤ stopwords (for words and for Han characters)")
        self.tau, self.chain = tau, chain
        self.n_anchors, self.n_stopwords = anchors, stopwords
        self.n_han_anchors, self.n_han_stopwords = han_anchors, han_stopwords
        self.anchors: frozenset[str] | None = None
        self.stopwords: frozenset[str] | None = None

    def __repr__(self) -> str:
        return (
            f"SpotSig(tau={self.tau}, chain={self.chain}, anchors={self.n_anchors}, "
            f"stopwords={self.n_stopwords}, han_anchors={self.n_han_anchors}, "
            f"han_stopwords={self.n_han_stopwords})"
        )

    def fit(self, texts: Iterable[str]) -> None:
        """Take antecedents and stop words from the corpus's most frequent tokens."""
        texts = list(texts)
        self.stopwords = frequent_tokens(texts, self.n_stopwords, self.n_han_stopwords)
        self.anchors = frequent_tokens(texts, self.n_anchors, self.n_han_anchors)

    def signature(self, text: str) -> frozenset[str] | None:
        if self.anchors is None or self.stopwords is None:
            raise NotFittedError(self.name)
        spots = spot_signatures(tokens(text), self.anchors, self.stopwords, self.chain)
        return spots or None

    def score(self, a: frozenset[str] | None, b: frozenset[str] | None) -> float:
        if a is None or b is None:
            return 0.0
        return jaccard(a, b)

    def similar(self, a: frozenset[str] | None, b: frozenset[str] | None) -> bool:
        return self.score(a, b) >= self.tau

    def candidates(self, signatures: Mapping[str, frozenset[str] | None]) -> set[tuple[str, str]]:
        """Pairs with Jaccard ≥ ``tau``: length partitioning plus an inverted index.

        Documents are visited by increasing signature size; a document of size ``s`` is only
        matched against already indexed documents of size ≥ ``tau · s`` (smaller ones cannot
        reach Jaccard ``tau``), and only those sharing at least one spot (inverted index).
        """
        order = sorted(
            ((k, v) for k, v in signatures.items() if v is not None), key=lambda kv: len(kv[1])
        )
        index: dict[str, list[str]] = defaultdict(list)
        size: dict[str, int] = {}
        pairs: set[tuple[str, str]] = set()
        for doc_id, spots in order:
            floor = self.tau * len(spots)
            overlap: Counter[str] = Counter()
            for spot in spots:
                overlap.update(other for other in index[spot] if size[other] >= floor)
            for other, inter in overlap.items():
                if inter / (len(spots) + size[other] - inter) >= self.tau:
                    pairs.add((doc_id, other) if doc_id < other else (other, doc_id))
            size[doc_id] = len(spots)
            for spot in spots:
                index[spot].append(doc_id)
        return pairs
