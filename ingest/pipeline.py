"""JSONL lines → validated documents → :class:`~neardup.ingest.store.base.StoredDocument` with fingerprints.

Step 1 of the method as the batch tools see it, shared by ``neardup ingest``, ``neardup dedup``
and the HTTP server. Records are decoded and validated by :mod:`neardup.ingest.records` (the input
layer every path uses); every line yields exactly one :class:`Prepared` — a document or a
per-document error with its line, its type and the id when one could be read — so a bad line
never stops a run.

Extraction and fingerprinting (the CPU part) run in a process pool when ``processes > 1``;
decoding, validation and the duplicate-id rule stay in the calling process so it sees every line
in order, and only validated pages (plain strings) travel to the pool.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import itertools
import multiprocessing
import os
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from neardup.ingest.chrome import ChromeCounts, ChromeRule, site_key
from neardup.ingest.chrome_pass import KeptHashes
from neardup.ingest.crawl import CrawlPage, CrawlStats, IdFrom, RecordError, read_input
from neardup.ingest.errors import ConfigError, DocumentError, DuplicateId, ExtractError
from neardup.ingest.extract import document_texts
from neardup.ingest.fingerprint import PROFILES, FingerprintConfig, index_terms
from neardup.ingest.records import (
    DEFAULT_LIMITS,
    Limits,
    Page,
    clean_text,
    decode_record,
    validate_id,
    validate_page,
)
from neardup.ingest.sites import site_of
from neardup.ingest.store.base import StoredDocument

#: A page's line hashes and key lengths (:func:`neardup.ingest.chrome.page_hashes`).
LineHashes = tuple[Sequence[int], Sequence[int]]

__all__ = [
    "CHROME_SITE",
    "MAX_DOC_BYTES",
    "MAX_ID_BYTES",
    "Prepared",
    "chrome_site",
    "fingerprint_config",
    "kept_mask",
    "mask_chrome",
    "mask_page",
    "masked_config",
    "prepare_document",
    "prepare_lines",
    "read_lines",
]

# The default limits (neardup.ingest.records.Limits; NEARDUP_MAX_DOC_BYTES moves the first).
MAX_DOC_BYTES = DEFAULT_LIMITS.max_doc_bytes
MAX_ID_BYTES = DEFAULT_LIMITS.max_id_bytes


@dataclass(slots=True)
class Prepared:
    """One input line after step 1: ``doc`` or ``error`` (never both); ``error_type`` is the
    error's kind (:attr:`neardup.ingest.errors.DocumentError.type`).

    Stage: step 1 on a JSONL input (``neardup ingest``, ``neardup dedup``, :func:`neardup.dedup`,
    :func:`neardup.submit`), one per line, in order. Not a page itself: an outcome holding the
    page's :class:`~neardup.ingest.store.base.StoredDocument` (made from its
    :class:`~neardup.ingest.records.Page`), which is what goes on — accepted in a staged batch
    (:class:`neardup.ingest.workers.staging.StagedBatch`) or into the embedded dedup. The HTTP
    service's per-item twin is :class:`neardup.ingest.server.service.IngestItem`."""

    line_no: int  # 1-based
    id: str | None
    doc: StoredDocument | None = None
    error: str | None = None
    error_type: str | None = None
    # A WARC/WET record's URL and the offset it starts at in its file (neardup.ingest.crawl),
    # echoed in the output; None for a JSONL line.
    url: str | None = None
    offset: int | None = None
    # The chrome site a plain-text page is counted under (site_key of its site and URL); None
    # for an HTML page (never counted) and a line in error.
    chrome_site: str | None = None

    @property
    def ok(self) -> bool:
        return self.doc is not None

    @classmethod
    def failed(cls, line_no: int, exc: DocumentError, doc_id: str | None = None) -> Prepared:
        doc_id = exc.doc_id if exc.doc_id is not None else doc_id
        return cls(line_no, doc_id, error=str(exc.with_id(doc_id)), error_type=exc.type)

    def located(self, record: object) -> Prepared:
        """This outcome with the URL and offset of ``record`` when it is a WARC/WET record's
        page or error (:class:`~neardup.ingest.crawl.CrawlPage`,
        :class:`~neardup.ingest.crawl.RecordError`)."""
        if isinstance(record, CrawlPage | RecordError):
            self.url, self.offset = record.url, record.offset
        return self


def fingerprint_config(profile: str = "web") -> Any:
    """The :class:`~neardup.ingest.fingerprint.FingerprintConfig` of a named profile (web|short)."""

    try:
        return PROFILES[profile]
    except KeyError:
        raise ConfigError(f"unknown profile {profile!r}; choose one of {sorted(PROFILES)}") from None


