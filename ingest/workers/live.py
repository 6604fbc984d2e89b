"""The live index: the pages accepted but not yet searchable, as a worker holds them.

A page is visible to every worker from acceptance until the index shows it: until then it is
in a *live* batch (:mod:`neardup.ingest.workers.staging`). Each worker process keeps the live
batches in memory (:class:`LiveIndex`, synced with ``live`` before each batch it decides: a
payload never changes, so each is read once, as a
:class:`~neardup.ingest.workers.staging.StagedBatch` of pages) and finds a page's live
candidates there by fingerprint (:class:`Owners`, built by C calls), as the index search finds
the indexed ones.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Iterable, KeysView, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from neardup.ingest.store.base import StoredDocument
from neardup.ingest.workers.staging import BatchStaging, StagedBatch

__all__ = ["LiveIndex", "Owners", "live_index"]

_P = TypeVar("_P", str, int)


class Owners(Generic[_P]):
    """A batch's pages (ids, or positions) by fingerprint. Nearly every fingerprint is held by
    one page of the batch, so that mapping is built by C calls (``dict.fromkeys``), with the
    few held by several pages beside it."""

    __slots__ = ("more", "one")

    def __init__(self, pages: Sequence[tuple[_P, frozenset[str]]]) -> None:
        self.one: dict[str, _P] = {}
        for doc_id, terms in pages:
            self.one.update(dict.fromkeys(terms, doc_id))
        self.more: dict[str, list[_P]] = {}
        if sum(len(terms) for _, terms in pages) > len(self.one):
            seen: set[str] = set()
            several: set[str] = set()
            for _, terms in pages:
                several |= terms & seen
                seen |= terms
            for doc_id, terms in pages:
                for t in terms & several:
                    self.more.setdefault(t, []).append(doc_id)

    def of(self, term: str) -> Sequence[_P]:
        """The pages holding ``term``."""
        more = self.more.get(term)
        if more is not None:
            return more
        one = self.one.get(term)
        return () if one is None else (one,)

    def count(self, terms: Iterable[str]) -> Counter[_P]:
        """How many of ``terms`` (distinct) each page holds, counted in C."""
        common = self.one.keys() & terms
        counts = Counter(map(self.one.__getitem__, common))
        for t in common & self.more.keys() if self.more else ():
            last = self.one[t]  # counted above; the others holding it are not
            counts.update(p for p in self.more[t] if p != last)
        return counts


@dataclass(slots=True)
class _LiveBatch:
    """One live batch as a worker holds it: its pages (the staged batch's, shared: never
    changed) and which of them hold each fingerprint."""

    entries: list[StoredDocument]
    owners: Owners[int]  # fingerprint -> positions in entries
    accepted_at: float
    first_seq: int  # the batch's place in the acceptance order

    @property
    def all_fps(self) -> KeysView[str]:
        """Every fingerprint its pages hold."""
        return self.owners.one.keys()

    @property
    def shared(self) -> KeysView[str]:
        """The fingerprints two of its own pages share (asked by the batch's decider)."""
        return self.owners.more.keys()

    def holders(self, terms: Iterable[str]) -> dict[str, list[StoredDocument]]:
        """``{fingerprint: the pages holding it}`` for ``terms``, which this batch holds."""
        e = self.entries
        return {t: [e[i] for i in self.owners.of(t)] for t in terms}


@dataclass(slots=True)
class LiveIndex:
    """A worker's view of the live batches, kept in step with ``live`` (batches come and go; a
    payload never changes). A lookup intersects the asked fingerprints with each batch's keys
    (:class:`Owners`, built by C calls), so adding and dropping a batch costs little."""

    batches: dict[str, _LiveBatch] = field(default_factory=dict)  # batch key -> batch

    def sync(self, staging: BatchStaging, keys: Sequence[str],
             loaded: Mapping[str, StagedBatch]) -> None:
        """Drop the batches no longer live, load and index the new ones."""
        wanted = set(keys)
        for key in [k for k in self.batches if k not in wanted]:
            del self.batches[key]
        missing = [k for k in keys if k not in self.batches and k not in loaded]
        fresh = dict(loaded)
        fresh.update(staging.load(missing) if missing else {})
        for key in keys:
            if key not in self.batches and key in fresh:
                self._add(fresh[key])

    def _add(self, batch: StagedBatch) -> None:
        owners = Owners([(i, frozenset(p.fingerprints)) for i, p in enumerate(batch.pages)])
        self.batches[batch.key] = _LiveBatch(batch.pages, owners, batch.accepted_at,
                                             batch.first_seq)

    def pages(self, key: str) -> list[StoredDocument] | None:
        b = self.batches.get(key)
        return None if b is None else b.entries

    def older_than(self, seconds: float) -> list[str]:
        """Live batches accepted more than ``seconds`` ago."""
        cut = time.time() - seconds
        return sorted(k for k, b in self.batches.items() if b.accepted_at < cut)


_LIVE: dict[tuple[int, str], LiveIndex] = {}


def live_index(staging: BatchStaging) -> LiveIndex:
    """This process's :class:`LiveIndex` of the staging's index."""
    return _LIVE.setdefault((os.getpid(), staging.index), LiveIndex())
