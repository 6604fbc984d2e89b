"""HTML → text (step 1 of the method, first stage: "remove all HTML tags and formatting").

lxml's HTML parser (libxml2), tolerant of broken markup, loads with the first page that needs
it: ``neardup compare`` on plain text and every step that never meets HTML start without it.
``script``, ``style``, ``noscript``, ``template``, ``head`` metadata, comments and processing
instructions are dropped; every block-level element (p, div, li, tr, td, br, h1-h6, pre,
article, section, …) is set apart by a blank line (:mod:`neardup.ingest.extract.blocks`).
``bytes`` are decoded first (:mod:`neardup.ingest.extract.charset`); the size limit and the
deadline are those of :mod:`neardup.ingest.extract.limits`.

**Depth**: libxml2 stops building the tree at 256 levels of nesting by default, silently
dropping the rest of the page; the parser runs with ``huge_tree`` (2048 levels), and a page
nested deeper still is read by a flat tokenizer (:func:`flat_text`: the full text, block
boundaries kept, no main-content detection) instead of losing its text.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from neardup.ingest.errors import ExtractError
from neardup.ingest.extract.blocks import BLOCK_BREAK, join_blocks
from neardup.ingest.extract.charset import decode_html
from neardup.ingest.extract.limits import check_deadline, check_size

__all__ = ["BLOCK_TAGS", "DROP_TAGS", "TooDeep", "flat_text", "parse_page", "text_of"]

#: Elements dropped with their subtree (their tail, the text after them, stays).
DROP_TAGS = frozenset({"script", "style", "noscript", "template", "head", "title", "svg", "math"})
#: Block-level elements: each is set apart by a blank line.
BLOCK_TAGS = frozenset(
    """address article aside blockquote body br caption center dd details dialog dir div dl dt
    fieldset figcaption figure footer form frame frameset h1 h2 h3 h4 h5 h6 header hgroup hr html
    iframe legend li main menu nav ol option p pre section select summary table tbody td tfoot
    th thead tr ul""".split()
)
_XML_DECL = re.compile(r"^\s*<\?xml[^>]*\?>")


def parse_page(
    html: str | bytes,
    content_type: str | None,
    max_bytes: int,
    deadline: float | None,
    doc_id: str | None,
) -> Any:
    """The lxml root of a page, or None for an empty page (limits and errors as documented)."""
    check_size(html, max_bytes, doc_id)
    if isinstance(html, bytes):
        if not html.strip():
            return None
        html = decode_html(html, content_type)
        check_deadline(deadline, doc_id, "decoding")
    if not html.strip():
        return None
    # lxml loads with the first page that needs parsing: `neardup compare` on plain text and
    # every step that never meets HTML start without it.
    import lxml.etree
    import lxml.html

    parser = lxml.html.HTMLParser(huge_tree=True)  # one per call: parsers keep state
    try:
        if html.lstrip().startswith("<?xml"):  # lxml rejects str input with an encoding declaration
            html = _XML_DECL.sub("", html, count=1)
        root = lxml.html.document_fromstring(html, parser=parser)
    except (lxml.etree.ParserError, ValueError) as exc:
        if "Document is empty" in str(exc):
            if _depth_exceeded(parser):
                raise TooDeep(html) from None
            return None
        raise ExtractError(f"HTML could not be parsed: {exc}", doc_id) from exc
    if _depth_exceeded(parser):
        raise TooDeep(html)
    check_deadline(deadline, doc_id, "parsing")
    return root


class TooDeep(Exception):
    """The page nests deeper than libxml2 builds trees (its tree is cut short)."""

    def __init__(self, html: str) -> None:
        super().__init__("HTML nested too deep for the tree parser")
        self.html = html


def _depth_exceeded(parser: Any) -> bool:
    return any("Excessive depth" in entry.message for entry in parser.error_log)


@lru_cache(maxsize=1)
def _flat_text_parser() -> Any:
    """The class of :func:`flat_text`'s tokenizer, built on first use: the standard library's
    HTML tokenizer loads only with a page too deep for lxml (``neardup compare`` on plain text
    starts without it)."""
    from html.parser import HTMLParser

    class _FlatText(HTMLParser):
        """The visible text of a page by tokens, without a tree (any depth): text outside
        ``script``/``style``/``noscript``/``template``/``title``, block elements set apart by
        a blank line as in :func:`text_of`."""

        _SKIP = frozenset({"script", "style", "noscript", "template", "title"})

        def __init__(self) -> None:
            super().__init__(convert_charrefs=True)
            self.parts: list[str] = []
            self.skipping = 0

        def handle_starttag(self, tag: str, attrs: Any) -> None:
            if tag in self._SKIP:
                self.skipping += 1
            elif tag in BLOCK_TAGS:
                self.parts.append(BLOCK_BREAK)

        def handle_endtag(self, tag: str) -> None:
            if tag in self._SKIP:
                self.skipping = max(0, self.skipping - 1)
            elif tag in BLOCK_TAGS:
                self.parts.append(BLOCK_BREAK)

        def handle_startendtag(self, tag: str, attrs: Any) -> None:
            if tag in BLOCK_TAGS:
                self.parts.append(BLOCK_BREAK)

        def handle_data(self, data: str) -> None:
            if not self.skipping:
                self.parts.append(data)

    return _FlatText


def flat_text(html: str, deadline: float | None, doc_id: str | None) -> str:
    """The visible text of a page read by tokens, without a tree (a page too deep for lxml)."""
    parser = _flat_text_parser()()
    step = 1 << 16
    for start in range(0, len(html), step):
        parser.feed(html[start : start + step])
        check_deadline(deadline, doc_id, "reading a deeply nested page")
    parser.close()
    return join_blocks("".join(parser.parts))


def text_of(root: Any, deadline: float | None, doc_id: str | None) -> str:
    """The visible text of a parsed page (:func:`parse_page`), blocks apart by a blank line."""
    parts: list[str] = []
    add = parts.append
    # Explicit stack instead of recursion (deep pages) or iterwalk (which hides comments and
    # with them the text that follows a comment). Entries: (element, block?, closing?).
    stack: list[tuple[Any, bool, bool]] = [(root, True, False)]
    count = 0
    while stack:
        el, block, closing = stack.pop()
        if closing:
            if block:
                add(BLOCK_BREAK)
            if el.tail:
                add(el.tail)
            continue
        count += 1
        if count & 4095 == 0:
            check_deadline(deadline, doc_id, "walking the tree")
        tag = el.tag
        if not isinstance(tag, str):  # comment, processing instruction, entity: only its tail
            if el.tail:
                add(el.tail)
            continue
        name = tag.lower()
        if name in DROP_TAGS:
            if el.tail:
                add(el.tail)
            continue
        block = name in BLOCK_TAGS
        if block:
            add(BLOCK_BREAK)
        if el.text:
            add(el.text)
        stack.append((el, block, True))
        stack.extend((child, False, False) for child in reversed(el))
    text = "".join(parts)
    return join_blocks(text)

