"""Which verified pairs form groups, and the group forest: pure rules, no I/O.

The paper reads documents in order and compares each with the first document of every subset
formed so far (leader clustering, §3.3). That answer depends on the order the pages arrive in,
and a pipeline fed by several ingesters, in batches, to several workers has no one order. So
the groups are defined on the pages alone:

* Two pages are *candidates* when they share a usable fingerprint (same ``fp_config``, not
  stoplisted); a page's candidates are ranked by shared count, then ``(seq, id)``, and at most
  ``k`` are verified.
* A candidate pair *joins* when the verifier calls it similar (:func:`joins`).
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

__all__ = ["GROUPED", "GroupForest", "VerdictLike", "joins"]

PENDING = "pending"
GROUPED = "grouped"
ERROR = "error"

OrderKey = tuple[int, str]

class VerdictLike(Protocol):
    """What :func:`joins` needs from :func:`neardup.verifier.compare.compare`'s ``Verdict``."""

    @property
    def similar(self) -> bool: ...

    @property
    def resemble(self) -> float: ...

    @property
    def contain(self) -> float: ...


def joins(verdict: VerdictLike) -> bool:
    """Whether a verified pair puts its two pages in one group: the verifier's verdict.

    Stricter rules were measured (docs/workers.md, "Which pairs join"): asking a similar pair
    for a TLCS resemble of 0.4 as well kept one chain of rewritten news stories apart on the
    Webis pages, but also split HTML pages from their reST sources and a third of the
    synthetic corpora's paraphrased pairs.

    >>> from types import SimpleNamespace as V
    >>> joins(V(similar=True, resemble=0.3, contain=0.6))
    True
    >>> joins(V(similar=False, resemble=0.9, contain=0.9))
    False
    """
    return bool(verdict.similar)


@dataclass(slots=True)
class GroupForest:
    """Union-find whose root is always the earliest ``(seq, id)`` of its component.

    The in-memory twin of the group forest the workers keep in Redis
    (:mod:`neardup.ingest.workers.forest`): ``neardup dedup`` and the tests use it.
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
