"""The embedded grouping engine: the whole method in-process, no servers (``neardup dedup``,
:func:`neardup.dedup`).

The candidates of each document are taken from an in-memory index *before* the document is added
(its earlier candidates: each candidate pair is seen once). ``neardup dedup`` verifies once the
input is read, in a process pool when asked (:func:`dedup_embedded`); :func:`neardup.dedup`
decides each page as it is read (:func:`decide_as_read`). The groups are the components of
the joining pairs (:mod:`neardup.verifier.grouping`, :class:`Grouping`), whatever the
parallelism and either way. Texts wait on disk (:class:`DiskTexts`), so a crawl of millions of
pages fits: only fingerprints and group state stay in memory.
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
    "Grouping",
    "compare_against",
    "decide_as_read",
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

Verified = tuple[bool, float, float]  # a verified pair: (joins, resemble, contain)


def compare_against(
    texts: DiskTexts, config: VerifyConfig, doc_id: str, others: Sequence[str],
) -> list[Verified]:
    """``doc_id`` verified against each of ``others``, their texts read from ``texts``."""
    text = texts.get(doc_id)
    site = texts.site(doc_id)

    def recompare(a: str, b: str) -> Any:
        return compare(a, b, config)

    out = []
    for r in others:
        other = texts.get(r)
        v = site_verdict(compare(text, other, config), text, other, site == texts.site(r) != "",
                         recompare)
        out.append((joins(v), float(v.resemble), float(v.contain)))
    return out


def _compare_chunk(chunk: Sequence[tuple[str, Sequence[str]]]) -> list[list[Verified]]:
    assert _TEXTS is not None
    return [compare_against(_TEXTS, _VCONFIG, doc_id, reps) for doc_id, reps in chunk]


class Grouping:
    """The groups of pages decided one at a time, in ``(seq, id)`` order (the rule of
    :mod:`neardup.verifier.grouping`): a page is :meth:`add`-ed, verified against its
    :meth:`pending` candidates — those not in its group already: such a pair cannot change the
    components — and :meth:`conclude` joins it to each that the verifier calls similar.

    A page's :meth:`group` is final once every page is concluded; before, it is its group among
    the pages concluded so far: a later page can join two groups (the group id is then the
    earlier one's) and, resembling a page more than its match did, become its ``dup_of``.
    """

    def __init__(self) -> None:
        self._forest = GroupForest()
        self._best: dict[str, tuple[float, str, float]] = {}  # id -> (resemble, dup_of, contain)
        self.compared = 0  # pairs verified

    def add(self, doc_id: str, seq: int) -> None:
        self._forest.add(doc_id, seq)

    def pending(self, doc_id: str, candidates: Iterable[str]) -> list[str]:
        """The candidates of ``doc_id`` to verify: those not in its group now."""
        root = self._forest.find(doc_id)
        return [c for c in candidates if self._forest.find(c) != root]

    def conclude(self, doc_id: str, others: Sequence[str], verdicts: Sequence[Verified]) -> None:
        """Join ``doc_id`` to each of ``others`` whose verdict joins."""
        self.compared += len(others)
        for c, (joined, resemble, contain) in zip(others, verdicts, strict=True):
            if joined:
                self._forest.union((doc_id, c))
                for x, y in ((doc_id, c), (c, doc_id)):  # either page may be the one verifying
                    if x not in self._best or resemble > self._best[x][0]:
                        self._best[x] = (resemble, y, contain)

    def group(self, doc_id: str) -> dict[str, Any]:
        """``{dup_group, dup_of, resemble, contain}`` of ``doc_id`` now."""
        group = self._forest.find(doc_id)
        # a representative (its group's earliest page) is no one's duplicate
        resemble, dup_of, contain = self._best.get(doc_id, (None, None, None)) \
            if group != doc_id else (None, None, None)
        return {"dup_group": group, "dup_of": dup_of, "resemble": resemble, "contain": contain}


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
    texts.flush()  # before the workers fork: they read the file, not this process's buffer
    vconfig = VerifyConfig.profile(profile)
    _TEXTS, _VCONFIG = texts, vconfig

    grouping = Grouping()
    for d in docs:
        grouping.add(d.id, d.seq)

    def conclude(doc_id: str, others: list[str], verdicts: list[Verified]) -> None:
        grouping.conclude(doc_id, others, verdicts)
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
                    others = grouping.pending(nxt.id, earlier[nxt.id])
                    if not others:
                        next(bar, None)
                    elif pool is None:
                        conclude(nxt.id, others, compare_against(texts, vconfig, nxt.id, others))
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
    timings["comparisons"] = grouping.compared
    return {d.id: grouping.group(d.id) for d in docs}


def decide_as_read(
    prepared: Iterable[Prepared], grouping: Grouping, profile: str = "web", k: int = DEFAULT_K,
) -> Iterator[Prepared]:
    """``prepared``, each page yielded once it is decided: its verified text is put on disk
    (:class:`DiskTexts`), its top-``k`` earlier candidates taken (:class:`CandidateIndex`), and
    it is verified against those not in its group and joined (``grouping``), in this process,
    before the next page is read; a line in error passes as it is. Documents must come in
    ``(seq, id)`` order (as :func:`~neardup.ingest.pipeline.prepare_lines` numbers them).

    The groups are those of :func:`dedup_embedded` on the same pages once the input ends; the
    group of a page yielded is its group among the pages yielded so far
    (:class:`Grouping`). Only fingerprints on disk, the candidates' postings and the group
    state stay in memory; the texts and the index go when ``prepared`` ends or the iterator
    is closed."""
    vconfig = VerifyConfig.profile(profile)
    earlier: dict[str, list[str]] = {}  # the page being decided's, alone
    with DiskTexts() as texts:
        index = CandidateIndex(k)
        try:
            for p in spool_texts(prepared, texts, index, earlier):
                d = p.doc
                if d is not None:
                    grouping.add(d.id, d.seq)
                    others = grouping.pending(d.id, earlier.pop(d.id))
                    if others:
                        grouping.conclude(d.id, others,
                                          compare_against(texts, vconfig, d.id, others))
                yield p
        finally:
            index.close()
