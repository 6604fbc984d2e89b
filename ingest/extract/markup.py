"""Markup sources → plain text (:func:`rst_text`, :func:`markdown_text`; JSONL fields ``rst`` and
``markdown``).

reStructuredText is parsed with docutils and its document tree written out as plain text,
blocks apart by a blank line as for HTML. Parsing is permissive, for Sphinx sources: an unknown
interpreted-text role shows its text as Sphinx would (``:func:`~a.b``` → ``b``,
``:ref:`title <label>``` → ``title``), an unknown directive shows its argument and parses its
content (``.. function:: f(x)``), code-like directives (``code-block``, ``doctest``, …) keep
their content as a literal block, and directives that render nothing (``index``, ``toctree``,
``module``, …) are dropped, as are file-wide metadata fields (``:orphan:``, ``:tocdepth:``:
docinfo, which Sphinx does not render). Docutils' diagnostics are silenced — but the source of
a construct it cannot parse (a malformed table) is kept as text — its configuration files
ignored, and file inclusion and ``raw`` are disabled. Markdown (CommonMark + tables,
markdown-it-py) is rendered to HTML and extracted as HTML. Both libraries load on first use.
"""

from __future__ import annotations

import re
import types
from functools import lru_cache
from typing import Any

from neardup.ingest.errors import ExtractError
from neardup.ingest.extract.blocks import BLOCK_BREAK, join_blocks
from neardup.ingest.extract.content import extract_text
from neardup.ingest.extract.limits import DEFAULT_MAX_BYTES, check_size
from neardup.ingest.extract.optional import optional_import

__all__ = ["markdown_text", "rst_text"]

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
    optional_import("docutils", "reStructuredText input", "docutils")
    from docutils import nodes
    from docutils.parsers.rst import Directive, directives, states

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
    check_size(source, max_bytes, doc_id)
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
    return join_blocks(BLOCK_BREAK.join(blocks))


class _NullStream:
    def write(self, data: str) -> int:
        return len(data)

    def flush(self) -> None:
        pass


@lru_cache(maxsize=1)
def _markdown() -> Any:
    markdown_it = optional_import("markdown_it", "Markdown input", "markdown-it-py")
    # CommonMark plus tables and strikethrough; raw HTML in the source is rendered as HTML.
    return markdown_it.MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])


def markdown_text(
    source: str, *, max_bytes: int = DEFAULT_MAX_BYTES, doc_id: str | None = None
) -> str:
    """Plain text of a Markdown document: rendered to HTML, then :func:`extract_text`.

    >>> markdown_text("# Title\\n\\nSome *text*\\nwrapped.\\n\\n- a\\n- b\\n")
    'Title\\n\\nSome text\\nwrapped.\\n\\na\\n\\nb'
    """
    check_size(source, max_bytes, doc_id)
    if not source.strip():
        return ""
    try:
        html = _markdown().render(source)
    except Exception as exc:
        raise ExtractError(f"Markdown could not be rendered: {exc!r}", doc_id) from None
    return extract_text(html, max_bytes=max(max_bytes, 4 * len(html)), doc_id=doc_id)