def read_lines(
    path: str | os.PathLike[str], limits: Limits = DEFAULT_LIMITS, *,
    id_from: IdFrom = "record", stats: CrawlStats | None = None,
) -> Iterator[tuple[int, bytes | Page | DocumentError]]:
    """``(line_no, item)`` of every record of an input file (``-`` = stdin), told by its content
    (:func:`neardup.ingest.crawl.read_input`): the raw bytes of each non-blank line of a JSONL
    file, a line over the record limit as its error (:func:`neardup.ingest.records.read_jsonl`);
    the pages of a WARC or WET file and its records in error, in file order (ids from
    ``id_from``; skipped records counted in ``stats``)."""
    return read_input(path, limits, id_from=id_from, stats=stats)


_WORD = re.compile(r"[^\W_]")  # a letter or a digit: what sentence keys are made of


def mask_chrome(chrome: ChromeCounts, page: Page, text: str) -> str | None:
    """The text of a plain-text page (``text``, ``rst`` or ``markdown`` input: no main-content
    step) without its chrome lines (:meth:`neardup.ingest.chrome.ChromeCounts.mask`, under the
    page's :func:`~neardup.ingest.chrome.site_key`); None when nothing is masked, for an HTML
    page (its main content is taken by structure, :func:`neardup.ingest.extract.extract_texts`)
    and when the masked text has no letter or digit left — a page that is all chrome keeps its
    whole text rather than become empty (its copies still meet on it)."""
    return mask_page(chrome, page, text)[0]


def mask_page(chrome: ChromeCounts, page: Page, text: str,
              hashes: LineHashes | None = None) -> tuple[str | None, bool]:
    """:func:`mask_chrome`'s content, and whether the page carries a chrome line (a page that
    is all chrome carries chrome too): what :func:`chrome_site` needs. ``hashes``: the lines'
    hashes, when the counting pass kept them (:meth:`ChromeCounts.mask`)."""
    if page.field == "html":
        return None, False
    masked = chrome.mask(site_key(page.site, page.url), text, hashes)
    return kept_mask(masked, text), masked != text


def kept_mask(masked: str, text: str) -> str | None:
    """A page's ``content`` once ``text`` is masked: the masked text, None when it is the text
    or has no letter or digit left."""
    return None if masked == text or _WORD.search(masked) is None else masked


CHROME_SITE = "template:chrome"
"""The site of a plain-text page of unknown site that carries the input's chrome."""


def chrome_site(site: str | None, carries: bool) -> str | None:
    """The site a masked plain-text page is stored with. A page of unknown site — stored with
    none (no ``site``, no URL with a host: chrome counting counts it under the input's one
    site) or with :data:`CHROME_SITE` — is of :data:`CHROME_SITE` when it ``carries`` a chrome
    line of that site, else of none; any other page keeps ``site``."""
    if site is None or site == CHROME_SITE:
        return CHROME_SITE if carries else None
    return site


def masked_config(config: FingerprintConfig, chrome: ChromeCounts | None) -> FingerprintConfig:
    """``config`` with the chrome rule its pages are masked with (part of the identity)."""
    if chrome is None or config.chrome == chrome.rule:
        return config
    return _with_rule(config, chrome.rule)


@functools.lru_cache(maxsize=16)
def _with_rule(config: FingerprintConfig, rule: ChromeRule) -> FingerprintConfig:
    return dataclasses.replace(config, chrome=rule)


