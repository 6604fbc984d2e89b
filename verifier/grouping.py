"""Leader clustering (paper §3.3) made deterministic for concurrent workers: pure decisions.

The paper reads documents in order and compares each with the *first document* (the
representative) of every subset formed so far; a document similar to none starts a subset.
Workers process documents concurrently, so the rule is restated so that each decision depends
only on decisions that are already final:

* Order: documents are ordered by ``(seq, id)`` — ``seq`` is the ingest sequence.
* ``P(d)``: ``d``'s candidates (top-k by shared fingerprints) that come *before* ``d``.
* ``R(d)``: the representatives ``d`` is compared with — every representative in ``P(d)``,
  and for every other member of ``P(d)`` the representative it was verified against
  (``dup_of``). Documents in error are ignored.
* ``S(d)``: the members of ``R(d)`` that ``d`` is similar to. Empty → ``d`` is a
  representative. Otherwise ``d`` is a duplicate of the one it resembles most (``dup_of``,
  scores; ties go to the earliest).
* ``B(d)``: ``dup_of`` and the other members of ``S(d)`` that ``d`` resembles strongly
  (resemble ≥ :data:`BRIDGE_RESEMBLE`). When ``B(d)`` holds more than one representative ``d``
  *bridges* their groups: they merge. A weaker second match does not merge two groups: people
  do not judge "similar" transitively (a rewritten news story can be close to two versions that
  are not close to each other), and one borderline page would otherwise chain them together.
* Groups are the connected components of the edges ``d — r`` for ``r`` in ``B(d)``; a group's
  id (``dup_group``) is its earliest member, always a representative.

``dup_of`` is never changed once written (merges rewrite ``dup_group`` only), so a decision is a
function of the decisions of ``P(d)`` alone: a worker may decide ``d`` as soon as no document
of ``P(d)`` is pending, whatever else is still running, and the result is the same for any
worker count, task order, retry or redelivery. This module holds that logic with no I/O;
:mod:`verifier.tasks` (OpenSearch) and :mod:`ingest.commands.dedup` (embedded) both call it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

__all__ = [
    "BRIDGE_RESEMBLE",
    "Decision",
    "assign_groups",
    "GroupForest",
    "Peer",
    "VerdictLike",
    "decide",
    "pending_peers",
    "representatives",
]

PENDING = "pending"
GROUPED = "grouped"
ERROR = "error"

OrderKey = tuple[int, str]

#: A document merges the groups of two representatives only when it resembles both at least
#: this much (measured in docs/workers.md, "Why bridging needs a strong match").
BRIDGE_RESEMBLE = 0.5


class VerdictLike(Protocol):
    """What :func:`decide` needs from :func:`verifier.compare.compare`'s ``Verdict``."""

    @property
    def similar(self) -> bool: ...

    @property
    def resemble(self) -> float: ...

    @property
    def contain(self) -> float: ...


@dataclass(frozen=True, slots=True)
class Peer:
    """An earlier candidate of the document being decided, as far as the decision cares.

    ``dup_of`` is None for a representative; ``dup_of_seq`` is the seq of ``dup_of``.
    """

    id: str
    seq: int
    status: str = GROUPED
    dup_of: str | None = None
    dup_of_seq: int | None = None

    @property
    def key(self) -> OrderKey:
        return (self.seq, self.id)


@dataclass(frozen=True, slots=True)
class Decision:
    """The outcome for one document.

    ``wait_for`` non-empty means "not yet": those earlier candidates are still pending.
    Otherwise ``similar_reps`` is ``B(d)``: ``dup_of`` (the representative the document
    resembles most) first, then the other representatives whose groups it bridges, earliest
    first.
    """

    wait_for: tuple[str, ...] = ()
    dup_of: str | None = None
    resemble: float | None = None
    contain: float | None = None
    similar_reps: tuple[str, ...] = ()
    compared: int = 0

    @property
    def ready(self) -> bool:
        return not self.wait_for

    @property
    def is_representative(self) -> bool:
        return self.ready and self.dup_of is None


def _before(key: OrderKey, peer: Peer) -> bool:
    return peer.key < key


