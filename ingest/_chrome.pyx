# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled twin of :mod:`neardup.ingest._chrome_py` (same API, same results; see its
docstrings): the keys and hashes of a page's lines, in one pass over the string's own storage
(1, 2 or 4 bytes a code point), each key built in a C buffer and hashed there (MD5 in C,
``_md5.pxi``) without being made into a string."""

from cpython.bytes cimport PyBytes_AS_STRING
from cpython.unicode cimport Py_UNICODE_ISSPACE, PyUnicode_4BYTE_KIND, PyUnicode_FromKindAndData
from libc.stdint cimport uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

cdef extern from "Python.h":
    int PyUnicode_KIND(object)
    void* PyUnicode_DATA(object)
    Py_UCS4 PyUnicode_READ(int kind, void* data, Py_ssize_t index) nogil
    Py_ssize_t PyUnicode_GET_LENGTH(object u)
    int Py_UNICODE_ISDECIMAL(Py_UCS4 ch)

include "_md5.pxi"  # nd_md5

IMPLEMENTATION = "cython"


cdef inline bint _digit_sep(Py_UCS4 c) noexcept nogil:
    return c == 46 or c == 44 or c == 58 or c == 47 or c == 45  # . , : / -


cdef inline bint _decimal(Py_UCS4 c) noexcept:
    # str.isdecimal: the Unicode database's call only beyond ASCII
    return 48 <= c <= 57 if c < 128 else Py_UNICODE_ISDECIMAL(c)


cdef Py_ssize_t _line_key(int kind, void* data, Py_ssize_t n, Py_ssize_t* pos, bint fold,
                          Py_UCS4* out):
    """The key of the line at ``pos[0]`` (to the next line feed or the end) into ``out``: every
    number (``\\d+(?:[.,:/-]\\d+)*``) written ``0`` when ``fold``, white space (``str.isspace``)
    collapsed to one space and stripped. Returns its length; ``pos[0]`` moves past the line
    feed (to ``n + 1`` after the last line)."""
    cdef Py_ssize_t i = pos[0], out_n = 0
    cdef Py_UCS4 c
    cdef bint space = False
    while i < n:
        c = PyUnicode_READ(kind, data, i)
        if c == 10:
            break
        if Py_UNICODE_ISSPACE(c):
            space = True
            i += 1
            continue
        if space and out_n:
            out[out_n] = 32
            out_n += 1
        space = False
        if fold and _decimal(c):
            i += 1
            while i < n and _decimal(PyUnicode_READ(kind, data, i)):
                i += 1
            # (?:[.,:/-]\d+)*: a separator counts only with a digit after it
            while (i + 1 < n and _digit_sep(PyUnicode_READ(kind, data, i))
                   and _decimal(PyUnicode_READ(kind, data, i + 1))):
                i += 2
                while i < n and _decimal(PyUnicode_READ(kind, data, i)):
                    i += 1
            out[out_n] = 48  # "0"
            out_n += 1
            continue
        out[out_n] = c
        out_n += 1
        i += 1
    pos[0] = i + 1
    return out_n


def split_line_keys(str text, bint fold_digits):
    """As ``_chrome_py.split_line_keys``."""
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text), pos = 0, k
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_UCS4* buf = <Py_UCS4*>malloc((n + 1) * sizeof(Py_UCS4))
    if buf == NULL:
        raise MemoryError()
    keys = []
    try:
        while pos <= n:
            k = _line_key(kind, data, n, &pos, fold_digits, buf)
            keys.append(PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, buf, k))
        return keys
    finally:
        free(buf)


cdef inline Py_ssize_t _utf8(const Py_UCS4* key, Py_ssize_t n, unsigned char* out) noexcept:
    """``key`` encoded as UTF-8 (surrogates as their three bytes: ``surrogatepass``)."""
    cdef Py_ssize_t i, o = 0
    cdef uint32_t c  # a number: Cython would make a Py_UCS4 shifted into a str
    for i in range(n):
        c = <uint32_t>key[i]
        if c < 0x80:
            out[o] = <unsigned char>c
            o += 1
        elif c < 0x800:
            out[o] = <unsigned char>(0xC0 | (c >> 6))
            out[o + 1] = <unsigned char>(0x80 | (c & 0x3F))
            o += 2
        elif c < 0x10000:
            out[o] = <unsigned char>(0xE0 | (c >> 12))
            out[o + 1] = <unsigned char>(0x80 | ((c >> 6) & 0x3F))
            out[o + 2] = <unsigned char>(0x80 | (c & 0x3F))
            o += 3
        else:
            out[o] = <unsigned char>(0xF0 | (c >> 18))
            out[o + 1] = <unsigned char>(0x80 | ((c >> 12) & 0x3F))
            out[o + 2] = <unsigned char>(0x80 | ((c >> 6) & 0x3F))
            out[o + 3] = <unsigned char>(0x80 | (c & 0x3F))
            o += 4
    return o


def line_hashes(str text, bytes prefix, bint fold_digits):
    """As ``_chrome_py.line_hashes``: the keys never made into strings."""
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text), pos = 0, k, p = len(prefix), m
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef unsigned char digest[16]
    cdef uint64_t h
    cdef int b
    cdef Py_UCS4* buf = <Py_UCS4*>malloc((n + 1) * sizeof(Py_UCS4))
    cdef unsigned char* bytes_ = <unsigned char*>malloc(p + 4 * n + 1)
    if buf == NULL or bytes_ == NULL:
        free(buf)
        free(bytes_)
        raise MemoryError()
    memcpy(bytes_, PyBytes_AS_STRING(prefix), p)
    hashes = []
    lengths = []
    try:
        while pos <= n:
            k = _line_key(kind, data, n, &pos, fold_digits, buf)
            lengths.append(k)
            if k == 0:
                hashes.append(0)
                continue
            m = _utf8(buf, k, bytes_ + p)
            nd_md5(bytes_, <size_t>(p + m), digest)
            h = 0
            for b in range(7, -1, -1):
                h = (h << 8) | digest[b]
            hashes.append(h)
        return hashes, lengths
    finally:
        free(buf)
        free(bytes_)
