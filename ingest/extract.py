"""HTML → text (step 1 of the method, first stage: "remove all HTML tags and formatting").

* **Parser**: lxml's HTML parser (libxml2), tolerant of broken markup. ``script``, ``style``,
  ``noscript``, ``template``, ``head`` metadata, comments and processing instructions are
  dropped; every block-level element (p, div, li, tr, td, br, h1-h6, pre, article, section, …)
  is set apart by a blank line (``"\n\n"``), the plain-text paragraph break, so block
  boundaries act as sentence breaks for :mod:`neardup.ingest.sentences` (which reads a single line
  break as a soft wrap inside a paragraph, as in hard-wrapped reST, Markdown or e-mail).
* **Charset** (for ``bytes`` input), first that applies: a byte-order mark; the HTTP
  ``Content-Type`` charset hint; ``<meta charset>`` / ``<meta http-equiv="Content-Type">`` in
  the first 4 KiB; detection with charset-normalizer; UTF-8 with replacement as the last resort.
  GBK and GB2312 (and their aliases) decode as GB18030, their superset: pages labelled GB2312
  routinely contain GBK characters, and GB18030 decodes every GBK byte sequence identically.
* **Limits**: input larger than ``max_bytes`` (default ``NEARDUP_MAX_DOC_BYTES``, 8 MiB: the
  limit of docs/limits.md) raises :class:`DocumentTooLarge` before any work.
  **Depth**: libxml2 stops building the tree at 256 levels of nesting by default, silently
  dropping the rest of the page; the parser runs with ``huge_tree`` (2048 levels), and a page
  nested deeper still is read by a flat tokenizer (:func:`_flat_text`: the full text, block
  boundaries kept, no main-content detection) instead of losing its text.
  The deadline (``timeout`` seconds, per document) is enforced by checking the clock between
  stages (decode, parse, tree walk) and every few thousand elements during the walk, raising
  :class:`ExtractTimeout` once it has passed. lxml parses in C and cannot be interrupted from
  Python, so a single parse is never cut short; but parsing is linear and the size limit bounds
  it (a 10 MB page parses in well under a second), so the walk and decoding — where
  pathological pages spend their time — are what the deadline has to catch. A thread or process
  per document would cost more than the extraction itself on ordinary pages.
* **Traditional → Simplified** (``to_simplified=True``): OpenCC ``t2s`` via
  opencc-python-reimplemented, imported on first use.
* **Markup sources** (:func:`rst_text`, :func:`markdown_text`; JSONL fields ``rst`` and
  ``markdown``): reStructuredText is parsed with docutils and its document tree written out as
  plain text, blocks apart by a blank line as for HTML. Parsing is permissive, for Sphinx
  sources: an unknown interpreted-text role shows its text as Sphinx would (``:func:`~a.b``` →
  ``b``, ``:ref:`title <label>``` → ``title``), an unknown directive shows its argument and
  parses its content (``.. function:: f(x)``), code-like directives (``code-block``,
  ``doctest``, …) keep their content as a literal block, and directives that render nothing
  (``index``, ``toctree``, ``module``, …) are dropped, as are file-wide metadata fields
  (``:orphan:``, ``:tocdepth:``: docinfo, which Sphinx does not render). Docutils' diagnostics
  are silenced — but the source of a construct it cannot parse (a malformed table) is kept as
  text — its configuration files ignored, and file inclusion and ``raw`` are disabled. Markdown
  (CommonMark + tables, markdown-it-py) is rendered to HTML and extracted as HTML.
"""

from __future__ import annotations

import codecs
import re
import time
import types
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from neardup.ingest.errors import DocumentTooLarge, EmptyDocument, ExtractError, ExtractTimeout
from neardup.ingest.settings import Settings

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_TIMEOUT",
    "LINK_DENSITY",
    "MARKUP_FIELDS",
    "MIN_CONTENT_CHARS",
    "MIN_CONTENT_SHARE",
    "DocumentText",
    "decode_html",
    "document_text",
    "document_texts",
    "extract_text",
    "extract_texts",
    "markdown_text",
    "rst_text",
    "to_simplified",
]

