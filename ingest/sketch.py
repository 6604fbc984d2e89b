"""The count-min sketch of the chrome counts: the cells of a key, and the sketch in memory.

A sketch is ``depth`` rows of ``width`` 32-bit counters. A key (a 64-bit line hash) has one
cell a row, given by the row's multiplier (:data:`MULTIPLIERS`) and one bucket function,
:func:`cells` — written once, in ``neardup.ingest._sketch_py`` (the reference, which owns the
documentation), with its compiled twin ``neardup.ingest._sketch`` beside it;
``NEARDUP_IMPL`` chooses, once, at import, as for every twin
(:func:`neardup.verifier.implementation.select`). Two sketches use the same cells: the
in-memory :class:`SketchCounter` here, and the one the pipeline keeps in Redis
(:class:`neardup.ingest.workers.chrome_counts.RedisSketch`, whose script arguments are
:func:`cells_text`), so for the same pages the two hold the same counts.
"""

from __future__ import annotations

import operator
from array import array
from collections.abc import Iterable
from types import ModuleType

from neardup.verifier.implementation import select

__all__ = [
    "IMPLEMENTATION",
    "MAX_COUNT",
    "MULTIPLIERS",
    "SketchCounter",
    "cells",
    "cells_text",
    "multipliers",
]

COMPILED = "neardup.ingest._sketch"
REFERENCE = "neardup.ingest._sketch_py"

#: One odd 64-bit multiplier a row (so at most six rows).
MULTIPLIERS = (0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9,
               0xD6E8FEB86659FD93, 0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53)
MAX_COUNT = 0xFFFFFFFF  # a cell saturates here

# The twin in use (``NEARDUP_IMPL``), chosen once, at import.
_impl: ModuleType = select(COMPILED, REFERENCE)
IMPLEMENTATION: str = _impl.IMPLEMENTATION
cells = _impl.cells
cells_text = _impl.cells_text
_add_counts = _impl.add_counts


def multipliers(width: int, depth: int) -> tuple[int, ...]:
    """The multipliers of a sketch of ``depth`` rows of ``width`` cells; ``ValueError`` for
    a shape no sketch has."""
    if width < 1 or not 1 <= depth <= len(MULTIPLIERS):
        raise ValueError(f"width >= 1 and 1 <= depth <= {len(MULTIPLIERS)}")
    return MULTIPLIERS[:depth]


class SketchCounter:
    """Count-min sketch: ``depth`` rows of ``width`` 32-bit counters (``4 * width * depth``
    bytes). :meth:`get` never under-counts; it over-counts only where every row's cell is
    shared with other keys.

    ``conservative`` (the default) raises only the cells at the key's current minimum: tighter
    counts, but they depend on the order of the additions. Without it every cell of the key
    grows (plain count-min): the counts are sums, the same for any order, and two sketches of
    the same shape :meth:`merge` into the sketch of all their additions."""

    def __init__(self, width: int = 1 << 22, depth: int = 4, conservative: bool = True) -> None:
        self._mults = multipliers(width, depth)
        self.width, self.depth, self.conservative = width, depth, conservative
        self._rows = [array("I", [0]) * width for _ in range(depth)]

    def add(self, key: int, n: int = 1) -> None:
        rows = self._rows
        found = cells(key, self._mults, self.width)
        if not self.conservative:
            cap = MAX_COUNT
            for row, c in zip(rows, found, strict=True):
                v = row[c] + n
                row[c] = v if v < cap else cap
            return
        new = min(min(row[c] for row, c in zip(rows, found, strict=True)) + n, MAX_COUNT)
        for row, c in zip(rows, found, strict=True):
            if row[c] < new:
                row[c] = new

    def add_counts(self, items: Iterable[tuple[int, int]]) -> None:
        """:meth:`add` each ``(key, n)``, ``n >= 0``, in one compiled loop (a plain sketch:
        the counts are sums, so adding them together is adding them in turn)."""
        if self.conservative:
            for key, n in items:
                self.add(key, n)
            return
        _add_counts(self._rows, items, self._mults, self.width)

    def get(self, key: int) -> int:
        best = MAX_COUNT
        for row, c in zip(self._rows, cells(key, self._mults, self.width), strict=True):
            v = row[c]
            if v < best:
                best = v
        return best

    def merge(self, other: SketchCounter) -> None:
        """Add ``other``'s counts (plain sketches of one shape only)."""
        if self.conservative or other.conservative or \
                (self.width, self.depth) != (other.width, other.depth):
            raise ValueError("only plain (not conservative) sketches of one shape merge")
        cap = MAX_COUNT
        for i, (mine, theirs) in enumerate(zip(self._rows, other._rows, strict=True)):
            try:
                self._rows[i] = array("I", map(operator.add, mine, theirs))
            except OverflowError:
                self._rows[i] = array("I", (min(a + b, cap) for a, b in zip(mine, theirs,
                                                                              strict=True)))
