# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled twin of :mod:`neardup.verifier._lcs_py` (same API, same results; see its docstrings).

Texts are copied once into C arrays of ``Py_UCS4`` code points; skeleton, Myers and TLCS then
run on C arrays only. Every decision mirrors the reference (same order of the Myers search,
same comparisons in the region search), so that tie-breaks (which LCS, which region) are
identical and the property tests can compare results exactly.

Speed notes (the reference has the same algorithm, with Python containers):

- Work arrays live in a module-level workspace that grows to the largest pair seen and is
  reused (no malloc/free or page faults per call); a call made while it is in use (another
  thread, re-entry) gets a private one.
- Window hashes are computed once per pair. Every distinct hash gets a dense id from one
  open-addressing table; a text's skeleton is then one pass over its window ids against the
  other text's per-id window counts. When the iterative TLCS removes a region, only the
  windows crossing the cut are hashed again (``_splice``, as ``_lcs_py._splice``).
- Snakes compare four code points per step (two 64-bit loads).
- The edit curve is evaluated where the region search looks, not tabulated over A (``Curve``).
"""

from cpython.unicode cimport Py_UNICODE_ISSPACE
from libc.math cimport floor, sqrt
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy, memmove, memset

include "_bitlcs.pxi"  # bp_step, bp_lcs: inline, shared with the other twin
from neardup.verifier.units import char_width as _char_width


cdef extern from *:
    void __builtin_prefetch(const void* p) noexcept nogil


cdef extern from "Python.h":
    int PyUnicode_KIND(object u)
    void* PyUnicode_DATA(object u)

IMPLEMENTATION = "cython"

cdef uint64_t _BASE = 0x100000001B3ULL
cdef int64_t _FAR_BACK = -(1LL << 62)
cdef int64_t _FAR_AHEAD = 1LL << 62

# Widths of the Basic Multilingual Plane, from the one definition in neardup.verifier.units; and the
# same with 0 for the code points normalisation treats as blank. Filled a page of 256 code
# points at a time, when a text first holds one of them (``_fill_pages``): the whole plane
# costs 65,536 Python calls, a start-up a one-pair ``neardup compare`` would notice.
cdef uint8_t _BMP_WIDTH[65536]
cdef uint8_t _BMP_INFO[65536]
cdef uint8_t _PAGE_READY[256]
_plain_width = getattr(_char_width, "__wrapped__", _char_width)  # skip its cache: one-off calls


cdef int _fill_page(Py_ssize_t page) except -1:
    cdef int cp
    for cp in range(page << 8, (page + 1) << 8):
        _BMP_WIDTH[cp] = _plain_width(chr(cp))
        _BMP_INFO[cp] = 0 if _is_blank(cp) else _BMP_WIDTH[cp]
    _PAGE_READY[page] = 1
    return 0


cdef inline int _width(Py_UCS4 c) except -1:
    cdef Py_ssize_t cp = <Py_ssize_t>c
    if cp < 65536:
        if not _PAGE_READY[cp >> 8]:
            _fill_page(cp >> 8)
        return _BMP_WIDTH[cp]
    return _char_width(chr(c))  # astral planes are rare in web text


cdef void* _alloc(size_t nbytes) except NULL:
    cdef void* p = malloc(nbytes if nbytes > 0 else 1)
    if p == NULL:
        raise MemoryError()
    return p


# ---------------------------------------------------------------------------------------------
# Workspace: grow-only arrays reused from call to call.

cdef enum:
    W_CA
    W_CB
    W_OA
    W_OB
    W_WA
    W_WB
    W_MA
    W_MB
    W_KA
    W_KB
    W_HA
    W_HB
    W_LA
    W_LB
    W_IA
    W_IB
    W_CNTA
    W_CNTB
    W_KEYS
    W_POSB
    W_POW
    W_SA
    W_SB
    W_OI
    W_OJ
    W_ON
    W_VF
    W_VB
    W_PA
    W_PB
    W_COUNT


cdef struct Work:
    void* ptr[W_COUNT]
    size_t cap[W_COUNT]
    int32_t* slots  # hash table of ids (id + 1; 0 = empty): all zero between uses
    size_t nslots
    bint slots_dirty  # a use ended without clearing its slots
    size_t total
    bint busy


cdef Work _WORK  # static storage: zero-initialised
# A workspace that grew beyond this (a pair of very long texts) is freed after the call.
cdef size_t _KEEP_BYTES = 64 << 20


cdef void* _get(Work* W, int which, size_t nbytes) except NULL:
    """Array ``which`` of at least ``nbytes`` bytes (contents undefined)."""
    cdef void* p
    if nbytes == 0:
        nbytes = 1
    if W.cap[which] < nbytes:
        free(W.ptr[which])
        W.total -= W.cap[which]
        W.ptr[which] = NULL
        W.cap[which] = 0
        nbytes += nbytes >> 3  # some headroom: the next pair may be a little longer
        p = malloc(nbytes)
        if p == NULL:
            raise MemoryError()
        W.ptr[which] = p
        W.cap[which] = nbytes
        W.total += nbytes
    return W.ptr[which]


cdef int32_t* _get_slots(Work* W, size_t nslots) except NULL:
    """The id table with at least ``nslots`` slots, all empty."""
    if W.nslots < nslots:
        free(W.slots)
        W.total -= W.nslots * sizeof(int32_t)
        W.slots = NULL
        W.nslots = 0
        W.slots = <int32_t*>calloc(nslots, sizeof(int32_t))
        if W.slots == NULL:
            raise MemoryError()
        W.nslots = nslots
        W.total += nslots * sizeof(int32_t)
        W.slots_dirty = False
    elif W.slots_dirty:
        memset(W.slots, 0, W.nslots * sizeof(int32_t))
        W.slots_dirty = False
    return W.slots


cdef void _free_work(Work* W) noexcept:
    cdef int i
    for i in range(W_COUNT):
        free(W.ptr[i])
        W.ptr[i] = NULL
        W.cap[i] = 0
    free(W.slots)
    W.slots = NULL
    W.nslots = 0
    W.total = 0


cdef Work* _acquire() except NULL:
    cdef Work* W
    if not _WORK.busy:
        _WORK.busy = True
        return &_WORK
    W = <Work*>calloc(1, sizeof(Work))
    if W == NULL:
        raise MemoryError()
    W.busy = True
    return W


cdef void _release(Work* W) noexcept:
    if W == &_WORK:
        if W.total > _KEEP_BYTES:
            _free_work(W)
        W.busy = False
    else:
        _free_work(W)
        free(W)


# ---------------------------------------------------------------------------------------------
# Whitespace normalisation.

ctypedef fused char_t:
    uint8_t
    uint16_t
    uint32_t


cdef inline bint _is_blank(Py_UCS4 c) noexcept:
    # Same set as _lcs_py._is_blank; U+00A1..U+167F holds no whitespace, so most CJK and Latin
    # text is decided by the first comparisons.
    if c <= 0xA0:
        return c <= 0x20 or c >= 0x7F
    return 0x1680 <= c <= 0x3000 and Py_UNICODE_ISSPACE(c)


cdef inline int _info(Py_UCS4 c) except -1:
    """0 for a blank code point, else its width."""
    if c < 65536:
        return _BMP_INFO[c]
    return _width(c)  # no blank outside the BMP


cdef Py_ssize_t _norm(char_t* data, Py_ssize_t n, Py_UCS4* out, int* offs,
                      uint8_t* widths) except -1:
    # Without branches on the text: every code point is written at out[k], and k advances for
    # a non-blank one, and for the last blank of a run (written as a space) when something
    # precedes the run and something follows it. That is _lcs_py.normalize: a run collapses
    # to one space with the offset of its last code point, and the ends are stripped.
    cdef Py_ssize_t i, k = 0
    cdef Py_UCS4 c
    cdef int info, nxt
    cdef bint blank
    if n == 0:
        return 0
    nxt = _info(data[0])
    for i in range(n):
        c = data[i]
        info = nxt
        nxt = _info(data[i + 1]) if i + 1 < n else 0
        blank = info == 0
        out[k] = 32 if blank else c
        offs[k] = <int>i
        widths[k] = 1 if blank else <uint8_t>info
        k += (not blank) | (k > 0 and nxt != 0)
    return k


cdef int _fill_pages(char_t* data, Py_ssize_t n) except -1:
    """Make sure the table holds every BMP code point of ``data``."""
    cdef Py_ssize_t i, c
    if char_t is uint8_t:
        return 0  # page 0, filled at import
    for i in range(n):
        c = <Py_ssize_t>data[i]
        if c < 65536 and not _PAGE_READY[c >> 8]:
            _fill_page(c >> 8)
    return 0


_fill_page(0)


cdef Py_ssize_t _normalize(str text, Py_UCS4* out, int* offs, uint8_t* widths) except -1:
    """Normalised code points, their offsets in ``text`` and their widths."""
    cdef Py_ssize_t n = len(text)
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    if kind == 1:
        return _norm(<uint8_t*>data, n, out, offs, widths)
    if kind == 2:
        _fill_pages(<uint16_t*>data, n)
        return _norm(<uint16_t*>data, n, out, offs, widths)
    _fill_pages(<uint32_t*>data, n)
    return _norm(<uint32_t*>data, n, out, offs, widths)


cdef Py_UCS4* _ucs4(str text, Py_ssize_t* n) except NULL:
    cdef Py_ssize_t i, length = len(text)
    cdef Py_UCS4* out = <Py_UCS4*>_alloc(length * sizeof(Py_UCS4))
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    if kind == 1:
        for i in range(length):
            out[i] = (<uint8_t*>data)[i]
    elif kind == 2:
        for i in range(length):
            out[i] = (<uint16_t*>data)[i]
    else:
        memcpy(out, data, length * sizeof(Py_UCS4))
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


def normalize(str text):
    """Whitespace-normalised text and its offsets into ``text``; see ``_lcs_py.normalize``."""
    cdef Py_ssize_t n = len(text), k, i
    cdef Py_UCS4* out = <Py_UCS4*>_alloc(n * sizeof(Py_UCS4))
    cdef int* offs = NULL
    cdef uint8_t* widths = NULL
    try:
        offs = <int*>_alloc(n * sizeof(int))
        widths = <uint8_t*>_alloc(n)
        k = _normalize(text, out, offs, widths)
        return _to_str(out, k), [offs[i] for i in range(k)]
    finally:
        free(out)
        free(offs)
        free(widths)


# ---------------------------------------------------------------------------------------------
# Filter skeleton (paper §4.3).

cdef struct Params:
    # The fields of VerifyConfig that verification reads, by the same names (``_params``).
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


cdef dict _PARAMS = {}  # id(config): (config, its Params as bytes)


cdef Params _params(config) except *:
    """The parameters of ``config`` (a ``VerifyConfig``): its fields of the same names (a
    derived ``block_size``, None, is 0), converted to the struct once per config object (a
    run uses one or a few) and kept as bytes."""
    cdef tuple known = _PARAMS.get(id(config))
    cdef dict fields
    cdef bytes raw
    cdef Params P
    if known is None or known[0] is not config:
        fields = config.as_dict()
        fields["block_size"] = fields["block_size"] or 0
        P = fields
        if len(_PARAMS) >= 64:
            _PARAMS.clear()
        known = (config, (<char*>&P)[:sizeof(Params)])
        _PARAMS[id(config)] = known
    raw = known[1]
    memcpy(&P, <const char*>raw, sizeof(Params))
    return P


cdef void _powers(uint64_t* pw, int window) noexcept:
    cdef int i
    pw[0] = 1
    for i in range(1, window + 1):
        pw[i] = pw[i - 1] * _BASE


cdef Py_ssize_t _windows(const Py_UCS4* c, const uint8_t* wd, Py_ssize_t n, int window,
                         const uint64_t* pw, Py_ssize_t i, Py_ssize_t stop,
                         uint64_t* hs, int32_t* ls) noexcept:
    """Hash and length of the windows starting at ``i``, ``i + 1``, ... ``stop - 1``.

    Returns the first start without a window (``stop`` when all have one). The hash is kept
    rolling: ``hash(i, e) = sum((c[p] + 1) * base^(e-1-p))``, the prefix-hash formula.
    """
    cdef Py_ssize_t e = i
    cdef int width = 0
    cdef uint64_t h = 0
    while i < stop:
        while e < n and width < window:
            width += wd[e]
            h = h * _BASE + <uint64_t>c[e] + 1
            e += 1
        if width < window:
            break
        hs[i] = h
        ls[i] = <int32_t>(e - i)
        h -= (<uint64_t>c[i] + 1) * pw[e - i - 1]
        width -= wd[i]
        i += 1
    return i


cdef struct Table:
    int32_t* slots  # id + 1 of the hash in the slot; 0: empty
    uint64_t* keys  # hash of each id
    uint64_t mask
    int shift
    int32_t n  # ids given
    int32_t cap  # ids that fit (the slots are at least twice as many)


cdef inline uint64_t _slot(const Table* T, uint64_t h) noexcept:
    # Fibonacci hashing spreads the polynomial hash's high bits over the table.
    return (h * 0x9E3779B97F4A7C15ULL) >> T.shift


cdef inline int32_t _find(const Table* T, uint64_t h) noexcept:
    """Id of hash ``h``, -1 if it has none."""
    cdef uint64_t slot = _slot(T, h)
    cdef int32_t v
    while True:
        v = T.slots[slot]
        if v == 0:
            return -1
        if T.keys[v - 1] == h:
            return v - 1
        slot = (slot + 1) & T.mask


cdef inline int32_t _intern(Table* T, uint64_t h) noexcept:
    """Id of hash ``h``, given now if it has none (the caller ensures ``T.n < T.cap``)."""
    cdef uint64_t slot = _slot(T, h)
    cdef int32_t v
    while True:
        v = T.slots[slot]
        if v == 0:
            v = T.n
            T.n += 1
            T.keys[v] = h
            T.slots[slot] = v + 1
            return v
        if T.keys[v - 1] == h:
            return v - 1
        slot = (slot + 1) & T.mask


cdef void _table_clear(Table* T) noexcept:
    # Empty the slots for the next pair. There are at most four per possible id, and one
    # memset is cheaper than finding the used ones.
    if T.n > 0:
        memset(T.slots, 0, (T.mask + 1) * sizeof(int32_t))
    T.n = 0


# The windows of one text: start ``i < nw`` has hash ``hash[i]``, ``len[i]`` code points and
# id ``id[i]``; ``cnt[v]`` counts the text's windows with id ``v``.
cdef struct Win:
    uint64_t* hash
    int32_t* len
    int32_t* id
    int32_t* cnt
    Py_ssize_t nw


cdef struct Skel:
    Table T
    Win A
    Win B
    uint64_t* pw
    int window


cdef inline bint _cannot_reach(Py_ssize_t upper, Py_ssize_t na, Py_ssize_t nb,
                               const Params* P) noexcept:
    """True when a TLCS of at most ``upper`` misses both thresholds (nb <= na)."""
    return (<double>upper / <double>(na + nb - upper) < P.resemble
            and <double>upper / <double>nb < P.contain)


cdef inline Py_ssize_t _put_run(Py_ssize_t lo, Py_ssize_t hi, const Py_UCS4* c, int* kept,
                                Py_UCS4* sk, Py_ssize_t nk) noexcept:
    """Append positions lo .. hi - 1 and their code points; the new count."""
    cdef Py_ssize_t t
    for t in range(hi - lo):
        kept[nk + t] = <int>(lo + t)
    memcpy(sk + nk, c + lo, (hi - lo) * sizeof(Py_UCS4))
    return nk + hi - lo


cdef Py_ssize_t _keep(const Win* W, const int32_t* other_cnt, const Py_UCS4* c, int* kept,
                      Py_UCS4* sk) noexcept:
    """Positions covered by a window whose hash the other text has, in increasing order, and
    the skeleton (their code points). Window ends never decrease, so the kept windows form
    runs of overlapping ones, written out run by run."""
    cdef Py_ssize_t s, e, lo = 0, hi = 0, nk = 0
    cdef const int32_t* ids = W.id
    for s in range(W.nw):
        if other_cnt[ids[s]] > 0:
            e = s + W.len[s]
            if s > hi:
                nk = _put_run(lo, hi, c, kept, sk, nk)
                lo = s
            hi = e
    return _put_run(lo, hi, c, kept, sk, nk)


cdef int _skel_start(Work* W, Skel* S, const Py_UCS4* a, const uint8_t* wa, Py_ssize_t na,
                     const Py_UCS4* b, const uint8_t* wb, Py_ssize_t nb, int window,
                     Py_ssize_t extra, int* kept_a, Py_UCS4* sk_a, Py_ssize_t* nka, int* kept_b,
                     Py_UCS4* sk_b, Py_ssize_t* nkb, const Params* reject,
                     bint finish) except -1:
    """Windows, ids and skeletons of a and b (kept positions and skeleton code points, in
    arrays sized na and nb).

    ``extra``: how many more ids later ``_splice`` calls may need. With ``reject``, returns 1
    (``nkb`` unset) as soon as A's skeleton alone proves that the pair cannot be similar:
    |A'| bounds |TLCS| too, and non-duplicates stop at half the work. The caller empties the
    table (``_table_clear``) when done, also after a rejection. Without ``finish``, A's
    windows that B lacks get their ids only from ``_skel_finish``, which a caller that may
    still reject the pair on both skeletons calls once it does not (the skeletons need no
    more: B's windows only look up the ids B has).
    """
    cdef Table* T = &S.T
    cdef Win* A = &S.A
    cdef Win* B = &S.B
    cdef Py_ssize_t i, j, cap, lo, hi, e, nk
    cdef size_t nslots = 16
    cdef int bits = 4
    cdef int32_t v, nb_ids
    cdef int32_t* posb
    S.window = window
    S.pw = <uint64_t*>_get(W, W_POW, (window + 1) * sizeof(uint64_t))
    _powers(S.pw, window)
    A.hash = <uint64_t*>_get(W, W_HA, na * sizeof(uint64_t))
    A.len = <int32_t*>_get(W, W_LA, na * sizeof(int32_t))
    A.id = <int32_t*>_get(W, W_IA, na * sizeof(int32_t))
    B.hash = <uint64_t*>_get(W, W_HB, nb * sizeof(uint64_t))
    B.len = <int32_t*>_get(W, W_LB, nb * sizeof(int32_t))
    B.id = <int32_t*>_get(W, W_IB, nb * sizeof(int32_t))
    A.nw = _windows(a, wa, na, window, S.pw, 0, na, A.hash, A.len)
    B.nw = _windows(b, wb, nb, window, S.pw, 0, nb, B.hash, B.len)
    cap = A.nw + B.nw + extra + 1
    if cap > 0x3FFFFFFF:  # ids and slots are int32
        raise MemoryError("texts too long for the skeleton's id table")
    while nslots < <size_t>(2 * cap):
        nslots <<= 1
        bits += 1
    T.n = 0
    T.cap = <int32_t>cap
    T.mask = nslots - 1
    T.shift = 64 - bits
    T.keys = <uint64_t*>_get(W, W_KEYS, cap * sizeof(uint64_t))
    T.slots = _get_slots(W, nslots)
    W.slots_dirty = True  # until the caller's _table_clear
    # B's hashes get ids 0, 1, ...; posb[v]: first window of B with id v.
    posb = <int32_t*>_get(W, W_POSB, (B.nw + 1) * sizeof(int32_t))
    for j in range(B.nw):
        if j + 16 < B.nw:  # the slot loads are what this loop waits for
            __builtin_prefetch(&T.slots[_slot(T, B.hash[j + 16])])
        nb_ids = T.n
        v = _intern(T, B.hash[j])
        B.id[j] = v
        if T.n != nb_ids:
            posb[v] = <int32_t>j
    # A's windows: a hash of B or not (-1). In near-duplicates a window matching B's window j
    # is mostly followed by one matching j + 1: compare that hash first, then probe.
    j = -2
    lo = 0
    hi = 0
    nk = 0
    for i in range(A.nw):
        if 0 <= j < B.nw - 1 and B.hash[j + 1] == A.hash[i]:
            j += 1
            v = B.id[j]
        else:
            v = _find(T, A.hash[i])
            j = posb[v] if v >= 0 else -2
        A.id[i] = v
        if v >= 0:  # kept, as in _keep
            e = i + A.len[i]
            if i > hi:
                nk = _put_run(lo, hi, a, kept_a, sk_a, nk)
                lo = i
            hi = e
    nk = _put_run(lo, hi, a, kept_a, sk_a, nk)
    nka[0] = nk
    if reject != NULL and _cannot_reach(nk, na, nb, reject):
        return 1
    A.cnt = <int32_t*>_get(W, W_CNTA, cap * sizeof(int32_t))
    B.cnt = <int32_t*>_get(W, W_CNTB, cap * sizeof(int32_t))
    memset(A.cnt, 0, cap * sizeof(int32_t))
    memset(B.cnt, 0, cap * sizeof(int32_t))
    for i in range(A.nw):
        if A.id[i] >= 0:
            A.cnt[A.id[i]] += 1
    for j in range(B.nw):
        B.cnt[B.id[j]] += 1
    nkb[0] = _keep(B, A.cnt, b, kept_b, sk_b)
    if finish:
        _skel_finish(S)
    return 0


cdef void _skel_finish(Skel* S) noexcept:
    """Ids (and counts) for A's windows that B lacks, in order: what ``_splice`` needs."""
    cdef Win* A = &S.A
    cdef Py_ssize_t i
    cdef int32_t v
    for i in range(A.nw):
        if A.id[i] < 0:
            v = _intern(&S.T, A.hash[i])
            A.id[i] = v
            A.cnt[v] += 1


cdef int _splice(Skel* S, Win* X, const Py_UCS4* c, const uint8_t* wd, Py_ssize_t n,
                 Py_ssize_t lo, Py_ssize_t hi) except -1:
    """Update X's windows after ``[lo, hi)`` was removed from its text (``c``/``wd``: the
    text after the removal, ``n`` code points).

    Windows ending at or before ``lo`` are unchanged, those starting at or after ``hi`` only
    move; those starting in ``[lo - window, lo)`` that reached past ``lo`` are hashed again
    over the new text (at most ``window`` of them).
    """
    cdef Py_ssize_t nw = X.nw, s0, i, stop, tail, got
    cdef int32_t v
    s0 = lo - S.window
    if s0 < 0:
        s0 = 0
    if s0 > nw:
        s0 = nw
    while s0 < lo and s0 < nw and s0 + X.len[s0] <= lo:
        s0 += 1
    stop = nw if nw < hi else hi
    for i in range(s0, stop):
        X.cnt[X.id[i]] -= 1
    tail = nw - hi if nw > hi else 0
    if tail > 0:
        memmove(X.hash + lo, X.hash + hi, tail * sizeof(uint64_t))
        memmove(X.len + lo, X.len + hi, tail * sizeof(int32_t))
        memmove(X.id + lo, X.id + hi, tail * sizeof(int32_t))
    got = _windows(c, wd, n, S.window, S.pw, s0, lo, X.hash, X.len)
    if S.T.n + (got - s0) > S.T.cap:
        raise AssertionError("skeleton id table too small")
    for i in range(s0, got):
        v = _intern(&S.T, X.hash[i])
        X.id[i] = v
        X.cnt[v] += 1
    X.nw = lo + tail if got == lo else got
    return 0


cdef int _skeleton(Work* W, const Py_UCS4* a, const uint8_t* wa, Py_ssize_t na,
                   const Py_UCS4* b, const uint8_t* wb, Py_ssize_t nb, int window,
                   int* kept_a, Py_ssize_t* nka, int* kept_b, Py_ssize_t* nkb) except -1:
    """Kept positions of a and b, from scratch (arrays sized na and nb)."""
    cdef Skel S
    S.T.n = 0
    try:
        _skel_start(W, &S, a, wa, na, b, wb, nb, window, 0,
                    kept_a, <Py_UCS4*>_get(W, W_SA, na * sizeof(Py_UCS4)), nka,
                    kept_b, <Py_UCS4*>_get(W, W_SB, nb * sizeof(Py_UCS4)), nkb, NULL, True)
    finally:
        _table_clear(&S.T)
        W.slots_dirty = False
    return 0


cdef struct SkeletonPair:
    # The code points and widths of two texts and their skeletons' positions; owned buffers.
    Py_UCS4* ca
    Py_UCS4* cb
    uint8_t* wa
    uint8_t* wb
    int* oa
    int* ob
    int* ka
    int* kb
    Py_ssize_t na, nb, nka, nkb


cdef int _skeleton_pair(SkeletonPair* P, str a, str b, int window, bint normalized) except -1:
    """Fill ``P`` with the skeletons of ``a`` and ``b`` (of their normalised forms when
    ``normalized``). The caller frees the buffers with :func:`_free_pair`, also on error."""
    cdef Work* W
    if normalized:
        P.ca = <Py_UCS4*>_alloc(len(a) * sizeof(Py_UCS4))
        P.oa = <int*>_alloc(len(a) * sizeof(int))
        P.wa = <uint8_t*>_alloc(len(a))
        P.na = _normalize(a, P.ca, P.oa, P.wa)
        P.cb = <Py_UCS4*>_alloc(len(b) * sizeof(Py_UCS4))
        P.ob = <int*>_alloc(len(b) * sizeof(int))
        P.wb = <uint8_t*>_alloc(len(b))
        P.nb = _normalize(b, P.cb, P.ob, P.wb)
    else:
        P.ca = _ucs4(a, &P.na)
        P.cb = _ucs4(b, &P.nb)
        P.wa = _widths(P.ca, P.na)
        P.wb = _widths(P.cb, P.nb)
    P.ka = <int*>_alloc(P.na * sizeof(int))
    P.kb = <int*>_alloc(P.nb * sizeof(int))
    P.nka = P.nkb = 0
    if P.na > 0 and P.nb > 0:  # an empty text shares no window
        W = _acquire()
        try:
            _skeleton(W, P.ca, P.wa, P.na, P.cb, P.wb, P.nb, window, P.ka, &P.nka, P.kb, &P.nkb)
        finally:
            _release(W)
    return 0


cdef void _free_pair(SkeletonPair* P) noexcept:
    free(P.ca)
    free(P.cb)
    free(P.wa)
    free(P.wb)
    free(P.oa)
    free(P.ob)
    free(P.ka)
    free(P.kb)


def skeleton(str a, str b, int window):
    """Filter skeletons of ``a`` and ``b``: the parts covered by width-``window`` Rabin windows
    that occur in both texts; see ``_lcs_py.skeleton``."""
    cdef SkeletonPair P
    cdef Py_ssize_t i
    memset(&P, 0, sizeof(P))
    try:
        _skeleton_pair(&P, a, b, window, False)
        index_a = [P.ka[i] for i in range(P.nka)]
        index_b = [P.kb[i] for i in range(P.nkb)]
        return (
            "".join([a[i] for i in index_a]), index_a,
            "".join([b[i] for i in index_b]), index_b,
        )
    finally:
        _free_pair(&P)


def skeleton_sizes(str a, str b, int window):
    """``(len(normalize(a)), len(normalize(b)), len(skeleton_a), len(skeleton_b))`` of the
    normalised texts, without building the skeletons: what an early rejection's bound needs.
    See ``_lcs_py.skeleton_sizes``."""
    cdef SkeletonPair P
    memset(&P, 0, sizeof(P))
    try:
        _skeleton_pair(&P, a, b, window, True)
        return P.na, P.nb, P.nka, P.nkb
    finally:
        _free_pair(&P)


def _skeletons_after(str a, str b, int window, cuts):
    """Skeletons of ``a`` and ``b`` after each cut ``(xl, xr, bs, be)`` (``[xl, xr)`` removed
    from a, ``[bs, be)`` from b, offsets in the texts as cut so far), kept up to date the way
    :func:`verify` does; for the tests, which compare them with :func:`skeleton` from scratch.
    """
    cdef Py_ssize_t na, nb, nka = 0, nkb = 0, i, xl, xr, bs, be
    cdef Py_UCS4* ca = NULL
    cdef Py_UCS4* cb = NULL
    cdef uint8_t* wa = NULL
    cdef uint8_t* wb = NULL
    cdef int* ka = NULL
    cdef int* kb = NULL
    cdef Py_UCS4* sa
    cdef Py_UCS4* sb
    cdef Skel S
    cdef Work* W = _acquire()
    cdef list out = []
    S.T.n = 0
    try:
        ca = _ucs4(a, &na)
        cb = _ucs4(b, &nb)
        wa = _widths(ca, na)
        wb = _widths(cb, nb)
        ka = <int*>_alloc(na * sizeof(int))
        kb = <int*>_alloc(nb * sizeof(int))
        sa = <Py_UCS4*>_get(W, W_SA, na * sizeof(Py_UCS4))
        sb = <Py_UCS4*>_get(W, W_SB, nb * sizeof(Py_UCS4))
        _skel_start(W, &S, ca, wa, na, cb, wb, nb, window, 2 * window * len(cuts),
                    ka, sa, &nka, kb, sb, &nkb, NULL, True)
        for xl, xr, bs, be in cuts:
            if not (0 <= xl < xr <= na and 0 <= bs < be <= nb):
                raise ValueError("cut out of range")
            memmove(ca + xl, ca + xr, (na - xr) * sizeof(Py_UCS4))
            memmove(wa + xl, wa + xr, (na - xr) * sizeof(uint8_t))
            na -= xr - xl
            _splice(&S, &S.A, ca, wa, na, xl, xr)
            memmove(cb + bs, cb + be, (nb - be) * sizeof(Py_UCS4))
            memmove(wb + bs, wb + be, (nb - be) * sizeof(uint8_t))
            nb -= be - bs
            _splice(&S, &S.B, cb, wb, nb, bs, be)
            nka = _keep(&S.A, S.B.cnt, ca, ka, sa)
            nkb = _keep(&S.B, S.A.cnt, cb, kb, sb)
            out.append((
                _to_str(sa, nka), [ka[i] for i in range(nka)],
                _to_str(sb, nkb), [kb[i] for i in range(nkb)],
            ))
        return out
    finally:
        _table_clear(&S.T)
        W.slots_dirty = False
        _release(W)
        free(ca)
        free(cb)
        free(wa)
        free(wb)
        free(ka)
        free(kb)


# ---------------------------------------------------------------------------------------------
# Myers' O(ND) LCS, linear-space variant.

cdef inline Py_ssize_t _run_fwd(const Py_UCS4* a, const Py_UCS4* b, Py_ssize_t lim) noexcept:
    """Length of the common prefix of a[:lim] and b[:lim] (compared 64 bits at a time)."""
    cdef Py_ssize_t p = 0
    cdef uint64_t x, y, x2, y2
    while p + 4 <= lim:
        memcpy(&x, a + p, 8)
        memcpy(&y, b + p, 8)
        memcpy(&x2, a + p + 2, 8)
        memcpy(&y2, b + p + 2, 8)
        if (x ^ y) | (x2 ^ y2):
            break
        p += 4
    while p + 2 <= lim:
        memcpy(&x, a + p, 8)
        memcpy(&y, b + p, 8)
        if x != y:
            break
        p += 2
    while p < lim and a[p] == b[p]:
        p += 1
    return p


cdef inline Py_ssize_t _run_bwd(const Py_UCS4* a, const Py_UCS4* b, Py_ssize_t lim) noexcept:
    """Length of the common suffix of a[-lim:] and b[-lim:] (``a``, ``b``: one past the end)."""
    cdef Py_ssize_t q = 0
    cdef uint64_t x, y, x2, y2
    while q + 4 <= lim:
        memcpy(&x, a - q - 2, 8)
        memcpy(&y, b - q - 2, 8)
        memcpy(&x2, a - q - 4, 8)
        memcpy(&y2, b - q - 4, 8)
        if (x ^ y) | (x2 ^ y2):
            break
        q += 4
    while q + 2 <= lim:
        memcpy(&x, a - q - 2, 8)
        memcpy(&y, b - q - 2, 8)
        if x != y:
            break
        q += 2
    while q < lim and a[-q - 1] == b[-q - 1]:
        q += 1
    return q


cdef struct Myers:
    const Py_UCS4* a
    const Py_UCS4* b
    int64_t* vf
    int64_t* vb
    int* out_i
    int* out_j
    int* out_n
    Py_ssize_t nout


cdef inline void _step(int64_t* v, int64_t off, int64_t centre, int64_t d, int64_t n, int64_t m,
                       int64_t far, int64_t* kmin, int64_t* kmax) noexcept:
    """Step ``d`` of the search of ``v`` centred on diagonal ``centre`` (forward: 0, backward:
    delta): the entries first readable at this step set to ``far`` (the reference fills the
    arrays up front), and the diagonals the step visits, ``kmin`` to ``kmax`` (those of the
    grid, every other one)."""
    cdef int64_t j = centre - d - 1
    if j >= -m - 1:
        v[off + j] = far
    j = centre + d + 1
    if j <= n + 1:
        v[off + j] = far
    kmin[0] = centre - d
    if kmin[0] < -m:
        kmin[0] = -m + ((centre - d + m) & 1)
    kmax[0] = centre + d
    if kmax[0] > n:
        kmax[0] = n - ((centre + d - n) & 1)


cdef inline void _snake(Py_ssize_t* snake, Py_ssize_t alo, Py_ssize_t blo, int64_t x_start,
                        int64_t x_end, int64_t k) noexcept:
    """The middle snake from ``x_start`` to ``x_end`` on diagonal ``k``, in the whole texts."""
    snake[0] = alo + x_start
    snake[1] = blo + x_start - k
    snake[2] = alo + x_end
    snake[3] = blo + x_end - k


cdef int _middle_snake(Myers* M, Py_ssize_t alo, Py_ssize_t ahi, Py_ssize_t blo, Py_ssize_t bhi,
                       Py_ssize_t max_d, Py_ssize_t* snake) noexcept:
    """Myers' middle snake of ``a[alo:ahi]`` vs ``b[blo:bhi]`` (forward and backward D-paths
    meeting); stores it in ``snake`` and returns D, or -1 when D would exceed ``max_d``."""
    cdef const Py_UCS4* a = M.a + alo
    cdef const Py_UCS4* b = M.b + blo
    cdef int64_t* vf = M.vf
    cdef int64_t* vb = M.vb
    cdef int64_t n = ahi - alo, m = bhi - blo
    cdef int64_t delta = n - m
    cdef bint odd = delta & 1
    cdef int64_t off = m + 1
    cdef int64_t d, k, kmin, kmax, x, y, x0, down, right, left, up, lim, prev, olo, ohi
    for d in range((n + m + 1) // 2 + 1):
        if max_d >= 0 and 2 * d - 1 > max_d:
            return 1
        _step(vf, off, 0, d, n, m, _FAR_BACK, &kmin, &kmax)
        if d == 0:
            vf[off + 1] = 0
        # The diagonals whose backward path may overlap (none when delta is even); every
        # loaded entry serves two diagonals: vf[k + 1] is k's "down" and (k + 2)'s "right".
        olo = delta - (d - 1) if odd else 1
        ohi = delta + (d - 1) if odd else 0
        k = kmin
        prev = vf[off + k - 1]
        while k <= kmax:
            down = vf[off + k + 1]
            right = prev + 1
            prev = down
            if down - k > m:
                down = _FAR_BACK
            if right > n:
                right = _FAR_BACK
            x = down if down >= right else right
            if x >= 0:
                x0 = x
                y = x - k
                if x < n and y < m and a[x] == b[y]:
                    lim = n - x if n - x < m - y else m - y
                    x += _run_fwd(a + x, b + y, lim)
                vf[off + k] = x
                if olo <= k <= ohi and x >= vb[off + k]:
                    _snake(snake, alo, blo, x0, x, k)
                    return 0
            k += 2
        if max_d >= 0 and 2 * d > max_d:
            return 1
        _step(vb, off, delta, d, n, m, _FAR_AHEAD, &kmin, &kmax)
        if d == 0:
            vb[off + delta + 1] = n + 1
        olo = -d if not odd else 1
        ohi = d if not odd else 0
        k = kmin
        prev = vb[off + k - 1]
        while k <= kmax:
            up = prev
            left = vb[off + k + 1]
            prev = left
            left -= 1
            if left < 0:
                left = _FAR_AHEAD
            if up - k < 0:
                up = _FAR_AHEAD
            x = left if left < up else up
            if x <= n:
                x0 = x
                y = x - k
                if x > 0 and y > 0 and a[x - 1] == b[y - 1]:
                    lim = x if x < y else y
                    x -= _run_bwd(a + x, b + y, lim)
                vb[off + k] = x
                if olo <= k <= ohi and x <= vf[off + k]:
                    _snake(snake, alo, blo, x, x0, k)
                    return 0
            k += 2
    return 2  # unreachable


cdef inline void _emit(Myers* M, Py_ssize_t i, Py_ssize_t j, Py_ssize_t n) noexcept:
    """Append the matching block ``a[i:i+n] == b[j:j+n]`` to the output arrays."""
    M.out_i[M.nout] = <int>i
    M.out_j[M.nout] = <int>j
    M.out_n[M.nout] = <int>n
    M.nout += 1


cdef int _lcs_rec(Myers* M, Py_ssize_t alo, Py_ssize_t ahi, Py_ssize_t blo, Py_ssize_t bhi,
                  Py_ssize_t max_d) noexcept:
    """Divide-and-conquer Myers LCS of ``a[alo:ahi]`` vs ``b[blo:bhi]``: emits matching blocks
    in order; returns -1 when a sub-problem needs more than ``max_d`` edits."""
    cdef const Py_UCS4* a = M.a
    cdef const Py_UCS4* b = M.b
    cdef Py_ssize_t p, q, lim
    cdef Py_ssize_t snake[4]
    cdef int rc
    lim = ahi - alo if ahi - alo < bhi - blo else bhi - blo
    p = _run_fwd(a + alo, b + blo, lim)
    if p:
        _emit(M, alo, blo, p)
        alo += p
        blo += p
    lim = ahi - alo if ahi - alo < bhi - blo else bhi - blo
    q = _run_bwd(a + ahi, b + bhi, lim)
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


cdef struct Blocks:
    # Matching blocks a[i[t]:i[t] + n[t]] == b[j[t]:j[t] + n[t]], t < count, in order; arrays
    # of the workspace, valid until its next use.
    const int* i
    const int* j
    const int* n
    Py_ssize_t count


cdef Py_ssize_t _matching_blocks(Work* W, const Py_UCS4* a, Py_ssize_t n, const Py_UCS4* b,
                                 Py_ssize_t m, Py_ssize_t max_d, Blocks* B) except -2:
    """The LCS of ``a`` and ``b`` as merged matching blocks in ``B``; returns its length, or -1
    when D > max_d (``B`` unset)."""
    cdef Myers M
    cdef Py_ssize_t cap = (n if n < m else m) + 1, t, w, total = 0
    cdef int rc
    M.a = a
    M.b = b
    M.nout = 0
    M.out_i = <int*>_get(W, W_OI, cap * sizeof(int))
    M.out_j = <int*>_get(W, W_OJ, cap * sizeof(int))
    M.out_n = <int*>_get(W, W_ON, cap * sizeof(int))
    M.vf = <int64_t*>_get(W, W_VF, (n + m + 3) * sizeof(int64_t))
    M.vb = <int64_t*>_get(W, W_VB, (n + m + 3) * sizeof(int64_t))
    rc = _lcs_rec(&M, 0, n, 0, m, max_d)
    if rc:
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
        total += M.out_n[t]
    B.i = M.out_i
    B.j = M.out_j
    B.n = M.out_n
    B.count = w
    return total


cdef object _blocks_of(str a, str b, Py_ssize_t max_d, bint length_only):
    """The matching blocks of ``a`` and ``b`` (None when D > ``max_d``), or with
    ``length_only`` the LCS length they sum to."""
    cdef Py_ssize_t n, m, lcs, t
    cdef Py_UCS4* ca = NULL
    cdef Py_UCS4* cb = NULL
    cdef Blocks B
    cdef Work* W = _acquire()
    try:
        ca = _ucs4(a, &n)
        cb = _ucs4(b, &m)
        lcs = _matching_blocks(W, ca, n, cb, m, max_d, &B)
        if length_only or lcs < 0:
            return lcs if length_only else None
        return [(B.i[t], B.j[t], B.n[t]) for t in range(B.count)]
    finally:
        _release(W)
        free(ca)
        free(cb)


def matching_blocks(str a, str b, Py_ssize_t max_d=-1):
    """The LCS of ``a`` and ``b`` as ``(i, j, n)`` blocks in order (Myers O(ND)); see
    ``_lcs_py.matching_blocks``."""
    return _blocks_of(a, b, max_d, False)


def lcs_length(str a, str b):
    """Length of the LCS of ``a`` and ``b`` (code points); see ``_lcs_py.lcs_length``."""
    return _blocks_of(a, b, -1, True)

# ---------------------------------------------------------------------------------------------
# Bit-parallel LCS length (Allison & Dix 1986; Hyyrö 2004): the rejection filter before Myers
# on long skeletons far apart, whose cost does not grow with the edit distance.


cdef int _lcs_reaches(const Py_UCS4* a, Py_ssize_t na, const Py_UCS4* b, Py_ssize_t nb,
                      Py_ssize_t need) except -1:
    """1 when LCS(a, b) >= need, else 0 (``_bp_lcs``: the answer returned once it is known)."""
    if need <= 0:
        return 1
    if need > na or need > nb:
        return 0
    return 1 if _bp_lcs(a, na, b, nb, need, False) >= need else 0


cdef Py_ssize_t _bp_lcs(const Py_UCS4* a, Py_ssize_t na, const Py_UCS4* b, Py_ssize_t nb,
                        Py_ssize_t need, bint full) except -1:
    """LCS(a, b) (``na``, ``nb`` > 0); with ``need`` >= 0, a value below ``need`` as soon as
    the LCS is known to stay below it, and, unless ``full``, one at or above it as soon as it
    is known to reach it (``_lcs_reaches``).

    The shorter text is the pattern (``b`` when they are as long): its distinct code points
    get rows of match bits through an open-addressing table; the other is read once, the LCS
    so far counted every 64 of its characters."""
    cdef const Py_UCS4* p = b if nb <= na else a
    cdef const Py_UCS4* t = a if nb <= na else b
    cdef Py_ssize_t m = nb if nb <= na else na, n = na if nb <= na else nb
    cdef Py_ssize_t W = (m + 63) // 64, size = 64, i, j, w, slot, rows = 0, common
    while size < 2 * m:
        size <<= 1
    cdef Py_UCS4* keys = <Py_UCS4*>malloc(size * sizeof(Py_UCS4))
    cdef int32_t* row = <int32_t*>malloc(size * sizeof(int32_t))
    cdef uint64_t* peq = NULL
    cdef uint64_t* V = <uint64_t*>malloc(W * sizeof(uint64_t))
    cdef Py_UCS4 c
    try:
        if keys == NULL or row == NULL or V == NULL:
            raise MemoryError()
        for i in range(size):
            row[i] = -1
        for j in range(m):  # rows first, then the bits (the row count is known only then)
            c = p[j]
            slot = <Py_ssize_t>((<uint64_t>c * 0x9E3779B97F4A7C15ULL) >> 40) & (size - 1)
            while row[slot] >= 0 and keys[slot] != c:
                slot = (slot + 1) & (size - 1)
            if row[slot] < 0:
                keys[slot] = c
                row[slot] = <int32_t>rows
                rows += 1
        peq = <uint64_t*>calloc(rows * W, sizeof(uint64_t))
        if peq == NULL:
            raise MemoryError()
        for j in range(m):
            c = p[j]
            slot = <Py_ssize_t>((<uint64_t>c * 0x9E3779B97F4A7C15ULL) >> 40) & (size - 1)
            while keys[slot] != c:
                slot = (slot + 1) & (size - 1)
            peq[row[slot] * W + (j >> 6)] |= (<uint64_t>1) << (j & 63)
        for w in range(W):
            V[w] = ~<uint64_t>0
        for i in range(n):
            c = t[i]
            slot = <Py_ssize_t>((<uint64_t>c * 0x9E3779B97F4A7C15ULL) >> 40) & (size - 1)
            while row[slot] >= 0 and keys[slot] != c:
                slot = (slot + 1) & (size - 1)
            if row[slot] >= 0:
                bp_step(V, peq + row[slot] * W, W)
            if need >= 0 and (i & 63) == 63:
                common = bp_lcs(V, W, m)
                if common + (n - 1 - i) < need or (common >= need and not full):
                    return common
        return bp_lcs(V, W, m)
    finally:
        free(keys)
        free(row)
        free(peq)
        free(V)


def _skeleton_lcs_reaches(str a, str b, Py_ssize_t need):
    """Whether LCS(a, b) >= need, by the bit-parallel filter (for the tests)."""
    cdef Py_ssize_t n, m
    cdef Py_UCS4* ca = NULL
    cdef Py_UCS4* cb = NULL
    try:
        ca = _ucs4(a, &n)
        cb = _ucs4(b, &m)
        return _lcs_reaches(ca, n, cb, m, need) == 1
    finally:
        free(ca)
        free(cb)

# ---------------------------------------------------------------------------------------------
# TLCS (paper §4.4, Figure 4).

# The edit curve of one iteration, from its matches: pa[t] < pa[t + 1] are the matched
# positions of A, pb[t] the positions of B they match. With c = #{t : pa[t] < x}:
#   m_cum[x] = c (matched positions below x),
#   ins_le[g] = sum of the insertions anchored at gaps <= g
#             = pb[c' - 1] + 1 - c' with c' = #{t : pa[t] <= g} (the unmatched positions of B
#               before match c' - 1), plus those after the last match once g > pa[lcs - 1].
# The reference tabulates m_cum and ins_le over all of A; here d is evaluated where the region
# search looks (block ends, then the one or two blocks around the extended ends).
cdef struct Curve:
    const int* pa
    const int* pb
    Py_ssize_t lcs
    int64_t tail  # insertions after the last match


cdef inline Py_ssize_t _count_below(const Curve* C, Py_ssize_t x) noexcept:
    """#{t : pa[t] < x} (C.lcs >= 1), by a binary search whose steps are selects, not
    branches the predictor would miss half of the time."""
    cdef Py_ssize_t base = 0, n = C.lcs, half
    while n > 1:
        half = n >> 1
        base = base + half if C.pa[base + half] < x else base
        n -= half
    return base + (C.pa[base] < x)


cdef inline int64_t _ins_le(const Curve* C, Py_ssize_t g, Py_ssize_t c_le) noexcept:
    """Insertions anchored at gaps <= g, given c_le = #{t : pa[t] <= g}."""
    cdef int64_t v = (C.pb[c_le - 1] + 1 - c_le) if c_le > 0 else 0
    if g > C.pa[C.lcs - 1]:
        v += C.tail
    return v


cdef inline int64_t _d_lo(const Curve* C, Py_ssize_t x, Py_ssize_t c) noexcept:
    """Cost accumulated before a region starting at x (c = #{t : pa[t] < x})."""
    cdef Py_ssize_t c_le = c + 1 if c < C.lcs and C.pa[c] == x else c
    return (x - c) + _ins_le(C, x, c_le)


cdef inline int64_t _d_hi(const Curve* C, Py_ssize_t x, Py_ssize_t c) noexcept:
    """Cost accumulated up to a region ending at x (c = #{t : pa[t] < x})."""
    return (x - c) + (_ins_le(C, x - 1, c) if x > 0 else 0)


cdef inline Py_ssize_t _block_size(Py_ssize_t na, const Params* P) noexcept:
    """The block size s of the region search over a text of ``na`` code points (as
    ``VerifyConfig.block_size_for``): fixed, or ``ceil(na / blocks)``, at least the minimum."""
    cdef Py_ssize_t s
    if P.block_size > 0:
        return P.block_size
    s = (na + P.blocks - 1) // P.blocks
    return s if s >= P.min_block_size else P.min_block_size


cdef bint _region(Py_ssize_t na, const Curve* C, const Params* P,
                  Py_ssize_t* out_l, Py_ssize_t* out_r) except -1:
    """The trustable region of the edit curve ``C`` over A (``na`` code points): blocks weighted
    toward the centre, base regions of slope <= theta, the best one extended; writes its ends
    to ``out_l``/``out_r`` and returns False when there is none. See ``_lcs_py._region_from_curve``."""
    cdef double theta = P.theta
    cdef Py_ssize_t s, k, centre, i, j, x1, x2, w, nblocks, best_w = -1, best_len = 0, nbase = 0
    cdef Py_ssize_t t, xl, xr, lim, x, c, best_l = 0, best_r = 0
    cdef bint found = False
    cdef int64_t lo, hi
    cdef Py_ssize_t* wcum = NULL
    cdef Py_ssize_t* base = NULL
    cdef int64_t* d_start = NULL
    cdef int64_t* d_end = NULL
    s = _block_size(na, P)
    k = (na + s - 1) // s
    centre = (k + 1) // 2
    try:
        wcum = <Py_ssize_t*>_alloc((k + 1) * sizeof(Py_ssize_t))
        base = <Py_ssize_t*>_alloc(2 * (k + 1) * sizeof(Py_ssize_t))
        d_start = <int64_t*>_alloc((k + 1) * sizeof(int64_t))
        d_end = <int64_t*>_alloc((k + 1) * sizeof(int64_t))
        wcum[0] = 0
        for i in range(1, k + 1):
            wcum[i] = wcum[i - 1] + centre - (centre - i if centre >= i else i - centre)
            x1 = (i - 1) * s
            d_start[i] = _d_lo(C, x1, _count_below(C, x1))
            x2 = i * s
            if x2 > na:
                x2 = na
            d_end[i] = _d_hi(C, x2, _count_below(C, x2))
        for i in range(1, k + 1):
            x1 = (i - 1) * s
            lo = d_start[i]
            for j in range(i, k + 1):
                x2 = j * s
                if x2 > na:
                    x2 = na
                if <double>(d_end[j] - lo) <= theta * <double>(x2 - x1):
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
            hi = _d_hi(C, x2, _count_below(C, x2))
            # Left end: x only decreases (a further block is searched only when the whole
            # previous one was taken), so c follows it.
            xl = x1
            lim = x1
            c = _count_below(C, x1)
            while lim > 0 and xl == lim:
                lim = lim - s if lim > s else 0
                x = xl - 1
                while x >= lim:
                    while c > 0 and C.pa[c - 1] >= x:
                        c -= 1
                    if <double>(hi - _d_lo(C, x, c)) <= theta * <double>(x2 - x):
                        xl = x
                    x -= 1
            lo = _d_lo(C, xl, _count_below(C, xl))
            xr = x2
            lim = x2
            c = _count_below(C, x2)
            while lim < na and xr == lim:
                lim = lim + s if lim + s < na else na
                for x in range(xr + 1, lim + 1):
                    while c < C.lcs and C.pa[c] < x:
                        c += 1
                    if <double>(_d_hi(C, x, c) - lo) <= theta * <double>(x - xl):
                        xr = x
            if not found or xr - xl > best_r - best_l:
                found = True
                best_l = xl
                best_r = xr
    finally:
        free(wcum)
        free(base)
        free(d_start)
        free(d_end)
    out_l[0] = best_l
    out_r[0] = best_r
    return found


cdef Py_ssize_t _skeleton_lcs(Work* W, const Py_UCS4* sa, Py_ssize_t nka, const Py_UCS4* sb,
                              Py_ssize_t nkb, Py_ssize_t max_d) except -2:
    """LCS(sa, sb), or -1 when D = nka + nkb - 2 LCS > ``max_d`` (``max_d`` < 0: no cap), the
    cheaper way, as ``_tlcs_once_capped`` weighs them: Myers under a small cap,
    √(nka·nkb/64), where D is below it (skeletons that keep the same windows: Myers' cost
    grows with D); past it the bit-parallel length (O(nka·nkb/64) whatever D is), which stops
    as soon as D > ``max_d`` is known (pages far apart)."""
    cdef Py_ssize_t small = <Py_ssize_t>sqrt(<double>nka * <double>nkb / 64.0), total
    cdef Py_ssize_t need
    cdef Blocks B
    if max_d >= 0 and small >= max_d:
        small = max_d  # Myers capped at max_d decides alone
    total = _matching_blocks(W, sa, nka, sb, nkb, small, &B)
    if total >= 0:
        return total
    if max_d >= 0 and small == max_d:
        return -1  # D > max_d
    if nka == 0 or nkb == 0:
        return 0
    # D > max_d  <=>  LCS < ceil((nka + nkb - max_d) / 2): one pass, which stops early only then.
    need = (nka + nkb - max_d + 1) // 2 if max_d >= 0 else -1
    total = _bp_lcs(sa, nka, sb, nkb, need, True)
    return -1 if total < need else total


cdef bint _no_region(Py_ssize_t na, const int* ka, Py_ssize_t nka, const Params* P) except -1:
    """True when the region search over A (``na`` code points, the skeleton at positions
    ``ka``, increasing) finds no region whatever the alignment: the alignment and the region
    search can be skipped (only the first iteration needs the LCS length, or whether D >
    ``max_d``: ``_skeleton_lcs``).

    A base region ``[x1, x2)`` (blocks as in ``_region``) costs its deletions plus the
    insertions inside it, so at least its positions that are not matched, so at least its
    positions outside A's skeleton (only skeleton positions can be matched). When even that
    is above ``theta`` of every base region, ``_region`` finds no base region, hence no
    region: the iteration ends with TLCS 0, whatever the alignment. Text edited densely
    enough that few windows survive (Latin at 10 % of characters) is such a pair, where Myers
    on skeletons tens of thousands of characters apart cost up to 0.3 s."""
    cdef Py_ssize_t s, k, i, j, t = 0, x1, x2, cost
    cdef Py_ssize_t* kcum
    s = _block_size(na, P)
    k = (na + s - 1) // s
    kcum = <Py_ssize_t*>_alloc((k + 1) * sizeof(Py_ssize_t))
    try:
        kcum[0] = 0
        for i in range(1, k + 1):
            x2 = i * s if i * s < na else na
            while t < nka and ka[t] < x2:
                t += 1
            kcum[i] = t  # skeleton positions below block i's end
        for i in range(1, k + 1):
            x1 = (i - 1) * s
            for j in range(i, k + 1):
                x2 = j * s if j * s < na else na
                cost = (x2 - x1) - (kcum[j] - kcum[i - 1])
                if <double>cost <= P.theta * <double>(x2 - x1):
                    return False
        return True
    finally:
        free(kcum)


cdef struct Once:
    Py_ssize_t tlcs
    Py_ssize_t lcs
    Py_ssize_t xl
    Py_ssize_t xr
    Py_ssize_t as_
    Py_ssize_t ae
    Py_ssize_t bs
    Py_ssize_t be


cdef int _tlcs_once(Work* W, Py_ssize_t na, Py_ssize_t nb, const int* ka, const Py_UCS4* sa,
                    Py_ssize_t nka, const int* kb, const Py_UCS4* sb, Py_ssize_t nkb,
                    const Params* P, Py_ssize_t max_d, Once* r) except -1:
    """One trustable region of texts of lengths na, nb from their skeletons (positions ka,
    kb; code points sa, sb). 1: rejected (D > max_d); 0: ``r`` filled (tlcs 0 when there is
    no region)."""
    cdef Blocks B
    cdef int* pa
    cdef int* pb
    cdef Curve C
    cdef Py_ssize_t t, u, lcs, first, lastm, xl = 0, xr = 0
    memset(r, 0, sizeof(Once))
    lcs = _matching_blocks(W, sa, nka, sb, nkb, max_d, &B)
    if lcs < 0:
        return 1
    r.lcs = lcs
    if lcs == 0:
        return 0
    pa = <int*>_get(W, W_PA, lcs * sizeof(int))
    pb = <int*>_get(W, W_PB, lcs * sizeof(int))
    u = 0
    for t in range(B.count):
        memcpy(pa + u, ka + B.i[t], B.n[t] * sizeof(int))
        memcpy(pb + u, kb + B.j[t], B.n[t] * sizeof(int))
        u += B.n[t]
    C.pa = pa
    C.pb = pb
    C.lcs = lcs
    C.tail = nb - pb[lcs - 1] - 1
    if not _region(na, &C, P, &xl, &xr):
        return 0
    # m_cum[x] = _count_below(x)
    first = _count_below(&C, xl)
    lastm = _count_below(&C, xr) - 1
    r.tlcs = lastm + 1 - first
    if r.tlcs == 0:
        return 0
    r.xl = xl
    r.xr = xr
    r.as_ = pa[first]
    r.ae = pa[lastm] + 1
    r.bs = pb[first]
    r.be = pb[lastm] + 1
    return 0


cdef int _tlcs_once_capped(Work* W, Py_ssize_t na, Py_ssize_t nb, const int* ka,
                           const Py_UCS4* sa, Py_ssize_t nka, const int* kb, const Py_UCS4* sb,
                           Py_ssize_t nkb, const Params* P, Py_ssize_t max_d, Once* r) except -1:
    """:func:`_tlcs_once`, the same result, faster on long skeletons far apart.

    Myers' middle snake grows with D; on skeletons of tens of thousands of characters that
    share little, finding D > ``max_d`` costs far more than the bit-parallel LCS length
    (O(n·m/64)). So a long pair is first aligned under a small cap (where the cap holds, the
    alignment is the uncapped one: the cap only stops the search); past it, the bit-parallel
    length decides D > ``max_d`` (rejected, as Myers would) or the alignment runs in full."""
    cdef Py_ssize_t small
    cdef int rc
    if max_d < 0 or nka + nkb <= max_d:
        return _tlcs_once(W, na, nb, ka, sa, nka, kb, sb, nkb, P, max_d, r)
    # Comparable costs: Myers to D = small ~ small², the bit-parallel length nka·nkb/64.
    small = <Py_ssize_t>sqrt(<double>nka * <double>nkb / 64.0)
    if small < max_d:
        rc = _tlcs_once(W, na, nb, ka, sa, nka, kb, sb, nkb, P, small, r)
        if rc == 0:
            return 0
        # D > small. D = nka + nkb - 2 LCS > max_d  <=>  LCS < ceil((nka + nkb - max_d) / 2).
        if _lcs_reaches(sa, nka, sb, nkb, (nka + nkb - max_d + 1) // 2) == 0:
            memset(r, 0, sizeof(Once))
            return 1
    return _tlcs_once(W, na, nb, ka, sa, nka, kb, sb, nkb, P, max_d, r)


cdef double EDGE_ANCHOR = 0.02  # as _lcs_py.EDGE_ANCHOR
cdef double COMMON_REST = 0.5  # as _lcs_py.COMMON_REST


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
    """Steps 2-3 for one pair: skeleton, Myers LCS, (iterative) TLCS and the verdict.

    Returns ``(similar, resemble, contain, tlcs, lcs, a_spans, b_spans, reason)``; the
    specification is ``_lcs_py.verify``, which this function must match exactly.
    """
    cdef Params P
    cdef Py_ssize_t na, nb, nka = 0, nkb = 0, upper, shorter, max_d, it, iters, i, extra
    cdef Py_ssize_t cur_na, cur_nb, tlcs_total = 0, lcs_first = 0, tlcs_first = 0
    cdef bint first_anchored = False
    cdef bint header_footer
    cdef double need, bound_resemble, bound_contain
    cdef bint swapped
    cdef Once r
    cdef Skel S
    cdef Py_UCS4* ca
    cdef Py_UCS4* cb
    cdef int* oa
    cdef int* ob
    cdef uint8_t* wa
    cdef uint8_t* wb
    cdef int* ma
    cdef int* mb
    cdef int* ka
    cdef int* kb
    cdef Py_UCS4* sa
    cdef Py_UCS4* sb
    cdef Py_UCS4* tc
    cdef int* ti
    cdef uint8_t* tw
    cdef list spans_a = [], spans_b = []
    cdef Work* W

    P = _params(config)
    S.T.n = 0
    W = _acquire()
    try:
        ca = <Py_UCS4*>_get(W, W_CA, len(a) * sizeof(Py_UCS4))
        oa = <int*>_get(W, W_OA, len(a) * sizeof(int))
        wa = <uint8_t*>_get(W, W_WA, len(a))
        na = _normalize(a, ca, oa, wa)
        cb = <Py_UCS4*>_get(W, W_CB, len(b) * sizeof(Py_UCS4))
        ob = <int*>_get(W, W_OB, len(b) * sizeof(int))
        wb = <uint8_t*>_get(W, W_WB, len(b))
        nb = _normalize(b, cb, ob, wb)
        if na == 0 or nb == 0:
            return False, 0.0, 0.0, 0, 0, [], [], "empty"
        swapped = nb > na or (nb == na and _less(cb, ca, na))
        if swapped:
            tc = ca; ca = cb; cb = tc
            ti = oa; oa = ob; ob = ti
            tw = wa; wa = wb; wb = tw
            na, nb = nb, na
        shorter = nb
        ka = <int*>_get(W, W_KA, na * sizeof(int))
        kb = <int*>_get(W, W_KB, nb * sizeof(int))
        sa = <Py_UCS4*>_get(W, W_SA, na * sizeof(Py_UCS4))
        sb = <Py_UCS4*>_get(W, W_SB, nb * sizeof(Py_UCS4))
        # Ids for the windows that later iterations hash again (at most one window's worth
        # per text and removal).
        extra = 2 * P.window * P.max_iterations if P.iterative else 0
        # Early rejection (paper §4.3): |TLCS| <= |LCS| <= the shorter skeleton.
        # Both skeletons in full: a rejection reports the bound of the shorter one (what a
        # second pass over the pair would otherwise compute again).
        _skel_start(W, &S, ca, wa, na, cb, wb, nb, P.window, extra,
                    ka, sa, &nka, kb, sb, &nkb, NULL, False)
        upper = nka if nka < nkb else nkb
        bound_resemble = upper / <double>(na + nb - upper)
        bound_contain = upper / <double>shorter
        if _cannot_reach(upper, na, nb, &P):
            return False, bound_resemble, bound_contain, 0, 0, [], [], "skeleton"
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
                return False, bound_resemble, bound_contain, 0, 0, [], [], "edit_distance"

        _skel_finish(&S)  # the windows B lacks get ids only now: later iterations splice them
        # Positions of the current (shrinking) texts in the normalised ones.
        ma = <int*>_get(W, W_MA, na * sizeof(int))
        mb = <int*>_get(W, W_MB, nb * sizeof(int))
        for i in range(na):
            ma[i] = <int>i
        for i in range(nb):
            mb[i] = <int>i
        cur_na = na
        cur_nb = nb
        iters = P.max_iterations if P.iterative else 1
        for it in range(iters):
            if it > 0:
                nka = _keep(&S.A, S.B.cnt, ca, ka, sa)
                nkb = _keep(&S.B, S.A.cnt, cb, kb, sb)
                # |TLCS| <= |LCS| <= the shorter skeleton: this region could not count.
                if nka < P.min_iteration_tlcs or nkb < P.min_iteration_tlcs:
                    break
            if _no_region(cur_na, ka, nka, &P):
                # What the full iteration would give without aligning: a later iteration
                # ends the search (as a region of 0, or D > max_d, does); the first one
                # reports the skeleton LCS, or the rejection at max_d, from its length.
                if it == 0:
                    lcs_first = _skeleton_lcs(W, sa, nka, sb, nkb, max_d)
                    if lcs_first < 0:  # D > max_d
                        return False, bound_resemble, bound_contain, 0, 0, [], [], "edit_distance"
                break
            if _tlcs_once_capped(W, cur_na, cur_nb, ka, sa, nka, kb, sb, nkb, &P, max_d, &r):
                if it == 0:
                    return False, bound_resemble, bound_contain, 0, 0, [], [], "edit_distance"
                break
            if it == 0:
                lcs_first = r.lcs
            if r.tlcs == 0 or (it > 0 and r.tlcs < P.min_iteration_tlcs):
                break
            if it == 0:
                tlcs_first = r.tlcs
                first_anchored = _anchored(ma[r.as_], ma[r.ae - 1] + 1, na,
                                           mb[r.bs], mb[r.be - 1] + 1, nb, P.window)
            # Rule (c) only while little besides this region is common (_lcs_py.COMMON_REST).
            header_footer = first_anchored and (
                <double>(r.lcs - r.tlcs) < COMMON_REST * <double>(cur_na - (r.xr - r.xl)))
            if it == 0 or _extra_region_counts(r.tlcs, tlcs_first, ma[r.as_], ma[r.ae - 1] + 1, na,
                                               mb[r.bs], mb[r.be - 1] + 1, nb, &P, header_footer):
                tlcs_total += r.tlcs
                spans_a.append((oa[ma[r.as_]], oa[ma[r.ae - 1]] + 1))
                spans_b.append((ob[mb[r.bs]], ob[mb[r.be - 1]] + 1))
            if r.tlcs < P.min_iteration_tlcs:
                break
            if it + 1 == iters:
                break
            # Remove the trustable region from A and the part of B it matched; only the
            # windows across each cut change.
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
            _splice(&S, &S.A, ca, wa, cur_na, r.xl, r.xr)
            _splice(&S, &S.B, cb, wb, cur_nb, r.bs, r.be)
        resemble = tlcs_total / <double>(na + nb - tlcs_total)
        contain = tlcs_total / <double>shorter
        similar = resemble >= P.resemble or contain >= P.contain
        if swapped:
            spans_a, spans_b = spans_b, spans_a
        return similar, resemble, contain, tlcs_total, lcs_first, spans_a, spans_b, None
    finally:
        _table_clear(&S.T)
        W.slots_dirty = False
        _release(W)
