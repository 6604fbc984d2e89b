"""Pure-Python reference of steps 2 and 3: filter skeleton, Myers O(ND) LCS, TLCS.

This module is the specification: :mod:`neardup.verifier._lcs` (Cython) has the same API and must give
the same results; :mod:`neardup.verifier.lcs` picks one of the two. Keep both in step.

Texts are sequences of code points. :func:`verify` first normalises whitespace (see
:func:`normalize`); :func:`skeleton`, :func:`matching_blocks` and :func:`lcs_length` work on
the strings as given.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from neardup.verifier.units import char_width

if TYPE_CHECKING:
    from neardup.verifier.config import VerifyConfig

IMPLEMENTATION = "python"

# Polynomial rolling hash modulo 2**64 (Rabin-Karp style). The multiplier is odd, so it is a unit
# modulo 2**64. Hash hits are not re-checked character by character: for natural text a false
# hit has probability ~ n*m / 2**64 per pair, and its only effect is a few extra skeleton
# characters (which the LCS then treats like any other). Adversarial inputs (Thue-Morse strings)
# can collide; they are not web pages.
_MASK = (1 << 64) - 1
# Sentinels of the Myers diagonals: "not reached" for the forward and backward passes.
_FAR_BACK = -(1 << 62)
_FAR_AHEAD = 1 << 62
_BASE = 0x100000001B3

RawVerdict = tuple[
    bool, float, float, int, int, list[tuple[int, int]], list[tuple[int, int]], "str | None"
]


def _is_blank(ch: str) -> bool:
    # Whitespace collapses to one space; C0/C1 control characters (NUL included) count as
    # whitespace, because extracted text carries them only as layout debris.
    cp = ord(ch)
    return cp < 0x20 or 0x7F <= cp <= 0x9F or ch.isspace()


def normalize(text: str) -> tuple[str, list[int]]:
    """Collapse whitespace runs to one space and strip the ends.

    Returns the normalised text and, for each of its code points, the offset in ``text`` it
    came from (a collapsed run maps to its last code point).

    Examples
    --------
    >>> normalize("  a \\n\\t b\\x00c ")
    ('a b c', [2, 6, 7, 8, 9])
    """
    out: list[str] = []
    offsets: list[int] = []
    pending = False
    for i, ch in enumerate(text):
        if _is_blank(ch):
            pending = bool(out)
            continue
        if pending:
            out.append(" ")
            offsets.append(i - 1)
            pending = False
        out.append(ch)
        offsets.append(i)
    return "".join(out), offsets


def _windows(
    text: str, window: int, start: int = 0, stop: int | None = None
) -> tuple[list[int], list[int]]:
    """Hash and length of the skeleton windows of ``text`` starting at ``start`` .. ``stop - 1``.

    The window starting at ``i`` is the shortest ``text[i:e]`` whose width reaches ``window``;
    starts whose remaining width is below ``window`` have no window, and the lists stop at the
    first of them. Ends never decrease, so two pointers and a rolling hash make this O(n):
    ``hash(i, e) = sum((cp + 1) * base^(e-1-p) for p, cp in text[i:e]) mod 2^64``, the same
    value as the prefix-hash formula ``P[e] - P[i] * base^(e-i)``.
    """
    n = len(text)
    stop = n if stop is None else stop
    powers = [1] * (window + 1)
    for i in range(1, window + 1):
        powers[i] = (powers[i - 1] * _BASE) & _MASK
    hashes: list[int] = []
    lens: list[int] = []
    e = start
    w = 0
    h = 0
    for i in range(start, stop):
        while e < n and w < window:
            w += char_width(text[e])
            h = (h * _BASE + ord(text[e]) + 1) & _MASK
            e += 1
        if w < window:
            break
        hashes.append(h)
        lens.append(e - i)
        h = (h - (ord(text[i]) + 1) * powers[e - i - 1]) & _MASK
        w -= char_width(text[i])
    return hashes, lens


def _keep(hashes: list[int], lens: list[int], other: set[int]) -> list[int]:
    """Positions covered by a window whose hash occurs in ``other``, in increasing order."""
    kept: list[int] = []
    covered = 0  # every position < covered is already kept
    for s, (h, n) in enumerate(zip(hashes, lens, strict=True)):
        if h in other:
            lo = s if s > covered else covered
            if lo < s + n:
                kept.extend(range(lo, s + n))
                covered = s + n
    return kept


def skeleton(a: str, b: str, window: int) -> tuple[str, list[int], str, list[int]]:
    """Filter skeletons of ``a`` and ``b`` (paper §4.3).

    A code point is kept when a window of width ``window`` covering it also occurs in the other
    text. Returns ``(skeleton_a, index_a, skeleton_b, index_b)`` where ``index_a[i]`` is the
    position in ``a`` of ``skeleton_a[i]``. O(len(a) + len(b)).

    Examples
    --------
    >>> sa, ia, sb, ib = skeleton("xx hello world yy", "hello world zz", 8)
    >>> sa, ia[0], sb
    ('hello world ', 3, 'hello world ')
    >>> skeleton("abc", "abc", 16)
    ('', [], '', [])
    """
    return _Skeletons(a, b, window).skeleton(a, b)


def skeleton_sizes(a: str, b: str, window: int) -> tuple[int, int, int, int]:
    """``(len(normalize(a)), len(normalize(b)), len(skeleton_a), len(skeleton_b))``: the sizes
    an early rejection's bound needs (the skeletons of the normalised texts).

    >>> skeleton_sizes("xx  hello world yy", "hello world zz", 8)
    (17, 14, 12, 12)
    """
    an, _ = normalize(a)
    bn, _ = normalize(b)
    if not an or not bn:
        return len(an), len(bn), 0, 0
    sa, _, sb, _ = skeleton(an, bn, window)
    return len(an), len(bn), len(sa), len(sb)


def _splice(text: str, hashes: list[int], lens: list[int], lo: int, hi: int, window: int) -> None:
    """Update the windows (``hashes``, ``lens`` from :func:`_windows`) of a text from which
    ``[lo, hi)`` was removed; ``text`` is the text after the removal.

    Windows ending at or before ``lo`` are unchanged and those starting at or after ``hi`` only
    move; the ones starting in ``[lo - window, lo)`` that reached past ``lo`` (a window holds at
    most ``window`` code points) are hashed again over the new text. O(window) hashing.
    """
    nw = len(hashes)
    s0 = min(max(0, lo - window), nw)
    while s0 < lo and s0 < nw and s0 + lens[s0] <= lo:
        s0 += 1
    tail_h, tail_l = hashes[hi:], lens[hi:]
    seam_h, seam_l = _windows(text, window, s0, lo)
    del hashes[s0:], lens[s0:]
    hashes += seam_h
    lens += seam_l
    if s0 + len(seam_h) == lo:  # else no start after the cut has a window either
        hashes += tail_h
        lens += tail_l


class _Skeletons:
    """The windows of two texts, kept up to date as regions are removed from them (iterative
    TLCS), so that each skeleton costs one pass instead of hashing every window again."""

    def __init__(self, a: str, b: str, window: int) -> None:
        self.window = window
        self.ha, self.la = _windows(a, window)
        self.hb, self.lb = _windows(b, window)

    def skeleton(self, a: str, b: str) -> tuple[str, list[int], str, list[int]]:
        """As :func:`skeleton` of the current texts ``a`` and ``b``."""
        keep_a = _keep(self.ha, self.la, set(self.hb))
        keep_b = _keep(self.hb, self.lb, set(self.ha))
        return "".join(a[i] for i in keep_a), keep_a, "".join(b[i] for i in keep_b), keep_b

    def remove(self, a: str, xl: int, xr: int, b: str, bs: int, be: int) -> None:
        """``[xl, xr)`` was removed from A and ``[bs, be)`` from B, giving ``a`` and ``b``."""
        _splice(a, self.ha, self.la, xl, xr, self.window)
        _splice(b, self.hb, self.lb, bs, be, self.window)


def _skeletons_after(
    a: str, b: str, window: int, cuts: list[tuple[int, int, int, int]]
) -> list[tuple[str, list[int], str, list[int]]]:
    """Skeletons of ``a`` and ``b`` after each cut ``(xl, xr, bs, be)`` (``[xl, xr)`` removed
    from a, ``[bs, be)`` from b, offsets in the texts as cut so far), kept up to date the way
    :func:`verify` does; for the tests, which compare them with :func:`skeleton` from scratch.
    """
    skel = _Skeletons(a, b, window)
    out = []
    for xl, xr, bs, be in cuts:
        if not (0 <= xl < xr <= len(a) and 0 <= bs < be <= len(b)):
            raise ValueError("cut out of range")
        a = a[:xl] + a[xr:]
        b = b[:bs] + b[be:]
        skel.remove(a, xl, xr, b, bs, be)
        out.append(skel.skeleton(a, b))
    return out


# ---------------------------------------------------------------------------------------------
# Myers' O(ND) LCS, linear-space ("middle snake") variant: memory O(N + M) whatever D is.


class _DTooLarge(Exception):
    pass


def _middle_snake(
    a: str, alo: int, ahi: int, b: str, blo: int, bhi: int, max_d: int
) -> tuple[int, int, int, int]:
    """The middle snake ``(x, y, u, v)`` of an optimal path (Myers 1986, §4b).

    Both ends of ``a[alo:ahi]`` / ``b[blo:bhi]`` differ and both are non-empty. Diagonals
    ``k = x - y`` are kept inside the grid (``-m <= k <= n``) and moves that would leave it
    are not taken, so no path ever runs past an edge. Raises :class:`_DTooLarge` once D is
    known to exceed ``max_d`` (``max_d < 0``: no cap).
    """
    n = ahi - alo
    m = bhi - blo
    delta = n - m
    odd = delta & 1
    off = m + 1  # index of diagonal 0; diagonals -m-1 .. n+1 are addressable
    vf = [_FAR_BACK] * (n + m + 3)
    vb = [_FAR_AHEAD] * (n + m + 3)
    vf[off + 1] = 0  # virtual start: a "down" move from diagonal 1 lands on (0, 0)
    vb[off + delta + 1] = n + 1  # virtual end: a "left" move from diagonal delta+1 lands on (n, m)
    for d in range((n + m + 1) // 2 + 1):
        # D >= 2d - 1 once the backward pass of step d - 1 met nothing.
        if max_d >= 0 and 2 * d - 1 > max_d:
            raise _DTooLarge
        for k in range(-d, d + 1, 2):
            if k < -m or k > n:
                continue
            down = vf[off + k + 1]  # from (x, y - 1) on diagonal k + 1
            if down - k > m:
                down = _FAR_BACK
            right = vf[off + k - 1] + 1  # from (x - 1, y) on diagonal k - 1
            if right > n:
                right = _FAR_BACK
            x = down if down >= right else right
            if x < 0:
                continue
            y = x - k
            x0, y0 = x, y
            while x < n and y < m and a[alo + x] == b[blo + y]:
                x += 1
                y += 1
            vf[off + k] = x
            if odd and delta - (d - 1) <= k <= delta + (d - 1) and x >= vb[off + k]:
                return alo + x0, blo + y0, alo + x, blo + y
        if max_d >= 0 and 2 * d > max_d:
            raise _DTooLarge
        for k in range(delta - d, delta + d + 1, 2):
            if k < -m or k > n:
                continue
            left = vb[off + k + 1] - 1  # from (x + 1, y) on diagonal k + 1
            if left < 0:
                left = _FAR_AHEAD
            up = vb[off + k - 1]  # from (x, y + 1) on diagonal k - 1
            if up - k < 0:
                up = _FAR_AHEAD
            x = left if left < up else up
            if x > n:
                continue
            y = x - k
            x1, y1 = x, y
            while x > 0 and y > 0 and a[alo + x - 1] == b[blo + y - 1]:
                x -= 1
                y -= 1
            vb[off + k] = x
            if not odd and -d <= k <= d and x <= vf[off + k]:
                return alo + x, blo + y, alo + x1, blo + y1
    raise AssertionError("unreachable: the two paths always meet")  # pragma: no cover


def _lcs_rec(
    a: str, alo: int, ahi: int, b: str, blo: int, bhi: int, out: list[tuple[int, int, int]], max_d: int
) -> None:
    p = 0
    while alo + p < ahi and blo + p < bhi and a[alo + p] == b[blo + p]:
        p += 1
    if p:
        out.append((alo, blo, p))
        alo += p
        blo += p
    q = 0
    while alo < ahi - q and blo < bhi - q and a[ahi - q - 1] == b[bhi - q - 1]:
        q += 1
    ahi -= q
    bhi -= q
    if max_d >= 0 and (alo == ahi or blo == bhi) and (ahi - alo) + (bhi - blo) > max_d:
        raise _DTooLarge
    if alo < ahi and blo < bhi:
        x, y, u, v = _middle_snake(a, alo, ahi, b, blo, bhi, max_d)
        # Sub-problems have a smaller D than the whole, so only the top level is capped.
        _lcs_rec(a, alo, x, b, blo, y, out, -1)
        if u > x:
            out.append((x, y, u - x))
        _lcs_rec(a, u, ahi, b, v, bhi, out, -1)
    if q:
        out.append((ahi, bhi, q))


def matching_blocks(a: str, b: str, max_d: int = -1) -> list[tuple[int, int, int]] | None:
    """An LCS of ``a`` and ``b`` as maximal runs ``(i, j, n)``: ``a[i:i+n] == b[j:j+n]``.

    Myers' O((N+M)D) algorithm in linear space. Returns ``None`` when D, the length of the
    shortest edit script, exceeds ``max_d`` (``max_d < 0``: no cap); the work done before
    giving up is O((N+M) * max_d).

    Examples
    --------
    The worked example of Myers (1986) and of the paper, §3.1 (D = 5; the paper's figure
    shows LCS "caba", the middle-snake search finds the equally long "baba"):

    >>> blocks = matching_blocks("abcabba", "cbabac")
    >>> "".join("abcabba"[i:i + n] for i, _, n in blocks)
    'baba'
    >>> matching_blocks("abcabba", "cbabac", max_d=4) is None
    True
    """
    out: list[tuple[int, int, int]] = []
    try:
        _lcs_rec(a, 0, len(a), b, 0, len(b), out, max_d)
    except _DTooLarge:
        return None
    merged: list[tuple[int, int, int]] = []
    for i, j, n in out:
        if merged and merged[-1][0] + merged[-1][2] == i and merged[-1][1] + merged[-1][2] == j:
            pi, pj, pn = merged[-1]
            merged[-1] = (pi, pj, pn + n)
        else:
            merged.append((i, j, n))
    return merged


def lcs_length(a: str, b: str) -> int:
    """Length of a longest common subsequence of ``a`` and ``b``.

    Examples
    --------
    >>> lcs_length("abcabba", "cbabac")
    4
    >>> lcs_length("中文abc", "abc中文")
    3
    """
    blocks = matching_blocks(a, b)
    assert blocks is not None
    return sum(n for _, _, n in blocks)


# ---------------------------------------------------------------------------------------------
# TLCS (paper §4.4, Figure 4).


def _region_from_curve(
    na: int, m_cum: list[int], ins_at: list[int], config: VerifyConfig
) -> tuple[int, int] | None:
    """The trustable region ``[xl, xr)`` of A from its edit curve (Figure 4), or None.

    ``m_cum[x]`` counts the matched positions of A below ``x``; ``ins_at[g]`` the unmatched
    positions of B (insertions) anchored at gap ``g`` of A. The curve counts every unmatched
    position of A as a deletion. A region ``[x1, x2)`` costs the deletions inside it plus the
    insertions at gaps strictly inside it, so extra text of B before or after a region is
    not charged to it.
    """
    ins_le = [0] * (na + 1)
    acc = 0
    for g in range(na + 1):
        acc += ins_at[g]
        ins_le[g] = acc

    def d_lo(x: int) -> int:  # cost accumulated before a region starting at x
        return (x - m_cum[x]) + ins_le[x]

    def d_hi(x: int) -> int:  # cost accumulated up to a region ending at x
        return (x - m_cum[x]) + (ins_le[x - 1] if x > 0 else 0)

    theta = config.theta
    s = config.block_size_for(na)
    k = -(-na // s)
    centre = -(-k // 2)
    weights = [centre - abs(centre - i) for i in range(1, k + 1)]
    wcum = [0] * (k + 1)
    for i in range(k):
        wcum[i + 1] = wcum[i] + weights[i]
    # Base regions r_ij (blocks i..j, 1-based, i <= j) with slope <= theta; keep the maximal
    # weight, then the fewest blocks.
    best_w = -1
    best_len = 0
    base: list[tuple[int, int]] = []
    for i in range(1, k + 1):
        x1 = (i - 1) * s
        lo = d_lo(x1)
        for j in range(i, k + 1):
            x2 = min(j * s, na)
            if d_hi(x2) - lo <= theta * (x2 - x1):
                w = wcum[j] - wcum[i - 1]
                nblocks = j - i + 1
                if w > best_w or (w == best_w and nblocks < best_len):
                    best_w = w
                    best_len = nblocks
                    base = [(x1, x2)]
                elif w == best_w and nblocks == best_len:
                    base.append((x1, x2))
    if not base:
        return None
    best: tuple[int, int] | None = None
    for x1, x2 in base:
        # Extend the left end to the smallest admissible position, one block at a time (the
        # paper searches the neighbouring block; a block of weight 0 can make that too short).
        hi = d_hi(x2)
        xl = x1
        lim = x1
        while lim > 0 and xl == lim:
            lim = max(0, lim - s)
            for x in range(xl - 1, lim - 1, -1):
                if hi - d_lo(x) <= theta * (x2 - x):
                    xl = x
        lo = d_lo(xl)
        xr = x2
        lim = x2
        while lim < na and xr == lim:
            lim = min(na, lim + s)
            for x in range(xr + 1, lim + 1):
                if d_hi(x) - lo <= theta * (x - xl):
                    xr = x
        if best is None or xr - xl > best[1] - best[0]:
            best = (xl, xr)
    return best


def _tlcs_once(
    a: str, b: str, skel: tuple[str, list[int], str, list[int]], config: VerifyConfig, max_d: int
) -> tuple[int, int, tuple[int, int], tuple[int, int], tuple[int, int]] | str:
    """One trustable region of ``a`` against ``b`` (both normalised; ``skel``: their skeleton).

    Returns ``(tlcs, lcs, region_a, span_a, span_b)`` with spans covering the matched
    positions inside the region, or a rejection reason.
    """
    sa, ia, sb, ib = skel
    blocks = matching_blocks(sa, sb, max_d)
    if blocks is None:
        return "edit_distance"
    pairs_a: list[int] = []
    pairs_b: list[int] = []
    for i, j, n in blocks:
        pairs_a.extend(ia[i : i + n])
        pairs_b.extend(ib[j : j + n])
    lcs = len(pairs_a)
    na = len(a)
    if lcs == 0:
        return 0, 0, (0, 0), (0, 0), (0, 0)
    m_cum = [0] * (na + 1)
    ins_at = [0] * (na + 1)
    prev_b = -1
    for t in range(lcs):
        ins_at[pairs_a[t]] += pairs_b[t] - prev_b - 1
        prev_b = pairs_b[t]
    last = pairs_a[-1] + 1
    ins_at[last] += len(b) - pairs_b[-1] - 1
    t = 0
    for x in range(na):
        matched = t < lcs and pairs_a[t] == x
        m_cum[x + 1] = m_cum[x] + matched
        t += matched
    region = _region_from_curve(na, m_cum, ins_at, config)
    if region is None:
        return 0, lcs, (0, 0), (0, 0), (0, 0)
    xl, xr = region
    tlcs = m_cum[xr] - m_cum[xl]
    if tlcs == 0:
        return 0, lcs, (0, 0), (0, 0), (0, 0)
    first = m_cum[xl]  # index in pairs of the first match inside the region
    lastm = m_cum[xr] - 1
    return (
        tlcs,
        lcs,
        (xl, xr),
        (pairs_a[first], pairs_a[lastm] + 1),
        (pairs_b[first], pairs_b[lastm] + 1),
    )


# Share of a text's length within which a region counts as anchored at its start or end.
EDGE_ANCHOR = 0.02
# Rule (c) of the template guard applies only while less than this share of the rest of A
# (outside the current region) is matched by the current LCS: a shared header and footer around
# different texts leave little else in common, two copies of one page leave most of it.
COMMON_REST = 0.5


def _extra_region_counts(
    tlcs: int, tlcs_first: int, as_: int, ae: int, na: int, bs: int, be: int, nb: int,
    config: VerifyConfig, first_anchored: bool,
) -> bool:
    """Whether a region found after the first one adds to the TLCS (the template guard).

    ``[as_, ae)`` and ``[bs, be)`` are its matched spans in the normalised texts of lengths
    ``na`` and ``nb``. A region lying wholly in the head zone of both texts or wholly in the
    tail zone of both (``config.edge_zone`` of each length) is taken for template text (menus,
    footers: the paper's premise), and so is one shorter than ``config.min_extra_ratio`` times
    the first region (shared boilerplate blocks in the middle: delivery terms, buttons). Such
    a region is still removed, so the search goes on past it.
    """
    if tlcs < config.min_extra_ratio * tlcs_first:
        return False
    z = config.edge_zone
    if z > 0.0:
        if ae <= z * na and be <= z * nb:
            return False
        if as_ >= (1.0 - z) * na and bs >= (1.0 - z) * nb:
            return False
        # When the first region is itself a block anchored at the start or the end of both
        # texts, another anchored block is the other half of a shared header/footer pair,
        # however long (a large template outgrows the zone).
        if first_anchored and _anchored(as_, ae, na, bs, be, nb, config.window):
            return False
    return True


def _anchored(as_: int, ae: int, na: int, bs: int, be: int, nb: int, window: int) -> bool:
    """Whether spans ``[as_, ae)``/``[bs, be)`` start at the start of both texts or end at
    the end of both (within ``EDGE_ANCHOR`` of each length, at least two windows)."""
    slack_a = max(2 * window, EDGE_ANCHOR * na)
    slack_b = max(2 * window, EDGE_ANCHOR * nb)
    return (as_ <= slack_a and bs <= slack_b) or (na - ae <= slack_a and nb - be <= slack_b)


def verify(a: str, b: str, config: VerifyConfig) -> RawVerdict:
    """Skeleton → LCS → TLCS → verdict for two texts (types and sizes already checked).

    Returns ``(similar, resemble, contain, tlcs, lcs, a_spans, b_spans, reason)``: spans are
    ``(start, end)`` offsets into the original ``a`` and ``b``; ``reason`` is None when the
    TLCS was computed, else why the pair was rejected without it (``"empty"``,
    ``"skeleton"``, ``"edit_distance"``). After ``"skeleton"`` and ``"edit_distance"``,
    ``resemble`` and ``contain`` are upper bounds from the first skeletons (|TLCS| <= |LCS| <=
    the shorter skeleton), ``tlcs`` and ``lcs`` are 0.

    The edit curve is drawn over the longer normalised text (ties: the smaller string), the
    paper's A, so the verdict does not depend on argument order.

    Examples
    --------
    >>> from neardup.verifier.config import VerifyConfig
    >>> text = "The quick brown fox jumps over the lazy dog near the river bank. " * 4
    >>> verify(text, text.upper(), VerifyConfig())[7]
    'skeleton'
    >>> similar, resemble, contain, tlcs, *_ = verify(text, "  " + text, VerifyConfig())
    >>> similar, resemble, tlcs
    (True, 1.0, 259)
    """
    a_norm, a_off = normalize(a)
    b_norm, b_off = normalize(b)
    na = len(a_norm)
    nb = len(b_norm)
    if na == 0 or nb == 0:
        return False, 0.0, 0.0, 0, 0, [], [], "empty"
    swapped = nb > na or (nb == na and b_norm < a_norm)
    if swapped:
        a_norm, b_norm, a_off, b_off, na, nb = b_norm, a_norm, b_off, a_off, nb, na
    shorter = nb
    # Early rejection (paper §4.3): |TLCS| <= |LCS| <= the shorter skeleton.
    skeletons = _Skeletons(a_norm, b_norm, config.window)
    skel = skeletons.skeleton(a_norm, b_norm)
    sa, _, sb, _ = skel
    upper = min(len(sa), len(sb))
    # A rejection reports these upper bounds of the rates, never a misleading 0.0.
    bound_resemble, bound_contain = upper / (na + nb - upper), upper / shorter
    if bound_resemble < config.resemble and bound_contain < config.contain:
        return False, bound_resemble, bound_contain, 0, 0, [], [], "skeleton"
    if config.iterative:
        max_d = config.max_d
    else:
        # A similar pair needs |LCS| >= need, hence D = |A'| + |B'| - 2|LCS| <= bound.
        need = min(config.resemble * (na + nb) / (1.0 + config.resemble), config.contain * shorter)
        max_d = min(config.max_d, math.floor(len(sa) + len(sb) - 2.0 * need))
        if max_d < 0:
            return False, bound_resemble, bound_contain, 0, 0, [], [], "edit_distance"

    cur_a, map_a = a_norm, list(range(na))
    cur_b, map_b = b_norm, list(range(nb))
    tlcs_total = 0
    tlcs_first = 0
    first_anchored = False
    lcs_first = 0
    spans_a: list[tuple[int, int]] = []
    spans_b: list[tuple[int, int]] = []
    for it in range(config.max_iterations if config.iterative else 1):
        if it > 0:
            skel = skeletons.skeleton(cur_a, cur_b)
            # |TLCS| <= |LCS| <= the shorter skeleton: this region could not count.
            if min(len(skel[0]), len(skel[2])) < config.min_iteration_tlcs:
                break
        found = _tlcs_once(cur_a, cur_b, skel, config, max_d)
        if isinstance(found, str):
            if it == 0:
                return False, bound_resemble, bound_contain, 0, 0, [], [], found
            break
        tlcs, lcs, (xl, xr), (as_, ae), (bs, be) = found
        if it == 0:
            lcs_first = lcs
        if tlcs == 0 or (it > 0 and tlcs < config.min_iteration_tlcs):
            break
        span = (map_a[as_], map_a[ae - 1] + 1, na, map_b[bs], map_b[be - 1] + 1, nb)
        if it == 0:
            tlcs_first = tlcs
            first_anchored = _anchored(*span, config.window)
        # Rule (c) is for a shared header and footer around *different* texts: when most of
        # what remains besides this region is common too, an anchored region is content.
        header_footer = first_anchored and (lcs - tlcs) < COMMON_REST * (len(cur_a) - (xr - xl))
        if it == 0 or _extra_region_counts(tlcs, tlcs_first, *span, config, header_footer):
            tlcs_total += tlcs
            spans_a.append((a_off[map_a[as_]], a_off[map_a[ae - 1]] + 1))
            spans_b.append((b_off[map_b[bs]], b_off[map_b[be - 1]] + 1))
        if tlcs < config.min_iteration_tlcs:
            break
        # Remove the trustable region from A and the part of B it matched, then look again.
        cur_a = cur_a[:xl] + cur_a[xr:]
        map_a = map_a[:xl] + map_a[xr:]
        cur_b = cur_b[:bs] + cur_b[be:]
        map_b = map_b[:bs] + map_b[be:]
        if not cur_a or not cur_b:
            break
        skeletons.remove(cur_a, xl, xr, cur_b, bs, be)
    resemble = tlcs_total / (na + nb - tlcs_total)
    contain = tlcs_total / shorter
    similar = resemble >= config.resemble or contain >= config.contain
    if swapped:
        spans_a, spans_b = spans_b, spans_a
    return similar, resemble, contain, tlcs_total, lcs_first, spans_a, spans_b, None
