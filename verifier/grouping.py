"""Which verified pairs form groups, and the group forest: pure rules, no I/O.

The paper reads documents in order and compares each with the first document of every subset
formed so far (leader clustering, §3.3). That answer depends on the order the pages arrive in,
and a pipeline fed by several ingesters, in batches, to several workers has no one order. So
the groups are defined on the pages alone:

* Two pages are *candidates* when they share a usable fingerprint (same ``fp_config``, not
  stoplisted); a page's candidates are ranked by shared count, then ``(seq, id)``, and at most
  ``k`` are verified.
* A candidate pair *joins* when the verifier calls it similar with a strong match:
  ``resemble`` ≥ :data:`JOIN_RESEMBLE` or ``contain`` ≥ :data:`JOIN_CONTAIN`
  (:func:`joins`). A similar pair below both (a borderline rewrite) is reported by
  ``neardup compare`` but does not chain groups together: people do not judge "similar"
  transitively, and one borderline page would join two groups that are not alike.
* The groups are the connected components of the joining pairs; a group's id (``dup_group``)
  is its earliest member by ``(seq, id)`` — ``seq`` is the order of acceptance.

The partition is a function of the set of pages (and the stoplist, and ``k`` when a page has
more candidates): not of the number of workers, the batches, the ingesters or the arrival
order. Components only grow, so a pipeline can build them incrementally — verify each new page
against its candidates, skip a candidate already in its group (that pair cannot change the
components), join — and a page's group changes only by merges. The group *id* is the earliest
member in the order the pages were accepted; a single ingester gives the same ids as
``neardup dedup`` on the same file.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

__all__ = ["GROUPED", "JOIN_CONTAIN", "JOIN_RESEMBLE", "GroupForest", "VerdictLike", "joins"]

PENDING = "pending"
GROUPED = "grouped"
ERROR = "error"

OrderKey = tuple[int, str]

#: A similar pair joins groups when it resembles at least this much (measured in
#: docs/workers.md, "Which pairs join").
JOIN_RESEMBLE = 0.4
#: ... or when one page holds this much of the other.
JOIN_CONTAIN = 0.8


class VerdictLike(Protocol):
    """What :func:`joins` needs from :func:`verifier.compare.compare`'s ``Verdict``."""

    @property
    def similar(self) -> bool: ...

    @property
    def resemble(self) -> float: ...

    @property
    def contain(self) -> float: ...


def joins(
    verdict: VerdictLike, resemble: float = JOIN_RESEMBLE, contain: float = JOIN_CONTAIN
) -> bool:
    """Whether a verified pair puts its two pages in one group.

    >>> from types import SimpleNamespace as V
    >>> joins(V(similar=True, resemble=0.9, contain=0.95))
    True
    >>> joins(V(similar=True, resemble=0.35, contain=0.6))   # a borderline rewrite
    False
    >>> joins(V(similar=True, resemble=0.2, contain=0.97))   # one page holds the other
    True
    >>> joins(V(similar=False, resemble=0.9, contain=0.9))
    False
    """
    return bool(verdict.similar) and (
        float(verdict.resemble) >= resemble or float(verdict.contain) >= contain
    )


@dataclass(slots=True)
class GroupForest:
    """Union-find whose root is always the earliest ``(seq, id)`` of its component.

    The in-memory twin of the group forest the workers keep in Redis
    (:mod:`verifier.registry`): ``neardup dedup`` and the tests use it.
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
