"""Pure-Python reference of the candidate index of the embedded ``neardup dedup``: the rule
as written, on Python dicts (a fingerprint seen once holds its one id, a shared one the list of
ids: ~100 bytes a fingerprint).

This module is the specification: :mod:`neardup.ingest._candidates` (Cython) has the same API
(and a few settings of its own that trade memory for speed) and must give the same answers;
:mod:`neardup.ingest.candidates` picks one of the two (``NEARDUP_IMPL``) and documents the rule.
Keep both in step.
"""

from __future__ import annotations

from typing import Any

from neardup.ingest.store.ranking import rank_candidates

__all__ = ["IMPLEMENTATION", "CandidateTable"]

IMPLEMENTATION = "python"


class CandidateTable:
    """``add(doc) -> list[str]``: the earlier candidates of ``doc`` (``id``, ``seq``,
    ``fingerprints``, ``fp_config``), then ``doc`` indexed. Documents must come in strictly
    increasing ``(seq, id)``."""

    def __init__(self, k: int) -> None:
        self.k = k
        self._postings: dict[str, dict[str, Any]] = {}  # fp_config -> fp -> id | [ids]
        self._seq_of: dict[str, int] = {}
        self._last: tuple[int, str] | None = None

    def add(self, doc: Any) -> list[str]:
        if self._last is not None and (doc.seq, doc.id) <= self._last:
            raise ValueError("documents must be added in strictly increasing (seq, id) order")
        self._last = (doc.seq, doc.id)
        postings = self._postings.setdefault(doc.fp_config, {})
        terms = set(doc.fingerprints)
        shared: dict[str, int] = {}
        for t in terms:
            hit = postings.get(t)
            if hit is None:
                continue
            for j in (hit,) if isinstance(hit, str) else hit:
                shared[j] = shared.get(j, 0) + 1
        out = [c.id for c in rank_candidates(shared, self.k, self._seq_of)]
        for t in terms:
            hit = postings.get(t)
            if hit is None:
                postings[t] = doc.id
            elif isinstance(hit, str):
                postings[t] = [hit, doc.id]
            else:
                hit.append(doc.id)
        self._seq_of[doc.id] = doc.seq
        return out

    def close(self) -> None:
        self._postings.clear()
        self._seq_of.clear()

    def __len__(self) -> int:
        return len(self._seq_of)