DEFAULT_MAX_BYTES = Settings.max_doc_bytes  # one page limit on every path (docs/limits.md)
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
        if m and (codec := _codec(m.group(1))):
            candidates.append(codec)
    meta = _META_CHARSET.search(data[:4096])
    if meta and (codec := _codec(meta.group(1).decode("ascii", "replace"))):
        candidates.append(codec)
    for name in candidates:
        try:
            return data.decode(name)
        except UnicodeDecodeError:
            continue  # a wrong label: try the next piece of evidence
    try:
        return data.decode("utf-8")  # strict: valid UTF-8 is almost never anything else
    except UnicodeDecodeError:
        pass
    guess = _detect(data)
    if candidates:  # a declared charset that does not fit everywhere still beats a guess
        guess = candidates[0]
    return data.decode(guess or "utf-8", errors="replace")


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
    try:
        root = _parse(html, content_type, max_bytes, deadline, doc_id)
    except _TooDeep as deep:
        text = _flat_text(deep.html, deadline, doc_id)
    else:
        if root is None:
            return ""
        text = _text_of(root, deadline, doc_id)
    if to_simplified and text:
        text = _opencc_t2s().convert(text)
    return text


@dataclass(frozen=True, slots=True)
class DocumentText:
    """A document's text in two forms. ``text``: everything visible (stored and verified).
    ``content``: the main content, what the fingerprints are computed from — for HTML the text
    without navigation, header, footer, sidebars and link lists (see :func:`extract_texts`);
    for plain text, reST and Markdown the same as ``text``."""

    text: str
    content: str


def extract_texts(
    html: str | bytes,
    *,
    content_type: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    timeout: float | None = DEFAULT_TIMEOUT,
    to_simplified: bool = False,
    doc_id: str | None = None,
) -> DocumentText:
    """:func:`extract_text` and the page's main content, from one parse and one tree walk.

    Boilerplate is dropped from ``content`` by structure, not by comparing pages: subtrees of
    ``nav``, ``header``, ``footer``, ``aside`` and ``menu`` elements, of ARIA landmark roles
    other than ``main`` (navigation, banner, contentinfo, complementary, search), and of
    elements whose class/id names page furniture (Mozilla Readability's patterns: header,
    footer, sidebar, menu, comment, related, social, breadcrumbs, pager, …, unless they also
    name content: article, body, column, content, main); then every block whose visible
    characters are mostly link text (:data:`LINK_DENSITY`: menus, headline lists, tag clouds).
    When that leaves almost nothing (:data:`MIN_CONTENT_CHARS`, :data:`MIN_CONTENT_SHARE`:
    a page of links, an unusual layout) the content is the full text. Same arguments and
    errors as :func:`extract_text`.

    >>> t = extract_texts('<ul class="nav"><li><a href="/">Home</a></li></ul><p>Body text '
    ...                   'long enough to be the content of the page.</p><div class="footer">© Site</div>')
    >>> t.text.split("\\n\\n"), t.content
    (['Home', 'Body text long enough to be the content of the page.', '© Site'], 'Body text long enough to be the content of the page.')
    """
    deadline = None if timeout is None else time.monotonic() + timeout
    try:
        root = _parse(html, content_type, max_bytes, deadline, doc_id)
    except _TooDeep as deep:  # no tree to find the main content in: the full text
        text = content = _flat_text(deep.html, deadline, doc_id)
    else:
        if root is None:
            return DocumentText("", "")
        text, content = _texts_of(root, deadline, doc_id)
    if to_simplified and text:
        convert = _opencc_t2s().convert
        simplified = convert(text)
        content = convert(content) if content != text else simplified
        text = simplified
    return DocumentText(text, content)


def _parse(
    html: str | bytes,
    content_type: str | None,
    max_bytes: int,
    deadline: float | None,
    doc_id: str | None,
) -> Any:
    """The lxml root of a page, or None for an empty page (limits and errors as documented)."""
    _check_size(html, max_bytes, doc_id)
    if isinstance(html, bytes):
        if not html.strip():
            return None
        html = decode_html(html, content_type)
        _check(deadline, doc_id, "decoding")
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
                raise _TooDeep(html) from None
            return None
        raise ExtractError(f"HTML could not be parsed: {exc}", doc_id) from exc
    if _depth_exceeded(parser):
        raise _TooDeep(html)
    _check(deadline, doc_id, "parsing")
    return root


