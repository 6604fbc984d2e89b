"""Steps 2 and 3 of the method for one pair: skeleton → Myers LCS → TLCS → verdict.

``compare(a, b)`` is what the workers, ``neardup compare`` and ``neardup dedup`` call. The work
is done by :mod:`neardup.verifier.lcs` (compiled when built); this module checks the inputs and shapes
the result.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from neardup.ingest.extract import document_texts
from neardup.ingest.records import Page, clean_text, validate_page
from neardup.verifier import lcs as _lcs
from neardup.verifier import verdict as _verdict
from neardup.verifier.config import VerifyConfig
from neardup.verifier.errors import InputTooLargeError, VerifierInputError

__all__ = ["DEFAULT_CONFIG", "Verdict", "compare", "compare_documents"]

DEFAULT_CONFIG = VerifyConfig()

# Reasons of a verdict reached from a bound or an empty text, without the full computation.
EARLY_REASONS = frozenset({"empty", _verdict.SKELETON_BOUND, _verdict.EDIT_BOUND})
# The implementation's early-rejection reasons, as Verdict reasons.
_RAW_REASONS = {"skeleton": _verdict.SKELETON_BOUND, "edit_distance": _verdict.EDIT_BOUND}

Span = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Verdict:
    """The verdict on a pair of texts.

    Attributes
    ----------
    similar
        The decision of ``config.decision``: ``"content"`` (default, :mod:`neardup.verifier.verdict`)
        or ``"tlcs"`` (resemble >= config.resemble or contain >= config.contain).
    resemble
        |TLCS| / (|A| + |B| - |TLCS|); an upper bound when ``bound`` is set.
    contain
        |TLCS| / min(|A|, |B|) (the paper's |TLCS| / |B|, B being the contained page); an upper
        bound when ``bound`` is set.
    tlcs
        Length of the trustable LCS (code points; summed over regions in iterative mode); 0
        when the pair was rejected before it was computed.
    lcs
        Length of the skeleton LCS the TLCS was taken from (first region).
    a_span, b_span
        ``(start, end)`` code-point offsets, in the ORIGINAL texts, of the (first) trustable
        region's matched text; None when there is none.
    a_spans, b_spans
        All trustable regions (one unless ``config.iterative``), in the order found.
    reason
        Why the verdict is what it is, always set: ``"exact"`` (same words),
        ``"content-similar"`` (content rule passed: word LCS or TLCS resemble and core
        resemble above their thresholds), ``"tlcs-resemble"`` / ``"contain"``
        (tlcs rule passed by that rate), ``"below-threshold"`` (not enough shared text),
        ``"middle-differs"`` (enough shared text, but the core of the pages — between their
        first and last shared run — differs: one template, different main object),
        ``"skeleton-bound"`` / ``"edit-distance-bound"`` (rejected by an upper bound, before
        the full computation), ``"empty"`` (a text has no content).
    bound
        True when ``resemble`` and ``contain`` are upper bounds (the TLCS step stopped at the
        skeleton bound or at ``config.max_d``): min(|skeleton A|, |skeleton B|) stands for
        |TLCS|, never a misleading 0.0 for texts that share text.
    word_resemble, core_resemble, word_contain
        Features of the content decision (None under ``decision="tlcs"``): word LCS resemble
        (an upper bound when the reason ends in ``-bound``) and the resemble rate inside the
        core (None when not computed).
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
    reason: str = ""
    bound: bool = False
    word_resemble: float | None = None
    core_resemble: float | None = None
    word_contain: float | None = None

    @property
    def rejected_early(self) -> bool:
        """True when the verdict was reached from a bound, without the full computation."""
        return self.reason in EARLY_REASONS

    def as_dict(self) -> dict[str, Any]:
        """The CLI contract's fields: ``similar``, ``resemble``, ``contain``, ``tlcs``,
        ``reason``; ``bound`` when the rates are upper bounds; the content features when
        computed."""
        out: dict[str, Any] = {
            "similar": self.similar,
            "resemble": self.resemble,
            "contain": self.contain,
            "tlcs": self.tlcs,
            "reason": self.reason,
        }
        if self.bound:
            out["bound"] = True
        if self.word_resemble is not None:
            out["word_resemble"] = self.word_resemble
        if self.core_resemble is not None:
            out["core_resemble"] = self.core_resemble
        if self.word_contain is not None:
            out["word_contain"] = self.word_contain
        return out


def _check(text: object, name: str, config: VerifyConfig) -> str:
    if not isinstance(text, str):
        raise VerifierInputError(
            f"{name} must be a str, got {type(text).__name__}; decode bytes first "
            "(neardup.ingest.extract does it for HTML)"
        )
    if len(text) > config.max_chars:
        raise InputTooLargeError(
            f"{name} has {len(text)} code points, more than max_chars={config.max_chars}"
        )
    return text


def compare(a: str, b: str, config: VerifyConfig = DEFAULT_CONFIG) -> Verdict:
    """Verify whether texts ``a`` and ``b`` are near-duplicates (TLCS rates).

    Symmetric: ``compare(a, b)`` and ``compare(b, a)`` give the same rates and verdict (spans
    swap). Whitespace runs count as one space; control characters as whitespace. ``similar``
    follows ``config.decision`` (see :class:`Verdict`); the TLCS rates are computed either way.

    >>> page = "新华社北京一月一日电 今天是新年的第一天，首都各界群众欢聚一堂。" * 3
    >>> v = compare(page, "广告 " + page + " 版权所有")
    >>> v.similar, v.tlcs, round(v.contain, 2), v.reason
    (True, 96, 1.0, 'content-similar')
    """
    _check(a, "a", config)
    _check(b, "b", config)
    similar, resemble, contain, tlcs, lcs, a_spans, b_spans, raw = _lcs.verify(a, b, config)
    bound = False
    if raw in _RAW_REASONS:
        # Rejected before the TLCS: the rates are the bounds |TLCS| <= |LCS| <= the shorter
        # skeleton, as the implementation returns them.
        bound = True
    word_resemble = core_resemble = word_contain = None
    if config.decision == "content":
        shared = 0.0 if bound else resemble
        f = _verdict.content_features(a, b, config, shared, apart=bound)
        similar, reason = _verdict.decide(f, config, shared)
        word_resemble, core_resemble = f.word_resemble, f.core_resemble
        word_contain = f.word_contain
        if bound and reason == _verdict.EXACT:
            # The same words, too short (or too unlike in punctuation) for the skeleton's
            # windows: the rates are computed on the whole texts instead of bounded.
            resemble, contain, tlcs = _whole_text_rates(a, b)
            bound = False
    elif raw is not None:
        reason = _RAW_REASONS.get(raw, raw)
    elif similar:
        reason = (
            _verdict.EXACT if resemble >= 1.0
            else "tlcs-resemble" if resemble >= config.resemble
            else "contain"
        )
    else:
        reason = _verdict.BELOW
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
        bound=bound,
        word_resemble=word_resemble,
        core_resemble=core_resemble,
        word_contain=word_contain,
    )


