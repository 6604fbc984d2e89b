"""neardup.ingest.extract.html: the parser, dropped content, block breaks, empty pages, limits."""

from __future__ import annotations

import time

import pytest

from neardup.ingest.errors import DocumentTooLarge, ExtractError, ExtractTimeout
from neardup.ingest.extract import extract_text


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
    monkeypatch.setattr(time, "monotonic", lambda: next(ticks))
    with pytest.raises(ExtractTimeout, match="walking"):
        extract_text(html, timeout=5.0)


def test_to_simplified() -> None:
    pytest.importorskip("opencc")
    assert extract_text("<p>漢字簡體轉換</p>", to_simplified=True) == "汉字简体转换"
