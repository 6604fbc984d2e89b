"""Baselines that neardup's LCS/TLCS method is measured against (``neardup eval``).

Every baseline follows one protocol (:class:`Baseline`): ``fit`` on a development corpus for
the statistics a method needs (IDF lexicon, stop words), ``signature`` per document,
``similar``/``score`` for a pair of signatures, and ``candidates`` for the method's own
candidate scheme over a corpus (block tables, super-shingle matching, LSH buckets, ...).

Methods and their sources are described in ``docs/baselines.md``. Implementations live one
per module and are imported only when asked for, so a missing optional dependency (datasketch,
pypinyin, WordNet data) affects only the method that needs it.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol, runtime_checkable

from neardup.ingest.errors import ConfigError

__all__ = ["BASELINES", "Baseline", "get_baseline"]


@runtime_checkable
class Baseline(Protocol):
    """A near-duplicate detection method used for comparison."""

    name: str

    def fit(self, texts: Iterable[str]) -> None:
        """Collect corpus statistics (IDF lexicon, stop words); a no-op where none are needed."""
        ...

    def signature(self, text: str) -> Any:
        """The method's signature (fingerprint) of one document's text."""
        ...

    def similar(self, a: Any, b: Any) -> bool:
        """The method's pair decision on two signatures."""
        ...

    def score(self, a: Any, b: Any) -> float:
        """The method's similarity of two signatures (higher = more similar)."""
        ...

    def candidates(self, signatures: Mapping[str, Any]) -> set[tuple[str, str]]:
        """Pairs ``(a, b)`` with ``a < b`` found through the method's own index scheme.

        Every returned pair also passes :meth:`similar` (schemes whose lookup is followed by a
        check, like LSH buckets, apply it), so the result is the method's corpus-mode answer;
        pairs that :meth:`similar` accepts but the index cannot reach are the scheme's misses.
        """
        ...


def _lazy(module: str, cls: str) -> Callable[..., Baseline]:
    def factory(**params: Any) -> Baseline:
        klass = getattr(importlib.import_module(f"{__name__}.{module}"), cls)
        try:
            inspect.signature(klass).bind(**params)
        except TypeError as exc:  # unknown keyword: a usage error, not a crash
            raise ConfigError(f"bad parameters for {klass.__name__}: {exc}") from None
        baseline: Baseline = klass(**params)
        return baseline

    factory.__name__ = f"make_{module}"
    factory.__doc__ = f"Build :class:`{__name__}.{module}.{cls}` with ``params``."
    return factory


#: registry name -> factory(**params)
BASELINES: dict[str, Callable[..., Baseline]] = {
    "simhash": _lazy("simhash", "SimHash"),
    "shingling": _lazy("shingling", "Shingling"),
    "minhash-lsh": _lazy("minhash_lsh", "MinHashLSHBaseline"),
    "i-match": _lazy("imatch", "IMatch"),
    "i-match-multi": _lazy("imatch", "MultiLexiconIMatch"),
    "spotsig": _lazy("spotsig", "SpotSig"),
    "dwdcs": _lazy("dwdcs", "DWDCS"),
    "pinyin": _lazy("pinyin_dna", "PinyinDNA"),
}


def get_baseline(name: str, **params: Any) -> Baseline:
    """Build the baseline registered as ``name`` with keyword ``params``.

    Raises :class:`~neardup.ingest.errors.ConfigError` for an unknown name or a bad parameter.
    """
    try:
        factory = BASELINES[name]
    except KeyError:
        known = ", ".join(sorted(BASELINES))
        raise ConfigError(f"unknown baseline {name!r}; known: {known}") from None
    return factory(**params)
