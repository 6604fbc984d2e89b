"""Re-deciding the pages whose groups may have changed: an update, a delete, a new chrome mask.

The groups are the connected components of the joining candidate pairs
(:mod:`neardup.verifier.grouping`). Adding a page only merges components, so the pipeline
builds them incrementally. A page that changes (a new version, a new chrome mask) or goes
can also *split* its component, and a component of union-find cannot be taken apart. But it
can be decided again, because a component is closed: no joining pair links a member to a page
outside it. So when the pages ``changed`` (new texts) and ``removed`` change, the pages whose
membership may move are exactly the members of the components that held any of them:

* ``R`` — every member of those components (``changed`` in their new versions, ``removed``
  left out) — starts again as one page a group;
* every other page keeps its component (its pairs with other such pages did not change);
* each page of ``R`` is verified against its candidates in both directions — the earlier page
  of a pair, by ``(seq, id)``, is the one verified against, as when pages arrive — skipping a
  candidate already in its group, and the pairs that join are unions.

The result is the partition that deciding every page from scratch gives (``neardup dedup`` on
the pages present), when no page has more than ``k`` candidates: the pairs inside ``R`` and
between ``R`` and the rest are verified again, the others are as they were.

:func:`affected` and :func:`redecide` are that rule, pure: the in-memory index
(:mod:`neardup.ingest.incremental`) and the workers' repairs
(:mod:`neardup.ingest.workers.repair`) give them their pages, candidates and groups.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass

__all__ = ["Edge", "affected", "redecide"]

OrderKey = tuple[int, str]


@dataclass(frozen=True, slots=True)
class Edge:
    """A joining pair found again: ``later`` was verified against ``earlier``."""

    later: str
    earlier: str
    resemble: float
    contain: float


def affected(
    touched: Iterable[str],
    group_of: Callable[[str], str | None],
    members: Callable[[Collection[str]], Iterable[str]],
    removed: Collection[str] = (),
) -> set[str]:
    """The pages to decide again when ``touched`` pages changed or went: every member of the
    groups that held them (``group_of``: a page's group now, None for a page no group holds;
    ``members``: the pages of those groups), the touched pages themselves, less ``removed``."""
    touched = set(touched)
    groups = {g for g in map(group_of, touched) if g is not None}
    out = set(members(groups)) | groups | touched
    return out - set(removed)


def redecide(
    pages: Iterable[str],
    order: Mapping[str, OrderKey] | Callable[[str], OrderKey],
    candidates: Callable[[str], Iterable[str]],
    root: Callable[[str], str],
    verify: Callable[[str, str], tuple[bool, float, float] | None],
) -> list[Edge]:
    """The joining pairs of ``pages`` (the ``R`` of :func:`affected`, each one group again).

    ``candidates(p)``: the pages sharing a usable fingerprint with ``p`` (any order);
    ``root(q)``: the group of a page outside ``pages`` now; ``verify(later, earlier)``:
    ``(joins, resemble, contain)``, or None for a pair that cannot be verified (a candidate
    gone). Pages are taken in ``order`` (``(seq, id)``); a candidate already in the page's
    group is skipped (the pair cannot change the components)."""
    key = order.__getitem__ if isinstance(order, Mapping) else order
    todo = sorted(set(pages), key=key)
    mine = set(todo)
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        if x not in parent:
            parent[x] = x if x in mine else root(x)
            if parent[x] != x:
                parent.setdefault(parent[x], parent[x])
        r = x
        while parent[r] != r:
            r = parent[r]
        while parent[x] != r:
            parent[x], x = r, parent[x]
        return r

    edges: list[Edge] = []
    for p in todo:
        kp = key(p)
        for c in sorted(set(candidates(p)) - {p}, key=key):
            if find(c) == find(p):
                continue
            later, earlier = (p, c) if kp > key(c) else (c, p)
            verdict = verify(later, earlier)
            if verdict is None:
                continue
            joined, resemble, contain = verdict
            if joined:
                edges.append(Edge(later, earlier, resemble, contain))
                a, b = find(p), find(c)
                first, second = (a, b) if key(a) <= key(b) else (b, a)
                parent[second] = first
    return edges
