"""Pure-Python reference of the input layer's character checks: which characters a text holds
that a page may not keep as they are.

This module is the specification: :mod:`neardup.ingest._records` (Cython) has the same API and
must give the same results; :mod:`neardup.ingest.records` picks one of the two
(``NEARDUP_IMPL``) and applies them (:func:`neardup.ingest.records.clean_text`). Keep both in
step.
"""

from __future__ import annotations

import re

__all__ = ["CONTROL", "CONTROL_CHARS", "IMPLEMENTATION", "SURROGATE", "SURROGATE_CHARS",
           "text_flags"]

IMPLEMENTATION = "python"

CONTROL, SURROGATE = 1, 2  # the flags of text_flags

#: The C0 control characters but tab, line feed and carriage return.
CONTROL_CHARS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")
#: A lone surrogate (a JSON ``\ud800`` escape): not valid Unicode, cannot be encoded as UTF-8.
SURROGATE_CHARS = re.compile("[\ud800-\udfff]")


def text_flags(text: str) -> int:
    """:data:`CONTROL` when ``text`` holds a C0 control character other than tab and line
    ends, plus :data:`SURROGATE` when it holds a lone surrogate.

    >>> text_flags("a\\tb"), text_flags("a\\x00b"), text_flags("a\\ud800\\x1f")
    (0, 1, 3)
    """
    try:
        text.encode("utf-8")
        surrogate = 0
    except UnicodeEncodeError:
        surrogate = SURROGATE
    return (CONTROL if CONTROL_CHARS.search(text) else 0) | surrogate