def pending_peers(seq: int, doc_id: str, peers: Iterable[Peer]) -> list[str]:
    """Ids of earlier candidates that are still pending (the document must wait for them)."""
    key = (seq, doc_id)
    return sorted(p.id for p in peers if _before(key, p) and p.status == PENDING)


def representatives(seq: int, doc_id: str, peers: Iterable[Peer]) -> list[tuple[int, str]]:
    """``R(d)`` as ``(seq, id)`` pairs, earliest first, without duplicates.

    Later peers and peers in error are ignored; a pending peer contributes nothing (callers
    check :func:`pending_peers` first).
    """
    key = (seq, doc_id)
    reps: set[OrderKey] = set()
    for p in peers:
        if not _before(key, p) or p.status != GROUPED:
            continue
        if p.dup_of is None:
            reps.add(p.key)
        else:
            if p.dup_of_seq is None:
                raise ValueError(f"peer {p.id!r} has dup_of={p.dup_of!r} but no dup_of_seq")
            reps.add((p.dup_of_seq, p.dup_of))
    return sorted(reps)


def decide(
    seq: int,
    doc_id: str,
    peers: Sequence[Peer],
    compare_fn: Callable[[str], VerdictLike],
    *,
    bridge_resemble: float = BRIDGE_RESEMBLE,
) -> Decision:
    """Decide one document from its earlier candidates.

    ``compare_fn(rep_id)`` verifies the document against a representative. It is called for
    every representative of ``R(d)`` (earliest first), never when the decision must wait.
    """
    waiting = pending_peers(seq, doc_id, peers)
    if waiting:
        return Decision(wait_for=tuple(waiting))
    similar: list[tuple[str, float, float]] = []
    reps = representatives(seq, doc_id, peers)
    for _, rep_id in reps:
        verdict = compare_fn(rep_id)
        if verdict.similar:
            similar.append((rep_id, float(verdict.resemble), float(verdict.contain)))
    if not similar:
        return Decision(compared=len(reps))
    rep_id, resemble, contain = max(similar, key=lambda s: s[1])  # the first of equals
    bridged = tuple(r for r, res, _ in similar if r != rep_id and res >= bridge_resemble)
    return Decision(
        dup_of=rep_id,
        resemble=resemble,
        contain=contain,
        similar_reps=(rep_id, *bridged),
        compared=len(reps),
    )


@dataclass(slots=True)
class GroupForest:
    """Union-find over representatives whose root is always the earliest ``(seq, id)``.

    The in-memory twin of the write-back on OpenSearch (where a merged representative's
    ``dup_group`` is the parent pointer): the embedded backend and the tests use it.
    """

    _parent: dict[str, str] = field(default_factory=dict)
    _key: dict[str, OrderKey] = field(default_factory=dict)

    def add(self, doc_id: str, seq: int) -> None:
        self._parent.setdefault(doc_id, doc_id)
        self._key[doc_id] = (seq, doc_id)

    def find(self, doc_id: str) -> str:
        root = doc_id
        while self._parent[root] != root:
            root = self._parent[root]
        while self._parent[doc_id] != root:  # path compression
            self._parent[doc_id], doc_id = root, self._parent[doc_id]
        return root

    def union(self, ids: Iterable[str]) -> str:
        """Merge the groups of ``ids``; returns the surviving root (the earliest)."""
        roots = {self.find(i) for i in ids}
        if not roots:
            raise ValueError("union of nothing")
        target = min(roots, key=self._key.__getitem__)
        for r in roots:
            self._parent[r] = target
        return target


def assign_groups(
    order: Sequence[tuple[str, int]], decisions: Mapping[str, Decision]
) -> dict[str, str]:
    """``dup_group`` of every decided document: the components of the ``d — S(d)`` edges.

    ``order`` is ``(id, seq)`` of the documents; documents without a decision (errors) are
    left out. Independent of the order in which decisions were made.
    """
    forest = GroupForest()
    for doc_id, seq in order:
        if doc_id in decisions:
            forest.add(doc_id, seq)
    for doc_id, _ in order:
        d = decisions.get(doc_id)
        if d is not None and d.similar_reps:
            forest.union((doc_id, *d.similar_reps))
    return {doc_id: forest.find(doc_id) for doc_id, _ in order if doc_id in decisions}