class _TooDeep(Exception):
    """The page nests deeper than libxml2 builds trees (its tree is cut short)."""

    def __init__(self, html: str) -> None:
        super().__init__("HTML nested too deep for the tree parser")
        self.html = html


def _depth_exceeded(parser: Any) -> bool:
    return any("Excessive depth" in entry.message for entry in parser.error_log)


@lru_cache(maxsize=1)
def _flat_text_parser() -> Any:
    """The class of :func:`_flat_text`'s tokenizer, built on first use: the standard library's
    HTML tokenizer loads only with a page too deep for lxml (``neardup compare`` on plain text
    starts without it)."""
    from html.parser import HTMLParser

    class _FlatText(HTMLParser):
        """The visible text of a page by tokens, without a tree (any depth): text outside
        ``script``/``style``/``noscript``/``template``/``title``, block elements set apart by
        a blank line as in :func:`_text_of`."""

        _SKIP = frozenset({"script", "style", "noscript", "template", "title"})

        def __init__(self) -> None:
            super().__init__(convert_charrefs=True)
            self.parts: list[str] = []
            self.skipping = 0

        def handle_starttag(self, tag: str, attrs: Any) -> None:
            if tag in self._SKIP:
                self.skipping += 1
            elif tag in _BLOCK:
                self.parts.append(BLOCK_BREAK)

        def handle_endtag(self, tag: str) -> None:
            if tag in self._SKIP:
                self.skipping = max(0, self.skipping - 1)
            elif tag in _BLOCK:
                self.parts.append(BLOCK_BREAK)

        def handle_startendtag(self, tag: str, attrs: Any) -> None:
            if tag in _BLOCK:
                self.parts.append(BLOCK_BREAK)

        def handle_data(self, data: str) -> None:
            if not self.skipping:
                self.parts.append(data)

    return _FlatText


def _flat_text(html: str, deadline: float | None, doc_id: str | None) -> str:
    parser = _flat_text_parser()()
    step = 1 << 16
    for start in range(0, len(html), step):
        parser.feed(html[start : start + step])
        _check(deadline, doc_id, "reading a deeply nested page")
    parser.close()
    return _BLANK_LINES.sub(BLOCK_BREAK, "".join(parser.parts)).strip()


def _check_size(source: str | bytes, max_bytes: int, doc_id: str | None) -> None:
    """Raise :class:`DocumentTooLarge` when ``source`` (UTF-8 for str) exceeds ``max_bytes``."""
    size = len(source) if isinstance(source, bytes) else _utf8_len(source, max_bytes)
    if size > max_bytes:
        raise DocumentTooLarge(
            f"document of {size} bytes exceeds the {max_bytes}-byte limit", doc_id
        )


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


# --- main content (for fingerprints) --------------------------------------------------------
#
# Boilerplate = page furniture repeated across a site's pages: navigation, header, footer,
# sidebars, breadcrumbs, share bars, link lists. Dropped from the *content* text, which is what
# fingerprints are computed from; the full text (stored, verified) keeps it.
_BOILER_TAGS = frozenset({"nav", "header", "footer", "aside", "menu"})
_BOILER_ROLES = frozenset(
    {"navigation", "banner", "contentinfo", "complementary", "search", "menu", "menubar"}
)
# class/id patterns of Mozilla Readability (``unlikelyCandidates`` / ``okMaybeItsACandidate``,
# Readability.js, Apache-2.0): a widely used list of page-furniture names.
_UNLIKELY = re.compile(
    r"-ad-|ai2html|banner|breadcrumbs|combx|comment|community|cover-wrap|disqus|extra|footer|"
    r"gdpr|header|legends|menu|related|remark|replies|rss|shoutbox|sidebar|skyscraper|social|"
    r"sponsor|supplemental|ad-break|agegate|pagination|pager|popup|yom-remote",
    re.IGNORECASE,
)
_MAYBE = re.compile(r"and|article|body|column|content|main|shadow", re.IGNORECASE)
_NEVER_BOILER = frozenset({"html", "body", "main", "article", "a"})
#: A block (text between two block boundaries) whose visible characters are mostly link text
#: is a link list (menu, "related" headlines, tag clouds): not content.
LINK_DENSITY = 0.5
#: Content smaller than both this share of the full text and :data:`MIN_CONTENT_CHARS` visible
#: characters is taken as a failed detection (a page of links, an unusual layout): the full
#: text is used instead.
MIN_CONTENT_SHARE = 0.1
MIN_CONTENT_CHARS = 100
_CONTENT, _LINK, _BOILER, _BREAK = 0, 1, 2, 3