def prepare_document(
    obj: Page | Mapping[str, Any], seq: int, config: Any, limits: Limits = DEFAULT_LIMITS,
    chrome: ChromeCounts | None = None,
    hashes_of: Callable[[str], LineHashes | None] | None = None,
) -> StoredDocument:
    """Extract the text of a page and fingerprint it; a mapping is validated first
    (:func:`neardup.ingest.records.validate_page`).

    ``chrome``: the site chrome known from the whole input
    (:func:`neardup.ingest.chrome_pass.chrome_counts`). A
    plain-text page's ``content`` — what the fingerprints and the verifier read — is then its
    text without the chrome lines (:func:`mask_chrome`; ``body`` stays whole), and every page's
    ``fp_config`` names the rule (:func:`masked_config`), masked or not. ``hashes_of``: the
    hashes of the text's lines as the counting pass took them, given the text (None: hashed
    here), :meth:`neardup.ingest.chrome_pass.KeptHashes.get`.

    Raises :class:`~neardup.ingest.errors.DocumentError` (with the id) for a bad document.
    """
    page = obj if isinstance(obj, Page) else validate_page(obj, limits)
    doc_id = page.id or ""
    # A page without a site of its own or its URL's is given its template's: an HTML page's
    # (extract.content.page_template), a plain-text page's by its chrome (chrome_site).
    site = page.site if page.site is not None else site_of(page.url)
    try:
        texts = document_texts(page.document(), max_bytes=limits.max_doc_bytes,
                               template=site is None)
    except DocumentError as exc:
        raise exc.with_id(doc_id) from None
    except (ValueError, TypeError) as exc:
        raise ExtractError(f"could not extract text: {exc}", doc_id) from None
    text = clean_text(texts.text, doc_id)
    # The body (stored, verified) is the whole text; fingerprints come from the main content
    # (no navigation/header/footer/sidebars), so pages of one template don't share them.
    content: str | None = None
    if texts.content is not None and texts.content != texts.text:
        try:
            content = clean_text(texts.content, doc_id)
        except DocumentError:
            content = None
    elif chrome is not None and page.field != "html":
        content, carries = mask_page(chrome, page, text,
                                     None if hashes_of is None else hashes_of(text))
        if site is None and carries:
            site = CHROME_SITE
    if site is None and texts.template:
        site = texts.template
    if chrome is not None:
        config = masked_config(config, chrome)
    return StoredDocument(
        id=doc_id,
        body=text,
        fingerprints=index_terms(text, config, content=content),
        fp_config=config.identity,
        seq=seq,
        url=page.url,
        site=site,
        title=page.title,
        content=content,
    )


def _prepare_one(item: tuple[int, int, Page, Any, Limits],
                 chrome: ChromeCounts | None = None, kept: KeptHashes | None = None) -> Prepared:
    line_no, seq, page, config, limits = item
    doc_id = page.id
    try:
        hashes_of = None if kept is None else functools.partial(kept.get, line_no)
        done = Prepared(line_no, doc_id,
                        doc=prepare_document(page, seq, config, limits, chrome, hashes_of),
                        chrome_site=None if page.field == "html"
                        else site_key(page.site, page.url))
    except DocumentError as exc:
        done = Prepared.failed(line_no, exc, doc_id)
    except Exception as exc:  # a bug or an extractor crash: still one document's failure
        done = Prepared(line_no, doc_id, error=f"{doc_id}: {type(exc).__name__}: {exc}",
                        error_type="document_error")
    return done.located(page)


