# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled twin of :mod:`neardup.ingest._sketch_py` (same API, same results; see its
docstrings): the count-min sketch's cells. :func:`cells_text` writes the decimal offsets of a
chunk of keys into one C buffer (the cells of a page's lines go to Redis as one argument)."""

from libc.stdint cimport uint32_t, uint64_t
from libc.stdlib cimport free, malloc

IMPLEMENTATION = "cython"

cdef enum:
    MAX_ROWS = 8  # the most multipliers a call takes


cdef inline uint64_t _cell(uint64_t key, uint64_t mult, uint64_t width) noexcept nogil:
    """The bucket function: ``(h ^ (h >> 29)) % width`` of ``h = key * mult mod 2**64``."""
    cdef uint64_t h = key * mult
    return (h ^ (h >> 29)) % width


cdef int _load(mults, uint64_t* ms) except -1:
    """``mults`` into ``ms``; their number."""
    cdef int n_rows = len(mults), k
    if n_rows > MAX_ROWS:
        raise ValueError(f"at most {MAX_ROWS} rows")
    for k in range(n_rows):
        ms[k] = mults[k]
    return n_rows


def cells(uint64_t key, mults, uint64_t width):
    cdef uint64_t ms[MAX_ROWS]
    cdef int n_rows = _load(mults, ms), k
    return [_cell(key, ms[k], width) for k in range(n_rows)]


def cells_text(keys, mults, uint64_t width):
    cdef uint64_t ms[MAX_ROWS]
    cdef int n_rows = _load(mults, ms), k, d
    cdef uint64_t h, cell
    cdef char digits[24]
    cdef Py_ssize_t pos = 0
    keys = [key for key in keys if key]
    cdef char* buf = <char*>malloc(len(keys) * n_rows * 21 + 1)
    if buf == NULL:
        raise MemoryError()
    try:
        for key in keys:
            h = key
            for k in range(n_rows):
                cell = <uint64_t>k * width + _cell(h, ms[k], width)
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


def add_counts(rows, items, mults, uint64_t width):
    """As ``_sketch_py.add_counts``: the rows' buffers written in place."""
    cdef uint64_t ms[MAX_ROWS]
    cdef int n_rows = _load(mults, ms), k
    cdef uint32_t* cells_of[MAX_ROWS]  # each row's buffer (kept alive by ``views``)
    cdef uint32_t[::1] view
    cdef uint64_t key, cell, v, n
    if len(rows) != n_rows:
        raise ValueError("one row a multiplier")
    views = []
    for k in range(n_rows):
        view = rows[k]
        if <uint64_t>view.shape[0] != width:
            raise ValueError("rows of width cells")
        views.append(view)
        cells_of[k] = &view[0]
    for key_obj, n_obj in items:
        if n_obj < 0:
            raise ValueError("counts are added, not taken")
        key = key_obj
        n = n_obj if n_obj < 0xFFFFFFFF else 0xFFFFFFFF
        for k in range(n_rows):
            cell = _cell(key, ms[k], width)
            v = cells_of[k][cell] + n
            cells_of[k][cell] = <uint32_t>(v if v < 0xFFFFFFFF else 0xFFFFFFFF)
