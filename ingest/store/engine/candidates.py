"""A search engine's candidates: the ``terms`` query of
:func:`neardup.ingest.store.query.build_candidate_query` on the fingerprints index for one page
(score = number of shared non-stoplisted fingerprints; ties by ``seq`` then ``id``), and for a
whole batch the holders of its fingerprints, sent in parts within the index's
``index.max_terms_count``."""

from __future__ import annotations

import logging
from collections.abc import Collection, Iterator, Mapping, Sequence
from typing import Any

from neardup.ingest.store.base import Candidate, StoredDocument, fingerprint_terms
from neardup.ingest.store.engine.dialect import TooManyTerms, terms_allowed, translated
from neardup.ingest.store.engine.stoplist import StoplistIndex
from neardup.ingest.store.query import build_candidate_query, build_holders_query
from neardup.ingest.store.ranking import candidate_terms

__all__ = ["DEFAULT_MAX_TERMS", "TermsSearch"]

log = logging.getLogger(__name__)
log.addHandler(logging.NullHandler())

# The most terms one ``terms`` query may carry is the index's ``index.max_terms_count`` (a dynamic
# setting; this is its default on both engines, taken when the index's own cannot be read): a
# batch with more usable fingerprints is searched in several requests. Only the ``terms`` query's
# own values count (as sent, duplicates too): not the ``ids`` of the batch left out, nor the
# ``term`` on ``fp_config``.
DEFAULT_MAX_TERMS = 65_536


class TermsSearch(StoplistIndex):
    """The candidates of :class:`~neardup.ingest.store.roles.EngineCandidates`, minus the
    stoplist, by ``terms`` queries of the fingerprints index."""

    _max_terms: int | None = None  # index.max_terms_count, read at the first search

    @translated
    def candidates(self, doc: StoredDocument, k: int = 20) -> list[Candidate]:
        terms = candidate_terms(doc.fingerprints, self.stoplist())
        if not terms:
            return []  # the documented rule: no usable fingerprint, no candidates
        body = build_candidate_query(fingerprint_terms(terms), (), k, doc.id, doc.fp_config)
        res = self.client.search(index=self.fingerprints_index, body=body)
        return [Candidate(hit["_id"], int(round(hit["sort"][0]))) for hit in res["hits"]["hits"]]

    @translated
    def fingerprint_holders(
        self, terms: Mapping[str, Collection[str]], exclude_ids: Sequence[str]
    ) -> list[tuple[str, int, str]]:
        """Per config, the hits of one search of the fingerprints index for all its terms, in
        its order (``seq``, ``id``), though the terms go out in parts of at most
        ``index.max_terms_count`` (:meth:`_holder_hits`)."""
        found: list[tuple[str, int, str]] = []
        for config, wanted in terms.items():
            holders: dict[str, tuple[str, int, str]] = {}
            for h in self._holder_hits(fingerprint_terms(wanted), config, exclude_ids):
                f = h.get("fields", {})
                if "id" not in f:  # every page neardup writes has it (StoredDocument.to_source)
                    log.warning("a page of %s without an id field is not a candidate", config)
                    continue
                doc_id = str(f["id"][0])
                if doc_id in holders:  # holds terms of two parts
                    continue
                holders[doc_id] = (doc_id, int(f["seq"][0]), config)
            found += sorted(holders.values(), key=_seq_and_id)
        return found

    def _holder_hits(
        self, wanted: list[str], config: str, exclude_ids: Sequence[str]
    ) -> Iterator[dict[str, Any]]:
        """Every hit of the holders search for ``wanted``, sent in parts of at most
        :meth:`max_terms` terms (a page holding terms of several parts comes once per part). A
        part the node refuses for its number of terms — the limit lowered since it was read —
        is sent again in smaller parts, under the limit read anew."""
        lo = 0
        while lo < len(wanted):
            part = wanted[lo:lo + self.max_terms()]
            body = build_holders_query(part, config, exclude_ids, self.page)
            try:
                yield from self._paged(body, self.fingerprints_index)
            except self.dialect.api_error as exc:
                allowed = terms_allowed(self.dialect.error_body(exc) or str(exc))
                if allowed is None:
                    raise
                self._fewer_terms(len(part), allowed, exc)
                continue
            except TooManyTerms as refused:
                self._fewer_terms(len(part), refused.allowed, refused)
                continue
            lo += len(part)

    def max_terms(self) -> int:
        """The most terms one ``terms`` query may carry on the fingerprints index: its
        ``index.max_terms_count``, read once (the smallest of the indices behind an alias;
        :data:`DEFAULT_MAX_TERMS` when it cannot be read — no index yet, no privilege to read
        its settings — in which case a refusal tells the limit)."""
        if self._max_terms is None:
            self._max_terms = self._read_max_terms()
        return self._max_terms

    def _read_max_terms(self) -> int:
        try:
            answer = self.client.indices.get_settings(
                index=self.fingerprints_index, name="index.max_terms_count", include_defaults=True,
                flat_settings=True,
            )
        except (self.dialect.api_error, *self.dialect.unreachable) as exc:
            log.debug("index.max_terms_count of %s unread (%s): taking %d",
                      self.fingerprints_index, exc, DEFAULT_MAX_TERMS)
            return DEFAULT_MAX_TERMS
        limits = []
        for index in answer:
            settings = answer[index]
            value = ((settings.get("settings") or {}).get("index.max_terms_count")
                     or (settings.get("defaults") or {}).get("index.max_terms_count"))
            if value is not None:
                limits.append(max(1, int(value)))
        return min(limits, default=DEFAULT_MAX_TERMS)

    def _fewer_terms(self, sent: int, allowed: int, refusal: Exception) -> None:
        """A search of ``sent`` terms was refused, the node allowing ``allowed``: take the
        limit read anew (or ``allowed``, when lower), and always fewer than ``sent``."""
        limit = min(self._read_max_terms(), allowed or sent, sent - 1)
        log.info("%s refused a search of %d terms (index.max_terms_count lowered?): "
                 "sending at most %d a search", self.dialect.name, sent, limit)
        if limit < 1:
            raise refusal
        self._max_terms = limit


def _seq_and_id(hit: tuple[str, int, str]) -> tuple[int, str]:
    """The holders search's order: ``seq``, then ``id`` (a keyword, so code points: what
    Python's ``str`` order is too)."""
    return hit[1], hit[0]
