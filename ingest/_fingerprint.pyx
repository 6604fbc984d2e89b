# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled twin of :mod:`neardup.ingest._fingerprint_py` (same API, same results): the
sentence fingerprints, the hot path of step 1.

One pass over the raw text finds the sentence breaks (the rules of
:func:`neardup.ingest.sentences.is_break`) and builds each sentence's key in a C buffer, with its width:
a loop specialised per string kind (1, 2 or 4 bytes per code point) reads one packed table
entry per code point (class, key length, width and — for one-byte keys, i.e. ASCII letters and
digits — the key byte itself) and appends that byte without branching on the character; "\n",
sentence punctuation and several-byte keys (CJK, accents, ligatures) take a slower path. The
tables are built from the reference functions (casefold + letters/digits through the running
interpreter's Unicode database), once per user: a cache file keyed by their source, loaded at
the first call (``NEARDUP_CACHE_DIR`` is read then, not at import). MD5 per key (the paper's
hash; RFC 1321 unrolled in C, ``_md5.pxi``) into a C array, duplicates dropped through a small
hash table;
then per rotation each digest's bucket (its value mod m, carried from one rotation to the
next), its order (two big-endian 64-bit loads) and the top-Y of each bucket in small sorted
arrays; combination and base64url in C. The reference (:mod:`neardup.ingest._fingerprint_py`,
:mod:`neardup.ingest.sentences`) owns the documentation; tests assert identical output.
"""

import array
import unicodedata

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize
from cpython.unicode cimport Py_UNICODE_ISSPACE
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcmp, memcpy, memset

from neardup.ingest import sentences as _s
from neardup.ingest.sentences import ABBREVIATIONS

cdef extern from "Python.h":
    str PyUnicode_DecodeASCII(const char* s, Py_ssize_t size, const char* errors)
    int PyUnicode_KIND(object)
    void* PyUnicode_DATA(object)
    Py_UCS4 PyUnicode_READ(int kind, void* data, Py_ssize_t index) nogil

cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
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

    /* neardup.ingest.sentences.spelling_form on the UTF-8 bytes of a key: the ASCII vowels
       a e i o u y dropped, z written s, a run of one consonant written once. Every other byte
       (digits, and the bytes of non-ASCII characters, all >= 0x80) is copied: ASCII bytes are
       ASCII characters in UTF-8, so this is the reference's per-character rule. */
    static unsigned char nd_spell_map[256];  /* the byte written, 0: dropped (a vowel) */
    static unsigned char nd_spell_cons[256];  /* 1: a consonant (a run of it is written once) */

    static void nd_spell_init(void) {
        for (int c = 0; c < 256; c++) {
            nd_spell_map[c] = (unsigned char)(c == 'z' ? 's' : c);
            nd_spell_cons[c] = (unsigned char)(c >= 'b' && c <= 'x');
        }
        for (const char *v = "aeiouy"; *v; v++) {
            nd_spell_map[(unsigned char)*v] = 0;
            nd_spell_cons[(unsigned char)*v] = 0;
        }
    }

    /* Without a branch on the byte (vowels are unpredictable); keys hold no NUL byte. */
    static size_t nd_spell(const unsigned char *in, size_t n, unsigned char *out) {
        size_t o = 0;
        unsigned char last = 0;
        for (size_t i = 0; i < n; i++) {
            unsigned char m = nd_spell_map[in[i]];
            out[o] = m;
            o += (m != 0) & ((m != last) | !nd_spell_cons[m]);
            last = m ? m : last;
        }
        return o;
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
    size_t nd_spell(const unsigned char *inp, size_t n, unsigned char *out) nogil
    void nd_spell_init() nogil
    uint64_t bswap64 "__builtin_bswap64"(uint64_t) nogil

include "_md5.pxi"  # nd_md5

IMPLEMENTATION = "cython"

nd_spell_init()

# --- per-code-point tables --------------------------------------------------------------------
# For every BMP code point: its class (neardup.ingest.sentences.char_class flags) and its key (UTF-8
# bytes at _koff[cp] in _kblob, _klen[cp] bytes, width _kw[cp]). Built once from the reference
# functions themselves; astral code points ask them directly (rare).

cdef enum:
    STOP = 1
    PERIOD = 2
    SPACE = 4
    CLOSER = 8
    CJK = 16
    ALPHA = 32
    UPPER = 64
    NEWLINE = 128  # in _pack only
    MULTI = 0x800000  # in _pack only (bit 23; widths take bits 16-22): a key of > 1 byte

assert (STOP, PERIOD, SPACE, CLOSER, CJK, ALPHA, UPPER) == (
    _s.STOP, _s.PERIOD, _s.SPACE, _s.CLOSER, _s.CJK, _s.ALPHA, _s.UPPER
)


def _build_tables():
    """Character-class and width tables for the BMP, built once from ``neardup.ingest.sentences``."""
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


def _build_all():
    """Every table, as bytes: class, key length, key width, key offset (native unsigned ints),
    wide, packed (native uint32) and the key blob."""
    cls, klen, kw, koff, blob = _build_tables()
    # Width of a key character (for chunk widths): 2 for the BMP code points that
    # neardup.ingest.sentences.width counts as 2, else 1; astral code points ask width() (rare).
    wide = bytes(
        _s.width(chr(cp)) == 2 if not 0xD800 <= cp < 0xE000 else 0 for cp in range(0x10000)
    )
    # The common case in one load: class | key length << 8 | width << 16 | the key byte << 24
    # when the key is one byte (ASCII letters and digits), else 0 there.
    # "\n" (paragraph break or soft wrap) and keys of several bytes are flagged for the slow
    # path.
    if max(kw) >= 128 or max(klen) >= 256:  # pragma: no cover - a different Unicode database
        raise RuntimeError("key widths/lengths do not fit the packed table")
    pack = array.array("I", bytes(4 * 0x10000))
    for cp in range(0x10000):
        pack[cp] = cls[cp] | klen[cp] << 8 | kw[cp] << 16 | (
            blob[koff[cp]] << 24 if klen[cp] == 1 else 0
        ) | (128 if cp == 10 else 0) | (0x800000 if klen[cp] > 1 else 0)
    return cls, klen, kw, koff.tobytes(), wide, pack.tobytes(), blob


_SIZES = (0x10000, 0x10000, 0x10000, 4 * 0x10000, 0x10000, 4 * 0x10000)


def _cached_tables():
    """:func:`_build_all`, from a file in the user's cache (``NEARDUP_CACHE_DIR``, default
    ``~/.cache/neardup``) named by a hash of everything the
    tables come from — the reference module's source, the Unicode database's version, the
    interpreter's version and byte order — so a process starts in milliseconds instead of
    the ~0.2 s the build takes. Built and saved (atomically, best effort, with a SHA-256 of the
    content that is checked on reading) when missing or damaged."""
    import hashlib
    import os
    import sys
    import tempfile

    try:
        with open(_s.__file__, "rb") as f:
            source = f.read()
    except OSError:
        return _build_all()
    key = hashlib.sha256(b"|".join([
        b"fp-tables-1", source, unicodedata.unidata_version.encode(), sys.version.encode(),
        sys.byteorder.encode(), str(array.array("I").itemsize).encode(),
    ])).hexdigest()[:32]
    from neardup.ingest.errors import ConfigError
    from neardup.ingest.settings import Settings

    try:
        base = os.path.expanduser(Settings.from_env().cache_dir)
    except ConfigError:  # reported where the settings are used; no cache meanwhile
        return _build_all()
    path = os.path.join(base, f"fp-tables-{key}.bin")
    try:
        with open(path, "rb") as f:
            digest, data = f.read(32), f.read()
        if len(data) > sum(_SIZES) and hashlib.sha256(data).digest() == digest:
            parts, at = [], 0
            for size in _SIZES:
                parts.append(data[at:at + size])
                at += size
            return (*parts, data[at:])
    except OSError:
        pass
    tables = _build_all()
    try:
        os.makedirs(base, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=base, prefix=".fp-tables-", delete=False) as f:
            data = b"".join(tables)
            f.write(hashlib.sha256(data).digest() + data)
        os.replace(f.name, path)
    except OSError:
        pass
    return tables


# The tables are loaded at the first call of :func:`fingerprints` (:func:`_tables`), not at
# import: the cache's place is a setting (``NEARDUP_CACHE_DIR``), read at first use.
cdef object _TABLES = None  # (cls, klen, kw, koff, wide, pack, kblob): keeps the bytes alive
cdef const uint8_t* _cls = NULL
cdef const uint8_t* _klen = NULL
cdef const uint8_t* _kw = NULL
cdef const char* _kblob = NULL
cdef const uint8_t* _wide = NULL
cdef const uint32_t* _pack = NULL
cdef const unsigned int* _koff = NULL


def _tables():
    """The per-code-point tables in use, ``(cls, klen, kw, koff, wide, pack, kblob)``; loaded
    (:func:`_cached_tables`) on the first call."""
    global _TABLES, _cls, _klen, _kw, _kblob, _wide, _pack, _koff
    if _TABLES is None:
        tables = _cached_tables()
        cls, klen, kw, koff, wide, pack, kblob = tables
        _cls = <const uint8_t*> PyBytes_AS_STRING(cls)
        _klen = <const uint8_t*> PyBytes_AS_STRING(klen)
        _kw = <const uint8_t*> PyBytes_AS_STRING(kw)
        _kblob = PyBytes_AS_STRING(kblob)
        _wide = <const uint8_t*> PyBytes_AS_STRING(wide)
        _pack = <const uint32_t*> (<char*> PyBytes_AS_STRING(pack))
        _koff = <const unsigned int*> (<char*> PyBytes_AS_STRING(koff))
        _TABLES = tables
    return _TABLES
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
    """is_break for a PERIOD character at i (see neardup.ingest.sentences.is_break)."""
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


cdef struct Digest:
    unsigned char d[16]
    long w


cdef struct Digests:
    Digest* p
    Py_ssize_t n
    Py_ssize_t cap


cdef int _add_digest(Digests* ds, const char* key, Py_ssize_t n, long w) except -1:
    """Append the MD5 of the spelling form of one key (chunk) and its width w."""
    cdef Digest* p
    cdef Py_ssize_t cap
    cdef unsigned char small[512]
    cdef unsigned char* form = small
    cdef size_t m
    if ds.n == ds.cap:
        cap = ds.cap * 2 + 32
        p = <Digest*> realloc(ds.p, cap * sizeof(Digest))
        if p == NULL:
            raise MemoryError()
        ds.p = p
        ds.cap = cap
    if n > 512:
        form = <unsigned char*> malloc(n)
        if form == NULL:
            raise MemoryError()
    m = nd_spell(<const unsigned char*> key, <size_t> n, form)
    nd_md5(form, m, ds.p[ds.n].d)
    if form != small:
        free(form)
    ds.p[ds.n].w = w
    ds.n += 1
    return 0


cdef struct Chunking:
    long above  # neardup.ingest.fingerprint.CHUNK_ABOVE ...
    long least
    long most
    uint32_t div


cdef inline long _char_width(uint32_t cp) except -1:
    if cp < 0x10000:
        return 1 + _wide[cp]
    return _s.width(chr(cp))


cdef int _add_key(Digests* out, const char* key, Py_ssize_t n, long w, int x,
                  const Chunking* ck) except -1:
    """Add the digest of one sentence key (UTF-8, width w) — or, when it is wider than
    ck.above, of its content-defined chunks: see neardup.ingest._fingerprint_py.chunk_key."""
    cdef Py_ssize_t i = 0, start = 0, ps = -1, pe = 0
    cdef long cw = 0, pw = 0
    cdef uint32_t cp, a = 0, b = 0, h
    cdef unsigned char u
    if w <= ck.above:
        if w > x:
            _add_digest(out, key, n, w)
        return 0
    while i < n:
        u = <unsigned char> key[i]  # the key is valid UTF-8 (encoded by the tables)
        if u < 0x80:
            cp = u
            i += 1
        elif u < 0xE0:
            cp = ((u & 0x1F) << 6) | (<unsigned char> key[i + 1] & 0x3F)
            i += 2
        elif u < 0xF0:
            cp = (((u & 0x0F) << 12) | ((<unsigned char> key[i + 1] & 0x3F) << 6)
                  | (<unsigned char> key[i + 2] & 0x3F))
            i += 3
        else:
            cp = (((u & 0x07) << 18) | ((<unsigned char> key[i + 1] & 0x3F) << 12)
                  | ((<unsigned char> key[i + 2] & 0x3F) << 6) | (<unsigned char> key[i + 3] & 0x3F))
            i += 4
        cw += _char_width(cp)
        h = (a * <uint32_t> 0x9E3779B1) ^ (b * <uint32_t> 0x85EBCA77) ^ (cp * <uint32_t> 0xC2B2AE3D)
        h ^= h >> 15
        h *= <uint32_t> 0x2C1B3C6D
        h ^= h >> 12
        a = b
        b = cp
        if cw >= ck.most or (cw >= ck.least and h % ck.div == 0):
            if ps >= 0 and pw > x:
                _add_digest(out, key + ps, pe - ps, pw)
            ps, pe, pw = start, i, cw
            start = i
            cw = 0
    if start < n:
        if ps >= 0 and cw < ck.least:
            pe = n
            pw += cw
        else:
            if ps >= 0 and pw > x:
                _add_digest(out, key + ps, pe - ps, pw)
            ps, pe, pw = start, n, cw
    if ps >= 0 and pw > x:
        _add_digest(out, key + ps, pe - ps, pw)
    return 0


ctypedef fused uchar_t:
    uint8_t
    uint16_t
    uint32_t


cdef int _scan(const uchar_t* s, str text, int x, const Chunking* ck, Digests* out) except -1:
    """Keys wider than x of the sentences of text (s = its code points), MD5 of each to out."""
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_ssize_t n = len(text), i = 0, j
    cdef Py_UCS4 c, c2
    cdef int f, klen
    cdef uint32_t e
    cdef long w = 0
    cdef const uint32_t* pack = _pack
    cdef char* bp
    cdef Py_ssize_t bn, lim
    cdef Buf b
    cdef bytes piece
    cdef tuple ast
    b.p = NULL
    b.n = 0
    b.cap = 0
    try:
        _grow(&b, 1024)
        while True:
            # The common case without a branch on the character: one table load, the key
            # byte stored and counted only when there is one (room for 256 bytes is kept).
            # (locals: the compiler keeps them in registers across the byte stores)
            bp = b.p
            bn = b.n
            lim = b.cap - 256
            while i < n:
                c = s[i]
                if uchar_t is uint32_t:
                    if c >= 0x10000:
                        break
                e = pack[c]
                if e & (STOP | PERIOD | NEWLINE | MULTI):
                    break
                bp[bn] = <char> (e >> 24)
                bn += (e >> 8) & 1
                w += (e >> 16) & 0x7F
                i += 1
                if bn > lim:
                    b.n = bn
                    _grow(&b, 256)
                    bp = b.p
                    lim = b.cap - 256
            b.n = bn
            if i < n:
                if uchar_t is uint32_t:
                    if c >= 0x10000:
                        ast = _astral(c)
                        f = ast[0]
                        if not f & (STOP | PERIOD) or (
                            not f & STOP and not _period_breaks(kind, data, n, i, text)
                        ):
                            piece = ast[1]
                            if piece:
                                _grow(&b, len(piece) + 256)
                                memcpy(b.p + b.n, PyBytes_AS_STRING(piece), len(piece))
                                b.n += len(piece)
                                w += <long> ast[2]
                            i += 1
                            continue
                        e = 0
                if e & STOP:
                    pass
                elif e & PERIOD and _period_breaks(kind, data, n, i, text):
                    pass
                elif e & NEWLINE:  # a paragraph break when only white space leads to a "\n"
                    j = i + 1
                    while j < n:
                        c2 = s[j]
                        if c2 == 10 or not Py_UNICODE_ISSPACE(c2):
                            break
                        j += 1
                    if not (j < n and s[j] == 10):
                        i += 1
                        continue  # a soft wrap: white space, no key bytes
                else:  # a key of several bytes (CJK, accents, ligatures), or a period inside
                    klen = (e >> 8) & 0xFF
                    if klen:
                        _grow(&b, klen + 256)
                        memcpy(b.p + b.n, _kblob + _koff[c], klen)
                        b.n += klen
                        w += (e >> 16) & 0x7F
                    i += 1
                    continue
            # end of a sentence (or of the text)
            if b.n and w > x:
                _add_key(out, b.p, b.n, w, x, ck)
            b.n = 0
            w = 0
            if i >= n:
                break
            i += 1
    finally:
        free(b.p)
    return 0


cdef int _digests(str text, int x, const Chunking* ck, Digests* out) except -1:
    """Distinct MD5 digests of keys (chunks) wider than x (with their widths)."""
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_ssize_t i, k
    if kind == 1:
        _scan(<const uint8_t*> data, text, x, ck, out)
    elif kind == 2:
        _scan(<const uint16_t*> data, text, x, ck, out)
    else:
        _scan(<const uint32_t*> data, text, x, ck, out)
    if out.n > 1:
        _dedupe(out)
    return 0


cdef int _dedupe(Digests* ds) except -1:
    """Drop repeated digests in place (first kept; the order does not matter to _select):
    an open-addressing table on the digests' first 8 bytes (uniformly spread already)."""
    cdef Py_ssize_t size = 16, i, k = 0, mask, slot
    cdef uint64_t key
    cdef int* table
    while size < 2 * ds.n:
        size *= 2
    mask = size - 1
    table = <int*> malloc(size * sizeof(int))
    if table == NULL:
        raise MemoryError()
    memset(table, 0xFF, size * sizeof(int))  # -1: empty
    try:
        for i in range(ds.n):
            memcpy(&key, ds.p[i].d, 8)
            slot = <Py_ssize_t> (key & <uint64_t> mask)
            while table[slot] >= 0 and memcmp(ds.p[table[slot]].d, ds.p[i].d, 16) != 0:
                slot = (slot + 1) & mask
            if table[slot] >= 0:
                continue  # seen
            if k != i:
                ds.p[k] = ds.p[i]
            table[slot] = <int> k
            k += 1
        ds.n = k
    finally:
        free(table)
    return 0


