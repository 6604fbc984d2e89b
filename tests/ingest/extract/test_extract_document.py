"""neardup.ingest.extract.document: the text of a JSONL document, from its markup fields."""

from __future__ import annotations

import pytest

from neardup.ingest.errors import DocumentTooLarge, EmptyDocument, ExtractError
from neardup.ingest.extract import document_text

ZH = "中华人民共和国国务院新闻办公室今天发表白皮书，介绍了我国的经济发展情况。这是第二句话！"



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
