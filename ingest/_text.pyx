# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled checks of the input layer (:mod:`neardup.ingest.records`): which characters a text holds
that a page may not keep as they are. One pass over the string's own storage (1, 2 or 4 bytes a
code point) instead of a regular expression scan and a UTF-8 encoding (the two took about a
tenth of ``neardup compare`` on plain text); ``records.py`` holds the pure-Python twin, which a
test keeps equal."""

from libc.stdint cimport uint8_t, uint16_t, uint32_t

cdef extern from "Python.h":
    int PyUnicode_KIND(object u)
    void* PyUnicode_DATA(object u)
    Py_ssize_t PyUnicode_GET_LENGTH(object u)
    bint PyUnicode_IS_ASCII(object u)

cdef enum:
    _CONTROL = 1
    _SURROGATE = 2

CONTROL = _CONTROL
SURROGATE = _SURROGATE


cdef inline int _flag(uint32_t c) noexcept nogil:
    # C0 controls but tab, line feed and carriage return (records._CONTROL); lone surrogates.
    if c < 0x20:
        return 0 if c == 0x09 or c == 0x0A or c == 0x0D else _CONTROL
    if 0xD800 <= c <= 0xDFFF:
        return _SURROGATE
    return 0


def text_flags(str text):
    """``CONTROL`` (1) when ``text`` holds a C0 control character other than tab and line ends,
    plus ``SURROGATE`` (2) when it holds a lone surrogate; as ``records._text_flags``."""
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text), i
    cdef int kind = PyUnicode_KIND(text), flags = 0
    cdef const uint8_t* d1
    cdef const uint16_t* d2
    cdef const uint32_t* d4
    if kind == 1:  # no surrogate below U+0100
        d1 = <const uint8_t*>PyUnicode_DATA(text)
        for i in range(n):
            if d1[i] < 0x20 and _flag(d1[i]):
                return _CONTROL
        return 0
    if kind == 2:
        d2 = <const uint16_t*>PyUnicode_DATA(text)
        for i in range(n):
            if d2[i] < 0x20 or 0xD800 <= d2[i] <= 0xDFFF:
                flags |= _flag(d2[i])
                if flags == _CONTROL | _SURROGATE:
                    break
        return flags
    d4 = <const uint32_t*>PyUnicode_DATA(text)
    for i in range(n):
        if d4[i] < 0x20 or 0xD800 <= d4[i] <= 0xDFFF:
            flags |= _flag(d4[i])
            if flags == _CONTROL | _SURROGATE:
                break
    return flags


# --- site-chrome counts (neardup.ingest.workers.chrome_counts) ---------------------------------

from libc.stdint cimport uint64_t
from libc.stdlib cimport free, malloc


def sketch_cells(keys, mults, uint64_t width):
    """The count-min cells of each of ``keys`` (64-bit ints, 0 skipped), one a multiplier of
    ``mults``, as one string of decimal numbers separated by spaces: ``RedisSketch.offsets``
    of each key, for a script's one argument."""
    cdef uint64_t h, m, cell
    cdef int n_rows = len(mults)
    cdef uint64_t ms[8]
    cdef char digits[24]
    cdef int k, d
    cdef Py_ssize_t pos = 0
    if n_rows > 8:
        raise ValueError("at most 8 rows")
    for k in range(n_rows):
        ms[k] = mults[k]
    keys = [key for key in keys if key]
    cdef char* buf = <char*>malloc(len(keys) * n_rows * 21 + 1)
    if buf == NULL:
        raise MemoryError()
    try:
        for key in keys:
            h = key
            for k in range(n_rows):
                m = h * ms[k]
                cell = <uint64_t>k * width + (m ^ (m >> 29)) % width
                if pos:
                    buf[pos] = 32  # a space
                    pos += 1
                d = 0
                while True:
                    digits[d] = 48 + cell % 10
                    d += 1
                    cell //= 10
                    if cell == 0:
                        break
                while d:
                    d -= 1
                    buf[pos] = digits[d]
                    pos += 1
        return buf[:pos].decode("ascii")
    finally:
        free(buf)