cdef inline uint64_t _load_be64(const unsigned char* p) noexcept nogil:
    cdef uint64_t v
    memcpy(&v, p, 8)
    return bswap64(v)


def md5(bytes data):
    """MD5 digest of ``data`` by the module's C implementation (for tests)."""
    cdef unsigned char out[16]
    nd_md5(<const unsigned char*> PyBytes_AS_STRING(data), <size_t> len(data), out)
    return PyBytes_FromStringAndSize(<char*> out, 16)


def fingerprints(str text, int x, int y, int z, int m, int rotations, long chunk_above,
                 long chunk_min, long chunk_max, unsigned int chunk_div):
    """Fingerprints of text; same as the reference for the same parameters."""
    cdef Digests ds
    cdef Chunking ck
    if chunk_div < 1 or chunk_max < 1:
        raise ValueError("chunk_div and chunk_max must be >= 1")
    if _TABLES is None:
        _tables()
    ck.above = chunk_above
    ck.least = chunk_min
    ck.most = chunk_max
    ck.div = chunk_div
    ds.p = NULL
    ds.n = 0
    ds.cap = 0
    try:
        _digests(text, x, &ck, &ds)
        return _select(&ds, y, z, m, rotations)
    finally:
        free(ds.p)


cdef list _select(Digests* ds, int y, int z, int m, int rotations):
    """Per bucket (``md5 mod m``) the ``y`` smallest distinct sentence digests covering at least
    ``z`` width, combined into one fingerprint per rotation; see ``_fingerprint_py._select``."""
    cdef Py_ssize_t n = ds.n, i
    cdef long total = 0
    for i in range(n):
        total += ds.p[i].w
    if n < y or total <= z:
        return []
    cdef unsigned char* dd = <unsigned char*> malloc(n * 32)  # each digest twice: rotations
    cdef unsigned int* res = <unsigned int*> malloc(n * sizeof(unsigned int))  # value mod m
    cdef int* slot_idx = <int*> malloc(m * y * sizeof(int))  # per bucket: indices, ascending
    cdef int* fill = <int*> malloc(m * sizeof(int))
    cdef uint64_t* hi = <uint64_t*> malloc(n * sizeof(uint64_t))
    cdef uint64_t* lo = <uint64_t*> malloc(n * sizeof(uint64_t))
    cdef unsigned char* members = <unsigned char*> malloc(y * 16)
    cdef unsigned char* out = <unsigned char*> malloc(rotations * m * 16 + 16)
    cdef char enc[22]
    cdef unsigned int wt[16]  # 256**(15 - k) mod m: int(digest) mod m from its bytes
    cdef unsigned int carry  # (1 - 2**128) mod m: a byte moving from the front to the back
    cdef int r, k, bk, f, p, q, nout = 0
    cdef unsigned int acc
    cdef uint64_t h, l
    cdef long cover
    cdef list result = []
    cdef set seen = set()
    if not (dd and res and slot_idx and fill and hi and lo and members and out):
        free(dd); free(res); free(slot_idx); free(fill); free(hi); free(lo)
        free(members); free(out)
        raise MemoryError()
    wt[15] = 1 % m
    for k in range(14, -1, -1):
        wt[k] = (wt[k + 1] * 256) % m
    carry = (1 + m - (wt[0] * 256) % m) % m
    try:
        for i in range(n):
            memcpy(dd + 32 * i, ds.p[i].d, 16)
            memcpy(dd + 32 * i + 16, ds.p[i].d, 16)
            acc = 0
            for k in range(16):
                acc += ds.p[i].d[k] * wt[k]
            res[i] = acc % m
        for r in range(rotations):
            for k in range(m):
                fill[k] = 0
            for i in range(n):
                # rotation r of digest i: bucket = its value mod m; order by its value
                h = _load_be64(dd + 32 * i + r)
                l = _load_be64(dd + 32 * i + r + 8)
                hi[i] = h
                lo[i] = l
                bk = <int> res[i]
                # next rotation: the leading byte moves to the end
                res[i] = (res[i] * 256 + dd[32 * i + r] * carry) % m
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
                    cover += ds.p[q].w
                    memcpy(members + 16 * k, dd + 32 * q + r, 16)
                if cover > z:
                    nd_combine(members, y, out + 16 * nout)
                    nout += 1
        for i in range(nout):
            nd_b64url16(out + 16 * i, enc)
            term = PyUnicode_DecodeASCII(enc, 22, NULL)
            if term not in seen:
                seen.add(term)
                result.append(term)
    finally:
        free(dd); free(res); free(slot_idx); free(fill); free(hi); free(lo)
        free(members); free(out)
    return result
