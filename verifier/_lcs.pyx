# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled twin of :mod:`verifier._lcs_py` (same API, same results; see its docstrings).

Texts are copied once into C arrays of ``Py_UCS4`` code points; skeleton, Myers and TLCS then
run on C arrays only. Every branch mirrors the reference line by line, so that tie-breaks (which
LCS, which region) are identical and the property tests can compare results exactly.
"""

from cpython.unicode cimport Py_UNICODE_ISSPACE
from libc.math cimport floor
from libc.stdint cimport int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memmove, memset

from verifier.units import char_width as _char_width


cdef extern from "Python.h":
    int PyUnicode_KIND(object u)
    void* PyUnicode_DATA(object u)
    Py_UCS4 PyUnicode_READ(int kind, void* data, Py_ssize_t index) nogil

IMPLEMENTATION = "cython"

cdef uint64_t _BASE = 0x100000001B3ULL
cdef int64_t _FAR_BACK = -(1LL << 62)
cdef int64_t _FAR_AHEAD = 1LL << 62

# Widths of the Basic Multilingual Plane, from the one definition in verifier.units.
cdef uint8_t _BMP_WIDTH[65536]


def _init_widths():
    f = getattr(_char_width, "__wrapped__", _char_width)  # skip its cache: 65536 one-off calls
    cdef int cp
    for cp in range(65536):
        _BMP_WIDTH[cp] = f(chr(cp))


_init_widths()


cdef inline int _width(Py_UCS4 c) except -1:
    if c < 65536:
        return _BMP_WIDTH[c]
    return _char_width(chr(c))  # astral planes are rare in web text


cdef void* _alloc(size_t nbytes) except NULL:
    cdef void* p = malloc(nbytes if nbytes > 0 else 1)
    if p == NULL:
        raise MemoryError()
    return p


cdef Py_UCS4* _ucs4(str text, Py_ssize_t* n) except NULL:
    cdef Py_ssize_t i, length = len(text)
    cdef Py_UCS4* out = <Py_UCS4*>_alloc(length * sizeof(Py_UCS4))
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    for i in range(length):
        out[i] = PyUnicode_READ(kind, data, i)
    n[0] = length
    return out


cdef uint8_t* _widths(const Py_UCS4* codes, Py_ssize_t n) except NULL:
    cdef uint8_t* out = <uint8_t*>_alloc(n)
    cdef Py_ssize_t i
    for i in range(n):
        out[i] = <uint8_t>_width(codes[i])
    return out


cdef str _to_str(const Py_UCS4* codes, Py_ssize_t n):
    cdef list parts = [chr(codes[i]) for i in range(n)]
    return "".join(parts)


# ---------------------------------------------------------------------------------------------
# Whitespace normalisation.

cdef inline bint _is_blank(Py_UCS4 c) noexcept:
    # Same set as _lcs_py._is_blank; U+00A1..U+167F holds no whitespace, so most CJK and Latin
    # text is decided by the first comparisons.
    if c <= 0xA0:
        return c <= 0x20 or c >= 0x7F
    return 0x1680 <= c <= 0x3000 and Py_UNICODE_ISSPACE(c)


cdef Py_ssize_t _normalize(str text, Py_UCS4* out, int* offs):
    cdef Py_ssize_t i, n = len(text), k = 0
    cdef bint pending = False
    cdef Py_UCS4 c
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    for i in range(n):
        c = PyUnicode_READ(kind, data, i)
        if _is_blank(c):
            pending = k > 0
            continue
        if pending:
            out[k] = 32
            offs[k] = <int>(i - 1)
            k += 1
            pending = False
        out[k] = c
        offs[k] = <int>i
        k += 1
    return k


def normalize(str text):
    cdef Py_ssize_t n = len(text), k, i
    cdef Py_UCS4* out = <Py_UCS4*>_alloc(n * sizeof(Py_UCS4))
    cdef int* offs = NULL
    try:
        offs = <int*>_alloc(n * sizeof(int))
        k = _normalize(text, out, offs)
        return _to_str(out, k), [offs[i] for i in range(k)]
    finally:
        free(out)
        free(offs)


# ---------------------------------------------------------------------------------------------
# Filter skeleton (paper §4.3).

cdef Py_ssize_t _windows(const Py_UCS4* codes, const uint8_t* widths, Py_ssize_t n, int window,
                         int* ends, uint64_t* hashes) except -1:
    cdef uint64_t* prefix = <uint64_t*>_alloc((n + 1) * sizeof(uint64_t))
    cdef uint64_t* powers = <uint64_t*>_alloc((window + 1) * sizeof(uint64_t))
    cdef uint64_t h = 0
    cdef Py_ssize_t i, e = 0, nw = 0
    cdef int w = 0
    prefix[0] = 0
    for i in range(n):
        h = h * _BASE + <uint64_t>codes[i] + 1
        prefix[i + 1] = h
    powers[0] = 1
    for i in range(1, window + 1):
        powers[i] = powers[i - 1] * _BASE
    for i in range(n):
        while e < n and w < window:
            w += widths[e]
            e += 1
        if w < window:
            break
        ends[i] = <int>e
        hashes[i] = prefix[e] - prefix[i] * powers[e - i]
        nw += 1
        w -= widths[i]
    free(prefix)
    free(powers)
    return nw


cdef struct Params:
    int window
    double theta
    double resemble
    double contain
    Py_ssize_t blocks
    Py_ssize_t min_block_size
    Py_ssize_t block_size  # 0: derived
    bint iterative
    Py_ssize_t max_iterations
    Py_ssize_t min_iteration_tlcs
    double edge_zone
    double min_extra_ratio
    Py_ssize_t max_d


cdef struct HashSet:
    uint64_t* keys  # 0 marks an empty slot; the key 0 itself is kept in has_zero
    bint has_zero
    uint64_t mask
    int shift


cdef int _set_init(HashSet* s, const uint64_t* hashes, Py_ssize_t n) except -1:
    cdef uint64_t size = 8, slot, h
    cdef int bits = 3
    cdef Py_ssize_t i
    while size < <uint64_t>(2 * n):
        size <<= 1
        bits += 1
    s.keys = <uint64_t*>_alloc(size * sizeof(uint64_t))
    memset(s.keys, 0, size * sizeof(uint64_t))
    s.has_zero = False
    s.mask = size - 1
    s.shift = 64 - bits
    for i in range(n):
        h = hashes[i]
        if h == 0:
            s.has_zero = True
            continue
        # Fibonacci hashing spreads the polynomial hash's high bits over the table.
        slot = (h * 0x9E3779B97F4A7C15ULL) >> s.shift
        while s.keys[slot] != 0 and s.keys[slot] != h:
            slot = (slot + 1) & s.mask
        s.keys[slot] = h
    return 0


cdef inline bint _set_has(const HashSet* s, uint64_t h) noexcept:
    if h == 0:
        return s.has_zero
    cdef uint64_t slot = (h * 0x9E3779B97F4A7C15ULL) >> s.shift
    while s.keys[slot] != 0:
        if s.keys[slot] == h:
            return True
        slot = (slot + 1) & s.mask
    return False


cdef Py_ssize_t _keep(Py_ssize_t nw, const int* ends, const uint64_t* hashes, const HashSet* other,
                      int* kept) noexcept:
    cdef Py_ssize_t s, lo, e, covered = 0, nk = 0
    for s in range(nw):
        if _set_has(other, hashes[s]):
            lo = s if s > covered else covered
            e = ends[s]
            if lo < e:
                while lo < e:
                    kept[nk] = <int>lo
                    nk += 1
                    lo += 1
                covered = e
    return nk


cdef inline bint _cannot_reach(Py_ssize_t upper, Py_ssize_t na, Py_ssize_t nb,
                               const Params* P) noexcept:
    """True when a TLCS of at most ``upper`` misses both thresholds (nb <= na)."""
    return (<double>upper / <double>(na + nb - upper) < P.resemble
            and <double>upper / <double>nb < P.contain)


cdef int _skeleton(const Py_UCS4* a, const uint8_t* wa, Py_ssize_t na,
                   const Py_UCS4* b, const uint8_t* wb, Py_ssize_t nb, int window,
                   int* kept_a, Py_ssize_t* nka, int* kept_b, Py_ssize_t* nkb,
                   const Params* reject) except -1:
    """Kept positions of a and b (arrays sized na and nb).

    With ``reject``, returns 1 (``nkb`` unset) as soon as A's skeleton alone proves that the
    pair cannot be similar: |A'| bounds |TLCS| too, and non-duplicates stop at half the work.
    """
    cdef int* ends_a = NULL
    cdef int* ends_b = NULL
    cdef uint64_t* hash_a = NULL
    cdef uint64_t* hash_b = NULL
    cdef HashSet set_a, set_b
    cdef Py_ssize_t nwa, nwb
    set_a.keys = NULL
    set_b.keys = NULL
    try:
        ends_a = <int*>_alloc(na * sizeof(int))
        ends_b = <int*>_alloc(nb * sizeof(int))
        hash_a = <uint64_t*>_alloc(na * sizeof(uint64_t))
        hash_b = <uint64_t*>_alloc(nb * sizeof(uint64_t))
        nwa = _windows(a, wa, na, window, ends_a, hash_a)
        nwb = _windows(b, wb, nb, window, ends_b, hash_b)
        _set_init(&set_b, hash_b, nwb)
        nka[0] = _keep(nwa, ends_a, hash_a, &set_b, kept_a)
        if reject != NULL and _cannot_reach(nka[0], na, nb, reject):
            return 1
        _set_init(&set_a, hash_a, nwa)
        nkb[0] = _keep(nwb, ends_b, hash_b, &set_a, kept_b)
    finally:
        free(ends_a)
        free(ends_b)
        free(hash_a)
        free(hash_b)
        free(set_a.keys)
        free(set_b.keys)
    return 0


def skeleton(str a, str b, int window):
    cdef Py_ssize_t na, nb, nka = 0, nkb = 0, i
    cdef Py_UCS4* ca = NULL
    cdef Py_UCS4* cb = NULL
    cdef uint8_t* wa = NULL
    cdef uint8_t* wb = NULL
    cdef int* ka = NULL
    cdef int* kb = NULL
    try:
        ca = _ucs4(a, &na)
        cb = _ucs4(b, &nb)
        wa = _widths(ca, na)
        wb = _widths(cb, nb)
        ka = <int*>_alloc(na * sizeof(int))
        kb = <int*>_alloc(nb * sizeof(int))
        _skeleton(ca, wa, na, cb, wb, nb, window, ka, &nka, kb, &nkb, NULL)
        index_a = [ka[i] for i in range(nka)]
        index_b = [kb[i] for i in range(nkb)]
        return (
            "".join([a[i] for i in index_a]), index_a,
            "".join([b[i] for i in index_b]), index_b,
        )
    finally:
        free(ca)
        free(cb)
        free(wa)
        free(wb)
        free(ka)
        free(kb)


# ---------------------------------------------------------------------------------------------
# Myers' O(ND) LCS, linear-space variant.

cdef struct Myers:
    const Py_UCS4* a
    const Py_UCS4* b
    int64_t* vf
    int64_t* vb
    int* out_i
    int* out_j
    int* out_n
    Py_ssize_t nout


cdef int _middle_snake(Myers* M, Py_ssize_t alo, Py_ssize_t ahi, Py_ssize_t blo, Py_ssize_t bhi,
                       Py_ssize_t max_d, Py_ssize_t* snake) noexcept:
    cdef const Py_UCS4* a = M.a + alo
    cdef const Py_UCS4* b = M.b + blo
    cdef int64_t* vf = M.vf
    cdef int64_t* vb = M.vb
    cdef int64_t n = ahi - alo, m = bhi - blo
    cdef int64_t delta = n - m
    cdef bint odd = delta & 1
    cdef int64_t off = m + 1
    cdef int64_t d, k, kmin, kmax, x, y, x0, y0, down, right, left, up, j
    for d in range((n + m + 1) // 2 + 1):
        if max_d >= 0 and 2 * d - 1 > max_d:
            return 1
        # Entries first readable at this step (the reference fills the arrays up front).
        j = -d - 1
        if j >= -m - 1:
            vf[off + j] = _FAR_BACK
        j = d + 1
        if j <= n + 1:
            vf[off + j] = _FAR_BACK
        if d == 0:
            vf[off + 1] = 0
        kmin = -d
        if kmin < -m:
            kmin = -m + ((d - m) & 1)
        kmax = d
        if kmax > n:
            kmax = n - ((d - n) & 1)
        k = kmin
        while k <= kmax:
            down = vf[off + k + 1]
            if down - k > m:
                down = _FAR_BACK
            right = vf[off + k - 1] + 1
            if right > n:
                right = _FAR_BACK
            x = down if down >= right else right
            if x >= 0:
                y = x - k
                x0 = x
                y0 = y
                while x < n and y < m and a[x] == b[y]:
                    x += 1
                    y += 1
                vf[off + k] = x
                if odd and delta - (d - 1) <= k <= delta + (d - 1) and x >= vb[off + k]:
                    snake[0] = alo + x0
                    snake[1] = blo + y0
                    snake[2] = alo + x
                    snake[3] = blo + y
                    return 0
            k += 2
        if max_d >= 0 and 2 * d > max_d:
            return 1
        j = delta - d - 1
        if j >= -m - 1:
            vb[off + j] = _FAR_AHEAD
        j = delta + d + 1
        if j <= n + 1:
            vb[off + j] = _FAR_AHEAD
        if d == 0:
            vb[off + delta + 1] = n + 1
        kmin = delta - d
        if kmin < -m:
            kmin = -m + ((delta - d + m) & 1)
        kmax = delta + d
        if kmax > n:
            kmax = n - ((delta + d - n) & 1)
        k = kmin
        while k <= kmax:
            left = vb[off + k + 1] - 1
            if left < 0:
                left = _FAR_AHEAD
            up = vb[off + k - 1]
            if up - k < 0:
                up = _FAR_AHEAD
            x = left if left < up else up
            if x <= n:
                y = x - k
                x0 = x
                y0 = y
                while x > 0 and y > 0 and a[x - 1] == b[y - 1]:
                    x -= 1
                    y -= 1
                vb[off + k] = x
                if not odd and -d <= k <= d and x <= vf[off + k]:
                    snake[0] = alo + x
                    snake[1] = blo + y
                    snake[2] = alo + x0
                    snake[3] = blo + y0
                    return 0
            k += 2
    return 2  # unreachable


cdef inline void _emit(Myers* M, Py_ssize_t i, Py_ssize_t j, Py_ssize_t n) noexcept:
    M.out_i[M.nout] = <int>i
    M.out_j[M.nout] = <int>j
    M.out_n[M.nout] = <int>n
    M.nout += 1


cdef int _lcs_rec(Myers* M, Py_ssize_t alo, Py_ssize_t ahi, Py_ssize_t blo, Py_ssize_t bhi,
                  Py_ssize_t max_d) noexcept:
    cdef const Py_UCS4* a = M.a
    cdef const Py_UCS4* b = M.b
    cdef Py_ssize_t p = 0, q = 0
    cdef Py_ssize_t snake[4]
    cdef int rc
    while alo + p < ahi and blo + p < bhi and a[alo + p] == b[blo + p]:
        p += 1
    if p:
        _emit(M, alo, blo, p)
        alo += p
        blo += p
    while alo < ahi - q and blo < bhi - q and a[ahi - q - 1] == b[bhi - q - 1]:
        q += 1
    ahi -= q
    bhi -= q
    if max_d >= 0 and (alo == ahi or blo == bhi) and (ahi - alo) + (bhi - blo) > max_d:
        return 1
    if alo < ahi and blo < bhi:
        rc = _middle_snake(M, alo, ahi, blo, bhi, max_d, snake)
        if rc:
            return rc
        rc = _lcs_rec(M, alo, snake[0], blo, snake[1], -1)
        if rc:
            return rc
        if snake[2] > snake[0]:
            _emit(M, snake[0], snake[1], snake[2] - snake[0])
        rc = _lcs_rec(M, snake[2], ahi, snake[3], bhi, -1)
        if rc:
            return rc
    if q:
        _emit(M, ahi, bhi, q)
    return 0


cdef Py_ssize_t _matching_blocks(const Py_UCS4* a, Py_ssize_t n, const Py_UCS4* b, Py_ssize_t m,
                                 Py_ssize_t max_d, int** bi, int** bj, int** bn) except -2:
    """Merged matching blocks into freshly allocated arrays (caller frees); -1: D > max_d."""
    cdef Myers M
    cdef Py_ssize_t cap = (n if n < m else m) + 1, t, w
    cdef int rc
    M.a = a
    M.b = b
    M.vf = NULL
    M.vb = NULL
    M.nout = 0
    M.out_i = <int*>_alloc(cap * sizeof(int))
    M.out_j = <int*>_alloc(cap * sizeof(int))
    M.out_n = <int*>_alloc(cap * sizeof(int))
    try:
        M.vf = <int64_t*>_alloc((n + m + 3) * sizeof(int64_t))
        M.vb = <int64_t*>_alloc((n + m + 3) * sizeof(int64_t))
        rc = _lcs_rec(&M, 0, n, 0, m, max_d)
    finally:
        free(M.vf)
        free(M.vb)
    if rc:
        free(M.out_i)
        free(M.out_j)
        free(M.out_n)
        if rc == 1:
            return -1
        raise AssertionError("Myers middle snake not found")
    w = 0
    for t in range(M.nout):
        if w > 0 and M.out_i[w - 1] + M.out_n[w - 1] == M.out_i[t] and M.out_j[w - 1] + M.out_n[w - 1] == M.out_j[t]:
            M.out_n[w - 1] += M.out_n[t]
        else:
            M.out_i[w] = M.out_i[t]
            M.out_j[w] = M.out_j[t]
            M.out_n[w] = M.out_n[t]
            w += 1
    bi[0] = M.out_i
    bj[0] = M.out_j
    bn[0] = M.out_n
    return w


def matching_blocks(str a, str b, Py_ssize_t max_d=-1):
    cdef Py_ssize_t n, m, nb, t
    cdef Py_UCS4* ca = NULL
    cdef Py_UCS4* cb = NULL
    cdef int* bi = NULL
    cdef int* bj = NULL
    cdef int* bn = NULL
    try:
        ca = _ucs4(a, &n)
        cb = _ucs4(b, &m)
        nb = _matching_blocks(ca, n, cb, m, max_d, &bi, &bj, &bn)
        if nb < 0:
            return None
        return [(bi[t], bj[t], bn[t]) for t in range(nb)]
    finally:
        free(ca)
        free(cb)
        free(bi)
        free(bj)
        free(bn)


def lcs_length(str a, str b):
    cdef Py_ssize_t n, m, nb, t, total = 0
    cdef Py_UCS4* ca = NULL
    cdef Py_UCS4* cb = NULL
    cdef int* bi = NULL
    cdef int* bj = NULL
    cdef int* bn = NULL
    try:
        ca = _ucs4(a, &n)
        cb = _ucs4(b, &m)
        nb = _matching_blocks(ca, n, cb, m, -1, &bi, &bj, &bn)
        for t in range(nb):
            total += bn[t]
        return total
    finally:
        free(ca)
        free(cb)
        free(bi)
        free(bj)
        free(bn)


# ---------------------------------------------------------------------------------------------
# TLCS (paper §4.4, Figure 4).

cdef inline int64_t _d_lo(const int* m_cum, const int64_t* ins_le, Py_ssize_t x) noexcept:
    return (x - m_cum[x]) + ins_le[x]


cdef inline int64_t _d_hi(const int* m_cum, const int64_t* ins_le, Py_ssize_t x) noexcept:
    return (x - m_cum[x]) + (ins_le[x - 1] if x > 0 else 0)


cdef bint _region(Py_ssize_t na, const int* m_cum, const int64_t* ins_le, const Params* P,
                  Py_ssize_t* out_l, Py_ssize_t* out_r) except -1:
    cdef double theta = P.theta
    cdef Py_ssize_t s, k, centre, i, j, x1, x2, w, nblocks, best_w = -1, best_len = 0, nbase = 0
    cdef Py_ssize_t t, xl, xr, lim, x, best_l = 0, best_r = 0
    cdef bint found = False
    cdef int64_t lo, hi
    cdef Py_ssize_t* wcum = NULL
    cdef Py_ssize_t* base = NULL
    if P.block_size > 0:
        s = P.block_size
    else:
        s = (na + P.blocks - 1) // P.blocks
        if s < P.min_block_size:
            s = P.min_block_size
    k = (na + s - 1) // s
    centre = (k + 1) // 2
    try:
        wcum = <Py_ssize_t*>_alloc((k + 1) * sizeof(Py_ssize_t))
        base = <Py_ssize_t*>_alloc(2 * (k + 1) * sizeof(Py_ssize_t))
        wcum[0] = 0
        for i in range(1, k + 1):
            wcum[i] = wcum[i - 1] + centre - (centre - i if centre >= i else i - centre)
        for i in range(1, k + 1):
            x1 = (i - 1) * s
            lo = _d_lo(m_cum, ins_le, x1)
            for j in range(i, k + 1):
                x2 = j * s
                if x2 > na:
                    x2 = na
                if <double>(_d_hi(m_cum, ins_le, x2) - lo) <= theta * <double>(x2 - x1):
                    w = wcum[j] - wcum[i - 1]
                    nblocks = j - i + 1
                    if w > best_w or (w == best_w and nblocks < best_len):
                        best_w = w
                        best_len = nblocks
                        nbase = 0
                        base[0] = x1
                        base[1] = x2
                        nbase = 1
                    elif w == best_w and nblocks == best_len:
                        base[2 * nbase] = x1
                        base[2 * nbase + 1] = x2
                        nbase += 1
        for t in range(nbase):
            x1 = base[2 * t]
            x2 = base[2 * t + 1]
            hi = _d_hi(m_cum, ins_le, x2)
            xl = x1
            lim = x1
            while lim > 0 and xl == lim:
                lim = lim - s if lim > s else 0
                x = xl - 1
                while x >= lim:
                    if <double>(hi - _d_lo(m_cum, ins_le, x)) <= theta * <double>(x2 - x):
                        xl = x
                    x -= 1
            lo = _d_lo(m_cum, ins_le, xl)
            xr = x2
            lim = x2
            while lim < na and xr == lim:
                lim = lim + s if lim + s < na else na
                for x in range(xr + 1, lim + 1):
                    if <double>(_d_hi(m_cum, ins_le, x) - lo) <= theta * <double>(x - xl):
                        xr = x
            if not found or xr - xl > best_r - best_l:
                found = True
                best_l = xl
                best_r = xr
    finally:
        free(wcum)
        free(base)
    out_l[0] = best_l
    out_r[0] = best_r
    return found


cdef struct Once:
    Py_ssize_t tlcs
    Py_ssize_t lcs
    Py_ssize_t xl
    Py_ssize_t xr
    Py_ssize_t as_
    Py_ssize_t ae
    Py_ssize_t bs
    Py_ssize_t be


cdef int _tlcs_once(const Py_UCS4* a, Py_ssize_t na, const Py_UCS4* b, Py_ssize_t nb,
                    const int* ka, Py_ssize_t nka, const int* kb, Py_ssize_t nkb,
                    const Params* P, Py_ssize_t max_d, Once* r) except -1:
    """1: rejected (D > max_d); 0: ``r`` filled (tlcs 0 when there is no region)."""
    cdef Py_UCS4* sa = NULL
    cdef Py_UCS4* sb = NULL
    cdef int* bi = NULL
    cdef int* bj = NULL
    cdef int* bn = NULL
    cdef int* pa = NULL
    cdef int* pb = NULL
    cdef int* m_cum = NULL
    cdef int64_t* ins_le = NULL
    cdef Py_ssize_t i, t, u, nblk, lcs = 0, x, prev_b, first, lastm, xl = 0, xr = 0
    cdef int64_t acc
    memset(r, 0, sizeof(Once))
    try:
        sa = <Py_UCS4*>_alloc(nka * sizeof(Py_UCS4))
        sb = <Py_UCS4*>_alloc(nkb * sizeof(Py_UCS4))
        for i in range(nka):
            sa[i] = a[ka[i]]
        for i in range(nkb):
            sb[i] = b[kb[i]]
        nblk = _matching_blocks(sa, nka, sb, nkb, max_d, &bi, &bj, &bn)
        if nblk < 0:
            return 1
        for t in range(nblk):
            lcs += bn[t]
        r.lcs = lcs
        if lcs == 0:
            return 0
        pa = <int*>_alloc(lcs * sizeof(int))
        pb = <int*>_alloc(lcs * sizeof(int))
        u = 0
        for t in range(nblk):
            for i in range(bn[t]):
                pa[u] = ka[bi[t] + i]
                pb[u] = kb[bj[t] + i]
                u += 1
        m_cum = <int*>_alloc((na + 1) * sizeof(int))
        ins_le = <int64_t*>_alloc((na + 1) * sizeof(int64_t))
        memset(ins_le, 0, (na + 1) * sizeof(int64_t))
        prev_b = -1
        for t in range(lcs):
            ins_le[pa[t]] += pb[t] - prev_b - 1
            prev_b = pb[t]
        ins_le[pa[lcs - 1] + 1] += nb - pb[lcs - 1] - 1
        acc = 0
        for x in range(na + 1):
            acc += ins_le[x]
            ins_le[x] = acc
        m_cum[0] = 0
        t = 0
        for x in range(na):
            if t < lcs and pa[t] == x:
                m_cum[x + 1] = m_cum[x] + 1
                t += 1
            else:
                m_cum[x + 1] = m_cum[x]
        if not _region(na, m_cum, ins_le, P, &xl, &xr):
            return 0
        r.tlcs = m_cum[xr] - m_cum[xl]
        if r.tlcs == 0:
            return 0
        first = m_cum[xl]
        lastm = m_cum[xr] - 1
        r.xl = xl
        r.xr = xr
        r.as_ = pa[first]
        r.ae = pa[lastm] + 1
        r.bs = pb[first]
        r.be = pb[lastm] + 1
        return 0
    finally:
        free(sa)
        free(sb)
        free(bi)
        free(bj)
        free(bn)
        free(pa)
        free(pb)
        free(m_cum)
        free(ins_le)


cdef double EDGE_ANCHOR = 0.02  # as _lcs_py.EDGE_ANCHOR


cdef bint _extra_region_counts(Py_ssize_t tlcs, Py_ssize_t tlcs_first, Py_ssize_t as_, Py_ssize_t ae,
                               Py_ssize_t na, Py_ssize_t bs, Py_ssize_t be, Py_ssize_t nb,
                               const Params* P, bint first_anchored) noexcept:
    """Template guard for a region after the first (see ``_lcs_py._extra_region_counts``)."""
    cdef double z = P.edge_zone
    if <double>tlcs < P.min_extra_ratio * <double>tlcs_first:
        return False
    if z > 0.0:
        if <double>ae <= z * <double>na and <double>be <= z * <double>nb:
            return False
        if <double>as_ >= (1.0 - z) * <double>na and <double>bs >= (1.0 - z) * <double>nb:
            return False
        if first_anchored and _anchored(as_, ae, na, bs, be, nb, P.window):
            return False
    return True


cdef bint _anchored(Py_ssize_t as_, Py_ssize_t ae, Py_ssize_t na, Py_ssize_t bs, Py_ssize_t be,
                    Py_ssize_t nb, int window) noexcept:
    """As ``_lcs_py._anchored``."""
    cdef double slack_a = max(2.0 * window, EDGE_ANCHOR * <double>na)
    cdef double slack_b = max(2.0 * window, EDGE_ANCHOR * <double>nb)
    return ((<double>as_ <= slack_a and <double>bs <= slack_b)
            or (<double>(na - ae) <= slack_a and <double>(nb - be) <= slack_b))


cdef bint _less(const Py_UCS4* x, const Py_UCS4* y, Py_ssize_t n) noexcept:
    cdef Py_ssize_t i
    for i in range(n):
        if x[i] != y[i]:
            return x[i] < y[i]
    return False


def verify(str a, str b, config):
    cdef Params P
    cdef Py_ssize_t na, nb, nka = 0, nkb = 0, upper, shorter, max_d, it, iters, i
    cdef Py_ssize_t cur_na, cur_nb, tlcs_total = 0, lcs_first = 0, tlcs_first = 0
    cdef bint first_anchored = False
    cdef double need
    cdef bint swapped
    cdef Once r
    cdef Py_UCS4* ca = NULL
    cdef Py_UCS4* cb = NULL
    cdef int* oa = NULL
    cdef int* ob = NULL
    cdef uint8_t* wa = NULL
    cdef uint8_t* wb = NULL
    cdef int* ma = NULL
    cdef int* mb = NULL
    cdef int* ka = NULL
    cdef int* kb = NULL
    cdef Py_UCS4* tc
    cdef int* ti
    cdef uint8_t* tw
    cdef list spans_a = [], spans_b = []

    P.window = config.window
    P.theta = config.theta
    P.resemble = config.resemble
    P.contain = config.contain
    P.blocks = config.blocks
    P.min_block_size = config.min_block_size
    P.block_size = config.block_size or 0
    P.iterative = config.iterative
    P.max_iterations = config.max_iterations
    P.min_iteration_tlcs = config.min_iteration_tlcs
    P.edge_zone = config.edge_zone
    P.min_extra_ratio = config.min_extra_ratio
    P.max_d = config.max_d
    try:
        ca = <Py_UCS4*>_alloc(len(a) * sizeof(Py_UCS4))
        oa = <int*>_alloc(len(a) * sizeof(int))
        na = _normalize(a, ca, oa)
        cb = <Py_UCS4*>_alloc(len(b) * sizeof(Py_UCS4))
        ob = <int*>_alloc(len(b) * sizeof(int))
        nb = _normalize(b, cb, ob)
        if na == 0 or nb == 0:
            return False, 0.0, 0.0, 0, 0, [], [], "empty"
        swapped = nb > na or (nb == na and _less(cb, ca, na))
        if swapped:
            tc = ca; ca = cb; cb = tc
            ti = oa; oa = ob; ob = ti
            na, nb = nb, na
        shorter = nb
        wa = _widths(ca, na)
        wb = _widths(cb, nb)
        ka = <int*>_alloc(na * sizeof(int))
        kb = <int*>_alloc(nb * sizeof(int))
        # Early rejection (paper §4.3): |TLCS| <= |LCS| <= the shorter skeleton.
        if _skeleton(ca, wa, na, cb, wb, nb, P.window, ka, &nka, kb, &nkb, &P):
            return False, 0.0, 0.0, 0, 0, [], [], "skeleton"
        upper = nka if nka < nkb else nkb
        if _cannot_reach(upper, na, nb, &P):
            return False, 0.0, 0.0, 0, 0, [], [], "skeleton"
        if P.iterative:
            max_d = P.max_d
        else:
            need = P.resemble * <double>(na + nb) / (1.0 + P.resemble)
            if P.contain * <double>shorter < need:
                need = P.contain * <double>shorter
            max_d = <Py_ssize_t>floor(<double>(nka + nkb) - 2.0 * need)
            if P.max_d < max_d:
                max_d = P.max_d
            if max_d < 0:
                return False, 0.0, 0.0, 0, 0, [], [], "edit_distance"

        # Positions of the current (shrinking) texts in the normalised ones.
        ma = <int*>_alloc(na * sizeof(int))
        mb = <int*>_alloc(nb * sizeof(int))
        for i in range(na):
            ma[i] = <int>i
        for i in range(nb):
            mb[i] = <int>i
        cur_na = na
        cur_nb = nb
        iters = P.max_iterations if P.iterative else 1
        for it in range(iters):
            if it > 0:
                _skeleton(ca, wa, cur_na, cb, wb, cur_nb, P.window, ka, &nka, kb, &nkb, NULL)
            if _tlcs_once(ca, cur_na, cb, cur_nb, ka, nka, kb, nkb, &P, max_d, &r):
                if it == 0:
                    return False, 0.0, 0.0, 0, 0, [], [], "edit_distance"
                break
            if it == 0:
                lcs_first = r.lcs
            if r.tlcs == 0 or (it > 0 and r.tlcs < P.min_iteration_tlcs):
                break
            if it == 0:
                tlcs_first = r.tlcs
                first_anchored = _anchored(ma[r.as_], ma[r.ae - 1] + 1, na,
                                           mb[r.bs], mb[r.be - 1] + 1, nb, P.window)
            if it == 0 or _extra_region_counts(r.tlcs, tlcs_first, ma[r.as_], ma[r.ae - 1] + 1, na,
                                               mb[r.bs], mb[r.be - 1] + 1, nb, &P, first_anchored):
                tlcs_total += r.tlcs
                spans_a.append((oa[ma[r.as_]], oa[ma[r.ae - 1]] + 1))
                spans_b.append((ob[mb[r.bs]], ob[mb[r.be - 1]] + 1))
            if r.tlcs < P.min_iteration_tlcs:
                break
            if it + 1 == iters:
                break
            # Remove the trustable region from A and the part of B it matched.
            memmove(ca + r.xl, ca + r.xr, (cur_na - r.xr) * sizeof(Py_UCS4))
            memmove(wa + r.xl, wa + r.xr, (cur_na - r.xr) * sizeof(uint8_t))
            memmove(ma + r.xl, ma + r.xr, (cur_na - r.xr) * sizeof(int))
            cur_na -= r.xr - r.xl
            memmove(cb + r.bs, cb + r.be, (cur_nb - r.be) * sizeof(Py_UCS4))
            memmove(wb + r.bs, wb + r.be, (cur_nb - r.be) * sizeof(uint8_t))
            memmove(mb + r.bs, mb + r.be, (cur_nb - r.be) * sizeof(int))
            cur_nb -= r.be - r.bs
            if cur_na == 0 or cur_nb == 0:
                break
        resemble = tlcs_total / <double>(na + nb - tlcs_total)
        contain = tlcs_total / <double>shorter
        similar = resemble >= P.resemble or contain >= P.contain
        if swapped:
            spans_a, spans_b = spans_b, spans_a
        return similar, resemble, contain, tlcs_total, lcs_first, spans_a, spans_b, None
    finally:
        free(ca)
        free(cb)
        free(oa)
        free(ob)
        free(wa)
        free(wb)
        free(ma)
        free(mb)
        free(ka)
        free(kb)
