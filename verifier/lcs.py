"""The public door to the LCS machinery: the compiled implementation or the reference.

``neardup.verifier._lcs`` (Cython) is used when it is built; ``neardup.verifier._lcs_py`` is the
pure-Python reference with the same API. ``NEARDUP_IMPL`` chooses, once, at import, as for every
twin of neardup (:func:`neardup.verifier.implementation.select`): ``python`` forces the
reference, ``cython`` the compiled module (its absence is an error).

Edit scripts are derived here, in one place, from :func:`matching_blocks`.
"""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING, Literal

from neardup.verifier.implementation import bind, select

if TYPE_CHECKING:  # the twins' API, read in its specification (bound below, by bind)
    from neardup.verifier._lcs_py import (
        IMPLEMENTATION,
        lcs_length,
        matching_blocks,
        normalize,
        skeleton,
        skeleton_sizes,
        verify,
    )

__all__ = [
    "IMPLEMENTATION",
    "EditOp",
    "apply_edit_script",
    "edit_script",
    "edit_script_from_blocks",
    "format_edit_script",
    "implementation",
    "lcs_length",
    "matching_blocks",
    "normalize",
    "skeleton",
    "skeleton_sizes",
    "verify",
]

COMPILED = "neardup.verifier._lcs"
REFERENCE = "neardup.verifier._lcs_py"

EditOp = tuple[Literal["delete", "insert"], int, int]


def implementation(name: str | None = None) -> ModuleType:
    """The implementation module for ``name`` (``python``/``cython``; ``""``: cython when
    built), default ``$NEARDUP_IMPL`` (:func:`neardup.verifier.implementation.select`)."""
    return select(COMPILED, REFERENCE, impl=name)


def edit_script(a: str, b: str) -> list[EditOp]:
    """A shortest edit script turning ``a`` into ``b``.

    Each operation is ``("delete", i, j)`` (drop ``a[i]``) or ``("insert", i, j)`` (insert
    ``b[j]`` before ``a[i]``), in increasing order; its length is D = len(a) + len(b) - 2|LCS|.

    >>> edit_script("abcabba", "cbabac")[:2]
    [('delete', 0, 0), ('insert', 1, 0)]
    >>> len(edit_script("abcabba", "cbabac"))
    5
    """
    blocks = matching_blocks(a, b)
    assert blocks is not None  # no cap given
    return edit_script_from_blocks(blocks, len(a), len(b))


def edit_script_from_blocks(blocks: list[tuple[int, int, int]], n: int, m: int) -> list[EditOp]:
    """The edit script (see :func:`edit_script`) implied by matching blocks of texts of
    lengths ``n`` and ``m``: every position outside the blocks is deleted or inserted."""
    ops: list[EditOp] = []
    i = j = 0
    for bi, bj, k in [*blocks, (n, m, 0)]:
        ops.extend(("delete", x, j) for x in range(i, bi))
        ops.extend(("insert", bi, y) for y in range(j, bj))
        i, j = bi + k, bj + k
    return ops


def apply_edit_script(ops: list[EditOp], a: str, b: str) -> str:
    """Apply ``ops`` (from :func:`edit_script`) to ``a``; gives ``b``.

    >>> a, b = "abcabba", "cbabac"
    >>> apply_edit_script(edit_script(a, b), a, b)
    'cbabac'
    """
    deleted = {i for op, i, _ in ops if op == "delete"}
    inserts: dict[int, list[str]] = {}
    for op, i, j in ops:
        if op == "insert":
            inserts.setdefault(i, []).append(b[j])
    out: list[str] = []
    for i in range(len(a) + 1):
        out.extend(inserts.get(i, ()))
        if i < len(a) and i not in deleted:
            out.append(a[i])
    return "".join(out)


def format_edit_script(ops: list[EditOp], b: str) -> str:
    """The paper's notation: ``"1D"`` deletes the 1st character of A, ``"3Ib"`` inserts
    ``b`` after the 3rd (positions 1-based, as in Myers 1986).

    >>> format_edit_script([("delete", 0, 0), ("insert", 3, 1)], "cbabac")
    '1D 3Ib'
    """
    return " ".join(f"{i + 1}D" if op == "delete" else f"{i}I{b[j]}" for op, i, j in ops)


bind(globals(), implementation())  # the twin's API: the names of __all__ not defined above
