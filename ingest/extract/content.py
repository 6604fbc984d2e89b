"""An HTML page's text (:func:`extract_text`) and its main content: what the fingerprints are
computed from (:func:`extract_texts`).

Boilerplate = page furniture repeated across a site's pages: navigation, header, footer,
sidebars, breadcrumbs, share bars, link lists. Dropped from the *content* text, which is what
fingerprints are computed from; the full text (stored, verified) keeps it. The walk that finds
it is the one of :func:`neardup.ingest.extract.html.text_of`, with the full text from the same
pass.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict

from neardup.ingest.extract.blocks import BLOCK_BREAK, join_blocks
from neardup.ingest.extract.html import (
    BLOCK_TAGS,
    DROP_TAGS,
    TooDeep,
    flat_text,
    parse_page,
    text_of,
)
from neardup.ingest.extract.limits import (
    DEFAULT_MAX_BYTES,
    DEFAULT_TIMEOUT,
    check_deadline,
    deadline_after,
)
from neardup.ingest.extract.simplified import t2s_converter

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = [
    "LINK_DENSITY",
    "MIN_CONTENT_CHARS",
    "MIN_CONTENT_SHARE",
    "ExtractOptions",
    "ExtractedText",
    "extract_text",
    "extract_texts",
    "named",
    "page_heading",
    "page_template",
    "page_title",
    "texts_of",
]


@dataclass(frozen=True, slots=True)
class ExtractedText:
    """A page's text in two forms: the output of extraction (step 1, first stage). ``text``:
    everything visible (stored and verified). ``content``: the main content, what the
    fingerprints are computed from — for HTML the text without navigation, header, footer,
    sidebars and link lists (see :func:`extract_texts`); for plain text, reST and Markdown the
    same as ``text``.

    Stage: made from a :class:`~neardup.ingest.records.Page` (the validated input record) by
    :func:`~neardup.ingest.extract.document_texts`; its texts, cleaned and fingerprinted,
    become a :class:`~neardup.ingest.store.base.StoredDocument`
    (:func:`neardup.ingest.pipeline.prepare_document`)."""

    text: str
    content: str
    # An HTML page's template (:func:`page_template`), when asked for: its style sheets (its
    # scripts when it has no style); "" for plain text, a page with neither, and when not
    # asked for.
    template: str = ""


class ExtractOptions(TypedDict, total=False):
    """The keyword arguments of :func:`extract_texts` that :func:`extract_text` passes on."""

    content_type: str | None
    max_bytes: int
    timeout: float | None
    to_simplified: bool
    doc_id: str | None


def extract_text(html: str | bytes, **options: Unpack[ExtractOptions]) -> str:
    """Visible text of an HTML page, blocks separated by a blank line (:data:`BLOCK_BREAK`):
    the ``text`` of :func:`extract_texts`, without looking for the main content.

    >>> extract_text("<p>One<script>x()</script></p><!-- c --><div>Two<br>three</div>")
    'One\\n\\nTwo\\n\\nthree'
    """
    return extract_texts(html, main_content=False, **options).text


def extract_texts(
    html: str | bytes,
    *,
    content_type: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    timeout: float | None = DEFAULT_TIMEOUT,
    to_simplified: bool = False,
    doc_id: str | None = None,
    main_content: bool = True,
    template: bool = False,
) -> ExtractedText:
    """A page's visible text and its main content, from one parse and one tree walk.

    ``html`` may be ``str`` or raw ``bytes`` (then decoded as
    :func:`~neardup.ingest.extract.charset.decode_html` says, with ``content_type`` as the
    HTTP header hint). Raises :class:`~neardup.ingest.errors.DocumentTooLarge` over
    ``max_bytes`` (bytes, or UTF-8 length for ``str``),
    :class:`~neardup.ingest.errors.ExtractTimeout` past ``timeout`` seconds,
    :class:`~neardup.ingest.errors.ExtractError` when the page cannot be parsed; ``doc_id`` is
    put on the error. An empty or text-free page gives two empty texts. ``to_simplified``
    converts Traditional Chinese to Simplified. Without ``main_content`` the content is the
    text. With ``template`` the result names the page's template (:func:`page_template`; asked
    for a page of unknown site only: it walks the tree once more).

    Boilerplate is dropped from ``content`` by structure, not by comparing pages: subtrees of
    ``nav``, ``header``, ``footer``, ``aside`` and ``menu`` elements, of ARIA landmark roles
    other than ``main`` (navigation, banner, contentinfo, complementary, search), and of
    elements whose class/id names page furniture (Mozilla Readability's patterns: header,
    footer, sidebar, menu, comment, related, social, breadcrumbs, pager, …, unless they also
    name content: article, body, column, content, main); then every block whose visible
    characters are mostly link text (:data:`LINK_DENSITY`: menus, headline lists, tag clouds).
    When that leaves less than :data:`MIN_CONTENT_CHARS`, those of the dropped blocks that have
    words of their own besides their links come back (an index page's entries, "FileHandle :
    XMLFileMgr.hpp"); when even that leaves almost nothing, an element of furniture that holds
    at least half the page's text and its ``h1`` (:data:`WRAPPER_SHARE`: a template that puts
    the whole page in its ``div.header``) is taken for the page's wrapper and kept; and when
    that does not help either (:data:`MIN_CONTENT_SHARE`: a page of bare links or images, an
    unusual layout) the content is the full text.

    >>> t = extract_texts('<ul class="nav"><li><a href="/">Home</a></li></ul><p>Body text '
    ...                   'long enough to be the content of the page.</p><div class="footer">© Site</div>')
    >>> t.text.split("\\n\\n"), t.content
    (['Home', 'Body text long enough to be the content of the page.', '© Site'], 'Body text long enough to be the content of the page.')
    """
    deadline = deadline_after(timeout)
    found = ""
    try:
        root = parse_page(html, content_type, max_bytes, deadline, doc_id)
    except TooDeep as deep:  # no tree to find the main content in: the full text
        text = content = flat_text(deep.html, deadline, doc_id)
    else:
        if root is None:
            return ExtractedText("", "")
        if main_content:
            text, content = texts_of(root, deadline, doc_id)
            # Named by its heading, else by its title; first, when the main content fell back
            # to the full text (navigation first).
            content = named(page_heading(root) or page_title(root), content, first=content == text)
        else:
            text = content = text_of(root, deadline, doc_id)
        if template:
            found = page_template(root)
    if to_simplified and text:
        convert = t2s_converter().convert
        simplified = convert(text)
        content = convert(content) if content != text else simplified
        text = simplified
    return ExtractedText(text, content, found)


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
_CONTENT, _LINK, _BOILER, _BREAK = 0, 1, 2, 3  # the modes of a piece of text
_OWN_WORD = re.compile(r"[^\W_]{2,}")  # a word of a block's own text, outside its links


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


def texts_of(root: Any, deadline: float | None, doc_id: str | None) -> tuple[str, str]:
    """Full text (as :func:`~neardup.ingest.extract.html.text_of`) and main-content text of a
    parsed page (:func:`~neardup.ingest.extract.html.parse_page`), in one walk; a second one
    when the page's furniture held the page (:data:`WRAPPER_SHARE`)."""
    parts, modes, dropped = _walk(root, deadline, doc_id, frozenset())
    full = join_blocks("".join(parts))
    content = _main_content(parts, modes)
    size = _visible_len(content)
    if size >= MIN_CONTENT_CHARS:
        return full, content
    whole = _visible_len(full)
    if size < MIN_CONTENT_SHARE * whole:
        # Furniture is a small part of a page: an element named or tagged as furniture that
        # holds most of the page's text and its heading wraps the page (Qt's offline
        # documentation puts the whole page in its <div class="header">). Walked again with
        # those kept.
        wrappers = frozenset(el for el, lo, hi in dropped
                             if sum(map(_visible_len, parts[lo:hi])) >= WRAPPER_SHARE * whole
                             and el.find(".//h1") is not None)
        if wrappers:
            parts, modes, _ = _walk(root, deadline, doc_id, wrappers)
            content = _main_content(parts, modes)
            size = _visible_len(content)
        if size < MIN_CONTENT_CHARS and size < MIN_CONTENT_SHARE * whole:
            content = full
    return full, content


