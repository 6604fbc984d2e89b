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
own, so Chinese text aligns character by character. The alignment (:func:`align`) is one LCS
of the two token sequences (each distinct token mapped to one code point): Myers' O(ND) with
the compiled ``matching_blocks`` where the pages differ little, the bit-parallel alignment
(:func:`bit_blocks`) where they differ densely; capped at the edit distance a similar pair
allows. Before it, an O(n) bound (the shared token multiset) rejects pairs that cannot reach
rule 1. A rejected pair reports that upper bound, never 0.0.

The functions here are the specification of the word layer; ``neardup.verifier._words`` is their
compiled twin, chosen by ``NEARDUP_IMPL`` (:func:`neardup.verifier.implementation.select`). No
fitting at run time: the thresholds are frozen in :class:`neardup.verifier.config.VerifyConfig`.

The thresholds were chosen on human-judged web pages (issue 16): docs/quality.md, "How the
content rule's thresholds were chosen".
"""

from __future__ import annotations

import functools
import math
import operator
import re
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from neardup.verifier import lcs as _lcs
from neardup.verifier.implementation import select

if TYPE_CHECKING:
    from neardup.verifier.config import VerifyConfig

__all__ = [
    "EARLY_REASONS", "ContentFeatures", "Verdict", "align", "bit_blocks", "content_features",
    "decide", "encode", "encode_bound", "lcs_reaches", "shared_upper", "tokens", "word_contain",
]

# One token per CJK ideograph / kana / hangul syllable; other word characters in runs.
_CJK = (
    "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
    "\U00020000-\U0002fa1f"
)
_TOKEN = f"[{_CJK}]|[^\\W{_CJK}]+"
# Tokens are mapped to code points from here on (supplementary planes: no surrogates).
_CODE_BASE = 0x10000
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

# The largest bit-parallel word alignment, in 64-bit words of rows (32 MB): :func:`align`.
BIT_ALIGN_WORDS = 1 << 22

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
    of it when ``bound`` is set (the alignment was not needed to reject the pair);
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


def tokens(text: str) -> list[str]:
    """Case-folded word tokens of ``text``; a CJK character is a token of its own.

    >>> tokens("Hotel Nord, 2 nights — 北京饭店")
    ['hotel', 'nord', '2', 'nights', '北', '京', '饭', '店']
    """
    return _token_pattern().findall(text.casefold())


@functools.cache
def _token_pattern() -> re.Pattern[str]:
    # Compiled on first use: the compiled word layer never needs it, and a one-pair
    # ``neardup compare`` should not pay for it at start-up.
    return re.compile(_TOKEN)


def encode(a: str, b: str) -> tuple[str, str]:
    """The tokens of ``a`` and ``b`` (:func:`tokens`) as strings of code points, one per
    token, equal tokens equal code points (so the compiled ``matching_blocks`` aligns words).

    >>> sa, sb = encode("the cat, the hat", "The hat")
    >>> [ord(c) - 0x10000 for c in sa], [ord(c) - 0x10000 for c in sb]
    ([0, 1, 0, 2], [0, 2])
    """
    ids: dict[str, int] = {}
    sa = "".join([chr(_CODE_BASE + ids.setdefault(t, len(ids))) for t in tokens(a)])
    sb = "".join([chr(_CODE_BASE + ids.setdefault(t, len(ids))) for t in tokens(b)])
    return sa, sb


def encode_bound(a: str, b: str) -> tuple[str, str, int]:
    """:func:`encode` and the :func:`shared_upper` bound of the two sequences."""
    sa, sb = encode(a, b)
    return sa, sb, shared_upper(sa, sb)


def shared_upper(sa: str, sb: str) -> int:
    """The size of the shared multiset of two token sequences: an upper bound of their LCS."""
    ca, cb = Counter(sa), Counter(sb)
    if len(cb) < len(ca):
        ca, cb = cb, ca
    return sum(min(c, cb[t]) for t, c in ca.items() if t in cb)


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
    (:func:`lcs_reaches`), before any alignment. Neither changes the features.
    """
    sa, sb, upper = _encode_bound(a, b)
    n, m = len(sa), len(sb)
    if n == 0 or m == 0:
        return ContentFeatures(1.0 if sa == sb else 0.0, None, n, m, reason=EMPTY)
    if sa == sb:
        return ContentFeatures(1.0, 1.0, n, m, reason=EXACT, word_contain=1.0)
    contained = _word_contain(sa, sb, config.contain_ngram, config.min_contain_words)
    # One page holding (nearly) all of the other, paragraph by paragraph, is a near-duplicate
    # by the paper's guideline, whatever else the longer page holds: no bound may reject it.
    holds = contained >= config.min_word_contain
    t1 = config.min_word_resemble
    # O(n) bound: the LCS cannot exceed the shared token multiset (``upper``).
    passed = shared >= t1 or holds
    if not passed and _rate(upper, n, m) < t1:
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
        None if not passed and apart and not _lcs_reaches(sa, sb, need)
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


