# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled twin of :mod:`neardup.verifier._words_py`, the word layer (same API, same results;
see its docstrings): tokens as code points, the multiset bound, word containment, the
bit-parallel LCS length and alignment. ``tests/verifier/test_words.py`` holds the two
to the same results."""

from cpython.unicode cimport PyUnicode_READ_CHAR, PyUnicode_GET_LENGTH, PyUnicode_Substring
from libc.stdlib cimport malloc, calloc, free
from libc.stdint cimport uint8_t, uint32_t, uint64_t
from libc.string cimport memset
from libc.string cimport memcmp
from cpython.mem cimport PyMem_Free, PyMem_Malloc, PyMem_Realloc

include "_bitlcs.pxi"  # bp_step, bp_lcs: inline, shared with the other twin

cdef extern from "Python.h":
    bint Py_UNICODE_ISALNUM(Py_UCS4 ch)
    int PyUnicode_KIND(object u)
    void* PyUnicode_DATA(object u)
    Py_UCS4 PyUnicode_READ(int kind, const void* data, Py_ssize_t index)
    Py_UCS4* PyUnicode_AsUCS4Copy(object u) except NULL
    object PyUnicode_FromKindAndData(int kind, const void* buffer, Py_ssize_t size)
    int PyUnicode_4BYTE_KIND

DEF CODE_BASE = 0x10000

cdef extern from *:
    """
    #define ND_RUN_MULT 0x100000001B3ULL
    """
    # The multiplier of the polynomial hash of runs of tokens (word_contain).
    const uint64_t RUN_MULT "ND_RUN_MULT"

IMPLEMENTATION = "cython"


cdef inline bint _is_cjk(Py_UCS4 c) noexcept nogil:
    # The ranges of _words_py._CJK: kana, CJK ext. A, unified ideographs, compatibility
    # ideographs, hangul syllables, the supplementary ideographic planes.
    return ((0x3040 <= c <= 0x30FF) or (0x3400 <= c <= 0x4DBF) or (0x4E00 <= c <= 0x9FFF)
            or (0xF900 <= c <= 0xFAFF) or (0xAC00 <= c <= 0xD7AF)
            or (0x20000 <= c <= 0x2FA1F))


cdef uint8_t _ASCII_WORD[128]
for _c in range(128):
    _ASCII_WORD[_c] = Py_UNICODE_ISALNUM(_c) or _c == 0x5F


cdef inline bint _is_word(Py_UCS4 c) noexcept:
    if <uint32_t>c < 128:
        return _ASCII_WORD[<uint32_t>c]
    return Py_UNICODE_ISALNUM(c) or c == 0x5F  # regex \w


# Case folding, as str.casefold (which maps each code point on its own, context-free): the
# fold of a code point of the Basic Multilingual Plane is read from a table, filled 256 code
# points at a time from str.casefold when a text first holds one of them (pages of ideographs
# and hangul syllables, which have no case, without asking); a code point whose fold is
# longer than one (``ß`` -> ``ss``) or outside the plane is folded by str.casefold each time.
# Folding the two pages in one pass this way, without the two folded strings and their
# concatenation, took a third off the encoding (issue 17).
cdef uint32_t FOLD_EXPANDS = 0xFFFFFFFFU
cdef uint32_t _FOLD[65536]
cdef uint8_t _FOLD_READY[256]


cdef inline bint _caseless_page(Py_ssize_t page) noexcept:
    # Wholly inside CJK extension A (U+3400..U+4DBF), the unified ideographs (U+4E00..U+9FFF)
    # or the hangul syllables (U+AC00..U+D7A3): letters without case (the tests hold every
    # code point of the plane to str.casefold).
    return 0x34 <= page <= 0x4C or 0x4E <= page <= 0x9F or 0xAC <= page <= 0xD6


cdef int _fill_fold(Py_ssize_t page) except -1:
    cdef Py_ssize_t c, lo = page << 8
    cdef str f
    if _caseless_page(page):
        for c in range(lo, lo + 256):
            _FOLD[c] = <uint32_t>c
    else:
        for c in range(lo, lo + 256):
            f = chr(c).casefold()
            _FOLD[c] = <uint32_t>ord(f) if len(f) == 1 else FOLD_EXPANDS
    _FOLD_READY[page] = 1
    return 0


cdef Py_ssize_t _fold_into(str text, Py_UCS4** buf, Py_ssize_t* cap, Py_ssize_t k,
                           Py_ssize_t reserve) except -1:
    """Append ``text.casefold()`` to ``buf[0]`` from position ``k`` (``cap[0]`` code points
    allocated, grown as folds expand; ``reserve`` more will follow); returns the new end."""
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text), i, j, lf, need
    cdef int kind = PyUnicode_KIND(text)
    cdef const void* data = PyUnicode_DATA(text)
    cdef uint32_t c, f
    cdef Py_UCS4* out = buf[0]
    cdef Py_UCS4* grown
    cdef str folded
    for i in range(n):
        c = <uint32_t>PyUnicode_READ(kind, data, i)
        if c < 0x10000:
            if not _FOLD_READY[c >> 8]:
                _fill_fold(c >> 8)
            f = _FOLD[c]
            if f != FOLD_EXPANDS:
                out[k] = <Py_UCS4>f
                k += 1
                continue
        folded = chr(<long>c).casefold()
        lf = PyUnicode_GET_LENGTH(folded)
        need = k + lf + (n - i - 1) + reserve
        if need > cap[0]:
            cap[0] = need if need > 2 * cap[0] else 2 * cap[0]
            grown = <Py_UCS4*>PyMem_Realloc(out, cap[0] * sizeof(Py_UCS4))
            if grown == NULL:
                raise MemoryError()
            out = buf[0] = grown
        for j in range(lf):
            out[k] = PyUnicode_READ_CHAR(folded, j)
            k += 1
    return k


cdef Py_UCS4* _fold_pair(str a, str b, Py_ssize_t* split, Py_ssize_t* total) except NULL:
    """``a.casefold() + "\\x00" + b.casefold()`` as code points (free with PyMem_Free);
    ``split`` is the position of the NUL."""
    cdef Py_ssize_t na = PyUnicode_GET_LENGTH(a), nb = PyUnicode_GET_LENGTH(b)
    cdef Py_ssize_t cap = na + nb + 1, k
    cdef Py_UCS4* buf = <Py_UCS4*>PyMem_Malloc(cap * sizeof(Py_UCS4))
    if buf == NULL:
        raise MemoryError()
    try:
        k = _fold_into(a, &buf, &cap, 0, nb + 1)
        split[0] = k
        buf[k] = 0  # NUL is not part of any token
        total[0] = _fold_into(b, &buf, &cap, k + 1, 0)
        return buf
    except BaseException:
        PyMem_Free(buf)
        raise


def _casefold(str text):
    """``text.casefold()`` by the table above (for the tests)."""
    cdef Py_ssize_t split, total
    cdef Py_UCS4* buf = _fold_pair(text, "", &split, &total)
    try:
        return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, buf, split)
    finally:
        PyMem_Free(buf)


# Ids of the unified ideographs (U+4E00..U+9FFF), one token each, without hashing: a slot is
# valid when it carries the current call's stamp (so no call has to clear the array; encode
# holds the GIL throughout, so calls never overlap).
DEF IDEO_LO = 0x4E00
DEF IDEO_N = 0x9FFF - 0x4E00 + 1
cdef uint32_t _IDEO_STAMP[IDEO_N]
cdef uint32_t _IDEO_ID[IDEO_N]
cdef uint32_t _stamp = 0


DEF _KEEP_SLOTS = 1 << 20  # slots of 40 bytes: a table larger than 40 MB is not kept


cdef struct Slot:
    uint64_t h
    Py_ssize_t start   # in the concatenated casefolded texts
    Py_ssize_t n
    Py_ssize_t id
    uint32_t stamp     # the call that filled it (another stamp: empty)


cdef class _Table:
    """Token -> id: open addressing on a 64-bit hash, a hit confirmed by comparing code points
    (so two different tokens never share an id). One table serves every call (``_TABLE``):
    a slot counts only with the current call's stamp, as the ideographs' ids do, so a call
    neither allocates nor clears the slots (half a megabyte for two 5,000-character pages),
    unless it needs more of them than any call before; a table grown past ``_KEEP_SLOTS`` is
    let go after the call."""
    cdef Slot* slots
    cdef Py_ssize_t size, count
    cdef Py_UCS4* text

    def __cinit__(self):
        self.slots = NULL
        self.size = 0
        self.count = 0
        self.text = NULL

    def __dealloc__(self):
        free(self.slots)

    cdef int begin(self, Py_UCS4* text, Py_ssize_t expected) except -1:
        """Start a call on ``text``: at least ``2 * expected + 2`` slots, all empty."""
        cdef Py_ssize_t size = 64
        while size < 2 * expected + 2:
            size <<= 1
        if size > self.size:
            free(self.slots)
            self.slots = NULL
            self.size = 0
            self.slots = <Slot*>calloc(size, sizeof(Slot))  # stamp 0: never a call's
            if self.slots == NULL:
                raise MemoryError()
            self.size = size
        self.text = text
        self.count = 0
        return 0

    cdef void end(self) noexcept:
        self.text = NULL
        if self.size > _KEEP_SLOTS:
            free(self.slots)
            self.slots = NULL
            self.size = 0

    cdef void forget(self) noexcept:
        """Every slot empty again (the stamps wrapped)."""
        if self.slots != NULL:
            memset(self.slots, 0, self.size * sizeof(Slot))

    cdef Py_ssize_t get(self, uint64_t h, Py_ssize_t start, Py_ssize_t n) noexcept:
        cdef Py_ssize_t slot = <Py_ssize_t>((h ^ (h >> 31)) & <uint64_t>(self.size - 1))
        cdef Py_ssize_t j
        cdef Slot* s
        cdef const Py_UCS4* x
        cdef const Py_UCS4* y
        while True:
            s = &self.slots[slot]
            if s.stamp != _stamp:
                s.h = h
                s.start = start
                s.n = n
                s.id = self.count
                s.stamp = _stamp
                self.count += 1
                return s.id
            if s.h == h and s.n == n:
                x = self.text + s.start
                y = self.text + start
                j = 0
                while j < n and x[j] == y[j]:
                    j += 1
                if j == n:
                    return s.id
            slot = (slot + 1) & (self.size - 1)


cdef _Table _TABLE = _Table()


cdef Py_ssize_t _tokens(_Table table, Py_ssize_t lo, Py_ssize_t hi, uint32_t* out) noexcept:
    """Write the ids of the tokens of ``table.text[lo:hi]`` (see ``_words_py.tokens``) to
    ``out``; return how many."""
    cdef Py_UCS4* t = table.text
    cdef Py_ssize_t i = lo, start, k = 0, j, x
    cdef Py_UCS4 c
    cdef uint64_t h
    while i < hi:
        c = t[i]
        x = <Py_ssize_t>c - IDEO_LO
        if 0 <= x < IDEO_N:  # the same ids, in the same order, as the table would give
            i += 1
            if _IDEO_STAMP[x] != _stamp:
                _IDEO_STAMP[x] = _stamp
                _IDEO_ID[x] = <uint32_t>table.count
                table.count += 1
            out[k] = <uint32_t>(CODE_BASE + _IDEO_ID[x])
            k += 1
            continue
        if _is_cjk(c):
            start = i
            i += 1
        elif _is_word(c):
            start = i
            i += 1
            while i < hi and not _is_cjk(t[i]) and _is_word(t[i]):
                i += 1
        else:
            i += 1
            continue
        h = 0xCBF29CE484222325ULL
        for j in range(start, i):
            h = (h ^ <uint64_t>t[j]) * 0x100000001B3ULL
        out[k] = <uint32_t>(CODE_BASE + table.get(h, start, i - start))
        k += 1
    return k


def encode(str a, str b):
    """``(sa, sb)``: the case-folded tokens of ``a`` and ``b`` as code points, one per token,
    equal tokens equal code points; as ``_words_py.encode``."""
    return _encode(a, b, False)[:2]


def encode_bound(str a, str b):
    """``(sa, sb, upper)``: :func:`encode` and the multiset bound of the two sequences
    (:func:`shared_upper`), counted from the ids as they are given."""
    return _encode(a, b, True)


cdef tuple _encode(str a, str b, bint bound):
    cdef Py_ssize_t n, split
    cdef Py_UCS4* text = _fold_pair(a, b, &split, &n)
    cdef _Table table = _TABLE
    cdef uint32_t* out = NULL
    cdef int* counts = NULL
    cdef Py_ssize_t na, nb, i, upper = 0
    cdef uint32_t v
    cdef int c
    global _stamp
    # From here to the end of the tokens no Python code runs: the GIL is held throughout, so
    # calls never overlap on the shared table and stamps.
    try:
        out = <uint32_t*>malloc((n + 1) * sizeof(uint32_t))
        if out == NULL:
            raise MemoryError()
        table.begin(text, n // 2 + 1)
        _stamp += 1
        if _stamp == 0:  # wrapped: forget every stamp
            memset(_IDEO_STAMP, 0, sizeof(_IDEO_STAMP))
            table.forget()
            _stamp = 1
        na = _tokens(table, 0, split, out)
        nb = _tokens(table, split + 1, n, out + na)
        if bound:  # ids are 0 .. table.count - 1
            counts = <int*>calloc(table.count + 1, sizeof(int))
            if counts == NULL:
                raise MemoryError()
            for i in range(na):
                counts[out[i] - CODE_BASE] += 1
            for i in range(na, na + nb):  # without a branch on the counts
                v = out[i] - CODE_BASE
                c = counts[v] > 0
                counts[v] -= c
                upper += c
        return (PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, out, na),
                PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, out + na, nb), upper)
    finally:
        table.end()
        free(counts)
        free(out)
        PyMem_Free(text)


cdef const uint32_t* _tokens_of(str s, Py_ssize_t* n) except? NULL:
    """The code points of an encoded sequence as stored (4 bytes each: every token is beyond
    U+FFFF), without a copy; ValueError for a string that cannot be one."""
    n[0] = PyUnicode_GET_LENGTH(s)
    if n[0] == 0:
        return NULL
    if PyUnicode_KIND(s) != PyUnicode_4BYTE_KIND:
        raise ValueError("not an encoded token sequence (code points from U+10000)")
    return <const uint32_t*>PyUnicode_DATA(s)


cdef Py_ssize_t _token_top(const uint32_t* t, Py_ssize_t n, Py_ssize_t top) except -1:
    """``max(top, largest token + 1)`` over ``t[:n]``, tokens counted from ``CODE_BASE``;
    ValueError for a code point below it (not an encoded token sequence)."""
    cdef Py_ssize_t i, c
    for i in range(n):
        c = <Py_ssize_t>t[i] - CODE_BASE
        if c < 0:
            raise ValueError("not an encoded token sequence (code points from U+10000)")
        if c + 1 > top:
            top = c + 1
    return top


def shared_upper(str sa, str sb):
    """The size of the shared token multiset of two encoded sequences: an upper bound of
    their LCS; as ``_words_py.shared_upper``."""
    cdef Py_ssize_t n, m, i, top = 0
    cdef Py_ssize_t total = 0, c
    cdef const uint32_t* a = _tokens_of(sa, &n)
    cdef const uint32_t* b = _tokens_of(sb, &m)
    top = _token_top(b, m, _token_top(a, n, 0))
    cdef int* counts = <int*>calloc(top if top > 0 else 1, sizeof(int))
    if counts == NULL:
        raise MemoryError()
    try:
        for i in range(n):
            counts[<Py_ssize_t>a[i] - CODE_BASE] += 1
        for i in range(m):
            c = <Py_ssize_t>b[i] - CODE_BASE
            if counts[c] > 0:
                counts[c] -= 1
                total += 1
        return total
    finally:
        free(counts)


cdef inline Py_ssize_t _probe(const Py_ssize_t* table, Py_ssize_t size, const Py_UCS4* runs,
                              const Py_UCS4* run, Py_ssize_t ngram, uint64_t h) noexcept:
    """The slot of ``run`` in ``table`` (start positions in ``runs``, -1 for empty): the slot
    holding an equal run, or the empty slot where it would go."""
    cdef Py_ssize_t slot = <Py_ssize_t>((h ^ (h >> 29)) & <uint64_t>(size - 1))
    while table[slot] >= 0 and memcmp(runs + table[slot], run, ngram * sizeof(Py_UCS4)) != 0:
        slot = (slot + 1) & (size - 1)
    return slot


cdef inline tuple _shorter_first(str sa, str sb):
    """``(short, other)``: the shorter of two sequences first (``sa`` when they are as long)."""
    return (sa, sb) if PyUnicode_GET_LENGTH(sa) <= PyUnicode_GET_LENGTH(sb) else (sb, sa)


cdef inline uint64_t _roll(uint64_t h, const Py_UCS4* x, Py_ssize_t i, Py_ssize_t ngram,
                           uint64_t power) noexcept nogil:
    """The rolling hash of the run of ``ngram`` code points of ``x`` ending at ``i`` (fewer at
    the start), from ``h``, that of the run ending at ``i - 1``; ``power``: ``RUN_MULT`` to the
    ``ngram - 1``."""
    if i >= ngram:
        h -= power * <uint64_t>x[i - ngram]
    return h * RUN_MULT + <uint64_t>x[i]


def word_contain(str sa, str sb, Py_ssize_t ngram, Py_ssize_t min_words):
    """Share of the shorter encoded sequence covered by ``ngram``-token runs that also occur
    in the other, in any order; 0 under ``min_words`` tokens. As ``_words_py.word_contain``.

    The other sequence's runs go into an open-addressing table keyed by a polynomial rolling
    hash; a hit is confirmed by comparing the runs themselves, so the result is exact."""
    cdef str short, other
    short, other = _shorter_first(sa, sb)
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(short), m = PyUnicode_GET_LENGTH(other)
    if n < min_words or n < ngram or m < ngram or ngram < 1:
        return 0.0
    # Encoded sequences are read as stored (4 bytes a code point); anything else is copied.
    cdef Py_UCS4* copy_a = NULL
    cdef Py_UCS4* copy_b = NULL
    cdef const Py_UCS4* a
    cdef const Py_UCS4* b
    cdef Py_ssize_t* table = NULL
    cdef Py_ssize_t covered = 0, end = 0, i, j, k, size = 1, slot, pos
    cdef uint64_t h, power = 1
    try:
        if PyUnicode_KIND(short) == PyUnicode_4BYTE_KIND:
            a = <const Py_UCS4*>PyUnicode_DATA(short)
        else:
            copy_a = PyUnicode_AsUCS4Copy(short)
            a = copy_a
        if PyUnicode_KIND(other) == PyUnicode_4BYTE_KIND:
            b = <const Py_UCS4*>PyUnicode_DATA(other)
        else:
            copy_b = PyUnicode_AsUCS4Copy(other)
            b = copy_b
        while size < 2 * (m - ngram + 1):
            size <<= 1
        table = <Py_ssize_t*>malloc(size * sizeof(Py_ssize_t))
        if table == NULL:
            raise MemoryError()
        for i in range(size):
            table[i] = -1
        for k in range(ngram - 1):
            power *= RUN_MULT
        # The other's runs: each distinct one once, by its first start position.
        h = 0
        for j in range(m):
            h = _roll(h, b, j, ngram, power)
            if j >= ngram - 1:
                pos = j - ngram + 1
                slot = _probe(table, size, b, b + pos, ngram, h)
                if table[slot] < 0:
                    table[slot] = pos
        # The shorter sequence's runs: count the positions those found in the table cover.
        h = 0
        for i in range(n):
            h = _roll(h, a, i, ngram, power)
            if i >= ngram - 1:
                pos = i - ngram + 1
                if table[_probe(table, size, b, a + pos, ngram, h)] >= 0:
                    covered += pos + ngram - (pos if pos > end else end)
                    end = pos + ngram
        return covered / <double>n
    finally:
        PyMem_Free(copy_a)
        PyMem_Free(copy_b)
        free(table)


def lcs_reaches(str sa, str sb, Py_ssize_t need):
    """True when the LCS of two encoded token sequences has at least ``need`` tokens; as
    ``_words_py.lcs_reaches``.

    Bit-parallel (Allison & Dix 1986, Hyyrö 2004), with the shorter sequence as the pattern:
    O(n·⌈m/64⌉) word operations whatever the edit distance, tokens absent from the pattern
    cost nothing. The LCS so far is counted every 64 tokens, and the answer returned as soon
    as it is known (reached, or out of reach with the tokens left)."""
    cdef str short, other
    short, other = _shorter_first(sa, sb)
    cdef Py_ssize_t m = PyUnicode_GET_LENGTH(short), n = PyUnicode_GET_LENGTH(other)
    if need <= 0:
        return True
    if need > m:
        return False
    cdef Py_ssize_t W = (m + 63) // 64, top, i, j, w, c, r, rows = 0, common = 0
    top = _token_top(_tokens_of(short, &m), m, 0)
    cdef Py_ssize_t* row = <Py_ssize_t*>malloc(top * sizeof(Py_ssize_t))
    cdef uint64_t* peq = <uint64_t*>calloc(m * W, sizeof(uint64_t))
    cdef uint64_t* V = <uint64_t*>malloc(W * sizeof(uint64_t))
    try:
        if row == NULL or peq == NULL or V == NULL:
            raise MemoryError()
        for i in range(top):
            row[i] = -1
        for j in range(m):
            c = <Py_ssize_t>PyUnicode_READ_CHAR(short, j) - CODE_BASE
            if row[c] < 0:
                row[c] = rows
                rows += 1
            peq[row[c] * W + (j >> 6)] |= (<uint64_t>1) << (j & 63)
        for w in range(W):
            V[w] = ~<uint64_t>0
        for i in range(n):
            c = <Py_ssize_t>PyUnicode_READ_CHAR(other, i) - CODE_BASE
            if 0 <= c < top and row[c] >= 0:
                bp_step(V, peq + row[c] * W, W)
            if (i & 63) == 63:
                common = bp_lcs(V, W, m)
                if common >= need:
                    return True
                if common + (n - 1 - i) < need:
                    return False
        return bp_lcs(V, W, m) >= need
    finally:
        free(row)
        free(peq)
        free(V)


cdef extern from *:
    """
    /* One word of the bit-parallel step, the carry in and out through a 128-bit sum
       (one add-with-carry instead of two compares). */
    static inline uint64_t nd_bp_word(uint64_t v, uint64_t m, uint64_t *carry) {
        unsigned __int128 s = (unsigned __int128)v + (v & m) + *carry;
        *carry = (uint64_t)(s >> 64);
        return (uint64_t)s | (v & ~m);
    }
    """
    uint64_t _bp_word "nd_bp_word"(uint64_t v, uint64_t m, uint64_t* carry) noexcept nogil


cdef uint64_t* _ROWS = NULL
cdef Py_ssize_t _ROWS_CAP = 0
DEF ROWS_KEEP = 1 << 23


def bit_blocks(str sa, str sb):
    """One LCS of two encoded token sequences as matching blocks ``[(i, j, n)]``; as
    ``_words_py.bit_blocks`` (the same LCS).

    The common prefix and suffix are blocks of their own; between them, the bit-parallel rows
    (Allison & Dix 1986, Hyyrö 2004) of ``sb`` against each token of ``sa`` are kept, one
    ⌈m/64⌉-word vector per token of ``sa`` (tokens absent from ``sb`` copy the row above), and
    the backtrack from the end reads one bit per step. O(n·⌈m/64⌉) word operations whatever
    the edit distance; the rows are one buffer per process, grown to the largest pair and
    given back after a pair that needed more than 64 MB."""
    global _ROWS, _ROWS_CAP
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(sa), m = PyUnicode_GET_LENGTH(sb)
    cdef Py_ssize_t pre = 0, suf = 0, i, j, k, c, top = 0, rows = 0, W, cells, run
    while pre < n and pre < m and PyUnicode_READ_CHAR(sa, pre) == PyUnicode_READ_CHAR(sb, pre):
        pre += 1
    while (suf < n - pre and suf < m - pre
           and PyUnicode_READ_CHAR(sa, n - 1 - suf) == PyUnicode_READ_CHAR(sb, m - 1 - suf)):
        suf += 1
    head = [(0, 0, pre)] if pre else []
    tail = [(n - suf, m - suf, suf)] if suf else []
    cdef Py_ssize_t na = n - pre - suf, mb = m - pre - suf
    if na == 0 or mb == 0:
        return head + tail
    cdef Py_UCS4* a = PyUnicode_AsUCS4Copy(PyUnicode_Substring(sa, pre, pre + na))
    cdef Py_UCS4* b = NULL
    cdef Py_ssize_t* row = NULL
    cdef uint64_t* peq = NULL
    cdef uint64_t* V
    cdef uint64_t* P
    cdef const uint64_t* M
    cdef uint64_t carry
    cdef Py_ssize_t w
    try:
        b = PyUnicode_AsUCS4Copy(PyUnicode_Substring(sb, pre, pre + mb))
        top = _token_top(<const uint32_t*>b, mb, 0)
        W = (mb + 63) // 64
        row = <Py_ssize_t*>malloc(top * sizeof(Py_ssize_t))
        if row == NULL:
            raise MemoryError()
        for c in range(top):
            row[c] = -1
        for j in range(mb):
            c = <Py_ssize_t>b[j] - CODE_BASE
            if row[c] < 0:
                row[c] = rows
                rows += 1
        peq = <uint64_t*>calloc(rows * W, sizeof(uint64_t))
        if peq == NULL:
            raise MemoryError()
        for j in range(mb):
            peq[row[<Py_ssize_t>b[j] - CODE_BASE] * W + (j >> 6)] |= (<uint64_t>1) << (j & 63)
        cells = (na + 1) * W
        if cells > _ROWS_CAP:
            free(_ROWS)
            _ROWS = <uint64_t*>malloc(cells * sizeof(uint64_t))
            _ROWS_CAP = cells if _ROWS != NULL else 0
            if _ROWS == NULL:
                raise MemoryError()
        # Row r + 1 is the vector after a[r]; row 0 is all ones (nothing matched yet).
        for w in range(W):
            _ROWS[w] = ~<uint64_t>0
        for i in range(na):
            P = _ROWS + i * W
            V = P + W
            c = <Py_ssize_t>a[i] - CODE_BASE
            if c < 0 or c >= top or row[c] < 0:
                for w in range(W):
                    V[w] = P[w]
                continue
            M = peq + row[c] * W
            carry = 0
            for w in range(W):
                V[w] = _bp_word(P[w], M[w], &carry)
        # Backtrack: a match wherever the tokens are equal (then L[i][j] = L[i-1][j-1] + 1),
        # else left while bit j - 1 of row i says L[i][j] = L[i][j-1], else up.
        blocks = []
        i, j, run = na, mb, 0
        while i > 0 and j > 0:
            if a[i - 1] == b[j - 1]:
                i -= 1
                j -= 1
                run += 1
                continue
            if run:
                blocks.append((pre + i, pre + j, run))
                run = 0
            if (_ROWS[i * W + ((j - 1) >> 6)] >> ((j - 1) & 63)) & 1:
                j -= 1
            else:
                i -= 1
        if run:
            blocks.append((pre + i, pre + j, run))
        blocks.reverse()
        return head + blocks + tail
    finally:
        PyMem_Free(a)
        PyMem_Free(b)
        free(row)
        free(peq)
        if _ROWS_CAP > ROWS_KEEP:
            free(_ROWS)
            _ROWS = NULL
            _ROWS_CAP = 0
