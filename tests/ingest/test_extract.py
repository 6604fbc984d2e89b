"""neardup.ingest.extract: parser, dropped content, block breaks, charsets, limits, document_text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from neardup.ingest import extract
from neardup.ingest.errors import DocumentTooLarge, EmptyDocument, ExtractError, ExtractTimeout
from neardup.ingest.extract import decode_html, document_text, document_texts, extract_text

ZH = "中华人民共和国国务院新闻办公室今天发表白皮书，介绍了我国的经济发展情况。这是第二句话！"


def test_scripts_styles_comments_dropped_tails_kept() -> None:
    html = (
        "<html><head><title>T</title><style>p{color:red}</style>"
        "<script>var x = 1;</script></head><body><p>before<script>evil()</script>after"
        "<!-- a comment -->tail<noscript>enable js</noscript> end</p>"
        "<template><p>hidden</p></template></body></html>"
    )
    assert extract_text(html) == "beforeaftertail end"


def test_block_elements_become_paragraph_breaks() -> None:
    # Blocks end with a blank line: a single newline is a soft wrap (see neardup.ingest.sentences).
    html = (
        "<div>one<br>two</div><p>three <b>bold</b> four</p><ul><li>a</li><li>b</li></ul>"
        "<table><tr><td>c1</td><td>c2</td></tr></table><h2>head</h2><pre>code</pre>"
    )
    assert extract_text(html).split("\n\n") == [
        "one", "two", "three bold four", "a", "b", "c1", "c2", "head", "code",
    ]  # fmt: skip


def test_gbk_page_with_meta_charset_decodes_as_gb18030() -> None:
    # "€" is GB18030-only (0x80 in cp936): a GB2312 label must still decode it.
    body = f"<p>{ZH}</p><p>欧元符号€与𠀀</p>"
    data = f'<html><head><meta charset="gb2312"></head><body>{body}</body></html>'.encode("gb18030")
    text = extract_text(data)
    assert ZH in text and "欧元符号€与𠀀" in text


def test_http_equiv_and_header_hint() -> None:
    page = (
        '<html><head><meta http-equiv="Content-Type" content="text/html; charset=GBK">'
        f"</head><body><p>{ZH}</p></body></html>"
    )
    assert ZH in extract_text(page.encode("gbk"))
    bare = f"<html><body><p>{ZH}</p></body></html>".encode("gbk")
    assert ZH in extract_text(bare, content_type="text/html; charset=gb2312")


def test_undeclared_gbk_page_is_detected() -> None:
    paragraphs = "".join(f"<p>{ZH}</p>" for _ in range(3))
    data = f"<html><body>{paragraphs}</body></html>".encode("gbk")
    assert ZH in extract_text(data)


def test_bom_and_utf8() -> None:
    assert extract_text("\ufeff<p>héllo</p>".encode()) == "héllo"
    assert extract_text("<p>héllo 中文</p>".encode()) == "héllo 中文"
    assert decode_html(b"\xff\xfe" + "<p>x</p>".encode("utf-16-le")) == "<p>x</p>"


def test_empty_and_text_free_pages() -> None:
    assert extract_text("") == ""
    assert extract_text(b"   ") == ""
    assert extract_text("<!-- only a comment -->") == ""
    assert extract_text("<script>x()</script>") == ""


def test_xml_declaration_in_str() -> None:
    assert extract_text('<?xml version="1.0" encoding="utf-8"?><html><p>hi</p></html>') == "hi"


def test_size_limit() -> None:
    with pytest.raises(DocumentTooLarge) as err:
        extract_text(b"<p>" + b"x" * 2000 + b"</p>", max_bytes=1000, doc_id="d1")
    assert err.value.doc_id == "d1" and "d1" in str(err.value)
    with pytest.raises(DocumentTooLarge):
        extract_text("<p>" + "中" * 400 + "</p>", max_bytes=1000)  # UTF-8 bytes, not chars
    assert isinstance(err.value, ExtractError)


def test_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    html = "<div>" + "<p>x</p>" * 10_000 + "</div>"
    with pytest.raises(ExtractTimeout) as err:
        extract_text(html, timeout=0.0, doc_id="slow")
    assert err.value.doc_id == "slow"
    # A clock that jumps during the tree walk: the walk checks the deadline as it goes.
    ticks = iter([0.0, 0.0, 0.0] + [100.0] * 100)
    monkeypatch.setattr(extract.time, "monotonic", lambda: next(ticks))
    with pytest.raises(ExtractTimeout, match="walking"):
        extract_text(html, timeout=5.0)


def test_to_simplified() -> None:
    pytest.importorskip("opencc")
    assert extract_text("<p>漢字簡體轉換</p>", to_simplified=True) == "汉字简体转换"


def test_document_text() -> None:
    assert document_text({"id": "a", "text": "plain"}) == "plain"
    assert document_text({"id": "a", "html": "<p>x</p><p>y</p>"}) == "x\n\ny"
    assert ZH in document_text({"id": "a", "html": f"<p>{ZH}</p>".encode("gb18030"),
                                "content_type": "text/html; charset=gbk"})  # fmt: skip
    with pytest.raises(EmptyDocument) as err:
        document_text({"id": "e1"})
    assert err.value.doc_id == "e1"
    with pytest.raises(EmptyDocument):
        document_text({"id": "e2", "html": "<script>only()</script>"})
    with pytest.raises(ExtractError):
        document_text({"id": "e3", "html": 42})
    with pytest.raises(DocumentTooLarge):
        document_text({"id": "big", "html": "<p>" + "x" * 100 + "</p>"}, max_bytes=50)


# --------------------------------------------------------------------------------------------
# reStructuredText and Markdown sources
# --------------------------------------------------------------------------------------------

SPHINX_RST = """\
:mod:`os.path` --- Common pathname manipulations
================================================