# Inline elements are not page furniture by themselves (and are most of the elements of a page:
# code highlighting spans, links, emphasis): their class/id is not looked at.
_INLINE = frozenset(
    """a abbr b bdi bdo cite code data dfn em font i img kbd label mark q s samp small span strong
    sub sup time tt u var wbr""".split()
)
_NAMES_CACHE: dict[str, bool] = {}


def _is_boilerplate(el: Any, name: str) -> bool:
    if name in _BOILER_TAGS:
        return True
    if name in _INLINE or name in _NEVER_BOILER:
        return False
    role = el.get("role")
    if role and role.strip().lower() in _BOILER_ROLES:
        return True
    cls, ident = el.get("class"), el.get("id")
    if not (cls or ident):
        return False
    names = f"{cls or ''} {ident or ''}"
    found = _NAMES_CACHE.get(names)
    if found is None:
        found = _UNLIKELY.search(names) is not None and not _MAYBE.search(names)
        if len(_NAMES_CACHE) >= 4096:
            _NAMES_CACHE.clear()
        _NAMES_CACHE[names] = found
    return found


def _texts_of(root: Any, deadline: float | None, doc_id: str | None) -> tuple[str, str]:
    """Full text (as :func:`_text_of`) and main-content text of a parsed page, in one walk."""
    parts: list[str] = []
    modes: list[int] = []
    add = parts.append
    mark = modes.append
    stack: list[tuple[Any, bool, bool, int]] = [(root, True, False, _CONTENT)]
    count = 0
    while stack:
        el, block, closing, mode = stack.pop()  # mode: of the parent (the tail's)
        if closing:
            if block:
                add(BLOCK_BREAK)
                mark(_BREAK)
            if el.tail:
                add(el.tail)
                mark(mode)
            continue
        count += 1
        if count & 4095 == 0:
            _check(deadline, doc_id, "walking the tree")
        tag = el.tag
        if not isinstance(tag, str) or tag.lower() in _DROP:
            if el.tail:
                add(el.tail)
                mark(mode)
            continue
        name = tag.lower()
        own = mode
        if own != _BOILER:
            if _is_boilerplate(el, name):
                own = _BOILER
            elif name == "a":
                own = _LINK
        block = name in _BLOCK
        if block:
            add(BLOCK_BREAK)
            mark(_BREAK)
        if el.text:
            add(el.text)
            mark(own)
        stack.append((el, block, True, mode))
        stack.extend((child, False, False, own) for child in reversed(el))
    full = _BLANK_LINES.sub(BLOCK_BREAK, "".join(parts)).strip()
    kept: list[str] = []
    pieces: list[str] = []
    links: list[str] = []
    for piece, m in zip([*parts, BLOCK_BREAK], [*modes, _BREAK], strict=True):
        if m == _BREAK:
            if pieces:
                text = "".join(pieces)
                if not links or _visible_len("".join(links)) <= LINK_DENSITY * _visible_len(text):
                    kept.append(text)
                    kept.append(BLOCK_BREAK)
                pieces.clear()
                links.clear()
        elif m != _BOILER:
            pieces.append(piece)
            if m == _LINK:
                links.append(piece)
    content = _BLANK_LINES.sub(BLOCK_BREAK, "".join(kept)).strip()
    size = _visible_len(content)
    if size < MIN_CONTENT_CHARS and size < MIN_CONTENT_SHARE * _visible_len(full):
        content = full
    return full, content


def _visible_len(text: str) -> int:
    return sum(map(len, text.split()))


@lru_cache(maxsize=1)
def _opencc_t2s() -> Any:
    try:
        import opencc
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "Traditional→Simplified conversion needs opencc-python-reimplemented "
            "(pip install 'neardup[eval]')"
        ) from exc
    return opencc.OpenCC("t2s")


