"""DWDCS: near-duplicate detection by key concepts of a concept co-occurrence small-world
network and their positions (Cao, Niu, Zhao, Peng, Journal of Software 22(8), 2011; source 004).

Steps of source 004, as implemented here:

1. §3.2.1 concept merging. Each content word is reduced to its WordNet base form; its concept
   ``Con(t)`` is the set of its WordNet synonyms. Two words of a document with
   ``Rel = |Con(t1) ∩ Con(t2)| / ((|Con(t1)| + |Con(t2)|) / 2) > rel_threshold`` are one
   concept (merged transitively). A concept is labelled by its members' most frequent WordNet
   sense, so the same concept gets the same label in every document.
2. §3.2.2 the co-occurrence graph: concepts occurring more than once are the nodes (all
   concepts for texts too short to give ``key_concepts`` such nodes); concepts at most 2
   apart in the text are linked; only the largest connected component is kept.
3. §3.3 key concepts: of the ``hubs`` highest-degree nodes (scale-free networks are run by
   their hubs), each node's contribution ``CB_i = d(G − i) − d(G)`` to the average shortest
   path length ``d`` is computed; the ``key_concepts`` largest are the document's key concepts.
4. §3.4–3.5 the decision: cosine of the key concepts' frequency vectors ≥ ``cosine``; then the
   position check: for each shared key concept the differences of its j-th occurrence
   positions, their standard deviation ``S_i``, and ``S = mean(S_i) < spread``.

Deviations (docs/baselines.md): no phrase recognition (single words); stop words are the
development corpus's most frequent tokens (:meth:`DWDCS.fit`); positions are relative
(occurrence index / number of concept occurrences) so ``spread`` does not depend on page
length; unreachable pairs after removing a node count with distance N (the component size),
so a node whose removal splits the network contributes most; the graph is capped at
``max_nodes`` most frequent concepts to bound the cost. Chinese has no WordNet: Han text uses
character bigrams (without stop characters) as concepts, unmerged.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import regex
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components, shortest_path

from neardup.evaluation.baselines._text import frequent_tokens
from neardup.evaluation.baselines.errors import NotFittedError
from neardup.evaluation.baselines.wordnet import WordNet, load_wordnet
from neardup.ingest.errors import ConfigError

__all__ = ["DWDCS", "ConceptVector", "key_concepts"]

_RUN = regex.compile(r"(\p{Han}+)|([^\W\p{Han}]+)")
_ALPHA = regex.compile(r"^[a-z]+$")


@dataclass(frozen=True, slots=True)
class ConceptVector:
    """A document's key concepts (by contribution, largest first), their frequencies and
    relative positions of their occurrences (the position-aware feature vector of §3.4)."""

    concepts: tuple[str, ...]
    freq: Mapping[str, int]
    positions: Mapping[str, tuple[float, ...]]


def _avg_path_length(dist: np.ndarray, penalty: float) -> float:
    """Mean shortest-path length over ordered pairs; unreachable pairs count as ``penalty``."""
    n = dist.shape[0]
    if n < 2:
        return 0.0
    finite = np.where(np.isinf(dist), penalty, dist)
    return float(finite.sum() / (n * (n - 1)))


def key_concepts(
    sequence: list[str], n_keys: int, hubs: int, max_nodes: int, min_freq: int = 2
) -> list[str]:
    """The key concepts of a concept sequence (§3.2.2–3.3), largest contribution first."""
    freq = Counter(sequence)
    nodes = [c for c, f in freq.items() if f >= min_freq]
    if len(nodes) < n_keys:  # short text: every concept is a node
        nodes = list(freq)
    nodes = sorted(nodes, key=lambda c: (-freq[c], c))[:max_nodes]
    ids = {c: i for i, c in enumerate(nodes)}
    occurrences = [ids[c] for c in sequence if c in ids]
    rows: list[int] = []
    cols: list[int] = []
    for i, a in enumerate(occurrences):
        for b in occurrences[i + 1 : i + 3]:  # distance ≤ 2
            if a != b:
                rows.append(a)
                cols.append(b)
    n = len(nodes)
    if n == 0:
        return []
    adj = coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n)).tocsr()
    adj = ((adj + adj.T) > 0).astype(np.float64)
    _, labels = connected_components(adj, directed=False)
    main = np.flatnonzero(labels == np.bincount(labels).argmax())
    graph = adj[main][:, main]
    size = len(main)
    names = [nodes[i] for i in main]
    if size <= 2:
        return sorted(names, key=lambda c: (-freq[c], c))[:n_keys]
    degree = np.asarray(graph.sum(axis=1)).ravel()
    base = _avg_path_length(shortest_path(graph, directed=False, unweighted=True), size)
    hub_idx = sorted(range(size), key=lambda i: (-degree[i], -freq[names[i]], names[i]))[:hubs]
    contribution: dict[str, float] = {}
    keep = np.ones(size, dtype=bool)
    for i in hub_idx:
        keep[i] = False
        sub = graph[keep][:, keep]
        keep[i] = True
        dist = shortest_path(sub, directed=False, unweighted=True)
        contribution[names[i]] = _avg_path_length(dist, size) - base
    ranked = sorted(contribution, key=lambda c: (-contribution[c], -freq[c], c))
    return ranked[:n_keys]


class DWDCS:
    """DWDCS with WordNet concept merging (``use_wordnet=False``: words are concepts).

    A signature is a :class:`ConceptVector`, or ``None`` for a text without content words.
    """

    name = "dwdcs"

    def __init__(
        self,
        cosine: float = 0.9,
        spread: float = 0.2,
        key_concepts: int = 20,
        hubs: int = 30,
        rel_threshold: float = 0.35,
        stopwords: int = 100,
        han_stopwords: int = 20,
        query_concepts: int = 5,
        max_nodes: int = 300,
        use_wordnet: bool = True,
        wordnet_dir: str | None = None,
    ) -> None:
        if not 0.0 < cosine <= 1.0:
            raise ConfigError(f"cosine must be in (0, 1], got {cosine}")
        if spread <= 0.0:
            raise ConfigError(f"spread must be > 0, got {spread}")
        if not 1 <= key_concepts <= hubs <= max_nodes:
            raise ConfigError("need 1 ≤ key_concepts ≤ hubs ≤ max_nodes")
        if not 1 <= query_concepts <= key_concepts:
            raise ConfigError("need 1 ≤ query_concepts ≤ key_concepts")
        if not 0.0 <= rel_threshold < 1.0:
            raise ConfigError(f"rel_threshold must be in [0, 1), got {rel_threshold}")
        self.cosine, self.spread = cosine, spread
        self.n_keys, self.hubs, self.max_nodes = key_concepts, hubs, max_nodes
        self.rel_threshold = rel_threshold
        self.n_stopwords, self.n_han_stopwords = stopwords, han_stopwords
        self.query_concepts = query_concepts
        self.use_wordnet = use_wordnet
        # Fail here, with the installation hint, rather than on the first document.
        self.wordnet: WordNet | None = load_wordnet(wordnet_dir) if use_wordnet else None
        self.stopwords: frozenset[str] | None = None

    def __repr__(self) -> str:
        return (
            f"DWDCS(cosine={self.cosine}, spread={self.spread}, key_concepts={self.n_keys}, "
            f"hubs={self.hubs}, rel_threshold={self.rel_threshold}, "
            f"stopwords={self.n_stopwords}, han_stopwords={self.n_han_stopwords}, "
            f"query_concepts={self.query_concepts}, max_nodes={self.max_nodes}, "
            f"use_wordnet={self.use_wordnet})"
        )

    def fit(self, texts: Iterable[str]) -> None:
        """Take stop words (words and Han characters) from the corpus's most frequent tokens."""
        self.stopwords = frequent_tokens(texts, self.n_stopwords, self.n_han_stopwords)

    # -- §3.2.1 concepts ------------------------------------------------------------------

    def _units(self, text: str) -> list[str]:
        """Content units in text order: word base forms, and Han bigrams tagged ``"zh:"``."""
        stop = self.stopwords
        if stop is None:
            raise NotFittedError(self.name)
        wn = self.wordnet
        units: list[str] = []
        for m in _RUN.finditer(text):
            han, word = m.group(1), m.group(2)
            if han is not None:
                units.extend(
                    "zh:" + han[i : i + 2]
                    for i in range(len(han) - 1)
                    if han[i] not in stop and han[i + 1] not in stop
                )
                continue
            word = word.lower()
            if word in stop or len(word) < 2 or not _ALPHA.match(word):
                continue
            if wn is not None:
                word = wn.morphy(word) or word
            units.append(word)
        return units

    def _concept_labels(self, units: list[str]) -> dict[str, str]:
        """Map each distinct word to its concept label (Rel-based merging, union-find)."""
        words = sorted({u for u in units if not u.startswith("zh:")})
        wn = self.wordnet
        if wn is None:
            return {w: w for w in words}
        con = {w: wn.synonyms(w) for w in words}
        parent = {w: w for w in words}

        def find(x: str) -> str:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        holders: dict[str, list[str]] = defaultdict(list)
        for w in words:
            for s in con[w]:
                holders[s].append(w)
        tried: set[tuple[str, str]] = set()
        for group in holders.values():
            for i, a in enumerate(group):
                for b in group[i + 1 :]:
                    if (a, b) in tried:
                        continue
                    tried.add((a, b))
                    rel = len(con[a] & con[b]) / ((len(con[a]) + len(con[b])) / 2)
                    if rel > self.rel_threshold:
                        parent[find(a)] = find(b)
        members: dict[str, list[str]] = defaultdict(list)
        for w in words:
            members[find(w)].append(w)
        labels: dict[str, str] = {}
        for group in members.values():
            senses = [sid for sid in map(wn.first_sense, group) if sid is not None]
            # readable and document-independent: "car#n02958343" for car, auto, automobile
            label = f"{wn.synsets[min(senses)][0]}#{min(senses)}" if senses else min(group)
            for w in group:
                labels[w] = label
        return labels

    def signature(self, text: str) -> ConceptVector | None:
        units = self._units(text)
        if not units:
            return None
        labels = self._concept_labels(units)
        sequence = [labels.get(u, u) for u in units]
        keys = key_concepts(sequence, self.n_keys, self.hubs, self.max_nodes)
        keyset = set(keys)
        positions: dict[str, list[float]] = {k: [] for k in keys}
        n = len(sequence)
        for i, c in enumerate(sequence):
            if c in keyset:
                positions[c].append(i / n)
        return ConceptVector(
            concepts=tuple(keys),
            freq={k: len(positions[k]) for k in keys},
            positions={k: tuple(v) for k, v in positions.items()},
        )

    # -- §3.5 similarity ----------------------------------------------------------------

    def score(self, a: ConceptVector | None, b: ConceptVector | None) -> float:
        """Cosine of the key-concept frequency vectors (formula 9)."""
        if a is None or b is None:
            return 0.0
        dot = sum(f * b.freq.get(c, 0) for c, f in a.freq.items())
        norm = math.sqrt(sum(f * f for f in a.freq.values())) * math.sqrt(
            sum(f * f for f in b.freq.values())
        )
        return dot / norm if norm else 0.0

    @staticmethod
    def position_spread(a: ConceptVector, b: ConceptVector) -> float:
        """``S`` of formulas 10–13 over the shared key concepts (inf when none is shared)."""
        spreads = []
        for c in a.positions.keys() & b.positions.keys():
            deltas = np.subtract(
                a.positions[c][: len(b.positions[c])], b.positions[c][: len(a.positions[c])]
            )
            spreads.append(float(np.std(deltas)))
        return sum(spreads) / len(spreads) if spreads else math.inf

    def similar(self, a: ConceptVector | None, b: ConceptVector | None) -> bool:
        if a is None or b is None or self.score(a, b) < self.cosine:
            return False
        return self.position_spread(a, b) < self.spread

    def candidates(self, signatures: Mapping[str, ConceptVector | None]) -> set[tuple[str, str]]:
        """Inverted index of key concepts queried with each document's first
        ``query_concepts`` key concepts (§3.5 step 3); matches are kept when similar."""
        index: dict[str, list[str]] = defaultdict(list)
        for doc_id, sig in signatures.items():
            for c in sig.concepts if sig is not None else ():
                index[c].append(doc_id)
        pairs: set[tuple[str, str]] = set()
        for doc_id, sig in signatures.items():
            if sig is None:
                continue
            hits = {o for c in sig.concepts[: self.query_concepts] for o in index[c]}
            for other in hits:
                if other == doc_id:
                    continue
                pair = (doc_id, other) if doc_id < other else (other, doc_id)
                if pair not in pairs and self.similar(sig, signatures[other]):
                    pairs.add(pair)
        return pairs
