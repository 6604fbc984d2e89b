# cython: language_level=3
"""Bit-parallel LCS length (Allison & Dix 1986; Hyyrö 2004), the two steps shared by the
character-level filter of :mod:`neardup.verifier._lcs` and the word-level one of :mod:`neardup.verifier._words`.

``V`` holds one bit per position of the pattern (``m`` positions in ``W`` 64-bit words), all
ones at the start; each character of the text updates it with that character's match bits
``M``; the LCS so far is the number of zeros among the first ``m`` bits."""

from libc.stdint cimport uint64_t


cdef extern from *:
    int __builtin_popcountll(unsigned long long) noexcept nogil


cdef inline void bp_step(uint64_t* V, const uint64_t* M, Py_ssize_t W) noexcept nogil:
    """One text character with match bits ``M``: ``V = (V + (V & M)) | (V & ~M)``, the
    addition carried across the words."""
    cdef Py_ssize_t w
    cdef uint64_t v, u, s, x, carry = 0
    for w in range(W):
        v = V[w]
        u = v & M[w]
        s = v + u
        x = s + carry
        carry = (s < v) | (x < s)
        V[w] = x | (v & ~M[w])


cdef inline Py_ssize_t bp_lcs(const uint64_t* V, Py_ssize_t W, Py_ssize_t m) noexcept nogil:
    """Zeros among the first ``m`` bits of ``V``: the LCS so far."""
    cdef Py_ssize_t w, ones = 0
    for w in range(W - 1):
        ones += __builtin_popcountll(V[w])
    ones += __builtin_popcountll(V[W - 1] & (~<uint64_t>0 >> (64 * W - m)))
    return m - ones
