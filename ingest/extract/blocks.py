"""The one structure of extracted text: blocks apart by a blank line.

Every block (a paragraph, title, list item, table cell, literal block) is set apart by a blank
line (:data:`BLOCK_BREAK`), the plain-text paragraph break, so block boundaries act as sentence
breaks for :mod:`neardup.ingest.sentences` (which reads a single line break as a soft wrap
inside a paragraph, as in hard-wrapped reST, Markdown or e-mail).
"""

from __future__ import annotations

import re

__all__ = ["BLOCK_BREAK", "join_blocks"]

BLOCK_BREAK = "\n\n"  # between blocks: a paragraph break for the sentence splitter
# A run of white space holding two or more line breaks (block boundaries, blank lines): one
# paragraph break. A single line break inside a text node (source formatting, <pre> lines)
# stays: the sentence splitter reads it as a soft wrap, as in plain text.
_BLANK_LINES = re.compile(r"[ \t\r\f\v]*\n(?:[ \t\r\f\v]*\n)+\s*")


def join_blocks(text: str) -> str:
    """``text`` with every run of blank lines made one :data:`BLOCK_BREAK`, stripped.

    >>> join_blocks("\\n\\n one \\n \\n\\n two\\nthree \\n\\n")
    'one\\n\\ntwo\\nthree'
    """
    return _BLANK_LINES.sub(BLOCK_BREAK, text).strip()
