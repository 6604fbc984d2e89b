"""Pure-Python reference of the chrome line keys and hashes of a page.

This module is the specification: :mod:`neardup.ingest._chrome` (Cython) has the same API and
must give the same results; :mod:`neardup.ingest.chrome` picks one of the two
(``NEARDUP_IMPL``) and owns the rule's documentation. Keep both in step.

Both take a text whose Unicode steps are done (NFKC and case folding: those stay in
:mod:`neardup.ingest.chrome`, in Python, for both) and cut it at each ``\\n`` into the keys of
its lines: every number written ``0`` (:data:`DIGITS`) when ``fold_digits``, white space
(:meth:`str.isspace`) collapsed to one space and stripped. A key's hash is the first 8 bytes,
little-endian, of the MD5 of a prefix (the site's UTF-8 and a NUL byte) and the key's UTF-8
(surrogates as their three bytes); a blank line's is 0.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

__all__ = ["DIGITS", "IMPLEMENTATION", "key_hashes", "line_hashes", "split_line_keys"]

IMPLEMENTATION = "python"

#: A number: digits, with any ``. , : / -`` between digits, as in a date, a time or ``1,234``.
#: ``re``'s ``\d`` is :meth:`str.isdecimal` (Python's Unicode database, which the compiled
#: twin reads too; the ``regex`` engine knows digits of later Unicode versions).
DIGITS = re.compile(r"\d+(?:[.,:/-]\d+)*")


def split_line_keys(text: str, fold_digits: bool) -> list[str]:
    """The key of each line of ``text`` (NFKC and case folding done).

    >>> split_line_keys("home |  news\\r\\n\\npage 12 of 30", True)
    ['home | news', '', 'page 0 of 0']
    """
    if fold_digits:
        text = DIGITS.sub("0", text)
    return [" ".join(line.split()) for line in text.split("\n")]


def key_hashes(prefix: bytes, keys: Iterable[str]) -> list[int]:
    """The hash of each key under ``prefix`` (0 for ``""``, a blank line)."""
    md5, from_bytes = hashlib.md5, int.from_bytes
    return [from_bytes(md5(prefix + k.encode("utf-8", "surrogatepass")).digest()[:8], "little")
            if k else 0 for k in keys]


def line_hashes(text: str, prefix: bytes, fold_digits: bool) -> tuple[list[int], list[int]]:
    """``([hash of each line's key], [each key's length])`` of ``text`` (NFKC and case folding
    done): what counting and masking a page need."""
    keys = split_line_keys(text, fold_digits)
    return key_hashes(prefix, keys), [len(k) for k in keys]