#: An element of page furniture (:func:`_is_boilerplate`) holding at least this share of a
#: page's visible text and an ``h1``, when dropping the furniture leaves too little content,
#: wraps the page.
WRAPPER_SHARE = 0.5


def _walk(
    root: Any, deadline: float | None, doc_id: str | None, kept: frozenset[Any]
) -> tuple[list[str], list[int], list[tuple[Any, int, int]]]:
    """The pieces of text of a parsed page in order, each with its mode (content, link,
    boilerplate, block break), and the outermost elements of furniture, each with the range
    of the pieces it holds. The elements of ``kept`` are not furniture."""
    parts: list[str] = []
    modes: list[int] = []
    dropped: list[tuple[Any, int, int]] = []
    opened: dict[Any, int] = {}
    add = parts.append
    mark = modes.append
    stack: list[tuple[Any, bool, bool, int]] = [(root, True, False, _CONTENT)]
    count = 0
    while stack:
        el, block, closing, mode = stack.pop()  # mode: of the parent (the tail's)
        if closing:  # the element's end: its break, then its tail, in its parent's mode
            piece, piece_mode = el.tail, mode
            if opened:
                lo = opened.pop(el, None)
                if lo is not None:
                    dropped.append((el, lo, len(parts)))
        else:
            count += 1
            if count & 4095 == 0:
                check_deadline(deadline, doc_id, "walking the tree")
            tag = el.tag
            if not isinstance(tag, str) or tag.lower() in DROP_TAGS:
                stack.append((el, False, True, mode))  # only its tail counts
                continue
            name = tag.lower()
            own = mode
            if own != _BOILER:
                if _is_boilerplate(el, name) and el not in kept:
                    own = _BOILER
                    opened[el] = len(parts)
                elif name == "a":
                    own = _LINK
            block = name in BLOCK_TAGS
            stack.append((el, block, True, mode))
            stack.extend((child, False, False, own) for child in reversed(el))
            piece, piece_mode = el.text, own  # its start: its break, then its text
        if block:
            add(BLOCK_BREAK)
            mark(_BREAK)
        if piece:
            add(piece)
            mark(piece_mode)
    return parts, modes, dropped


