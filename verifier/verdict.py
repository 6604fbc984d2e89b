"""The verdict on a pair: the :class:`Verdict` type, and the content decision that reaches it.

:func:`neardup.verifier.compare.compare` computes the TLCS rates, then asks this module for the
content decision over word-alignment features (the default, ``config.decision="content"``) and
returns a :class:`Verdict`.

The TLCS rates (:mod:`neardup.verifier.lcs`) say how much text two pages share; people judging
near-duplicates (Webis ECIR 2020 sample, issue 16) also ask *where* the differences sit.
Two pages are content-equivalent when

1. their word-level LCS resemble rate ``word_resemble`` — or the iterative TLCS resemble
   rate, which also counts reordered paragraphs — is at least ``config.min_word_resemble``
   (enough text in common), and
2. the *core* — the stretch of each page between its first and last shared run of at least
   ``config.anchor_words`` words — is itself similar: ``core_resemble`` (word LCS resemble
   measured inside the core) at least ``config.min_core_resemble``;

or when one page holds the other (reason ``contained``): at least ``config.min_word_contain``
of the shorter page's words lie in runs of ``config.contain_ngram`` words found, in any
order, in the other page (the paper's guideline: a page that contains the other's key
paragraphs, or the same paragraphs reordered, is a near-duplicate).

Differences before the first shared run or after the last one (site chrome, another site's
template) do not count against the core; differences *inside* it do: one template filled for
two different hotels, counties or drugs shares its head and tail and most field labels, and
differs all through the middle, so its core rate stays low (reason ``middle-differs``).

Words are ``\\w`` runs, case-folded; every CJK character (and kana, hangul) is a word of its
own, so Chinese text aligns character by character. The word layer
(:mod:`neardup.verifier.words`, a compiled twin and its reference) encodes both pages' words
as code points; the alignment (:func:`neardup.verifier.words.align`) is one LCS of the two
token sequences: Myers' O(ND) where the pages differ little, the bit-parallel alignment where
they differ densely; capped at the edit distance a similar pair allows. Before it, an O(n)
bound (the shared token multiset) rejects pairs that cannot reach rule 1. A rejected pair
reports that upper bound, never 0.0.

No fitting at run time: the thresholds are frozen in
:class:`neardup.verifier.config.VerifyConfig`.

The thresholds were chosen on human-judged web pages (issue 16): docs/quality.md, "How the
content rule's thresholds were chosen".
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from neardup.verifier.words import align, encode_bound, lcs_reaches, word_contain

if TYPE_CHECKING:
    from neardup.verifier.config import VerifyConfig

__all__ = ["EARLY_REASONS", "ContentFeatures", "Verdict", "content_features", "decide"]

_SIZE = operator.itemgetter(2)  # of a matching block (i, j, n)

# Reasons of the content decision (Verdict.reason).
EXACT = "exact"
SIMILAR = "content-similar"
BELOW = "below-threshold"
MIDDLE = "middle-differs"
SKELETON_BOUND = "skeleton-bound"
EDIT_BOUND = "edit-distance-bound"
EMPTY = "empty"
CONTAINED = "contained"

# Reasons of a verdict reached from a bound or an empty text, without the full computation.
EARLY_REASONS = frozenset({EMPTY, SKELETON_BOUND, EDIT_BOUND})

Span = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Verdict:
    """The verdict on a pair of texts.

    Attributes
    ----------
    similar
        The decision of ``config.decision``: ``"content"`` (default, this module's content rule)
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


@dataclass(frozen=True, slots=True)
class ContentFeatures:
    """Word-alignment features of a pair.

    ``word_resemble`` is the word LCS resemble rate ``L / (n + m - L)``, or an upper bound
    of it when ``bound`` is set (the alignment was not needed to decide the pair: rejected
    at a bound, or contained and too small a share of the longer page for rule 1);
    ``core_resemble`` the same rate inside the core (None when not computed);
    ``reason`` is set when the features were cut short (``empty``, ``exact``,
    ``skeleton-bound``, ``edit-distance-bound``). ``word_contain`` is the
    share of the shorter page's words lying in runs of ``config.contain_ngram`` words that
    also occur in the other page, in any order (0 when the shorter page is under
    ``config.min_contain_words`` words: too little to hold "key paragraphs").
    """

    word_resemble: float
    core_resemble: float | None
    n_words: int
    m_words: int
    bound: bool = False
    reason: str | None = None
    word_contain: float = 0.0


def _rate(common: int, n: int, m: int) -> float:
    return common / (n + m - common) if n + m - common > 0 else 1.0


def content_features(
    a: str, b: str, config: VerifyConfig, shared: float = 0.0, apart: bool = False
) -> ContentFeatures:
    """The features of the content decision for texts ``a`` and ``b`` (any order).

    ``shared`` is the pair's TLCS resemble rate (0 when unknown): when it already passes
    rule 1, the word alignment is not cut short by the rule-1 bounds, since the core is
    still needed. ``apart`` says the TLCS step rejected the pair at a bound (its skeletons
    are far apart): then the word LCS length is checked first, bit-parallel
    (:func:`neardup.verifier.words.lcs_reaches`), before any alignment. Neither changes the
    features.
    """
    sa, sb, upper = encode_bound(a, b)
    n, m = len(sa), len(sb)
    if n == 0 or m == 0:
        return ContentFeatures(1.0 if sa == sb else 0.0, None, n, m, reason=EMPTY)
    if sa == sb:
        return ContentFeatures(1.0, 1.0, n, m, reason=EXACT, word_contain=1.0)
    contained = word_contain(sa, sb, config.contain_ngram, config.min_contain_words)
    # One page holding (nearly) all of the other, paragraph by paragraph, is a near-duplicate
    # by the paper's guideline, whatever else the longer page holds: no bound may reject it.
    holds = contained >= config.min_word_contain
    t1 = config.min_word_resemble
    # O(n) bound: the LCS cannot exceed the shared token multiset (``upper``).
    passed = shared >= t1 or holds
    if shared < t1 and _rate(upper, n, m) < t1:
        if holds:
            # Contained, and too small a share of the longer page for rule 1 whatever the
            # alignment: the verdict is containment without it (a page that re-exports a
            # whole library holds each module's page: aligning them all cost minutes).
            return ContentFeatures(
                _rate(upper, n, m), None, n, m, bound=True, word_contain=contained
            )
        return ContentFeatures(
            _rate(upper, n, m), None, n, m, bound=True, reason=SKELETON_BOUND,
            word_contain=contained,
        )
    # A pair reaching rule 1 has L >= t1 (n + m) / (1 + t1), hence D = n + m - 2L <= max_d.
    need = math.ceil(t1 * (n + m) / (1.0 + t1) - 1e-9)
    # No other cap (``config.max_d`` caps the character-level TLCS step): long pages are
    # aligned, at word level, in full.
    max_d = -1 if passed else n + m - 2 * need
    # A pair the TLCS step rejected at a bound is most likely rejected here too: the
    # bit-parallel LCS length says so at a cost that does not grow with the edit distance
    # (Myers' does: long CJK pages, dense edits), with exactly the capped alignment's answer.
    # Other pairs mostly complete the alignment, where the filter would only add its cost.
    blocks = (
        None if not passed and apart and not lcs_reaches(sa, sb, need)
        else align(sa, sb, max_d, n + m - 2 * upper)
    )
    if blocks is None:
        # D > max_d, so L < (n + m - max_d) / 2: report that bound (and <= upper).
        bound = min(upper, math.ceil((n + m - max_d) / 2) - 1)
        return ContentFeatures(
            _rate(bound, n, m), None, n, m, bound=True, reason=EDIT_BOUND, word_contain=contained
        )
    # Hundreds of blocks a pair: summed by ``map`` (no Python step per block), and the anchors
    # searched from either end, where they usually are.
    common = sum(map(_SIZE, blocks))
    anchor = config.anchor_words
    first = next((x for x, blk in enumerate(blocks) if blk[2] >= anchor), -1)
    if first < 0:
        core = 0.0
    else:
        last = next(x for x in range(len(blocks) - 1, first - 1, -1) if blocks[x][2] >= anchor)
        a0, b0, _ = blocks[first]
        a1, b1, k = blocks[last]
        # Blocks are ordered in both texts: those wholly between the anchors are first..last.
        inside = sum(map(_SIZE, blocks[first : last + 1]))
        core = _rate(inside, a1 + k - a0, b1 + k - b0)
    return ContentFeatures(_rate(common, n, m), core, n, m, word_contain=contained)


def decide(f: ContentFeatures, config: VerifyConfig, shared: float = 0.0) -> tuple[bool, str]:
    """``(similar, reason)`` of the content decision over features ``f`` (``shared``: the
    TLCS resemble rate, 0 when unknown)."""
    if f.reason is not None:
        return f.reason == EXACT, f.reason
    enough = max(f.word_resemble, shared) >= config.min_word_resemble
    if enough and f.core_resemble is not None and f.core_resemble >= config.min_core_resemble:
        return True, SIMILAR
    if f.word_contain >= config.min_word_contain:
        return True, CONTAINED
    return False, MIDDLE if enough else BELOW