.. module:: os.path
   :synopsis: Operations on pathnames.

.. index:: single: path; operations

This module implements functions on pathnames; see :func:`open` and
:class:`~os.PathLike`, or :ref:`the guide <path-guide>` and :c:func:`!PyOS_FSPath`.

.. function:: join(path, *paths)
   :noindex:

   Join one or more path segments *intelligently*.

   .. versionchanged:: 3.6
      Accepts a :term:`path-like object`.

.. code-block:: python3
   :linenos:

   >>> os.path.join("a", "b")

.. toctree::
   :maxdepth: 2

   intro
"""


def test_rst_sphinx_roles_and_directives() -> None:
    text = extract.rst_text(SPHINX_RST)
    assert text.split("\n\n") == [
        "os.path --- Common pathname manipulations",
        "This module implements functions on pathnames; see open and\n"
        "PathLike, or the guide and PyOS_FSPath.",
        "join(path, *paths)",
        "Join one or more path segments intelligently.",
        "Changed in version 3.6: Accepts a path-like object.",
        '>>> os.path.join("a", "b")',
    ]


def test_rst_is_silent_and_permissive(capsys: pytest.CaptureFixture[str]) -> None:
    source = (
        "Broken `link`_, |undefined| substitution, :unknown:`role`, **unclosed\n\n"
        ".. unknown-directive:: arg\n   :opt: 1\n\n   Body text.\n\n"
        ".. raw:: html\n\n   <b>raw</b>\n\n.. include:: /etc/passwd\n\n"
        "Title\n===\n\n* list\n\n  - nested\n\n"
    )
    text = extract.rst_text(source)
    assert "Body text." in text and "arg" in text and "role" in text
    assert "<b>" not in text and "root:" not in text and ":opt:" not in text
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""
    # the source of a construct docutils cannot parse stays; file-wide metadata goes (Sphinx)
    assert extract.rst_text("+---+---+\n| a | b |\n+---+\n\nAfter.") == (
        "+---+---+\n| a | b |\n+---+\n\nAfter."
    )
    assert extract.rst_text(":orphan:\n:tocdepth: 2\n\nBody.") == "Body."


def test_rst_errors_are_per_document(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ExtractError, match="'rst' must be a string") as err:
        document_text({"id": "r1", "rst": 42})
    assert err.value.doc_id == "r1"
    with pytest.raises(EmptyDocument):
        document_text({"id": "r2", "rst": ".. index:: only\n"})
    with pytest.raises(DocumentTooLarge):
        document_text({"id": "r3", "rst": "x" * 100}, max_bytes=50)

    def broken(*args: object, **kwargs: object) -> None:
        raise RecursionError("too deep")

    import docutils.core

    monkeypatch.setattr(docutils.core, "publish_doctree", broken)
    with pytest.raises(ExtractError, match="reStructuredText") as err:
        document_text({"id": "r4", "rst": "text"})
    assert err.value.doc_id == "r4"


def test_rst_does_not_change_other_docutils_users() -> None:
    from docutils.core import publish_doctree

    extract.rst_text("warm up")
    tree = publish_doctree(
        ".. unknown-directive:: x\n",
        settings_overrides={"report_level": 5, "_disable_config": True},
    )
    assert "Unknown directive type" in tree.astext()


def test_document_text_markup_fields() -> None:
    assert (
        document_text({"id": "a", "rst": "One *two*.\n\nThree ``four``."})
        == "One two.\n\nThree four."
    )
    md = (
        "# Title\n\nSome *text*\nwrapped.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```py\nx = 1\n```\n"
    )
    assert document_text({"id": "m", "markdown": md}).split("\n\n") == [
        "Title", "Some text\nwrapped.", "a", "b", "1", "2", "x = 1",
    ]  # fmt: skip
    # Precedence: text, html, rst, markdown.
    assert document_text({"text": "t", "html": "<p>h</p>", "rst": "r"}) == "t"
    assert document_text({"html": "<p>h</p>", "rst": "r"}) == "h"
    with pytest.raises(ExtractError, match="'markdown' must be a string"):
        document_text({"markdown": ["x"]})


# --------------------------------------------------------------------------------------------
# Main content (what fingerprints are computed from)
# --------------------------------------------------------------------------------------------

ARTICLE = "<p>" + "A sentence of the article that carries its content. " * 4 + "</p>"


def _page(body: str) -> str:
    return (
        '<html><body><header><a href="/">Site</a> Site slogan text here</header>'
        '<ul class="nav"><li><a href="/a">World</a></li><li><a href="/b">Business</a></li></ul>'
        '<div id="sidebar"><h3>Most read</h3><p>Sidebar teaser that is plain text.</p></div>'
        f'<div class="content main">{body}</div>'
        '<div role="navigation"><p>Previous topic and next topic</p></div>'
        "<ul><li><a href='/1'>Linked headline one</a></li><li><a href='/2'>Headline two</a></li></ul>"
        "<p>Read <a href='/x'>more</a> of this paragraph, which is mostly plain text.</p>"
        "<footer>Copyright 2008 Site. All rights reserved.</footer></body></html>"
    )


def test_extract_texts_full_text_and_main_content() -> None:
    page = _page(ARTICLE)
    both = extract.extract_texts(page)
    assert both.text == extract_text(page)  # the full text is unchanged
    assert "Copyright" in both.text and "Most read" in both.text
    assert both.content.split("\n\n") == [
        ARTICLE[3:-4].strip(),
        "Read more of this paragraph, which is mostly plain text.",
    ]


def test_content_falls_back_to_the_full_text_when_nothing_is_left() -> None:
    page = "<nav><p>" + "Only navigation on this page. " * 20 + "</p></nav><p>Tiny.</p>"
    both = extract.extract_texts(page)
    assert both.content == both.text
    # ... but a short article (>= MIN_CONTENT_CHARS) on a large template is kept as it is
    short = "A short article of three sentences. It has some words. And a third one."
    big = _page(f"<p>{short}</p>").replace(
        "Sidebar teaser that is plain text.", "Sidebar teaser. " * 200
    )
    assert extract.extract_texts(big).content.startswith(short)


def test_document_texts() -> None:
    assert document_texts({"text": "plain"}) == extract.DocumentText("plain", "plain")
    assert document_texts({"rst": "Some *text*."}).content == "Some text."
    both = document_texts({"id": "p", "html": _page(ARTICLE)})
    assert both.text == document_text({"id": "p", "html": _page(ARTICLE)})
    assert "Copyright" not in both.content
    with pytest.raises(EmptyDocument) as err:
        document_texts({"id": "e", "html": "<script>x</script>"})
    assert err.value.doc_id == "e"
    with pytest.raises(ExtractTimeout):
        extract.extract_texts("<div>" + "<p>x</p>" * 10_000 + "</div>", timeout=0.0)


_TAGS = ["div", "p", "a", "span", "nav", "footer", "li", "ul", "script", "aside", "b", "td"]
_ATTRS = ["", ' class="sidebar"', ' class="main-content"', ' role="navigation"', ' id="menu"']


@st.composite
def _html(draw: st.DrawFn, depth: int = 0) -> str:
    parts = []
    for _ in range(draw(st.integers(0, 4))):
        if depth < 4 and draw(st.booleans()):
            tag, attr = draw(st.sampled_from(_TAGS)), draw(st.sampled_from(_ATTRS))
            parts.append(f"<{tag}{attr}>{draw(_html(depth + 1))}</{tag}>")
        else:
            parts.append(
                draw(st.sampled_from(["text. ", "Ünïcode 中文。", "\n", "<!-- c -->", "x" * 120]))
            )
    return "".join(parts)


@settings(max_examples=200, deadline=None)
@given(_html())
def test_extract_texts_keeps_the_full_text_and_takes_content_from_it(html: str) -> None:
    both = extract.extract_texts(html)
    assert both.text == extract_text(html)
    blocks = set(both.text.split("\n\n"))
    # the content is made of whole blocks of the full text (or is the full text)
    assert both.content == both.text or all(
        b in blocks or b in both.text for b in both.content.split("\n\n")
    )
