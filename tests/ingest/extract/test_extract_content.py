"""neardup.ingest.extract.content: the main content (what fingerprints are computed from)."""

from __future__ import annotations

import lxml.html
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.ingest.errors import EmptyDocument, ExtractTimeout
from neardup.ingest.extract import (
    ExtractedText,
    document_text,
    document_texts,
    extract_text,
    extract_texts,
)
from neardup.ingest.extract.content import page_heading

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
    both = extract_texts(page)
    assert both.text == extract_text(page)  # the full text is unchanged
    assert "Copyright" in both.text and "Most read" in both.text
    assert both.content.split("\n\n") == [
        ARTICLE[3:-4].strip(),
        "Read more of this paragraph, which is mostly plain text.",
    ]


def test_content_falls_back_to_the_full_text_when_nothing_is_left() -> None:
    page = "<nav><p>" + "Only navigation on this page. " * 20 + "</p></nav><p>Tiny.</p>"
    both = extract_texts(page)
    assert both.content == both.text
    # ... but a short article (>= MIN_CONTENT_CHARS) on a large template is kept as it is
    short = "A short article of three sentences. It has some words. And a third one."
    big = _page(f"<p>{short}</p>").replace(
        "Sidebar teaser that is plain text.", "Sidebar teaser. " * 200
    )
    assert extract_texts(big).content.startswith(short)


def test_document_texts() -> None:
    assert document_texts({"text": "plain"}) == ExtractedText("plain", "plain")
    assert document_texts({"rst": "Some *text*."}).content == "Some text."
    both = document_texts({"id": "p", "html": _page(ARTICLE)})
    assert both.text == document_text({"id": "p", "html": _page(ARTICLE)})
    assert "Copyright" not in both.content
    with pytest.raises(EmptyDocument) as err:
        document_texts({"id": "e", "html": "<script>x</script>"})
    assert err.value.doc_id == "e"
    with pytest.raises(ExtractTimeout):
        extract_texts("<div>" + "<p>x</p>" * 10_000 + "</div>", timeout=0.0)


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
    both = extract_texts(html)
    assert both.text == extract_text(html)
    blocks = set(both.text.split("\n\n"))
    # the content is made of whole blocks of the full text (or is the full text)
    assert both.content == both.text or all(
        b in blocks or b in both.text for b in both.content.split("\n\n")
    )


@pytest.mark.parametrize(
    ("page", "heading"),
    [
        # Sphinx: several h1, each ending in its "¶" link; the title names the first
        (
            "<title>Slice Objects — Python 3.11 documentation</title>"
            "<h1>Slice Objects<a class='headerlink' href='#s'>¶</a></h1>"
            "<h1>Ellipsis Object<a class='headerlink' href='#e'>¶</a></h1>",
            "Slice Objects¶",
        ),
        # mandoc: several h1 naming sections, none in the title
        ("<title>CURL(1)</title><h1>NAME</h1><h1>SYNOPSIS</h1>", ""),
        ("<title>Page</title><h1>One h1</h1>", "One h1"),
        ("<div class='title'>Doxygen's title</div>", "Doxygen's title"),
    ],
)
def test_page_heading(page: str, heading: str) -> None:
    assert page_heading(lxml.html.fromstring(f"<html><body>{page}</body></html>")) == heading
