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


# --- site-chrome line keys (neardup.ingest.chrome.line_keys) -----------------------------------

from cpython.unicode cimport PyUnicode_FromKindAndData, PyUnicode_4BYTE_KIND

cdef extern from "Python.h":
    int Py_UNICODE_ISSPACE(Py_UCS4 ch)
    int Py_UNICODE_ISDECIMAL(Py_UCS4 ch)
    Py_UCS4 PyUnicode_READ(int kind, void* data, Py_ssize_t index)


cdef inline bint _digit_sep(Py_UCS4 c) noexcept nogil:
    return c == 46 or c == 44 or c == 58 or c == 47 or c == 45  # . , : / -


cdef inline bint _decimal(Py_UCS4 c) noexcept:
    # str.isdecimal: the Unicode database's call only beyond ASCII
    return 48 <= c <= 57 if c < 128 else Py_UNICODE_ISDECIMAL(c)


def split_line_keys(str text, bint fold_digits):
    """The keys of the lines of ``text``, already NFKC and case folded: each line with every
    number (``\\d+(?:[.,:/-]\\d+)*``) written ``0`` when ``fold_digits``, white space
    (``str.isspace``) collapsed to one space and stripped: ``chrome.line_keys`` after its
    Unicode steps, in one pass over the string's storage."""
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text), i = 0, j, k, out_n
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_UCS4 c
    cdef bint space
    cdef Py_UCS4* buf = <Py_UCS4*>malloc((n + 1) * sizeof(Py_UCS4))
    if buf == NULL:
        raise MemoryError()
    keys = []
    try:
        while True:
            out_n = 0
            space = False
            while i < n:
                c = PyUnicode_READ(kind, data, i)
                if c == 10:
                    break
                if Py_UNICODE_ISSPACE(c):
                    space = True
                    i += 1
                    continue
                if space and out_n:
                    buf[out_n] = 32
                    out_n += 1
                space = False
                if fold_digits and _decimal(c):
                    i += 1
                    while i < n and _decimal(PyUnicode_READ(kind, data, i)):
                        i += 1
                    # (?:[.,:/-]\d+)*: a separator counts only with a digit after it
                    while (i + 1 < n and _digit_sep(PyUnicode_READ(kind, data, i))
                           and _decimal(PyUnicode_READ(kind, data, i + 1))):
                        i += 2
                        while i < n and _decimal(PyUnicode_READ(kind, data, i)):
                            i += 1
                    buf[out_n] = 48  # "0"
                    out_n += 1
                    continue
                buf[out_n] = c
                out_n += 1
                i += 1
            keys.append(PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, buf, out_n))
            if i >= n:
                break
            i += 1  # the line feed
        return keys
    finally:
        free(buf)