def _main_content(parts: list[str], modes: list[int]) -> str:
    """The main content of a page's pieces (:func:`_walk`): the blocks outside furniture that
    are not mostly link text; when that is too little, with the link-dense blocks that have
    words of their own too."""
    kept: list[str] = []
    # ... and with the link-dense blocks that have words of their own besides their links
    # ("FileHandle : XMLFileMgr.hpp", not "Home"): what a page of such entries is about.
    entries: list[str] = []
    pieces: list[str] = []
    links: list[str] = []
    unlinked: list[str] = []  # a block's text outside its links
    for piece, m in zip([*parts, BLOCK_BREAK], [*modes, _BREAK], strict=True):
        if m == _BREAK:
            if pieces:
                text = "".join(pieces)
                if not links or _visible_len("".join(links)) <= LINK_DENSITY * _visible_len(text):
                    kept.append(text)
                    kept.append(BLOCK_BREAK)
                    entries.append(text)
                    entries.append(BLOCK_BREAK)
                elif _OWN_WORD.search("".join(unlinked)):
                    entries.append(text)
                    entries.append(BLOCK_BREAK)
                pieces.clear()
                links.clear()
                unlinked.clear()
        elif m != _BOILER:
            pieces.append(piece)
            (links if m == _LINK else unlinked).append(piece)
    content = join_blocks("".join(kept))
    if _visible_len(content) < MIN_CONTENT_CHARS and len(entries) > len(kept):
        # A page whose text is its entries (an index of members, each a name and a link to
        # where it is declared): they are its content, not only the sentence all such share.
        content = join_blocks("".join(entries))
    return content


_TITLED = "//*[contains(concat(' ', normalize-space(@class), ' '), ' title ')]"


def page_heading(root: Any) -> str:
    """A parsed page's heading: the text of its ``h1``, else of its first element of class
    ``title`` (Doxygen's ``div.title``), white space made single spaces; ``""`` when it has
    none. When a page has several ``h1`` and its ``title`` names none of them (word for word,
    case and punctuation aside: Sphinx ends each heading with a "¶" link), they head its
    sections (mandoc's man pages: "NAME", "SYNOPSIS", ...): none is the page's heading. Of
    several, the first outside the page's furniture is taken (mdBook heads every page with the
    book's name in its ``div.menu-bar``, then the chapter's in ``main``).

    >>> import lxml.html
    >>> page_heading(lxml.html.fromstring(
    ...     '<title>Scopes - The Book</title><div class="menu-bar"><h1>The Book</h1></div>'
    ...     '<main><h1>Scopes</h1></main>'))
    'Scopes'
    """
    h1 = root.findall(".//h1")
    if len(h1) > 1:
        h1.sort(key=_in_furniture)  # stable: the page's own first, each in page order
    el = h1[0] if h1 else None
    if len(h1) > 1:
        title = _words(page_title(root))
        if title.strip() and not any(_words(_spaced(h)) in title for h in h1):
            el = None
    if el is None:
        titled = root.xpath(_TITLED)
        el = titled[0] if titled else None
    if el is None:
        return ""
    name = _spaced(el)
    return name if len(name) <= 300 else ""


def _in_furniture(el: Any) -> bool:
    """Whether an element sits in page furniture (:func:`_is_boilerplate`, itself or an
    ancestor)."""
    return any(_is_boilerplate(a, a.tag) for a in (el, *el.iterancestors())
               if isinstance(a.tag, str))