def to_simplified(text: str) -> str:
    """Traditional → Simplified Chinese (OpenCC ``t2s``)."""
    return str(_opencc_t2s().convert(text))


# Fields of a JSONL document that may carry its content, in order of precedence.
MARKUP_FIELDS = ("text", "html", "rst", "markdown")


def document_text(doc: Mapping[str, Any], **options: Any) -> str:
    """The text of a JSONL document: its first field of :data:`MARKUP_FIELDS` that is present.

    ``text`` is taken as it is; ``html`` is extracted (:func:`extract_text`); ``rst``
    (reStructuredText, e.g. Sphinx sources) and ``markdown`` are converted to plain text
    (:func:`rst_text`, :func:`markdown_text`). ``text``/``html`` may be ``str`` or ``bytes``; an
    optional ``content_type`` is the HTTP header hint for bytes. ``options`` go to
    :func:`extract_text` (``max_bytes``, ``timeout``, ``to_simplified``; ``max_bytes`` and
    ``to_simplified`` also apply to ``rst``/``markdown``). Raises :class:`EmptyDocument` when
    there is no text, :class:`ExtractError` (or a subclass) when the content cannot be
    extracted; both carry the document's ``id``.
    """
    if doc.get("html") is not None and doc.get("text") is None:
        html = doc["html"]
        if not isinstance(html, str | bytes):
            raise ExtractError(f"'html' must be a string, got {type(html).__name__}", _id(doc))
        text = extract_text(html, content_type=doc.get("content_type"), doc_id=_id(doc), **options)
        if not text.strip():
            raise EmptyDocument("document has no text", _id(doc))
        return text
    return document_texts(doc, **options).text


def _id(doc: Mapping[str, Any]) -> str | None:
    doc_id = doc.get("id")
    return None if doc_id is None else str(doc_id)