def prepare_lines(
    lines: Iterable[tuple[int, bytes | str | Page | DocumentError]],
    config: Any,
    seq_base: int = 0,
    processes: int = 1,
    chunksize: int = 32,
    limits: Limits = DEFAULT_LIMITS,
    ahead: int = 1024,
    chrome: ChromeCounts | None = None,
    prefetch: int = 0,
    kept: KeptHashes | None = None,
    verified_only: bool = False,
) -> Iterator[Prepared]:
    """One :class:`Prepared` per line, in input order; ``seq = seq_base + line_no``.

    ``chrome``: plain-text pages are masked with these counts (:func:`prepare_document`);
    the pool's processes get them once, when they start. ``prefetch``: in one process, pages
    are read ``prefetch`` at a time and the counts of each chunk read at once first, when
    ``chrome`` can (``chrome.prefetch(pages, limits)``: counts kept in Redis, for a file
    whose pages were all counted first). ``kept``: the line hashes the counting pass took of
    the same input (:func:`neardup.ingest.chrome_pass.chrome_counts_keeping_hashes`), which
    the masking reads instead of hashing each page again.

    ``verified_only``: a document comes without its whole text when it has a ``content``
    (``body`` is ``""``): the one text the embedded dedup keeps, the one
    :attr:`~neardup.ingest.store.base.StoredDocument.verified_text`; the pool's processes then
    send back half as much.

    ``limits`` are the input rules. A repeated id is an error for the repeat: the first record
    with a valid id claims it, even when the rest of that record is bad. With a pool, at most
    ``ahead`` pages (or two chunks per process, if more) are read before the caller takes them.
    """
    seen: dict[str, int] = {}

    def items() -> Iterator[tuple[int, int, Page, Any, Limits] | Prepared]:
        for line_no, raw in lines:
            doc_id: str | None = None
            try:
                if isinstance(raw, DocumentError):
                    raise raw
                # A Page is validated already, by its reader (a WARC record's: neardup.ingest.crawl)
                if isinstance(raw, Page):
                    obj, doc_id = None, validate_id(raw.id, limits)
                else:
                    obj = decode_record(raw, limits)
                    doc_id = validate_id(obj.get("id"), limits)
                if doc_id in seen:
                    where = "line" if obj is not None else "page"
                    raise DuplicateId(
                        f"duplicate id (first seen on {where} {seen[doc_id]} of this input)", doc_id
                    )
                seen[doc_id] = line_no
                page = raw if isinstance(raw, Page) else validate_page(obj, limits)
            except DocumentError as exc:
                yield Prepared.failed(line_no, exc, doc_id).located(raw)
                continue
            # one int object for line and seq when they are equal (they are by default)
            yield (line_no, seq_base + line_no if seq_base else line_no, page, config, limits)

    if processes <= 1:
        read_ahead = getattr(chrome, "prefetch", None) if prefetch > 1 else None
        if read_ahead is None:
            for it in items():
                yield it if isinstance(it, Prepared) else _verified(
                    _prepare_one(it, chrome, kept), verified_only)
            return
        source = items()
        try:
            while chunk := list(itertools.islice(source, prefetch)):
                read_ahead([it[2] for it in chunk if not isinstance(it, Prepared)], limits)
                for it in chunk:
                    yield it if isinstance(it, Prepared) else _verified(
                        _prepare_one(it, chrome, kept), verified_only)
        finally:
            getattr(chrome, "forget", lambda: None)()
        return
    # The pool's processes decode and validate the records too (in this process, the reader,
    # that was over half of the work on plain-text input, and the pool waited for it): a
    # result comes back with the id its record claims, and the reader applies the rule of
    # repeated ids to the results, in input order. Errors found while reading must keep their
    # place in the output: every item goes through the pool, ready-made results straight
    # back. Bounded: the pool's feeder thread takes a slot per item and the caller frees one
    # per result, so at most ``max_ahead`` pages are between the reader and the caller
    # (``imap`` alone reads the whole input and queues every finished page when the caller is
    # the slower side). A result comes back with its own copies of the id, line number and
    # seq: one object each per document is kept (the id is also a key of ``seen``).
    max_ahead = max(ahead, 2 * chunksize * processes)
    slots = threading.BoundedSemaphore(max_ahead)
    done = threading.Event()
    sent: collections.deque[tuple[int, int, bool] | None] = collections.deque()

    def raw_items() -> Iterator[tuple[int, int, Any, Any, Limits] | Prepared]:
        for line_no, raw in lines:
            while not slots.acquire(timeout=0.5) or done.is_set():
                if done.is_set():  # the caller stopped early: let the pool's feeder end
                    return
            if isinstance(raw, DocumentError):
                sent.append(None)
                yield Prepared.failed(line_no, raw).located(raw)
                continue
            seq = seq_base + line_no if seq_base else line_no
            sent.append((line_no, seq, isinstance(raw, Page)))
            yield (line_no, seq, raw, config, limits)

    ctx = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    with ctx.Pool(processes, initializer=_set_chrome,
                  initargs=(chrome, kept, verified_only)) as pool:
        results = pool.imap(_passthrough_or_prepare, raw_items(), chunksize=chunksize)
        try:
            for packed, claimed in results:
                result = _unpacked(packed)
                mine = sent.popleft()
                slots.release()
                if mine is not None and claimed is not None:
                    line_no, seq, is_page = mine
                    if claimed in seen:
                        where = "page" if is_page else "line"
                        dup = DuplicateId(
                            f"duplicate id (first seen on {where} {seen[claimed]} of this input)",
                            claimed)
                        located = result
                        result = Prepared.failed(line_no, dup, claimed)
                        result.url, result.offset = located.url, located.offset
                    else:
                        seen[claimed] = line_no
                    _adopt(result, line_no, seq, claimed)
                yield result
        finally:
            done.set()  # before the pool's exit joins its feeder
            # and the pages in flight are taken: terminating a pool whose processes still
            # write results can hang (its result thread stops reading them, and its feeder
            # then waits on a full pipe); there are at most ``max_ahead`` of them
            while True:
                try:
                    next(results)
                except StopIteration:
                    break
                except Exception:  # noqa: BLE001,S112 - a page's failure: the next is still taken
                    continue


def _adopt(p: Prepared, line_no: int, seq: int, doc_id: str | None) -> None:
    """Make ``p`` hold the given (equal) objects instead of its own copies."""
    if p.line_no == line_no:
        p.line_no = line_no
    if doc_id is not None and p.id == doc_id:
        p.id = doc_id
    d = p.doc
    if d is not None:
        if doc_id is not None and d.id == doc_id:
            d.id = doc_id
        if d.seq == seq:
            d.seq = seq


