"""The embedded grouping engine: the whole method in-process, no servers (``neardup dedup``,
:func:`neardup.dedup`).

The candidates of each document are taken from an in-memory index *before* the document is added
(its earlier candidates: each candidate pair is seen once); verification runs in a process pool
when asked. The groups are the components of the joining pairs
(:mod:`neardup.verifier.grouping`), whatever the parallelism. Texts wait on disk
(:class:`DiskTexts`), so a crawl of millions of pages fits: only fingerprints and group state stay
in memory.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import tempfile
import time
from array import array
from collections.abc import Iterable, Iterator, Mapping, MutableMapping, Sequence
from typing import Any

from neardup.ingest.candidates import CandidateIndex, earlier_candidates
from neardup.ingest.pairs import page_site, site_verdict
from neardup.ingest.pipeline import Prepared
from neardup.verifier.compare import compare
from neardup.verifier.config import VerifyConfig
from neardup.verifier.grouping import GroupForest, joins

__all__ = [
    "DEFAULT_K",
    "CandidateLists",
    "DiskTexts",
    "dedup_embedded",
    "spool_texts",
]

DEFAULT_K = 100  # the most candidates a document is verified against (the workers' too)
VERIFY_CHUNK = 16  # documents per verification task of the process pool


_NO_FINGERPRINTS: list[str] = []  # shared by the documents read to disk (never mutated)


def spool_texts(
    prepared: Iterable[Prepared], texts: DiskTexts, index: CandidateIndex,
    earlier: MutableMapping[str, list[str]],
) -> Iterator[Prepared]:
    """``prepared`` as it is read, each document's verified text moved to ``texts`` and its
    earlier candidates taken (``earlier``) before it is added to ``index``; the document keeps
    only its id, seq and fingerprint config (one string object for the run: each came from the
    pool as its own copy)."""
    last: tuple[int, str] | None = None
    configs: dict[str, str] = {}
    for p in prepared:
        d = p.doc
        if d is not None:
            if last is not None and (d.seq, d.id) <= last:  # prepare_lines numbers lines in order
                raise RuntimeError("documents out of (seq, id) order")
            last = (d.seq, d.id)
            texts.put(d.id, d.verified_text, page_site(d))
            earlier[d.id] = index.add(d)
            d.body, d.content, d.fingerprints = "", None, _NO_FINGERPRINTS
            d.url = d.site = d.title = None
            d.fp_config = configs.setdefault(d.fp_config, d.fp_config)
            d.status = "pending"
        yield p


# --- embedded backend ------------------------------------------------------------------------

class DiskTexts:
    """The verified texts of a run in an unlinked temporary file, read back by offset.

    The parent keeps an ordinal per document (:attr:`ordinal`, in the order of :meth:`put`) and
    the file's offsets in an array; forked verification workers inherit the descriptor and read
    with ``os.pread`` (no shared file position), so memory does not grow with the texts.
    UTF-8 with ``surrogatepass``: any ``str`` comes back unchanged.
    """

    def __init__(self) -> None:
        # a large buffer: a text is a few kB, more than the default buffer, so each would be a
        # write call of its own
        self._file = tempfile.TemporaryFile(prefix="neardup-dedup-", buffering=1 << 20)
        self._dirty = False
        self.ordinal: dict[str, int] = {}  # id -> ordinal, in put order
        self._offsets = array("q", [0])  # text o is bytes [offsets[o], offsets[o + 1])
        self._at: array[int] = array("q")  # ordinal -> its text's index in _offsets
        self._site_ids: dict[str, int] = {}  # each site once
        self._site_names: list[str] = []
        self._site: array[int] = array("i")  # ordinal -> its site's id

    def put(self, doc_id: str, text: str, site: str = "") -> None:
        """Keep ``text`` (and the page's ``site``, :func:`neardup.ingest.pairs.page_site`)."""
        data = text.encode("utf-8", "surrogatepass")
        self._file.write(data)
        o = self.ordinal.setdefault(doc_id, len(self.ordinal))
        s = self._site_ids.setdefault(site, len(self._site_ids))
        if o == len(self._at):
            self._at.append(len(self._offsets) - 1)
            self._site.append(s)
        else:  # a new text for a known id
            self._at[o] = len(self._offsets) - 1
            self._site[o] = s
        self._offsets.append(self._offsets[-1] + len(data))
        self._dirty = True

    def get(self, doc_id: str) -> str:
        if self._dirty:
            self.flush()
        at = self._at[self.ordinal[doc_id]]
        start = self._offsets[at]
        data = os.pread(self._file.fileno(), self._offsets[at + 1] - start, start)
        return data.decode("utf-8", "surrogatepass")

    def site(self, doc_id: str) -> str:
        """The site given with the document's text (``""``: unknown)."""
        if len(self._site_names) != len(self._site_ids):
            self._site_names = list(self._site_ids)
        return self._site_names[self._site[self.ordinal[doc_id]]]

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self.ordinal

    def flush(self) -> None:
        """Write what is buffered: before forking readers, which do not share the buffer."""
        self._file.flush()
        self._dirty = False

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> DiskTexts:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class CandidateLists(MutableMapping[str, list[str]]):
    """``{id: earlier candidate ids}`` in two flat arrays instead of a list per document.

    Keyed by an existing ``ordinal`` map (:attr:`DiskTexts.ordinal`): a document's list is
    set once, in ordinal order (as :func:`spool_texts` reads them); reading it builds a new list.
    """

    def __init__(self, ordinal: Mapping[str, int]) -> None:
        self._ordinal = ordinal
        self._ids: list[str] = []  # every list, one after the other
        self._ends = array("q")  # list o is _ids[_ends[o - 1] : _ends[o]]

    def __setitem__(self, doc_id: str, candidates: list[str]) -> None:
        if self._ordinal.get(doc_id) != len(self._ends):
            raise KeyError(f"{doc_id!r}: candidate lists are set once each, in ordinal order")
        self._ids.extend(candidates)
        self._ends.append(len(self._ids))

    def __getitem__(self, doc_id: str) -> list[str]:
        o = self._ordinal.get(doc_id, len(self._ends))
        if o >= len(self._ends):
            raise KeyError(doc_id)
        return self._ids[self._ends[o - 1] if o else 0 : self._ends[o]]

    def __delitem__(self, doc_id: str) -> None:
        raise TypeError("candidate lists are not deleted")

    def __iter__(self) -> Iterator[str]:
        n = len(self._ends)
        return (doc_id for doc_id, o in self._ordinal.items() if o < n)

    def __len__(self) -> int:
        return len(self._ends)


_TEXTS: DiskTexts | None = None  # inherited by forked verification workers
_VCONFIG: Any = None


def _compare_against(doc_id: str, rep_ids: Sequence[str]) -> list[tuple[bool, float, float]]:
    assert _TEXTS is not None
    text = _TEXTS.get(doc_id)
    site = _TEXTS.site(doc_id)
    out = []
    for r in rep_ids:
        other = _TEXTS.get(r)
        v = site_verdict(compare(text, other, _VCONFIG), text, other, site == _TEXTS.site(r) != "",
                         _recompare)
        out.append((joins(v), float(v.resemble), float(v.contain)))
    return out


def _recompare(a: str, b: str) -> Any:
    return compare(a, b, _VCONFIG)


def _compare_chunk(
    chunk: Sequence[tuple[str, Sequence[str]]],
) -> list[list[tuple[bool, float, float]]]:
    return [_compare_against(doc_id, reps) for doc_id, reps in chunk]


def dedup_embedded(
    prepared: Sequence[Prepared],
    profile: str = "web",
    k: int = DEFAULT_K,
    processes: int = 1,
    progress: Any = None,
    timings: dict[str, float] | None = None,
    texts: DiskTexts | None = None,
    earlier: Mapping[str, list[str]] | None = None,
) -> dict[str, dict[str, Any]]:
    """Groups of the prepared documents, in-process: ``{id: {dup_group, dup_of, resemble,
    contain}}`` (documents in error are absent). The rule of :mod:`neardup.verifier.grouping`: the
    components of the candidate pairs that join, each pair verified unless its pages are
    already in one group; ``dup_of`` is the joined page a document resembles most among
    those it was verified against. ``timings`` receives the seconds spent in the candidate
    and verification phases. ``texts`` holds the documents' verified texts and ``earlier``
    their earlier candidates when the caller took both while reading (``neardup dedup`` does,
    and keeps neither texts nor fingerprints in memory); by default the texts are copied to
    disk here and the candidates computed from the fingerprints."""
    timings = {} if timings is None else timings
    if texts is None:
        with DiskTexts() as own:
            for p in prepared:
                if p.doc is not None:
                    own.put(p.doc.id, p.doc.verified_text, page_site(p.doc))
            return dedup_embedded(prepared, profile, k, processes, progress, timings, own, earlier)
    t0 = time.perf_counter()
    global _TEXTS, _VCONFIG

    progress = progress or (lambda it, desc, total=None: it)
    docs = [p.doc for p in prepared if p.doc is not None]
    docs.sort(key=lambda d: (d.seq, d.id))
    if earlier is None:
        earlier = earlier_candidates(docs, k)
    timings["candidates_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    compared = 0
    texts.flush()  # before the workers fork: they read the file, not this process's buffer
    _TEXTS = texts
    _VCONFIG = VerifyConfig.profile(profile)

    forest = GroupForest()
    for d in docs:
        forest.add(d.id, d.seq)
    best: dict[str, tuple[float, str, float]] = {}

    def conclude(doc_id: str, others: list[str], verdicts: list[tuple[bool, float, float]]) -> None:
        nonlocal compared
        compared += len(others)
        for c, (joined, resemble, contain) in zip(others, verdicts, strict=True):
            if joined:
                forest.union((doc_id, c))
                for x, y in ((doc_id, c), (c, doc_id)):  # either page may be the one verifying
                    if x not in best or resemble > best[x][0]:
                        best[x] = (resemble, y, contain)
        next(bar, None)

    bar = progress(iter(range(len(docs))), desc="verify", total=len(docs))
    pool = None
    if processes > 1 and len(docs) > 1:
        ctx = multiprocessing.get_context("fork") if os.name == "posix" else None
        pool = cf.ProcessPoolExecutor(processes, mp_context=ctx)
    # Bounded: cf.wait() is linear in the futures it watches, so submitting every document at
    # once made the scheduling quadratic. A few chunks per process keep the pool busy. A
    # candidate already in the document's group when the document is submitted is skipped:
    # that pair cannot change the components, so the groups are the same for any schedule.
    max_inflight = 4 * processes
    inflight: dict[cf.Future[Any], list[tuple[str, list[str]]]] = {}
    todo = iter(docs)
    exhausted = False
    try:
        while not exhausted or inflight:
            while not exhausted and len(inflight) < max(1, max_inflight):
                chunk: list[tuple[str, list[str]]] = []
                while len(chunk) < VERIFY_CHUNK:
                    nxt = next(todo, None)
                    if nxt is None:
                        exhausted = True
                        break
                    root = forest.find(nxt.id)
                    others = [c for c in earlier[nxt.id] if forest.find(c) != root]
                    if not others:
                        next(bar, None)
                    elif pool is None:
                        conclude(nxt.id, others, _compare_against(nxt.id, others))
                    else:
                        chunk.append((nxt.id, others))
                if chunk and pool is not None:
                    inflight[pool.submit(_compare_chunk, chunk)] = chunk
                if pool is None:
                    break
            if inflight:
                done, _ = cf.wait(inflight, return_when=cf.FIRST_COMPLETED)
                for fut in done:
                    chunk = inflight.pop(fut)
                    for (doc_id, others), verdicts in zip(chunk, fut.result(), strict=True):
                        conclude(doc_id, others, verdicts)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
        _TEXTS = None
    timings["verify_s"] = time.perf_counter() - t0
    timings["comparisons"] = compared
    out: dict[str, dict[str, Any]] = {}
    for d in docs:
        group = forest.find(d.id)
        # a representative (its group's earliest page) is no one's duplicate
        resemble, dup_of, contain = best.get(d.id, (None, None, None)) if group != d.id \
            else (None, None, None)
        out[d.id] = {"dup_group": group, "dup_of": dup_of, "resemble": resemble,
                     "contain": contain}
    return out