def align(
    sa: str, sb: str, max_d: int, min_d: int = 0
) -> list[tuple[int, int, int]] | None:
    """The word alignment of :func:`content_features`: matching blocks of one LCS of ``sa``
    and ``sb``, or None when their edit distance D exceeds ``max_d`` (-1: no cap). ``min_d``
    is a known lower bound of D (from the shared token multiset).

    Myers' O(ND) costs about D² steps, the bit-parallel alignment (:func:`bit_blocks`) n·m/64
    word operations and n·⌈m/64⌉ words of rows whatever D is, each word about as dear as a
    step of Myers: Myers runs first, capped at √(n·m/64), where it is the cheaper of the two
    (pairs with few edits); past that cap (the failed attempt costs about a quarter of the
    bit-parallel alignment) the bit-parallel alignment takes over, unless its rows would exceed
    ``BIT_ALIGN_WORDS`` (pages of more than ~16,000 tokens: Myers, capped at ``max_d``).
    When ``min_d`` is already above the cap, the capped attempt is skipped (it would fail).
    The rule reads only the lengths and D, so both twins pick the same LCS.
    """
    n, m = len(sa), len(sb)
    cap = math.isqrt(n * m // 64)
    blocks: list[tuple[int, int, int]] | None
    if 0 <= max_d <= cap or n * ((m + 63) // 64) > BIT_ALIGN_WORDS:
        blocks = _lcs.matching_blocks(sa, sb, max_d)
        return blocks
    if min_d <= cap:
        blocks = _lcs.matching_blocks(sa, sb, cap)
        if blocks is not None:
            return blocks
    blocks = _bit_blocks(sa, sb)
    if max_d >= 0 and n + m - 2 * sum(map(_SIZE, blocks)) > max_d:
        return None
    return blocks


def word_contain(sa: str, sb: str, ngram: int, min_words: int) -> float:
    """Share of the shorter token sequence covered by ``ngram``-token runs that also occur in
    the other, in any order (the word-level twin of the filter skeleton); 0 when the shorter
    one has fewer than ``min_words`` tokens. ``sa``/``sb``: tokens as code points.

    >>> a = "".join(map(chr, range(0x10000, 0x10000 + 40)))
    >>> word_contain(a[20:] + a[:20], a + a, 16, 10)   # reordered halves, inside a longer page
    1.0
    """
    short, other = (sa, sb) if len(sa) <= len(sb) else (sb, sa)
    n = len(short)
    if n < max(min_words, ngram):
        return 0.0
    grams = {other[i : i + ngram] for i in range(len(other) - ngram + 1)}
    covered = 0
    end = 0  # first position not yet counted
    for i in range(n - ngram + 1):
        if short[i : i + ngram] in grams:
            covered += i + ngram - max(i, end)
            end = i + ngram
    return covered / n


def lcs_reaches(sa: str, sb: str, need: int) -> bool:
    """True when the LCS of token sequences ``sa`` and ``sb`` has at least ``need`` tokens.

    Bit-parallel (Allison & Dix 1986; Hyyrö 2004): bit j of ``v`` is 0 when the LCS of the
    text so far with the pattern's first j + 1 tokens grew at j; each token of the text
    updates all of them with one addition, so the cost does not depend on the edit distance.
    The rejection filter before the word alignment: its answer is exactly whether Myers capped
    at ``len(sa) + len(sb) - 2 * need`` finds an alignment.

    >>> lcs_reaches("abcabba", "cbabac", 4), lcs_reaches("abcabba", "cbabac", 5)
    (True, False)
    """
    short, other = (sa, sb) if len(sa) <= len(sb) else (sb, sa)
    masks: dict[str, int] = {}
    for j, token in enumerate(short):
        masks[token] = masks.get(token, 0) | (1 << j)
    full = (1 << len(short)) - 1
    v = full
    for token in other:
        u = v & masks.get(token, 0)
        v = ((v + u) | (v - u)) & full
    return len(short) - bin(v).count("1") >= need


def bit_blocks(sa: str, sb: str) -> list[tuple[int, int, int]]:
    """One LCS of token sequences ``sa`` and ``sb`` as matching blocks ``[(i, j, n)]``
    (maximal, in order): the alignment of long, densely edited pairs (:func:`content_features`).

    The common prefix and suffix are blocks of their own. Between them, bit j of row i is 1
    when L[i][j + 1] = L[i][j] (L: the LCS table of the first i tokens of ``sa`` and the first
    j of ``sb``), every row computed from the one above with one addition (Allison & Dix
    1986; Hyyrö 2004). The backtrack from the end takes a match wherever the two tokens are
    equal (then L[i][j] = L[i-1][j-1] + 1), else moves left while L[i][j] = L[i][j-1], else
    up: one LCS, fixed by that rule, not necessarily the one Myers' middle snake finds.

    >>> bit_blocks("abcabba", "cbabac")
    [(2, 0, 1), (4, 1, 1), (5, 3, 2)]
    """
    n, m = len(sa), len(sb)
    pre = 0
    while pre < min(n, m) and sa[pre] == sb[pre]:
        pre += 1
    suf = 0
    while suf < min(n, m) - pre and sa[n - 1 - suf] == sb[m - 1 - suf]:
        suf += 1
    head = [(0, 0, pre)] if pre else []
    tail = [(n - suf, m - suf, suf)] if suf else []
    a, b = sa[pre : n - suf], sb[pre : m - suf]
    if not a or not b:
        return head + tail
    masks: dict[str, int] = {}
    for j, token in enumerate(b):
        masks[token] = masks.get(token, 0) | (1 << j)
    full = (1 << len(b)) - 1
    rows = [full]
    for token in a:
        v = rows[-1]
        u = v & masks.get(token, 0)
        rows.append(((v + u) | (v - u)) & full)
    blocks: list[tuple[int, int, int]] = []
    i, j, run = len(a), len(b), 0
    while i > 0 and j > 0:
        if a[i - 1] == b[j - 1]:
            i, j, run = i - 1, j - 1, run + 1
            continue
        if run:
            blocks.append((pre + i, pre + j, run))
            run = 0
        if rows[i] >> (j - 1) & 1:
            j -= 1
        else:
            i -= 1
    if run:
        blocks.append((pre + i, pre + j, run))
    return head + blocks[::-1] + tail


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


# The word layer's twin (``NEARDUP_IMPL``, the same setting as the LCS's): the compiled
# ``neardup.verifier._words`` or this module's functions above, which have its API.
_words = select("neardup.verifier._words", __name__)
_encode_bound, _word_contain, _lcs_reaches, _bit_blocks = (
    _words.encode_bound, _words.word_contain, _words.lcs_reaches, _words.bit_blocks
)