def _whole_text_rates(a: str, b: str) -> tuple[float, float, int]:
    """Resemble and contain rates of the plain LCS of the normalised texts, and its length."""
    an, _ = _lcs.normalize(a)
    bn, _ = _lcs.normalize(b)
    common = _lcs.lcs_length(an, bn)
    union = len(an) + len(bn) - common
    shorter = min(len(an), len(bn))
    return (common / union if union else 0.0), (common / shorter if shorter else 0.0), common


def compare_documents(
    a: Page | Mapping[str, Any], b: Page | Mapping[str, Any], config: VerifyConfig = DEFAULT_CONFIG
) -> Verdict:
    """:func:`compare` on two JSONL documents (``text``, ``html``, ``rst``, ``markdown``),
    validated by the input layer (:func:`neardup.ingest.records.validate_page`, no id needed).

    An HTML page is verified on its *main content* (:func:`neardup.ingest.extract.document_texts`:
    without navigation, header, footer, sidebars and link lists; the whole text when the main
    content is too short to stand for the page — decided per page), so the chrome of two
    pages of one site never makes them similar and another site's template never keeps the
    same article apart. Other inputs are verified as they are. Spans refer to those texts."""
    return compare(verified_text(a), verified_text(b), config)


def verified_text(doc: Page | Mapping[str, Any]) -> str:
    """The text of a JSONL document that the verifier compares: its main content."""
    page = doc if isinstance(doc, Page) else validate_page(doc, require_id=False)
    return clean_text(document_texts(page.document()).content)
