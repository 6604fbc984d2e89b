"""Steps 2 and 3 of the method for one pair: skeleton → Myers LCS → TLCS → verdict.

``compare(a, b)`` is what the workers, ``neardup compare`` and ``neardup dedup`` call. The work
is done by :mod:`verifier.lcs` (compiled when built); this module checks the inputs and shapes
the result.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ingest.extract import document_text
from verifier import lcs as _lcs
from verifier.config import VerifyConfig
from verifier.errors import InputTooLargeError, VerifierInputError

__all__ = ["DEFAULT_CONFIG", "Verdict", "compare", "compare_documents"]

DEFAULT_CONFIG = VerifyConfig()

Span = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Verdict:
    """The verdict on a pair of texts.

    Attributes
    ----------
    similar
        resemble >= config.resemble or contain >= config.contain.
    resemble
        |TLCS| / (|A| + |B| - |TLCS|).
    contain
        |TLCS| / min(|A|, |B|) (the paper's |TLCS| / |B|, B being the contained page).
    tlcs
        Length of the trustable LCS (code points; summed over regions in iterative mode).
    lcs
        Length of the skeleton LCS the TLCS was taken from (first region).
    a_span, b_span
        ``(start, end)`` code-point offsets, in the ORIGINAL texts, of the (first) trustable
        region's matched text; None when there is none.
    a_spans, b_spans
        All trustable regions (one unless ``config.iterative``), in the order found.
    reason
        None when the TLCS was computed; otherwise why the pair was rejected without it:
        ``"empty"`` (a text has no content), ``"skeleton"`` (even the skeletons cannot reach
        the thresholds), ``"edit_distance"`` (D above what a similar pair allows, or above
        ``config.max_d``). Rejected pairs report zero rates.
    """

    similar: bool
    resemble: float
    contain: float
    tlcs: int
    lcs: int
    a_span: Span | None
    b_span: Span | None
    a_spans: tuple[Span, ...] = ()
    b_spans: tuple[Span, ...] = ()
    reason: str | None = None

    @property
    def rejected_early(self) -> bool:
        """True when the verdict was reached without a TLCS."""
        return self.reason is not None

    def as_dict(self) -> dict[str, Any]:
        """The CLI contract's fields: ``similar``, ``resemble``, ``contain``, ``tlcs``."""
        return {
            "similar": self.similar,
            "resemble": self.resemble,
            "contain": self.contain,
            "tlcs": self.tlcs,
        }


def _check(text: object, name: str, config: VerifyConfig) -> str:
    if not isinstance(text, str):
        raise VerifierInputError(
            f"{name} must be a str, got {type(text).__name__}; decode bytes first "
            "(ingest.extract does it for HTML)"
        )
    if len(text) > config.max_chars:
        raise InputTooLargeError(
            f"{name} has {len(text)} code points, more than max_chars={config.max_chars}"
        )
    return text


def compare(a: str, b: str, config: VerifyConfig = DEFAULT_CONFIG) -> Verdict:
    """Verify whether texts ``a`` and ``b`` are near-duplicates (TLCS rates).

    Symmetric: ``compare(a, b)`` and ``compare(b, a)`` give the same rates and verdict (spans
    swap). Whitespace runs count as one space; control characters as whitespace.

    >>> page = "新华社北京一月一日电 今天是新年的第一天，首都各界群众欢聚一堂。" * 3
    >>> v = compare(page, "广告 " + page + " 版权所有")
    >>> v.similar, v.tlcs, round(v.contain, 2)
    (True, 96, 1.0)
    """
    _check(a, "a", config)
    _check(b, "b", config)
    similar, resemble, contain, tlcs, lcs, a_spans, b_spans, reason = _lcs.verify(a, b, config)
    return Verdict(
        similar=similar,
        resemble=resemble,
        contain=contain,
        tlcs=tlcs,
        lcs=lcs,
        a_span=a_spans[0] if a_spans else None,
        b_span=b_spans[0] if b_spans else None,
        a_spans=tuple(a_spans),
        b_spans=tuple(b_spans),
        reason=reason,
    )


def compare_documents(
    a: Mapping[str, Any], b: Mapping[str, Any], config: VerifyConfig = DEFAULT_CONFIG
) -> Verdict:
    """:func:`compare` on two JSONL documents (``text`` or ``html``), via
    :func:`ingest.extract.document_text`; spans refer to the extracted texts."""

    return compare(document_text(a), document_text(b), config)