def page_template(root: Any) -> str:
    """A parsed page's template: ``"template:"`` and a hash of the file names of the style
    sheets it links and of the text of its ``style`` elements, the same on every page that
    one site's generator or theme writes (``../_static/basic.css`` and ``_static/basic.css``
    are one name); of the scripts it loads only when it has no style at all; ``""`` when it
    has neither.

    Scripts name the template only as a last resort, since a generator loads some of them for
    one page alone (rustdoc: each trait page's list of implementors, ``trait.Binary.js``; a
    page with formulas: its typesetter), while every page of a theme wears its style sheets.

    >>> import lxml.html
    >>> one = lxml.html.fromstring('<link rel="stylesheet" href="../_static/a.css?v=2"><p>x')
    >>> two = lxml.html.fromstring('<link rel="Stylesheet" href="_static/a.css">'
    ...                            '<script src="implementors/trait.Binary.js"></script><p>y')
    >>> page_template(one) == page_template(two) != "", page_template(lxml.html.fromstring("<p>z"))
    (True, '')
    """
    styles: set[str] = set()
    scripts: set[str] = set()
    for el in root.iter("link", "script", "style"):
        if el.tag == "style":
            styles.add("style " + " ".join((el.text or "").split()))
            continue
        if el.tag == "link" and "stylesheet" in (el.get("rel") or "").casefold().split():
            ref, names = el.get("href"), styles
        elif el.tag == "script":
            ref, names = el.get("src"), scripts
        else:
            continue
        name = (ref or "").split("#", 1)[0].split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]
        if name:
            names.add(name)
    names = styles or scripts
    if not names:
        return ""
    digest = hashlib.blake2b("\n".join(sorted(names)).encode(), digest_size=8).hexdigest()
    return f"template:{digest}"


def _words(text: str) -> str:
    """A text's words, casefolded, each between single spaces: ``" floating point "``."""
    return " " + " ".join(_WORD.findall(text.casefold())) + " "


_WORD = re.compile(r"\w+")


def _spaced(el: Any) -> str:
    """An element's text, white space made single spaces."""
    return " ".join(el.text_content().split())


def page_title(root: Any) -> str:
    """A parsed page's ``title`` element, white space made single spaces; ``""`` when it has
    none."""
    el = root.find(".//title")
    return "" if el is None else _spaced(el)


HEADING_CHARS = 200
"""How far into a page's main content (characters past its heading's length) the heading is
looked for among its blocks (:func:`named`)."""


def named(name: str, content: str, first: bool = False) -> str:
    """``content`` opened by the page's heading ``name`` as a block of its own: main-content
    detection drops the heading with the page's header (a Javadoc class page's ``h1`` sits in
    ``div.header``), or keeps a line of the header before it (SQLite's tagline, "Small. Fast.
    Reliable."), and a page's name — its first block — is what tells two pages of one template
    apart (:mod:`neardup.verifier.subject`: names compared). A heading that is a block among
    the content's first ones (:data:`HEADING_CHARS`) is added in front, the block left where
    it is (moved instead, the lines before it would change places: copies of one article under
    two sites' bylines align worse); a content that holds it inside an early block (a heading
    run into its paragraph) is left as it is; with ``first`` (a page whose content is its full
    text, navigation first), a heading is added in front of the navigation.

    >>> named("XCOS function", "XCOS function\\n\\nReturns the cosine."), named("XCOS", "Text.")
    ('XCOS function\\n\\nReturns the cosine.', 'XCOS\\n\\nText.')
    >>> named("Option Bar", "Help\\n\\nOption Bar", first=True)
    'Option Bar\\n\\nHelp\\n\\nOption Bar'
    >>> named("join-constraint", "Small. Fast. Reliable.\\n\\njoin-constraint\\n\\nUsed by: expr")
    'join-constraint\\n\\nSmall. Fast. Reliable.\\n\\njoin-constraint\\n\\nUsed by: expr'
    """
    if not name:
        return content
    blocks = content.lstrip().split(BLOCK_BREAK)
    if " ".join(blocks[0].split()) == name:
        return content
    if first:
        return name + BLOCK_BREAK + content if content else name
    seen = 0
    for block in blocks:
        seen += len(block) + len(BLOCK_BREAK)
        if seen > len(name) + HEADING_CHARS:
            break
        if " ".join(block.split()) == name:
            return name + BLOCK_BREAK + content
    if name in " ".join(content[: len(name) + HEADING_CHARS].split()):
        return content
    return name + BLOCK_BREAK + content if content else name


def _visible_len(text: str) -> int:
    return sum(map(len, text.split()))

