"""The fingerprint stoplist (end of §4.2 of Huang, Wang & Li 2007).

Fingerprints that occur very often are not evidence of near-duplication but of shared site
templates or spam: the paper drops those occurring more than 10000 times, and those occurring
more than 400 times when concentrated in a few sites. Stoplisted fingerprints are never used to
look up candidates (:func:`ingest.query.build_candidate_query`).

:func:`compute_stoplist` is the pure rule on ``{fingerprint: (documents, distinct sites)}``;
:func:`refresh_stoplist` reads the frequencies from a store, applies the rule and stores the
result. Documents without a ``site`` do not count as a site: a fingerprint seen only on pages
of unknown site has 0 sites and is stopped by the count rule alone.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass

from ingest.errors import ConfigError
from ingest.store.base import StoplistEntry, Store

__all__ = [
    "CONCENTRATED",
    "FREQUENT",
    "StoplistConfig",
    "compute_stoplist",
    "refresh_stoplist",
    "stoplist_entries",
]

log = logging.getLogger(__name__)
log.addHandler(logging.NullHandler())

FREQUENT = "frequent"  # more than max_count documents
CONCENTRATED = "concentrated"  # more than concentrated_count documents in at most max_sites sites


@dataclass(frozen=True, slots=True)
class StoplistConfig:
    """Thresholds of the stoplist rule; the defaults are the paper's (max_sites is ours: the
    paper says "a few sites")."""

    max_count: int = 10000
    concentrated_count: int = 400
    max_sites: int = 3

    def __post_init__(self) -> None:
        for name in ("max_count", "concentrated_count", "max_sites"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ConfigError(f"StoplistConfig.{name} must be a positive int, got {value!r}")
        if self.concentrated_count > self.max_count:
            raise ConfigError(
                "StoplistConfig.concentrated_count must not exceed max_count "
                f"({self.concentrated_count} > {self.max_count}): the concentration rule is "
                "the stricter one for fingerprints confined to a few sites"
            )

    @property
    def min_count(self) -> int:
        """The fewest occurrences a fingerprint needs to be stoplisted by either rule."""
        return self.concentrated_count + 1

    def __str__(self) -> str:
        return f"count>{self.max_count}|count>{self.concentrated_count}&sites<={self.max_sites}"


def _reason(count: int, sites: int, config: StoplistConfig) -> str | None:
    if count > config.max_count:
        return FREQUENT
    if count > config.concentrated_count and 0 < sites <= config.max_sites:
        return CONCENTRATED
    return None


def compute_stoplist(
    freqs: Mapping[str, tuple[int, int]], config: StoplistConfig = StoplistConfig()
) -> dict[str, str]:
    """``{fingerprint: reason}`` for the fingerprints the rule stops.

    >>> compute_stoplist({"a": (10001, 500), "b": (401, 2), "c": (401, 50), "d": (9, 1)})
    {'a': 'frequent', 'b': 'concentrated'}
    """
    stopped = {}
    for fp, (count, sites) in freqs.items():
        reason = _reason(count, sites, config)
        if reason is not None:
            stopped[fp] = reason
    return stopped


def stoplist_entries(
    freqs: Mapping[str, tuple[int, int]], config: StoplistConfig = StoplistConfig()
) -> list[StoplistEntry]:
    """The stoplist with counts, most frequent first (ties by fingerprint)."""
    reasons = compute_stoplist(freqs, config)
    entries = [StoplistEntry(fp, freqs[fp][0], freqs[fp][1], r) for fp, r in reasons.items()]
    return sorted(entries, key=lambda e: (-(e.count or 0), e.fingerprint))


def refresh_stoplist(
    store: Store, config: StoplistConfig = StoplistConfig(), dry_run: bool = False
) -> list[StoplistEntry]:
    """Recompute the stoplist from the store's fingerprint frequencies and store it (unless
    ``dry_run``). Returns the new entries."""
    freqs = store.fingerprint_frequencies(config.min_count)
    entries = stoplist_entries(freqs, config)
    log.info(
        "stoplist: %d fingerprints (%s) among %d with more than %d occurrences",
        len(entries),
        config,
        len(freqs),
        config.concentrated_count,
    )
    if not dry_run:
        store.set_stoplist(entries)
    return entries
