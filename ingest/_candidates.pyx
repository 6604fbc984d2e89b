# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled twin of :mod:`neardup.ingest._candidates_py` (:class:`CandidateTable`, same API and
answers): the candidate index of the embedded ``neardup dedup``.

The rule is :class:`neardup.ingest.candidates.CandidateIndex`'s (which owns the documentation):
documents are added in ``(seq, id)`` order and :meth:`CandidateTable.add` returns the top-``k``
earlier documents sharing at least one distinct term, by shared count desc, then ``seq``, then
``id`` — since documents come in ``(seq, id)`` order, their ordinals (0, 1, 2, ...) *are*
that order, so the ranking is by ``(-shared, ordinal)``.

Memory: a term is a 128-bit key (a fingerprint's 22 base64url characters decoded; any other
string — the ``b:`` exact-copy term — through BLAKE2b), mixed with the fingerprint config so
different configs never meet. A document's sorted distinct keys go to an unlinked temporary
file (16 bytes a key, read back with ``pread``); in memory there is one *posting* per
(distinct key, document): 6 bytes — a 16-bit tag of the key and the document's ordinal —
in one array sorted by the key's top ``bucket_bits`` bits (a directory of bucket offsets), plus
a buffer of the latest postings (full 64-bit key half, chained by hash) merged into the sorted
array when full, in place (``realloc``, then a backward merge). A lookup gathers the documents
whose postings match a key's bucket and tag (or its 64 bits in the buffer): a superset of the
documents that share it. The shared count of each is then computed exactly from both sorted
key lists, so a tag collision can add a document to the scan but never to the answer; the
documents are read in the order of their matching postings (an upper bound of the shared
count) and the reading stops once ``k`` exact counts rank before the next bound.
"""

import hashlib
import tempfile

from libc.stdint cimport int32_t, int64_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, qsort, realloc
from libc.string cimport memmove, memset
from posix.types cimport off_t
from posix.unistd cimport pread, write

from libc.errno cimport EINTR, errno

cdef extern from "Python.h":
    int PyUnicode_IS_ASCII(object o)
    void* PyUnicode_DATA(object o)
    Py_ssize_t PyUnicode_GET_LENGTH(object o)

cdef struct Key:
    uint64_t hi
    uint64_t lo

IMPLEMENTATION = "cython"

cdef signed char B64[256]
cdef int _i
for _i in range(256):
    B64[_i] = -1
_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
for _i in range(64):
    B64[_ALPHABET[_i]] = _i


cdef inline Key _key_of(const unsigned char* p) noexcept nogil:
    """The key of 16 bytes, big-endian."""
    cdef Key k
    cdef int i
    k.hi = 0
    k.lo = 0
    for i in range(8):
        k.hi = (k.hi << 8) | p[i]
        k.lo = (k.lo << 8) | p[8 + i]
    return k


cdef inline bint _decode22(const unsigned char* s, Key* key) noexcept nogil:
    """The 16 bytes of a canonical 22-character unpadded base64url string, big-endian; false
    when ``s`` is not one (a character outside the alphabet, or non-zero trailing bits)."""
    cdef unsigned char out[16]
    cdef int i, o = 0
    cdef uint32_t v
    cdef signed char a, b, c, d
    for i in range(0, 20, 4):
        a = B64[s[i]]; b = B64[s[i + 1]]; c = B64[s[i + 2]]; d = B64[s[i + 3]]
        if a < 0 or b < 0 or c < 0 or d < 0:
            return False
        v = (<uint32_t>a << 18) | (<uint32_t>b << 12) | (<uint32_t>c << 6) | <uint32_t>d
        out[o] = (v >> 16) & 0xFF; out[o + 1] = (v >> 8) & 0xFF; out[o + 2] = v & 0xFF
        o += 3
    a = B64[s[20]]; b = B64[s[21]]
    if a < 0 or b < 0 or (b & 0x0F) != 0:
        return False
    out[15] = ((<uint32_t>a << 2) | (<uint32_t>b >> 4)) & 0xFF
    key[0] = _key_of(out)
    return True


cdef int _cmp_key(const void* a, const void* b) noexcept nogil:
    cdef const Key* x = <const Key*>a
    cdef const Key* y = <const Key*>b
    if x.hi != y.hi:
        return -1 if x.hi < y.hi else 1
    if x.lo != y.lo:
        return -1 if x.lo < y.lo else 1
    return 0


cdef int _cmp_u64(const void* a, const void* b) noexcept nogil:
    cdef uint64_t x = (<const uint64_t*>a)[0]
    cdef uint64_t y = (<const uint64_t*>b)[0]
    return -1 if x < y else (1 if x > y else 0)


cdef inline void _heap_push(uint64_t* heap, size_t* n, size_t k, uint64_t x) noexcept nogil:
    """Keep the ``k`` smallest values in the max-heap ``heap[:n]``."""
    cdef size_t i, p, c
    cdef uint64_t t
    if n[0] < k:
        i = n[0]
        n[0] += 1
        while i > 0:
            p = (i - 1) // 2
            if heap[p] >= x:
                break
            heap[i] = heap[p]
            i = p
        heap[i] = x
        return
    if x >= heap[0]:
        return
    i = 0  # replace the largest, sift down
    while True:
        c = 2 * i + 1
        if c >= k:
            break
        if c + 1 < k and heap[c + 1] > heap[c]:
            c += 1
        if heap[c] <= x:
            break
        heap[i] = heap[c]
        i = c
    heap[i] = x


cdef Key _hashed(str term, bytes salt):
    cdef bytes h = hashlib.blake2b(term.encode("utf-8", "surrogatepass"), digest_size=16,
                                   salt=salt).digest()
    return _key_of(<const unsigned char*>h)


cdef void* _grow(void* p, size_t n) except NULL:
    cdef void* q = realloc(p, n if n else 1)
    if q == NULL:
        raise MemoryError()
    return q


cdef class CandidateTable:
    """``add(doc) -> list[str]``: the earlier candidates of ``doc`` (``id``, ``seq``,
    ``fingerprints``, ``fp_config``), then ``doc`` indexed. Documents must come in strictly
    increasing ``(seq, id)``.

    ``bucket_bits``, ``tag_bits`` and ``buffer`` (postings held before a merge) only trade
    memory for speed; tests shrink them to exercise merges and tag collisions.
    """

    cdef readonly int k
    cdef int bucket_bits, shift
    cdef uint16_t tag_mask
    cdef list _ids
    cdef object _last
    cdef dict _mix
    cdef bytes _salt
    cdef object _file
    cdef int _fd
    # key lists on disk: document o has koff[o+1] - koff[o] keys at byte 16 * koff[o]
    cdef int64_t* koff
    cdef uint32_t* stamp
    cdef uint32_t* where  # ordinal -> its slot in cand while stamped
    cdef size_t cap_docs
    # sorted postings
    cdef uint16_t* s_tag
    cdef uint32_t* s_doc
    cdef uint32_t* dir
    cdef size_t n_static
    # buffered postings
    cdef uint64_t* b_hi
    cdef uint32_t* b_doc
    cdef uint32_t* b_next  # 1-based, 0 = end
    cdef uint32_t* b_head
    cdef size_t n_buf, cap_buf, max_buf, head_mask
    # scratch
    cdef Key* keys
    cdef Key* other
    cdef size_t cap_keys, cap_other
    cdef uint32_t* cand
    cdef uint32_t* bound  # matching postings of cand[i]: at least its shared count
    cdef uint64_t* ranked
    cdef uint64_t* best
    cdef size_t cap_cand

    def __cinit__(self, int k, int bucket_bits=22, int tag_bits=16, size_t buffer=1 << 21):
        if k < 1 or not (1 <= bucket_bits <= 30) or not (0 <= tag_bits <= 16) or buffer < 1:
            raise ValueError("k >= 1, 1 <= bucket_bits <= 30, 0 <= tag_bits <= 16, buffer >= 1")
        self.k = k
        self.bucket_bits = bucket_bits
        self.shift = 64 - bucket_bits
        self.tag_mask = <uint16_t>((1 << tag_bits) - 1)
        self._ids = []
        self._last = None
        self._mix = {}
        self._salt = b"neardup-term"
        self._file = tempfile.TemporaryFile(prefix="neardup-keys-")
        self._fd = self._file.fileno()
        self.max_buf = buffer
        cdef size_t heads = 1
        while heads < buffer and heads < (1 << 20):
            heads <<= 1
        self.head_mask = heads - 1
        self.b_head = <uint32_t*>calloc(heads, sizeof(uint32_t))
        self.koff = <int64_t*>calloc(1, sizeof(int64_t))
        if self.b_head == NULL or self.koff == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.koff); free(self.stamp); free(self.where)
        free(self.s_tag); free(self.s_doc); free(self.dir)
        free(self.b_hi); free(self.b_doc); free(self.b_next); free(self.b_head)
        free(self.keys); free(self.other); free(self.cand); free(self.ranked)
        free(self.bound); free(self.best)

    def close(self) -> None:
        """Close the key file (the table answers no more)."""
        self._file.close()

    def __len__(self) -> int:
        return len(self._ids)

    @property
    def postings(self) -> int:
        return self.n_static + self.n_buf

    cdef Key _config_mix(self, str fp_config):
        cdef Key m
        got = self._mix.get(fp_config)
        if got is None:
            m = _hashed(fp_config, b"neardup-config")
            self._mix[fp_config] = (m.hi, m.lo)
        else:
            m.hi, m.lo = got
        return m

    cdef size_t _keys_of(self, list terms, Key mix) except? 0:
        """The document's distinct keys, sorted, in ``self.keys``; their number."""
        cdef size_t n = len(terms), i, j
        cdef Key key
        if n > self.cap_keys:
            self.keys = <Key*>_grow(self.keys, n * sizeof(Key))
            self.cap_keys = n
        for i in range(n):
            term = terms[i]
            if type(term) is not str:
                raise TypeError(f"a fingerprint is a str, not {type(term).__name__}")
            if not (PyUnicode_GET_LENGTH(term) == 22 and PyUnicode_IS_ASCII(term)
                    and _decode22(<const unsigned char*>PyUnicode_DATA(term), &key)):
                key = _hashed(term, self._salt)
            key.hi ^= mix.hi
            key.lo ^= mix.lo
            self.keys[i] = key
        if n > 1:
            qsort(self.keys, n, sizeof(Key), _cmp_key)
        j = 0
        for i in range(n):
            if j == 0 or _cmp_key(&self.keys[i], &self.keys[j - 1]) != 0:
                self.keys[j] = self.keys[i]
                j += 1
        return j

    cdef uint32_t _shared(self, uint32_t o, size_t n) except? 0:
        """Distinct keys ``self.keys[:n]`` has in common with document ``o``'s (from disk)."""
        cdef int64_t first = self.koff[o], m = self.koff[o + 1] - first
        cdef size_t want = <size_t>m * sizeof(Key), got = 0
        cdef Py_ssize_t r
        cdef char* buf
        if <size_t>m > self.cap_other:
            self.other = <Key*>_grow(self.other, <size_t>m * sizeof(Key))
            self.cap_other = <size_t>m
        buf = <char*>self.other
        while got < want:
            r = pread(self._fd, buf + got, want - got, <off_t>(first * <int64_t>sizeof(Key) + <int64_t>got))
            if r < 0:
                if errno == EINTR:
                    continue
                raise OSError(errno, "pread of the candidate key file failed")
            if r == 0:
                raise OSError("candidate key file truncated")
            got += <size_t>r
        cdef size_t i = 0, j = 0
        cdef uint32_t shared = 0
        cdef int c
        while i < n and j < <size_t>m:
            c = _cmp_key(&self.keys[i], &self.other[j])
            if c == 0:
                shared += 1
                i += 1
                j += 1
            elif c < 0:
                i += 1
            else:
                j += 1
        return shared

    cdef void _write_keys(self, size_t n) except *:
        cdef const char* p = <const char*>self.keys
        cdef size_t left = n * sizeof(Key)
        cdef Py_ssize_t r
        while left:
            r = write(self._fd, p, left)
            if r < 0:
                if errno == EINTR:
                    continue
                raise OSError(errno, "write to the candidate key file failed")
            p += r
            left -= <size_t>r

    cdef void _merge(self) except *:
        """Move the buffered postings into the sorted array (in place, backwards)."""
        cdef size_t nb = self.n_buf, buckets = (<size_t>1) << self.bucket_bits
        cdef size_t total = self.n_static + nb, i, b, src, cnt_b, moved
        cdef Py_ssize_t bb
        cdef uint32_t* cnt
        cdef uint32_t* order
        if nb == 0:
            return
        if total > 0xFFFFFFFF:
            raise OverflowError("more than 2**32 postings")
        if self.dir == NULL:
            self.dir = <uint32_t*>calloc(buckets + 1, sizeof(uint32_t))
            if self.dir == NULL:
                raise MemoryError()
        cnt = <uint32_t*>calloc(buckets + 1, sizeof(uint32_t))
        order = <uint32_t*>malloc(nb * sizeof(uint32_t) + 1)
        if cnt == NULL or order == NULL:
            free(cnt); free(order)
            raise MemoryError()
        try:
            self.s_tag = <uint16_t*>_grow(self.s_tag, total * sizeof(uint16_t))
            self.s_doc = <uint32_t*>_grow(self.s_doc, total * sizeof(uint32_t))
            for i in range(nb):
                cnt[self.b_hi[i] >> self.shift] += 1
            # order: buffer indices grouped by bucket (stable); cnt becomes the group starts,
            # used as cursors (each ends at the next group's start), then shifted back
            src = 0
            for b in range(buckets):
                cnt_b = cnt[b]
                cnt[b] = src
                src += cnt_b
            cnt[buckets] = src
            for i in range(nb):
                b = self.b_hi[i] >> self.shift
                order[cnt[b]] = <uint32_t>i
                cnt[b] += 1
            memmove(cnt + 1, cnt, buckets * sizeof(uint32_t))
            cnt[0] = 0
            # backwards: bucket b's old postings shift right by the buffered ones of buckets < b
            moved = self.n_static
            for bb in range(<Py_ssize_t>buckets - 1, -1, -1):
                b = <size_t>bb
                src = self.dir[b]
                cnt_b = cnt[b + 1] - cnt[b]
                # new start of bucket b: old start + buffered postings of buckets < b
                i = src + cnt[b]
                if moved > src:
                    memmove(self.s_tag + i, self.s_tag + src, (moved - src) * sizeof(uint16_t))
                    memmove(self.s_doc + i, self.s_doc + src, (moved - src) * sizeof(uint32_t))
                i += moved - src
                for src in range(cnt[b], cnt[b + 1]):
                    self.s_tag[i] = <uint16_t>(self.b_hi[order[src]] & self.tag_mask)
                    self.s_doc[i] = self.b_doc[order[src]]
                    i += 1
                moved = self.dir[b]
                self.dir[b] = <uint32_t>(self.dir[b] + cnt[b])
            self.dir[buckets] = <uint32_t>total
        finally:
            free(cnt)
            free(order)
        self.n_static = total
        self.n_buf = 0
        memset(self.b_head, 0, (self.head_mask + 1) * sizeof(uint32_t))

    def add(self, doc: object) -> list:
        cdef uint32_t o = <uint32_t>len(self._ids), c, stamp_o, shared
        cdef size_t n, i, j, e, end, nc = 0, nr = 0, h
        cdef uint64_t hi
        cdef uint16_t tag
        cdef Key mix
        doc_id, seq = doc.id, doc.seq
        if self._last is not None and (seq, doc_id) <= self._last:
            raise ValueError("documents must be added in strictly increasing (seq, id) order")
        if len(self._ids) >= 0xFFFFFFFE:
            raise OverflowError("too many documents")
        mix = self._config_mix(doc.fp_config)
        n = self._keys_of(list(doc.fingerprints), mix)
        if o + 1 > self.cap_docs:
            self.cap_docs = 2 * self.cap_docs + 1024
            self.koff = <int64_t*>_grow(self.koff, (self.cap_docs + 1) * sizeof(int64_t))
            self.stamp = <uint32_t*>_grow(self.stamp, self.cap_docs * sizeof(uint32_t))
            self.where = <uint32_t*>_grow(self.where, self.cap_docs * sizeof(uint32_t))
        # the documents with a matching posting (each once: stamped with o + 1)
        stamp_o = o + 1
        for i in range(n):
            hi = self.keys[i].hi
            e = self.b_head[hi & self.head_mask]
            while e:
                if self.b_hi[e - 1] == hi:
                    nc = self._candidate(self.b_doc[e - 1], stamp_o, nc)
                e = self.b_next[e - 1]
            if self.n_static:
                tag = <uint16_t>(hi & self.tag_mask)
                h = hi >> self.shift
                end = self.dir[h + 1]
                for e in range(self.dir[h], end):
                    if self.s_tag[e] == tag:
                        nc = self._candidate(self.s_doc[e], stamp_o, nc)
        # Rank by (-shared, ordinal) = (-shared, seq, id). A candidate's posting count bounds its
        # shared count from above, so candidates are read in the order of that bound and the
        # reading stops once k exact ones rank before the next bound: with many pages behind
        # one fingerprint, about k reads, not one per page.
        for i in range(nc):
            self.ranked[i] = ((<uint64_t>(0xFFFFFFFF - self.bound[i])) << 32) | self.cand[i]
        if nc > 1:
            qsort(self.ranked, nc, sizeof(uint64_t), _cmp_u64)
        nr = 0  # self.best[:nr]: a max-heap of the best exact keys so far
        for i in range(nc):
            if nr == <size_t>self.k and self.best[0] < self.ranked[i]:
                break
            c = <uint32_t>(self.ranked[i] & 0xFFFFFFFF)
            shared = self._shared(c, n)
            if shared == 0:
                continue
            _heap_push(self.best, &nr, <size_t>self.k,
                       ((<uint64_t>(0xFFFFFFFF - shared)) << 32) | c)
        if nr > 1:
            qsort(self.best, nr, sizeof(uint64_t), _cmp_u64)
        ids = self._ids
        out = [ids[self.best[i] & 0xFFFFFFFF] for i in range(nr)]
        # index the document
        self._write_keys(n)
        self.koff[o + 1] = self.koff[o] + <int64_t>n
        self.stamp[o] = 0
        for i in range(n):
            if self.n_buf == self.max_buf:
                self._merge()
            if self.n_buf == self.cap_buf:
                self.cap_buf = min(self.max_buf, 2 * self.cap_buf + 4096)
                self.b_hi = <uint64_t*>_grow(self.b_hi, self.cap_buf * sizeof(uint64_t))
                self.b_doc = <uint32_t*>_grow(self.b_doc, self.cap_buf * sizeof(uint32_t))
                self.b_next = <uint32_t*>_grow(self.b_next, self.cap_buf * sizeof(uint32_t))
            j = self.n_buf
            hi = self.keys[i].hi
            h = hi & self.head_mask
            self.b_hi[j] = hi
            self.b_doc[j] = o
            self.b_next[j] = self.b_head[h]
            self.b_head[h] = <uint32_t>(j + 1)
            self.n_buf += 1
        self._ids.append(doc_id)
        self._last = (seq, doc_id)
        return out

    cdef size_t _candidate(self, uint32_t c, uint32_t stamp_o, size_t nc) except? 0:
        if self.stamp[c] == stamp_o:
            self.bound[self.where[c]] += 1
            return nc
        self.stamp[c] = stamp_o
        if nc == self.cap_cand:
            self.cap_cand = 2 * self.cap_cand + 256
            self.cand = <uint32_t*>_grow(self.cand, self.cap_cand * sizeof(uint32_t))
            self.bound = <uint32_t*>_grow(self.bound, self.cap_cand * sizeof(uint32_t))
            self.ranked = <uint64_t*>_grow(self.ranked, self.cap_cand * sizeof(uint64_t))
            self.best = <uint64_t*>_grow(self.best, self.cap_cand * sizeof(uint64_t))
        self.where[c] = <uint32_t>nc
        self.cand[nc] = c
        self.bound[nc] = 1
        return nc + 1