def _verified(p: Prepared, verified_only: bool) -> Prepared:
    """``p``, its document without its whole text when ``verified_only`` and it has a
    ``content`` (:func:`prepare_lines`)."""
    if verified_only and p.doc is not None and p.doc.content is not None:
        p.doc.body = ""
    return p


# a pool process's chrome counts, kept hashes and verified_only (prepare_lines)
_CHROME: ChromeCounts | None = None
_KEPT: KeptHashes | None = None
_VERIFIED_ONLY = False


def _set_chrome(chrome: ChromeCounts | None, kept: KeptHashes | None = None,
                verified_only: bool = False) -> None:
    global _CHROME, _KEPT, _VERIFIED_ONLY
    _CHROME, _KEPT, _VERIFIED_ONLY = chrome, kept, verified_only


def _passthrough_or_prepare(it: Any) -> tuple[Prepared | _Packed, str | None]:
    """A pool process's item: a result made by the reader passed back, or a record decoded,
    validated and prepared (:func:`_decode_and_prepare`)."""
    if isinstance(it, Prepared):
        return it, None
    done, claimed = _decode_and_prepare(it, _CHROME, _KEPT)
    return _packed(_verified(done, _VERIFIED_ONLY)), claimed


# A prepared page as the pool sends it back: its Prepared's and StoredDocument's fields in a
# tuple, the fingerprints in one string. Unpickling the objects (a dataclass's state, and
# each of some hundred terms a string object of its own) was most of what the reading
# process spent on a page.
_Packed = tuple[int, str | None, str | None, int | None, str | None, str, str, str | None,
                str, str, int, str | None, str | None, str | None]
_TERMS = " "  # no term holds it (base64url and its "b:" / "n:" prefixes)


def _packed(p: Prepared) -> Prepared | _Packed:
    """``p`` packed (:data:`_Packed`) when it is a page as :func:`prepare_document` makes it
    and its terms join; else ``p`` itself."""
    d = p.doc
    if d is None or p.error is not None or not d.fingerprints:
        return p
    terms = _TERMS.join(d.fingerprints)
    if terms.count(_TERMS) != len(d.fingerprints) - 1 or d != _fresh(d):
        return p
    return (p.line_no, p.id, p.url, p.offset, p.chrome_site, d.id, d.body, d.content, terms,
            d.fp_config, d.seq, d.url, d.site, d.title)


def _fresh(d: StoredDocument) -> StoredDocument:
    """``d`` with only the fields :func:`prepare_document` sets (:func:`_packed` keeps those)."""
    return StoredDocument(id=d.id, body=d.body, fingerprints=d.fingerprints,
                          fp_config=d.fp_config, seq=d.seq, url=d.url, site=d.site,
                          title=d.title, content=d.content)


def _unpacked(r: Prepared | _Packed) -> Prepared:
    """The :class:`Prepared` that :func:`_packed` packed."""
    if isinstance(r, Prepared):
        return r
    (line_no, doc_id, url, offset, chrome_site, sid, body, content, terms, fp_config, seq,
     page_url, site, title) = r
    doc = StoredDocument(id=sid, body=body, fingerprints=terms.split(_TERMS),
                         fp_config=fp_config, seq=seq, url=page_url, site=site, title=title,
                         content=content)
    return Prepared(line_no, doc_id, doc, url=url, offset=offset, chrome_site=chrome_site)


def _decode_and_prepare(
    it: tuple[int, int, Any, Any, Limits], chrome: ChromeCounts | None,
    kept: KeptHashes | None = None,
) -> tuple[Prepared, str | None]:
    """One record (a JSONL line, or a reader's :class:`~neardup.ingest.records.Page`)
    prepared, and the id it claims: its valid id, even when the rest of it is bad (None when
    it has none), for the caller's rule of repeated ids (:func:`prepare_lines`)."""
    line_no, seq, raw, config, limits = it
    doc_id: str | None = None
    try:
        # A Page is validated already, by its reader (a WARC record's: neardup.ingest.crawl)
        if isinstance(raw, Page):
            doc_id = validate_id(raw.id, limits)
            return _prepare_one((line_no, seq, raw, config, limits), chrome, kept), doc_id
        obj = decode_record(raw, limits)
        doc_id = validate_id(obj.get("id"), limits)
        page = validate_page(obj, limits)
    except DocumentError as exc:
        return Prepared.failed(line_no, exc, doc_id).located(raw), doc_id
    return _prepare_one((line_no, seq, page, config, limits), chrome, kept), doc_id
