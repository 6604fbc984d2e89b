"""Steps 2 and 3 of the method for one pair of texts: skeleton → Myers LCS → TLCS → verdict.

``compare(a, b)`` is what the workers, ``neardup compare`` and ``neardup dedup`` call, on texts
(pages are turned into the text to compare by the ingest layer: :mod:`neardup.ingest.pairs`).
The work is done by :mod:`neardup.verifier.lcs` (compiled when built) and the content decision
of :mod:`neardup.verifier.verdict`; this module checks the inputs and shapes the
:class:`~neardup.verifier.verdict.Verdict`.
"""

from __future__ import annotations

from neardup.verifier import lcs as _lcs
from neardup.verifier import verdict as _verdict
from neardup.verifier.config import VerifyConfig
from neardup.verifier.errors import InputTooLargeError, VerifierInputError
from neardup.verifier.verdict import Verdict

__all__ = ["DEFAULT_CONFIG", "Verdict", "compare"]

DEFAULT_CONFIG = VerifyConfig()

# The implementation's early-rejection reasons, as Verdict reasons.
_RAW_REASONS = {"skeleton": _verdict.SKELETON_BOUND, "edit_distance": _verdict.EDIT_BOUND}


def _check(text: object, name: str, config: VerifyConfig) -> str:
    if not isinstance(text, str):
        raise VerifierInputError(
            f"{name} must be a str, got {type(text).__name__}; decode bytes first "
            "(neardup.ingest.pairs does it for pages)"
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
