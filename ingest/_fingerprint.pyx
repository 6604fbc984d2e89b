# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled twin of :func:`ingest.fingerprint.fingerprints` (the hot path of step 1).

One pass over the prepared text (:func:`ingest.sentences.prepare_text`) finds the sentence
breaks (the rules of :func:`ingest.sentences.is_break`) and builds each sentence's key in a C
buffer (casefold + letters/digits through a per-code-point table built from the running
interpreter's Unicode database, so it agrees with ``str.casefold``/``str.isalnum``), with its
width; MD5 per key (the paper's hash; a C implementation, tested against hashlib); then, per rotation, bucket and order of every
digest in C and the top-Y of each bucket kept in small sorted arrays; the combination and the
base64url encoding in C too. The reference (:mod:`ingest.fingerprint`, :mod:`ingest.sentences`)
owns the documentation; tests assert identical output.
"""

import array
import unicodedata

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize
from cpython.unicode cimport Py_UNICODE_ISSPACE
from libc.stdint cimport uint8_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy

from ingest import sentences as _s
from ingest.sentences import ABBREVIATIONS

cdef extern from "Python.h":
    int PyUnicode_KIND(object)
    void* PyUnicode_DATA(object)
    Py_UCS4 PyUnicode_READ(int kind, void* data, Py_ssize_t index) nogil

cdef extern from *:
    """
    /* MD5 (RFC 1321), one-shot. The digests must be MD5 (the paper's sentence hash); hashlib
       costs ~1 us per call (an EVP context per digest), this ~0.2 us per sentence. Tested
       against hashlib (tests/unit/ingest/test_fingerprint.py). */
    #include <stdint.h>
    #include <string.h>
    static const uint32_t ND_K[64] = {
        0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
        0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
        0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
        0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
        0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
        0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
        0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
        0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391};
    static const unsigned char ND_S[64] = {
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
        5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
        4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
        6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21};

    static void nd_md5_block(uint32_t h[4], const unsigned char *p) {
        uint32_t m[16], a = h[0], b = h[1], c = h[2], d = h[3];
        for (int i = 0; i < 16; i++)
            m[i] = (uint32_t)p[4 * i] | ((uint32_t)p[4 * i + 1] << 8)
                 | ((uint32_t)p[4 * i + 2] << 16) | ((uint32_t)p[4 * i + 3] << 24);
        for (int i = 0; i < 64; i++) {
            uint32_t f; int g;
            if (i < 16) { f = (b & c) | (~b & d); g = i; }
            else if (i < 32) { f = (d & b) | (~d & c); g = (5 * i + 1) & 15; }
            else if (i < 48) { f = b ^ c ^ d; g = (3 * i + 5) & 15; }
            else { f = c ^ (b | ~d); g = (7 * i) & 15; }
            f += a + ND_K[i] + m[g];
            a = d; d = c; c = b;
            b += (f << ND_S[i]) | (f >> (32 - ND_S[i]));
        }
        h[0] += a; h[1] += b; h[2] += c; h[3] += d;
    }

    static void nd_md5(const unsigned char *data, size_t len, unsigned char out[16]) {
        uint32_t h[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
        unsigned char tail[128];
        size_t full = len & ~(size_t)63, rest = len - full, padded;
        for (size_t off = 0; off < full; off += 64) nd_md5_block(h, data + off);
        memcpy(tail, data + full, rest);
        tail[rest] = 0x80;
        padded = rest < 56 ? 64 : 128;
        memset(tail + rest + 1, 0, padded - rest - 1);
        uint64_t bits = (uint64_t)len * 8;
        for (int i = 0; i < 8; i++) tail[padded - 8 + i] = (unsigned char)(bits >> (8 * i));
        for (size_t off = 0; off < padded; off += 64) nd_md5_block(h, tail + off);
        for (int i = 0; i < 4; i++)
            for (int k = 0; k < 4; k++) out[4 * i + k] = (unsigned char)(h[i] >> (8 * k));
    }

    typedef unsigned __int128 nd_u128;
    static const nd_u128 ND_MUL1 = (((nd_u128)0x2360ED051FC65DA4ULL) << 64) | 0x4385DF649FCCF645ULL;
    static const nd_u128 ND_MUL2 = (((nd_u128)0x5851F42D4C957F2DULL) << 64) | 0x14057B7EF767814FULL;
    static const nd_u128 ND_SEED = (((nd_u128)0x6A09E667F3BCC908ULL) << 64) | 0xBB67AE8584CAA73BULL;

    /* ingest.fingerprint.combine over y members of 16 bytes (big-endian), into out[16]. */
    static void nd_combine(const unsigned char *members, int y, unsigned char *out) {
        nd_u128 x = ND_SEED;
        for (int i = 0; i < y; i++) {
            nd_u128 d = 0;
            for (int k = 0; k < 16; k++) d = (d << 8) | members[16 * i + k];
            x ^= d;
            x *= ND_MUL1;
            x ^= x >> 64;
            x *= ND_MUL2;
            x ^= x >> 64;
        }
        for (int k = 15; k >= 0; k--) { out[k] = (unsigned char)(x & 0xFF); x >>= 8; }
    }

    static const char ND_B64[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

    /* Unpadded base64url of 16 bytes: 22 characters. */
    static void nd_b64url16(const unsigned char *in, char *out) {
        int o = 0;
        for (int i = 0; i < 15; i += 3) {
            unsigned v = (in[i] << 16) | (in[i + 1] << 8) | in[i + 2];
            out[o++] = ND_B64[(v >> 18) & 63]; out[o++] = ND_B64[(v >> 12) & 63];
            out[o++] = ND_B64[(v >> 6) & 63]; out[o++] = ND_B64[v & 63];
        }
        out[o++] = ND_B64[in[15] >> 2];
        out[o++] = ND_B64[(in[15] & 3) << 4];
    }
    """
    void nd_combine(const unsigned char *members, int y, unsigned char *out) nogil
    void nd_b64url16(const unsigned char *inp, char *out) nogil
    void nd_md5(const unsigned char *data, size_t length, unsigned char *out) nogil


# --- per-code-point tables --------------------------------------------------------------------
# For every BMP code point: its class (ingest.sentences.char_class flags) and its key (UTF-8
# bytes at _koff[cp] in _KBLOB, _klen[cp] bytes, width _kw[cp]). Built once from the reference
# functions themselves; astral code points ask them directly (rare).

cdef enum:
    STOP = 1
    PERIOD = 2
    SPACE = 4
    CLOSER = 8
    CJK = 16
    ALPHA = 32
    UPPER = 64

assert (STOP, PERIOD, SPACE, CLOSER, CJK, ALPHA, UPPER) == (
    _s.STOP, _s.PERIOD, _s.SPACE, _s.CLOSER, _s.CJK, _s.ALPHA, _s.UPPER
)


def _build_tables():
    char_class = _s.char_class.__wrapped__  # uncached: 65536 entries would flush its cache
    cls = bytearray(0x10000)
    klen = bytearray(0x10000)
    kw = bytearray(0x10000)
    koff = array.array("I", bytes(4 * 0x10000))
    blob = bytearray()
    for cp in range(0x10000):
        if 0xD800 <= cp < 0xE000:
            continue
        ch = chr(cp)
        cls[cp] = char_class(ch)
        key = _s._key_of(cp)
        if key:
            data = key.encode("utf-8")
            koff[cp] = len(blob)
            klen[cp] = len(data)
            kw[cp] = _s.width(key)
            blob += data
    return bytes(cls), bytes(klen), bytes(kw), koff, bytes(blob)


_CLS, _KLEN, _KW, _KOFF, _KBLOB = _build_tables()
cdef const uint8_t* _cls = <const uint8_t*> PyBytes_AS_STRING(_CLS)
cdef const uint8_t* _klen = <const uint8_t*> PyBytes_AS_STRING(_KLEN)
cdef const uint8_t* _kw = <const uint8_t*> PyBytes_AS_STRING(_KW)
cdef const char* _kblob = PyBytes_AS_STRING(_KBLOB)
cdef unsigned int[::1] _koff = _KOFF
cdef dict _ASTRAL = {}  # code point -> (class, key bytes, width)
cdef frozenset _ABBREV = frozenset(ABBREVIATIONS)
_nfkc = unicodedata.normalize


cdef tuple _astral(Py_UCS4 c):
    cdef long cp = <long> c
    got = _ASTRAL.get(cp)
    if got is None:
        key = _s._key_of(cp)
        got = _ASTRAL[cp] = (_s.char_class(chr(cp)), key.encode("utf-8"), _s.width(key))
    return got


cdef inline int _class(Py_UCS4 c):
    if c < 0x10000:
        return _cls[c]
    return _astral(c)[0]


cdef bint _period_breaks(int kind, void* data, Py_ssize_t n, Py_ssize_t i, str text):
    """is_break for a PERIOD character at i (see ingest.sentences.is_break)."""
    cdef Py_ssize_t j
    if (i + 1 < n and _class(PyUnicode_READ(kind, data, i + 1)) & PERIOD) or (
        i > 0 and _class(PyUnicode_READ(kind, data, i - 1)) & PERIOD
    ):
        return True
    if i + 1 < n and not (_class(PyUnicode_READ(kind, data, i + 1)) & (SPACE | CLOSER | CJK)):
        return False
    j = i
    while j > 0 and _class(PyUnicode_READ(kind, data, j - 1)) & ALPHA:
        j -= 1
    if i - j == 1 and _class(PyUnicode_READ(kind, data, j)) & UPPER:
        return False
    if 2 <= i - j <= 5 and _nfkc("NFKC", text[j:i]) in _ABBREV:
        return False
    if i >= 3 and _class(PyUnicode_READ(kind, data, i - 2)) & PERIOD:
        return _nfkc("NFKC", text[i - 3] + text[i - 1]) not in ("eg", "ie")
    return True


cdef struct Buf:
    char* p
    Py_ssize_t n
    Py_ssize_t cap


cdef int _grow(Buf* b, Py_ssize_t extra) except -1:
    cdef Py_ssize_t cap = b.cap
    cdef char* p
    if b.n + extra <= cap:
        return 0
    while cap < b.n + extra:
        cap = cap * 2 + 64
    p = <char*> realloc(b.p, cap)
    if p == NULL:
        raise MemoryError()
    b.p = p
    b.cap = cap
    return 0


cdef bytes _digests(str text, int x, Py_ssize_t* count, list widths_out):
    """Distinct MD5 digests (sorted, 16 bytes each, concatenated) of keys wider than x."""
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_ssize_t n = len(text), i, j
    cdef Py_UCS4 c, c2
    cdef int f, klen
    cdef long w = 0
    cdef bint brk
    cdef Buf b
    cdef bytes piece
    cdef tuple ast
    cdef unsigned char digest[16]
    cdef list found = []
    cdef dict width_of = {}
    b.p = NULL
    b.n = 0
    b.cap = 0
    try:
        _grow(&b, 256)
        for i in range(n + 1):
            if i < n:
                c = PyUnicode_READ(kind, data, i)
                brk = False
                if c == 10:
                    j = i + 1
                    while j < n:
                        c2 = PyUnicode_READ(kind, data, j)
                        if c2 == 10 or not Py_UNICODE_ISSPACE(c2):
                            break
                        j += 1
                    brk = j < n and PyUnicode_READ(kind, data, j) == 10
                elif c < 0x10000:
                    f = _cls[c]
                    if f & STOP:
                        brk = True
                    elif f & PERIOD:
                        brk = _period_breaks(kind, data, n, i, text)
                    if not brk:
                        klen = _klen[c]
                        if klen:
                            if b.n + klen > b.cap:
                                _grow(&b, klen)
                            memcpy(b.p + b.n, _kblob + _koff[c], klen)
                            b.n += klen
                            w += _kw[c]
                        continue
                else:
                    ast = _astral(c)
                    f = ast[0]
                    if f & STOP:
                        brk = True
                    elif f & PERIOD:
                        brk = _period_breaks(kind, data, n, i, text)
                    if not brk:
                        piece = ast[1]
                        if piece:
                            _grow(&b, len(piece))
                            memcpy(b.p + b.n, PyBytes_AS_STRING(piece), len(piece))
                            b.n += len(piece)
                            w += <long> ast[2]
                        continue
                if not brk:
                    continue
            # end of a sentence
            if b.n and w > x:
                nd_md5(<const unsigned char*> b.p, <size_t> b.n, digest)
                piece = PyBytes_FromStringAndSize(<char*> digest, 16)
                found.append(piece)
                width_of[piece] = w
            b.n = 0
            w = 0
    finally:
        free(b.p)
    uniq = sorted(set(found))
    count[0] = len(uniq)
    widths_out.extend([width_of[d] for d in uniq])
    return b"".join(uniq)


def md5(bytes data):
    """MD5 digest of ``data`` by the module's C implementation (for tests)."""
    cdef unsigned char out[16]
    nd_md5(<const unsigned char*> PyBytes_AS_STRING(data), <size_t> len(data), out)
    return PyBytes_FromStringAndSize(<char*> out, 16)


def fingerprints(str text, int x, int y, int z, int m, int rotations):
    """Fingerprints of prepared text; same as the reference for the same parameters."""
    cdef Py_ssize_t n = 0
    cdef list widths = []
    cdef bytes digests = _digests(text, x, &n, widths)
    cdef long total = 0
    cdef Py_ssize_t i
    for i in range(n):
        total += <long> widths[i]
    if n < y or total <= z:
        return []
    cdef long* w = <long*> malloc(n * sizeof(long))
    cdef unsigned char* dd = <unsigned char*> malloc(n * 32)  # each digest twice: rotations
    cdef int* slot_idx = <int*> malloc(m * y * sizeof(int))  # per bucket: indices, ascending
    cdef int* fill = <int*> malloc(m * sizeof(int))
    cdef uint64_t* hi = <uint64_t*> malloc(n * sizeof(uint64_t))
    cdef uint64_t* lo = <uint64_t*> malloc(n * sizeof(uint64_t))
    cdef int* bucket = <int*> malloc(n * sizeof(int))
    cdef unsigned char* members = <unsigned char*> malloc(y * 16)
    cdef unsigned char* out = <unsigned char*> malloc(rotations * m * 16 + 16)
    cdef char enc[22]
    cdef unsigned int wt[16]  # 256**(15 - k) mod m: int(rotated digest) mod m from its bytes
    cdef const unsigned char* src = <const unsigned char*> PyBytes_AS_STRING(digests)
    cdef int r, k, bk, f, p, q, nout = 0
    cdef unsigned int acc
    cdef uint64_t h, l
    cdef long cover
    cdef list result = []
    cdef set seen = set()
    if not (w and dd and slot_idx and fill and hi and lo and bucket and members and out):
        free(w); free(dd); free(slot_idx); free(fill); free(hi); free(lo); free(bucket)
        free(members); free(out)
        raise MemoryError()
    wt[15] = 1 % m
    for k in range(14, -1, -1):
        wt[k] = (wt[k + 1] * 256) % m
    try:
        for i in range(n):
            w[i] = <long> widths[i]
            memcpy(dd + 32 * i, src + 16 * i, 16)
            memcpy(dd + 32 * i + 16, src + 16 * i, 16)
        for r in range(rotations):
            for k in range(m):
                fill[k] = 0
            for i in range(n):
                acc = 0
                h = 0
                l = 0
                for k in range(16):
                    acc += dd[32 * i + r + k] * wt[k]
                acc %= m
                for k in range(8):
                    h = (h << 8) | dd[32 * i + r + k]
                    l = (l << 8) | dd[32 * i + r + 8 + k]
                hi[i] = h
                lo[i] = l
                bk = <int> acc
                # insert i into the bucket's ascending top-y
                f = fill[bk]
                p = f
                while p > 0:
                    q = slot_idx[bk * y + p - 1]
                    if hi[q] < h or (hi[q] == h and lo[q] < l):
                        break
                    p -= 1
                if p >= y:
                    continue
                if f == y:
                    f -= 1  # the largest falls out
                q = f
                while q > p:
                    slot_idx[bk * y + q] = slot_idx[bk * y + q - 1]
                    q -= 1
                slot_idx[bk * y + p] = <int> i
                fill[bk] = f + 1
            for bk in range(m):
                if fill[bk] < y:
                    continue
                cover = 0
                for k in range(y):
                    q = slot_idx[bk * y + k]
                    cover += w[q]
                    memcpy(members + 16 * k, dd + 32 * q + r, 16)
                if cover > z:
                    nd_combine(members, y, out + 16 * nout)
                    nout += 1
        for i in range(nout):
            nd_b64url16(out + 16 * i, enc)
            term = enc[:22].decode("ascii")
            if term not in seen:
                seen.add(term)
                result.append(term)
    finally:
        free(w); free(dd); free(slot_idx); free(fill); free(hi); free(lo); free(bucket)
        free(members); free(out)
    return result
