"""HTML → text (step 1 of the method, first stage: "remove all HTML tags and formatting").

* **Parser**: lxml's HTML parser (libxml2), tolerant of broken markup. ``script``, ``style``,
  ``noscript``, ``template``, ``head`` metadata, comments and processing instructions are
  dropped; every block-level element (p, div, li, tr, td, br, h1-h6, pre, article, section, …)
  is set apart by a blank line (``"\n\n"``), the plain-text paragraph break, so block
  boundaries act as sentence breaks for :mod:`ingest.sentences` (which reads a single line
  break as a soft wrap inside a paragraph, as in hard-wrapped reST, Markdown or e-mail).
* **Charset** (for ``bytes`` input), first that applies: a byte-order mark; the HTTP
  ``Content-Type`` charset hint; ``<meta charset>`` / ``<meta http-equiv="Content-Type">`` in
  the first 4 KiB; detection with charset-normalizer; UTF-8 with replacement as the last resort.
  GBK and GB2312 (and their aliases) decode as GB18030, their superset: pages labelled GB2312
  routinely contain GBK characters, and GB18030 decodes every GBK byte sequence identically.
* **Limits**: input larger than ``max_bytes`` raises :class:`DocumentTooLarge` before any work.
  The deadline (``timeout`` seconds, per document) is enforced by checking the clock between
  stages (decode, parse, tree walk) and every few thousand elements during the walk, raising
  :class:`ExtractTimeout` once it has passed. lxml parses in C and cannot be interrupted from
  Python, so a single parse is never cut short; but parsing is linear and the size limit bounds
  it (a 10 MB page parses in well under a second), so the walk and decoding — where
  pathological pages spend their time — are what the deadline has to catch. A thread or process
  per document would cost more than the extraction itself on ordinary pages.
* **Traditional → Simplified** (``to_simplified=True``): OpenCC ``t2s`` via
  opencc-python-reimplemented, imported on first use.
"""

from __future__ import annotations

import codecs
import re
import time
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import lxml.etree
import lxml.html

from ingest.errors import DocumentTooLarge, EmptyDocument, ExtractError, ExtractTimeout

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_TIMEOUT",
    "decode_html",
    "document_text",
    "extract_text",
    "to_simplified",
]

DEFAULT_MAX_BYTES = 10 * 1024 * 1024
DEFAULT_TIMEOUT = 5.0

_DROP = frozenset({"script", "style", "noscript", "template", "head", "title", "svg", "math"})
_BLOCK = frozenset(
    """address article aside blockquote body br caption center dd details dialog dir div dl dt
    fieldset figcaption figure footer form frame frameset h1 h2 h3 h4 h5 h6 header hgroup hr html
    iframe legend li main menu nav ol option p pre section select summary table tbody td tfoot
    th thead tr ul""".split()
)
_GB_FAMILY = frozenset({"gb2312", "gbk", "gb18030", "hz", "euc_cn", "cp936", "ms936"})

