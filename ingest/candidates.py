"""The candidate index of the embedded ``neardup dedup`` (:class:`CandidateIndex`): the earlier
documents a document is verified against.

Two twins answer alike: the compiled table (``neardup.ingest._candidates``, used when built:
about 6 bytes a distinct fingerprint of a document in memory, the documents' fingerprints on
disk) and the reference on Python dicts (``neardup.ingest._candidates_py``: ~100 bytes a
fingerprint). ``NEARDUP_IMPL`` chooses, once, at import, as for every twin
(:func:`neardup.verifier.implementation.select`).
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import Any

from neardup.verifier.implementation import select

__all__ = ["IMPLEMENTATION", "CandidateIndex", "earlier_candidates"]

COMPILED = "neardup.ingest._candidates"
REFERENCE = "neardup.ingest._candidates_py"

# The twin in use (``NEARDUP_IMPL``), chosen once, at import.
_impl: ModuleType = select(COMPILED, REFERENCE)
IMPLEMENTATION: str = _impl.IMPLEMENTATION


class CandidateIndex:
    """The embedded candidate rule, one document at a time, in ``(seq, id)`` order.

    :meth:`add` returns the top-``k`` earlier candidates of a document — documents of the same
    fingerprint config sharing distinct fingerprints, by shared count desc, then ``seq``, then
    ``id`` (the OpenSearch query's rule) — and then indexes it. Documents must come in strictly
    increasing ``(seq, id)`` (``ValueError`` otherwise).

    The compiled table keeps about 6 bytes per distinct fingerprint of a document in memory
    and the documents' fingerprints on disk, so a million pages fit in a few hundred MB; the
    reference runs the rule on Python dicts (module docstring).
    """

    def __init__(self, k: int) -> None:
        self.k = k
        self._table: Any = _impl.CandidateTable(k)

    def add(self, doc: Any) -> list[str]:
        out: list[str] = self._table.add(doc)
        return out

    def close(self) -> None:
        """Release the index (its memory and, compiled, its temporary file)."""
        self._table.close()
        self._table = None


def earlier_candidates(docs: Sequence[Any], k: int) -> dict[str, list[str]]:
    """The top-``k`` earlier candidates of every document, ``docs`` sorted by ``(seq, id)``.

    The embedded store's candidate rule (and the OpenSearch query's), :class:`CandidateIndex`:
    asked before the document is added, so only earlier documents. An inverted index
    instead of the SQLite store: the same answer, without storing every body in SQLite (the
    candidate phase was over half of a 10k-document run). No stoplist: a fresh embedded store
    has none either.
    """
    index = CandidateIndex(k)
    try:
        return {d.id: index.add(d) for d in docs}
    finally:
        index.close()