def document_texts(doc: Mapping[str, Any], **options: Any) -> DocumentText:
    """The text of a JSONL document (:func:`document_text`) and its main content (for HTML,
    :func:`extract_texts`; otherwise the text itself), as a :class:`DocumentText`.

    The document's first field of :data:`MARKUP_FIELDS` that is present is used: ``text`` as
    it is; ``html`` extracted (:func:`extract_texts`); ``rst``
    (reStructuredText, e.g. Sphinx sources) and ``markdown`` are converted to plain text
    (:func:`rst_text`, :func:`markdown_text`). ``text``/``html`` may be ``str`` or ``bytes``; an
    optional ``content_type`` is the HTTP header hint for bytes. ``options`` go to
    :func:`extract_text` (``max_bytes``, ``timeout``, ``to_simplified``; ``max_bytes`` and
    ``to_simplified`` also apply to ``rst``/``markdown``). Raises :class:`EmptyDocument` when
    there is no text, :class:`ExtractError` (or a subclass) when the content cannot be
    extracted; both carry the document's ``id``.
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
        both = extract_texts(html, content_type=doc.get("content_type"), doc_id=doc_id, **options)
        if not both.text.strip():
            raise EmptyDocument("document has no text", doc_id)
        return both
    elif doc.get("rst") is not None or doc.get("markdown") is not None:
        key = "rst" if doc.get("rst") is not None else "markdown"
        source = doc[key]
        if isinstance(source, bytes):
            source = decode_html(source, doc.get("content_type"))
        if not isinstance(source, str):
            raise ExtractError(f"'{key}' must be a string, got {type(source).__name__}", doc_id)
        convert = rst_text if key == "rst" else markdown_text
        text = convert(source, max_bytes=options.get("max_bytes", DEFAULT_MAX_BYTES), doc_id=doc_id)
        if options.get("to_simplified") and text:
            text = to_simplified(text)
    else:
        raise EmptyDocument(
            "document has none of " + ", ".join(f"'{k}'" for k in MARKUP_FIELDS), doc_id
        )
    if not text.strip():
        raise EmptyDocument("document has no text", doc_id)
    return DocumentText(text, text)


# --------------------------------------------------------------------------------------------
# Markup sources: reStructuredText (docutils) and Markdown (markdown-it-py)
# --------------------------------------------------------------------------------------------

# Sphinx directives whose output has no text of the page's own (index entries, navigation,
# metadata, build configuration, test fixtures).
_RST_SILENT = frozenset(
    """index toctree module currentmodule highlight sectionauthor moduleauthor codeauthor
    tabularcolumns testsetup testcleanup literalinclude include default-domain py:module
    py:currentmodule c:namespace cpp:namespace only-html""".split()
)
# Sphinx directives whose content is code or a grammar: kept verbatim as a literal block.
_RST_LITERAL = frozenset(
    """code-block sourcecode doctest testcode testoutput productionlist""".split()
)
# Sphinx's wording for version notes (the argument's first word is the version).
_RST_VERSION_NOTES = {
    "versionadded": "New in version {}.",
    "versionchanged": "Changed in version {}:",
    "deprecated": "Deprecated since version {}:",
    "deprecated-removed": "Deprecated since version {}, will be removed in version {}:",
}
_ROLE_TITLE = re.compile(r"^(.*?)\s*<([^<>]+)>$", re.DOTALL)


def _role_display(text: str) -> str:
    """What Sphinx shows for a cross-reference role's text: ``title <target>`` → title,
    ``~a.b.c`` → ``c``, ``!x`` → ``x``."""
    text = text.strip()
    m = _ROLE_TITLE.match(text)
    if m and m.group(1):
        return m.group(1)
    if m:
        text = m.group(2)
    text = text.lstrip("!")
    if text.startswith("~"):
        text = text[1:].rsplit(".", 1)[-1]
    return text


@lru_cache(maxsize=1)
def _docutils() -> Any:
    """Import docutils and build the permissive parser parts once (see the module docstring)."""
    try:
        from docutils import nodes
        from docutils.parsers.rst import Directive, directives, states
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("reStructuredText input needs docutils (pip install docutils)") from exc

    class AnyOptions(dict[str, Any]):  # every option is accepted, its value kept as written
        def __missing__(self, key: str) -> Any:
            return directives.unchanged

        def __bool__(self) -> bool:  # docutils looks for options only if the spec is truthy
            return True

    class Generic(Directive):
        optional_arguments = 1
        final_argument_whitespace = True
        option_spec = AnyOptions()
        has_content = True

        def run(self) -> list[Any]:
            name = self.name
            if name in _RST_SILENT:
                return []
            out: list[Any] = []
            arg = self.arguments[0] if self.arguments else ""
            if name in _RST_LITERAL:
                body = "\n".join(self.content)
                return [nodes.literal_block(body, body)] if body.strip() else []
            box = nodes.container()
            if self.content:
                self.state.nested_parse(self.content, self.content_offset, box)
            if name in _RST_VERSION_NOTES:
                # Sphinx: "Changed in version 3.8: <first paragraph>" as one paragraph.
                template = _RST_VERSION_NOTES[name]
                n = template.count("{}")
                words = arg.split(None, n)
                head = template.format(*(words + [""] * n)[:n])
                arg = " ".join([head, *words[n:]])
                if not words[n:] and box.children and isinstance(box[0], nodes.paragraph):
                    box[0].insert(0, nodes.Text(head + " "))
                    arg = ""
            if arg.strip():
                inline, _ = self.state.inline_text(arg, self.lineno)
                out.append(nodes.paragraph(arg, "", *inline))
            if box.children:
                out.append(box)
            return out

    lookup = directives.directive
    if not getattr(lookup, "_neardup_permissive", False):

        def permissive_lookup(name: str, language: Any, document: Any) -> Any:
            cls, messages = lookup(name, language, document)
            settings = getattr(document, "settings", None)
            if getattr(settings, "neardup_permissive", False) and (
                cls is None or name in _RST_SILENT or name in _RST_LITERAL
            ):
                return Generic, []
            return cls, messages

        permissive_lookup._neardup_permissive = True  # type: ignore[attr-defined]
        directives.directive = permissive_lookup  # type: ignore[assignment]  # only documents parsed here are affected

    def interpreted(self: Any, rawsource: str, text: str, role: str, lineno: int) -> Any:
        from docutils.parsers.rst import roles

        role_fn, messages = roles.role(role, self.language, lineno, self.reporter)
        if role_fn:
            result, more = role_fn(role, rawsource, text, lineno, self)  # type: ignore[call-arg]
            return result, [*messages, *more]
        return [nodes.inline(rawsource, _role_display(text))], []

    def make_inliner() -> Any:
        # An instance with its own ``interpreted`` (a subclass would not do: Inliner builds its
        # patterns from ``vars(type(self))``).
        inliner = states.Inliner()
        inliner.interpreted = types.MethodType(interpreted, inliner)  # type: ignore[method-assign]
        return inliner

    return nodes, make_inliner


_RST_SETTINGS = {
    "report_level": 5,  # silent: no diagnostics on stderr
    "halt_level": 5,  # never stop on an error in the source
    "exit_status_level": 5,
    "traceback": True,  # failures raise (and become a per-document ExtractError)
    "_disable_config": True,  # no docutils.conf from the working directory or home
    "file_insertion_enabled": False,
    "raw_enabled": False,
    "syntax_highlight": "none",
    "input_encoding": "unicode",
    "line_length_limit": 1_000_000,
    "neardup_permissive": True,
}


def rst_text(source: str, *, max_bytes: int = DEFAULT_MAX_BYTES, doc_id: str | None = None) -> str:
    """Plain text of a reStructuredText document (Sphinx roles and directives tolerated).

    Blocks (paragraphs, titles, list items, table cells, literal blocks) are separated by a
    blank line; line breaks inside a paragraph stay single (soft wraps). Raises
    :class:`DocumentTooLarge` over ``max_bytes`` and :class:`ExtractError` if docutils fails.

    >>> rst_text("Title\\n=====\\n\\nSee :func:`~os.path.join` and ``x``.\\n\\n.. index:: x\\n")
    'Title\\n\\nSee join and x.'
    """
    _check_size(source, max_bytes, doc_id)
    if not source.strip():
        return ""
    nodes, make_inliner = _docutils()
    from docutils.core import publish_doctree
    from docutils.parsers.rst import Parser

    settings = dict(_RST_SETTINGS, warning_stream=_NullStream())
    try:
        tree = publish_doctree(
            source, parser=Parser(inliner=make_inliner()), settings_overrides=settings
        )
    except Exception as exc:  # docutils raises many types on pathological input
        raise ExtractError(f"reStructuredText could not be parsed: {exc!r}", doc_id) from None
    blocks: list[str] = []
    skip = (nodes.Invisible, nodes.raw, nodes.docinfo)
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, skip):
            continue
        if isinstance(node, nodes.system_message):
            # Diagnostics are dropped; but an error (a malformed table, an unterminated
            # construct) carries the source it could not parse, which is still the page's text.
            if node.get("level", 0) >= 3:
                blocks.extend(
                    c.astext() for c in node.children if isinstance(c, nodes.literal_block)
                )
            continue
        if isinstance(node, nodes.TextElement):
            text = node.astext()
            if text.strip():
                blocks.append(text)
            continue
        stack.extend(reversed(node.children))  # type: ignore[arg-type]
    return _BLANK_LINES.sub(BLOCK_BREAK, BLOCK_BREAK.join(blocks)).strip()


class _NullStream:
    def write(self, data: str) -> int:
        return len(data)

    def flush(self) -> None:
        pass


@lru_cache(maxsize=1)
def _markdown() -> Any:
    try:
        from markdown_it import MarkdownIt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "Markdown input needs markdown-it-py (pip install markdown-it-py)"
        ) from exc
    # CommonMark plus tables and strikethrough; raw HTML in the source is rendered as HTML.
    return MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])


def markdown_text(
    source: str, *, max_bytes: int = DEFAULT_MAX_BYTES, doc_id: str | None = None
) -> str:
    """Plain text of a Markdown document: rendered to HTML, then :func:`extract_text`.

    >>> markdown_text("# Title\\n\\nSome *text*\\nwrapped.\\n\\n- a\\n- b\\n")
    'Title\\n\\nSome text\\nwrapped.\\n\\na\\n\\nb'
    """
    _check_size(source, max_bytes, doc_id)
    if not source.strip():
        return ""
    try:
        html = _markdown().render(source)
    except Exception as exc:
        raise ExtractError(f"Markdown could not be rendered: {exc!r}", doc_id) from None
    return extract_text(html, max_bytes=max(max_bytes, 4 * len(html)), doc_id=doc_id)