_META_CHARSET = re.compile(
    rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE
)
_HEADER_CHARSET = re.compile(r"""charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16 LE: same first two bytes
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_XML_DECL = re.compile(r"^\s*<\?xml[^>]*\?>")
# A run of white space holding two or more line breaks (block boundaries, blank lines): one
# paragraph break. A single line break inside a text node (source formatting, <pre> lines)
# stays: the sentence splitter reads it as a soft wrap, as in plain text.
_BLANK_LINES = re.compile(r"[ \t\r\f\v]*\n(?:[ \t\r\f\v]*\n)+\s*")
BLOCK_BREAK = "\n\n"  # between blocks: a paragraph break for the sentence splitter


def _codec(label: str | None) -> str | None:
    """Python codec name for a charset label, GB family mapped to GB18030; None if unknown."""
    if not label:
        return None
    try:
        name = codecs.lookup(label.strip().strip("\"'")).name
    except LookupError:
        return None
    return "gb18030" if name in _GB_FAMILY else name


def decode_html(data: bytes, content_type: str | None = None) -> str:
    """Decode an HTML page's bytes (see the module docstring for the order of evidence)."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            return data[len(bom) :].decode(name, errors="replace")
    candidates: list[str] = []
    if content_type:
        m = _HEADER_CHARSET.search(content_type)
        if m and (name := _codec(m.group(1))):
            candidates.append(name)
    m = _META_CHARSET.search(data[:4096])
    if m and (name := _codec(m.group(1).decode("ascii", "replace"))):
        candidates.append(name)
    for name in candidates:
        try:
            return data.decode(name)
        except UnicodeDecodeError:
            continue  # a wrong label: try the next piece of evidence
    try:
        return data.decode("utf-8")  # strict: valid UTF-8 is almost never anything else
    except UnicodeDecodeError:
        pass
    name = _detect(data)
    if candidates:  # a declared charset that does not fit everywhere still beats a guess
        name = candidates[0]
    return data.decode(name or "utf-8", errors="replace")


def _detect(data: bytes) -> str | None:
    from charset_normalizer import from_bytes

    best = from_bytes(data[:65536]).best()
    return _codec(best.encoding) if best is not None else None


def extract_text(
    html: str | bytes,
    *,
    content_type: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    timeout: float | None = DEFAULT_TIMEOUT,
    to_simplified: bool = False,
    doc_id: str | None = None,
) -> str:
    """Visible text of an HTML page, blocks separated by a blank line (:data:`BLOCK_BREAK`).

    ``html`` may be ``str`` or raw ``bytes`` (then decoded as :func:`decode_html` says, with
    ``content_type`` as the HTTP header hint). Raises :class:`DocumentTooLarge` over
    ``max_bytes`` (bytes, or UTF-8 length for ``str``), :class:`ExtractTimeout` past
    ``timeout`` seconds, :class:`ExtractError` when the page cannot be parsed; ``doc_id`` is put
    on the error. An empty or text-free page gives ``""``.

    >>> extract_text("<p>One<script>x()</script></p><!-- c --><div>Two<br>three</div>")
    'One\\n\\nTwo\\n\\nthree'
    """
    deadline = None if timeout is None else time.monotonic() + timeout
    size = len(html) if isinstance(html, bytes) else _utf8_len(html, max_bytes)
    if size > max_bytes:
        raise DocumentTooLarge(
            f"document of {size} bytes exceeds the {max_bytes}-byte limit", doc_id
        )
    if isinstance(html, bytes):
        if not html.strip():
            return ""
        html = decode_html(html, content_type)
        _check(deadline, doc_id, "decoding")
    if not html.strip():
        return ""
    try:
        if html.lstrip().startswith("<?xml"):  # lxml rejects str input with an encoding declaration
            html = _XML_DECL.sub("", html, count=1)
        root = lxml.html.document_fromstring(html)
    except (lxml.etree.ParserError, ValueError) as exc:
        if "Document is empty" in str(exc):
            return ""
        raise ExtractError(f"HTML could not be parsed: {exc}", doc_id) from exc
    _check(deadline, doc_id, "parsing")
    text = _text_of(root, deadline, doc_id)
    if to_simplified and text:
        text = _opencc_t2s().convert(text)
    return text


def _utf8_len(text: str, limit: int) -> int:
    if len(text) * 4 <= limit:  # cannot exceed: skip the encode
        return len(text)
    return len(text.encode("utf-8", errors="surrogatepass"))


def _check(deadline: float | None, doc_id: str | None, stage: str) -> None:
    if deadline is not None and time.monotonic() > deadline:
        raise ExtractTimeout(f"extraction exceeded its deadline while {stage}", doc_id)


def _text_of(root: Any, deadline: float | None, doc_id: str | None) -> str:
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
            _check(deadline, doc_id, "walking the tree")
        tag = el.tag
        if not isinstance(tag, str):  # comment, processing instruction, entity: only its tail
            if el.tail:
                add(el.tail)
            continue
        name = tag.lower()
        if name in _DROP:
            if el.tail:
                add(el.tail)
            continue
        block = name in _BLOCK
        if block:
            add(BLOCK_BREAK)
        if el.text:
            add(el.text)
        stack.append((el, block, True))
        stack.extend((child, False, False) for child in reversed(el))
    text = "".join(parts)
    return _BLANK_LINES.sub(BLOCK_BREAK, text).strip()


@lru_cache(maxsize=1)
def _opencc_t2s() -> Any:
    try:
        import opencc
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "Traditional→Simplified conversion needs opencc-python-reimplemented "
            "(pip install 'neardup[baselines]')"
        ) from exc
    return opencc.OpenCC("t2s")


def to_simplified(text: str) -> str:
    """Traditional → Simplified Chinese (OpenCC ``t2s``)."""
    return _opencc_t2s().convert(text)


def document_text(doc: Mapping[str, Any], **options: Any) -> str:
    """The text of a JSONL document: its ``text`` field, else its ``html`` extracted.

    ``text``/``html`` may be ``str`` or ``bytes``; an optional ``content_type`` is the HTTP
    header hint for ``html`` bytes. ``options`` go to :func:`extract_text` (``max_bytes``,
    ``timeout``, ``to_simplified``). Raises :class:`EmptyDocument` when there is no text,
    :class:`ExtractError` (or a subclass) when the HTML cannot be extracted; both carry the
    document's ``id``.
    """
    doc_id = doc.get("id")
    doc_id = None if doc_id is None else str(doc_id)
    text = doc.get("text")
    if text is not None:
        if isinstance(text, bytes):
            text = decode_html(text, doc.get("content_type"))  # same evidence, minus meta
        text = str(text)
        if options.get("to_simplified"):
            text = to_simplified(text)
    elif doc.get("html") is not None:
        html = doc["html"]
        if not isinstance(html, str | bytes):
            raise ExtractError(f"'html' must be a string, got {type(html).__name__}", doc_id)
        text = extract_text(html, content_type=doc.get("content_type"), doc_id=doc_id, **options)
    else:
        raise EmptyDocument("document has neither 'text' nor 'html'", doc_id)
    if not text.strip():
        raise EmptyDocument("document has no text", doc_id)
    return text
