"""The fingerprint stoplist (end of §4.2 of Huang, Wang & Li 2007).

Fingerprints that occur very often are not evidence of near-duplication but of shared site
templates or spam: the paper drops those occurring more than 10000 times, and those occurring
more than 400 times when concentrated in a few sites. Stoplisted fingerprints are never used to
look up candidates (:func:`neardup.ingest.store.query.build_candidate_query`).

:func:`compute_stoplist` is the pure rule on ``{fingerprint: (documents, distinct sites)}``;
:func:`refresh_stoplist` reads the frequencies from a store, applies the rule and stores the
result. Documents without a ``site`` do not count as a site: a fingerprint seen only on pages
of unknown site has 0 sites and is stopped by the count rule alone.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass

from neardup.ingest.errors import ConfigError
from neardup.ingest.store.base import StoplistEntry
from neardup.ingest.store.roles import Stoplist

__all__ = [
    "CONCENTRATED",
    "FREQUENT",
    "StoplistConfig",
    "compute_stoplist",
    "refresh_stoplist",
    "stoplist_entries",
]

log = logging.getLogger(__name__)

FREQUENT = "frequent"  # more than max_count documents
CONCENTRATED = "concentrated"  # more than concentrated_count documents in at most max_sites sites


@dataclass(frozen=True, slots=True)
class StoplistConfig:
    """Thresholds of the stoplist rule; the defaults are the paper's (max_sites is ours: the
    paper says "a few sites").

    ``max_share`` (off by default) adds a relative form of the frequency rule: a fingerprint in
    more than this share of all documents is stopped as :data:`FREQUENT` too. The paper's
    absolute 10000 was set for 430M pages; on a collection of thousands the same idea — a
    fingerprint common to a sizeable part of the collection is template or boilerplate, not
    evidence — needs a threshold that scales (e.g. 0.01: more than 10 of 1,000 documents).
    On a large collection the absolute threshold is the lower one and decides.
    """

    max_count: int = 10000
    concentrated_count: int = 400
    max_sites: int = 3
    max_share: float | None = None

    def __post_init__(self) -> None:
        for name in ("max_count", "concentrated_count", "max_sites"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ConfigError(f"StoplistConfig.{name} must be a positive int, got {value!r}")
        share = self.max_share
        if share is not None and (
            isinstance(share, bool) or not isinstance(share, int | float) or not 0 < share < 1
        ):
            raise ConfigError(f"StoplistConfig.max_share must be in (0, 1) or None, got {share!r}")
        if self.concentrated_count > self.max_count:
            raise ConfigError(
                "StoplistConfig.concentrated_count must not exceed max_count "
                f"({self.concentrated_count} > {self.max_count}): the concentration rule is "
                "the stricter one for fingerprints confined to a few sites"
            )

    def frequent_count(self, documents: int | None = None) -> int:
        """Occurrences above which a fingerprint is :data:`FREQUENT` in a collection of
        ``documents`` (``max_count``, or less under ``max_share``)."""
        if self.max_share is None:
            return self.max_count
        if documents is None:
            raise ConfigError("StoplistConfig.max_share needs the number of documents")
        return min(self.max_count, int(self.max_share * documents))

    @property
    def min_count(self) -> int:
        """The fewest occurrences a fingerprint needs to be stoplisted by the absolute rules."""
        return self.concentrated_count + 1

    def min_count_for(self, documents: int | None = None) -> int:
        """The fewest occurrences a fingerprint needs to be stoplisted by any rule, in a
        collection of ``documents``."""
        return min(self.concentrated_count, self.frequent_count(documents)) + 1

    def __str__(self) -> str:
        share = "" if self.max_share is None else f"|count>{self.max_share:g}*docs"
        return (
            f"count>{self.max_count}{share}|count>{self.concentrated_count}&sites<={self.max_sites}"
        )


def _reason(count: int, sites: int, config: StoplistConfig, frequent: int) -> str | None:
    if count > frequent:
        return FREQUENT
    if count > config.concentrated_count and 0 < sites <= config.max_sites:
        return CONCENTRATED
    return None


def compute_stoplist(
    freqs: Mapping[str, tuple[int, int]],
    config: StoplistConfig = StoplistConfig(),
    documents: int | None = None,
) -> dict[str, str]:
    """``{fingerprint: reason}`` for the fingerprints the rule stops; ``documents`` (the
    collection size) is needed when ``config.max_share`` is set.

    >>> compute_stoplist({"a": (10001, 500), "b": (401, 2), "c": (401, 50), "d": (9, 1)})
    {'a': 'frequent', 'b': 'concentrated'}
    >>> compute_stoplist({"a": (11, 5), "d": (9, 1)}, StoplistConfig(max_share=0.01), 1000)
    {'a': 'frequent'}
    """
    frequent = config.frequent_count(documents)
    stopped = {}
    for fp, (count, sites) in freqs.items():
        reason = _reason(count, sites, config, frequent)
        if reason is not None:
            stopped[fp] = reason
    return stopped


def stoplist_entries(
    freqs: Mapping[str, tuple[int, int]],
    config: StoplistConfig = StoplistConfig(),
    documents: int | None = None,
) -> list[StoplistEntry]:
    """The stoplist with counts, most frequent first (ties by fingerprint)."""
    reasons = compute_stoplist(freqs, config, documents)
    entries = [StoplistEntry(fp, freqs[fp][0], freqs[fp][1], r) for fp, r in reasons.items()]
    return sorted(entries, key=lambda e: (-(e.count or 0), e.fingerprint))


def refresh_stoplist(
    store: Stoplist,
    config: StoplistConfig = StoplistConfig(),
    dry_run: bool = False,
    documents: int | None = None,
) -> list[StoplistEntry]:
    """Recompute the stoplist from the store's fingerprint frequencies and store it (unless
    ``dry_run``). Returns the new entries. ``documents``, the number of stored documents, is
    needed when ``config.max_share`` is set; it is asked of the store when not given."""
    if config.max_share is not None and documents is None:
        documents = store.document_count()
    freqs = store.fingerprint_frequencies(config.min_count_for(documents))
    entries = stoplist_entries(freqs, config, documents)
    log.info(
        "stoplist: %d fingerprints (%s) among %d with more than %d occurrences",
        len(entries),
        config,
        len(freqs),
        config.min_count_for(documents) - 1,
    )
    if not dry_run:
        store.set_stoplist(entries)
    return entries
