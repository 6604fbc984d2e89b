"""neardup.ingest.extract.charset: BOMs, HTTP and meta charset hints, detection, the GB family."""

from __future__ import annotations

from neardup.ingest.extract import decode_html, extract_text

ZH = "中华人民共和国国务院新闻办公室今天发表白皮书，介绍了我国的经济发展情况。这是第二句话！"



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
