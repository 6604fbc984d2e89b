# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled twin of :mod:`neardup.ingest._records_py` (same API, same results; see its
docstrings): which characters a text holds that a page may not keep as they are, in one pass
over the string's own storage (1, 2 or 4 bytes a code point) instead of a regular expression
scan and a UTF-8 encoding (the two took about a tenth of ``neardup compare`` on plain text)."""

from libc.stdint cimport uint8_t, uint16_t, uint32_t

cdef extern from "Python.h":
    int PyUnicode_KIND(object u)
    void* PyUnicode_DATA(object u)
    Py_ssize_t PyUnicode_GET_LENGTH(object u)

cdef enum:
    _CONTROL = 1
    _SURROGATE = 2

IMPLEMENTATION = "cython"
CONTROL = _CONTROL
SURROGATE = _SURROGATE

ctypedef fused wide_t:  # the code points of a string of 2 or 4 bytes a code point
    uint16_t
    uint32_t


cdef inline int _flag(uint32_t c) noexcept nogil:
    # C0 controls but tab, line feed and carriage return (CONTROL_CHARS); lone surrogates.
    if c < 0x20:
        return 0 if c == 0x09 or c == 0x0A or c == 0x0D else _CONTROL
    if 0xD800 <= c <= 0xDFFF:
        return _SURROGATE
    return 0


cdef int _wide_flags(const wide_t* d, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i
    cdef int flags = 0
    for i in range(n):
        if d[i] < 0x20 or 0xD800 <= d[i] <= 0xDFFF:
            flags |= _flag(d[i])
            if flags == _CONTROL | _SURROGATE:
                break
    return flags


def text_flags(str text):
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text), i
    cdef int kind = PyUnicode_KIND(text)
    cdef const uint8_t* d1
    if kind == 1:  # no surrogate below U+0100
        d1 = <const uint8_t*>PyUnicode_DATA(text)
        for i in range(n):
            if d1[i] < 0x20 and _flag(d1[i]):
                return _CONTROL
        return 0
    if kind == 2:
        return _wide_flags(<const uint16_t*>PyUnicode_DATA(text), n)
    return _wide_flags(<const uint32_t*>PyUnicode_DATA(text), n)
