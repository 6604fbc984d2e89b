"""Pure-Python reference of the count-min sketch's cells: where a key lands in each row.

This module is the specification: :mod:`neardup.ingest._sketch` (Cython) has the same API and
must give the same results; :mod:`neardup.ingest.sketch` picks one of the two
(``NEARDUP_IMPL``). Keep both in step.

A key is a 64-bit integer (a line's hash, :func:`neardup.ingest.chrome.page_hashes`). Its cell
in the row of multiplier ``m`` (an odd 64-bit constant, one a row) is the bucket
``(h ^ (h >> 29)) % width`` of ``h = key * m mod 2**64``: the multiplication spreads the key's
bits upwards and the shift folds the high bits back down, so rows of different multipliers
are independent enough for a count-min sketch.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence

__all__ = ["IMPLEMENTATION", "add_counts", "cells", "cells_text"]

IMPLEMENTATION = "python"

_MASK64 = 0xFFFFFFFFFFFFFFFF


def cells(key: int, mults: Sequence[int], width: int) -> list[int]:
    """The cell of ``key`` in each row, one a multiplier of ``mults``: the bucket function.

    >>> cells(1, [3, 5], 7)
    [3, 5]
    """
    out = []
    for m in mults:
        h = (key * m) & _MASK64
        out.append((h ^ (h >> 29)) % width)
    return out


def cells_text(keys: Iterable[int], mults: Sequence[int], width: int) -> str:
    """The cells of each of ``keys`` (0 skipped: a blank line) as offsets from the start of
    the sketch's rows laid end to end (``row * width + cell``), as one string of decimal
    numbers separated by spaces: one argument of a Redis script, not one a cell.

    >>> cells_text([1, 0, 2], [3, 5], 7)
    '3 12 6 10'
    """
    return " ".join(str(row * width + c) for key in keys if key
                    for row, c in enumerate(cells(key, mults, width)))


def add_counts(rows: Sequence[array[int]], items: Iterable[tuple[int, int]],
               mults: Sequence[int], width: int) -> None:
    """Add each ``(key, n)`` of ``items`` to every row's cell of the key (``rows``: one
    ``array("I")`` of ``width`` cells a multiplier), each cell saturating at ``2**32 - 1``: a
    plain count-min sketch's additions, many at a time. ``n`` must not be negative.

    >>> rows = [array("I", [0] * 7), array("I", [0] * 7)]
    >>> add_counts(rows, [(1, 2), (2, 1)], [3, 5], 7)
    >>> rows[0].tolist(), rows[1].tolist()
    ([0, 0, 0, 2, 0, 0, 1], [0, 0, 0, 1, 0, 2, 0])
    """
    if len(rows) != len(mults):
        raise ValueError("one row a multiplier")
    if any(len(row) != width for row in rows):
        raise ValueError("rows of width cells")
    cap = 0xFFFFFFFF
    for key, n in items:
        if n < 0:
            raise ValueError("counts are added, not taken")
        for row, c in zip(rows, cells(key, mults, width), strict=True):
            row[c] = min(row[c] + n, cap)
