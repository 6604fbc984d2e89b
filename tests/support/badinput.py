"""The bad-input corpus: every kind of bad (or awkward but good) input neardup was tried with,
each with the result it must get on every path (docs/limits.md).

A case is one JSONL record as bytes and what must come of it: ``"ok"`` (a document), or the
``type`` of its per-record error. Paths that read a record differently say so: ``compare``
reads each record as side ``b`` of a pair and no id at all; the HTTP service answers a
repeated id as a re-send (``noop`` for the same page, 200 ``updated`` for another: a new
version, staged for a repair).

The corpus runs with a page limit of :data:`PAGE_LIMIT` (``NEARDUP_MAX_DOC_BYTES``), so the
records over it stay small. It grows with every bug: a new kind of bad input gets its case
here first (tests/ingest/test_bad_input_corpus.py, tests/integration/test_bad_input_stack.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

PAGE_LIMIT = 64 * 1024  # NEARDUP_MAX_DOC_BYTES for the corpus runs
RECORD_LIMIT = 4 * PAGE_LIMIT

ARTICLE = (
    "The harbour authority confirmed on Monday that the northern pier will close in March. "
    "Repairs to the sea wall are expected to take eleven weeks and cost four million euros. "
    "Ferries to the islands will leave from the southern berth until the work is finished."
)
ZH = "新华社北京一月一日电 今天是新年的第一天，首都各界群众欢聚一堂，庆祝新年的到来。" * 3
OK = "ok"


@dataclass(frozen=True)
class Case:
    name: str
    raw: bytes  # one JSONL line, without its line end
    expect: str  # "ok" or the error type, for dedup / ingest / POST /documents
    compare: str | None = None  # the expectation as side "b" of a compare pair, when it differs
    http: str | int | None = None  # the HTTP item's result when it differs ("noop", 200)
    text: str | None = None  # a piece of text the document's body must hold (full text kept)

    @property
    def compare_expect(self) -> str:
        return self.compare if self.compare is not None else self.expect


def _j(**obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False).encode()


def _deep_json(levels: int) -> bytes:
    return b'{"id": "deep-%d", "text": "%s", "meta": %s}' % (
        levels, ARTICLE.encode(), b"[" * levels + b"]" * levels
    )


def _deep_html(levels: int) -> str:
    return f"<html><body><p>{ARTICLE}</p>" + "<div>" * levels + "deep inside the page" + (
        "</div>" * levels) + "<p>after the deep part</p></body></html>"


CASES: list[Case] = [
    # --- good records, some awkward -------------------------------------------------------
    Case("plain", _j(id="plain", text=ARTICLE), OK),
    Case("chinese", _j(id="chinese", text=ZH, site="news.example.cn"), OK),
    Case("html", _j(id="html", html=f"<html><body><p>{ARTICLE}</p></body></html>"), OK),
    Case("rst", _j(id="rst", rst=f"Title\n=====\n\nSee :func:`len`.\n\n{ARTICLE}\n"), OK),
    Case("markdown", _j(id="markdown", markdown=f"# Title\n\n{ARTICLE}\n\n- a\n- b\n"), OK),
    Case("broken-html", _j(id="broken-html", html=f"<p><b>{ARTICLE}<td></tr><i>"), OK),
    Case("xml-declaration", _j(id="xml-decl", html=f'<?xml version="1.0" encoding="gbk"?>'
                                                   f"<html><p>{ARTICLE}</p></html>"), OK),
    Case("integer-id", _j(id=424242, text=ARTICLE + " 424242"), OK),
    Case("query-metacharacter-id", _j(id='q*"/ 中文 id', text=ARTICLE + " q"), OK),
    Case("path-metacharacter-id", _j(id="a/b/../c?#&%+=;", text=ARTICLE + " p"), OK),
    Case("reserved-looking-id", _j(id="_all", text=ARTICLE + " _all"), OK),
    Case("backslash-id", _j(id="back\\slash", text=ARTICLE + " b"), OK),
    Case("emoji-id", _j(id="💡 ünïcödé 标识", text=ARTICLE + " e"), OK),
    Case("id-512-bytes", _j(id="中" * 170 + "ab", text=ARTICLE + " long id"), OK),
    Case("bom", b"\xef\xbb\xbf" + _j(id="bom", text=ARTICLE + " bom"), OK, compare="parse_exception"),
    Case("crlf", _j(id="crlf", text=ARTICLE + " crlf") + b"\r", OK),
    Case("lone-surrogate-in-text", b'{"id": "surrogate-text", "text": "' + ARTICLE.encode()
         + b' \\ud800 end", "title": "t\\udc00"}', OK, text="\ufffd end"),
    Case("few-control-characters", _j(id="controls", text=ARTICLE + "\x00\x1b tail"), OK),
    Case("javascript-url", _j(id="js-url", text=ARTICLE + " js", url="javascript:alert(1)"), OK),
    Case("numeric-title", _j(id="num-title", text=ARTICLE + " t", title=2024), OK),
    Case("unknown-fields", _j(id="extra", text=ARTICLE + " x", fingerprints=["x"], seq=-1,
                              dup_group="evil", nested={"a": [1, 2, {"b": None}]}), OK),
    Case("text-at-the-page-limit", _j(id="at-limit", text="x" * (PAGE_LIMIT - 100) + " end."),
         OK),
    Case("html-300-deep", _j(id="html-300-deep", html=_deep_html(300)), OK,
         text="deep inside the page"),
    Case("html-5000-deep", _j(id="html-5000-deep", html=_deep_html(5000)), OK,
         text="after the deep part"),
    Case("json-99-deep", _deep_json(98), OK),
    # --- bad records: decoding ----------------------------------------------------------
    Case("not-json", b"{not json", "parse_exception"),
    Case("json-array", b"[1, 2, 3]", "parse_exception", compare="illegal_argument_exception"),
    Case("json-string", b'"just a string"', "parse_exception",
         compare="illegal_argument_exception"),
    Case("json-number", b"42", "parse_exception", compare="illegal_argument_exception"),
    Case("json-null", b"null", "parse_exception", compare="illegal_argument_exception"),
    Case("binary", b"\xff\xfe\x00\x81 binary junk \x9c", "parse_exception"),
    Case("gbk-without-meta", _j(id="gbk", text="x").replace(b'"x"', '"新华社北京电"'.encode("gbk")),
         "parse_exception"),
    Case("truncated", _j(id="cut", text=ARTICLE)[:40], "parse_exception"),
    Case("json-600-deep", _deep_json(600), "parse_exception"),
    Case("json-5000-deep", _deep_json(5000), "parse_exception"),
    Case("nan", b'{"id": "nan", "text": "x", "score": NaN}', "parse_exception"),
    Case("infinity", b'{"id": "inf", "text": "x", "score": -Infinity}', "parse_exception"),
    Case("duplicate-key", b'{"id": "a", "id": "b", "text": "x"}', "parse_exception"),
    Case("huge-integer", b'{"id": "bigint", "text": "x", "n": ' + b"9" * 5000 + b"}",
         "parse_exception"),
    Case("record-over-the-limit", _j(id="record-too-large", text="\x01" * (RECORD_LIMIT // 5)),
         "document_too_large"),
    # --- bad records: the id ------------------------------------------------------------
    Case("missing-id", _j(text=ARTICLE), "illegal_argument_exception", compare=OK),
    Case("null-id", _j(id=None, text=ARTICLE), "illegal_argument_exception", compare=OK),
    Case("empty-id", _j(id="", text=ARTICLE), "illegal_argument_exception", compare=OK),
    Case("blank-id", _j(id="  \t", text=ARTICLE), "illegal_argument_exception", compare=OK),
    Case("boolean-id", _j(id=True, text=ARTICLE), "illegal_argument_exception", compare=OK),
    Case("float-id", _j(id=7.5, text=ARTICLE), "illegal_argument_exception", compare=OK),
    Case("array-id", _j(id=["a"], text=ARTICLE), "illegal_argument_exception", compare=OK),
    Case("object-id", _j(id={"a": 1}, text=ARTICLE), "illegal_argument_exception", compare=OK),
    Case("id-over-512-bytes", _j(id="i" * 600, text=ARTICLE), "illegal_argument_exception",
         compare=OK),
    Case("lone-surrogate-id", b'{"id": "\\ud800", "text": "' + ARTICLE.encode() + b'"}',
         "illegal_argument_exception", compare=OK),
    Case("duplicate-id-same-page", _j(id="plain", text=ARTICLE), "duplicate_id", compare=OK,
         http="noop"),
    Case("duplicate-id-other-page", _j(id="plain", text=ARTICLE + " changed"), "duplicate_id",
         compare=OK, http=200),
    # --- bad records: the content -------------------------------------------------------
    Case("no-content-field", _j(id="no-text", url="http://x/"), "empty_document"),
    Case("null-content", _j(id="null-text", text=None, html=None), "empty_document"),
    Case("empty-text", _j(id="empty-text", text=""), "empty_document"),
    Case("blank-text", _j(id="blank-text", text=" \n\t "), "empty_document"),
    Case("text-not-a-string", _j(id="text-list", text=["a", "b"]), "illegal_argument_exception"),
    Case("html-not-a-string", _j(id="html-number", html=42), "illegal_argument_exception"),
    Case("script-only-html", _j(id="script-only", html="<script>var x = 1;</script>"),
         "empty_document"),
    Case("binary-junk-text", _j(id="junk", text="\x00\x01\x02\x03\x04" * 400), "extract_error"),
    Case("text-over-the-page-limit", _j(id="text-too-large", text="y" * (PAGE_LIMIT + 1)),
         "document_too_large"),
    Case("html-over-the-page-limit",
         _j(id="html-too-large", html="<p>" + "z" * PAGE_LIMIT + "</p>"), "document_too_large"),
    Case("url-not-a-string", _j(id="url-list", text=ARTICLE, url=["http://x/"]),
         "illegal_argument_exception"),
    Case("site-over-8-kib", _j(id="site-long", text=ARTICLE, site="s" * 9000),
         "illegal_argument_exception"),
]


def jsonl(cases: list[Case] | None = None) -> bytes:
    """The corpus as one JSONL file, with blank lines between some records (not records)."""
    out: list[bytes] = []
    for n, case in enumerate(cases or CASES):
        out.append(case.raw + b"\n")
        if n % 7 == 3:
            out.append(b"\n   \n")
    return b"".join(out)


def line_numbers(cases: list[Case] | None = None) -> list[int]:
    """The line of each case in :func:`jsonl`."""
    numbers, line = [], 1
    for n, _ in enumerate(cases or CASES):
        numbers.append(line)
        line += 3 if n % 7 == 3 else 1
    return numbers


def pairs_jsonl(cases: list[Case] | None = None) -> bytes:
    """Each case as side ``b`` of a compare pair (side ``a`` a good page), the raw bytes kept."""
    return b"".join(
        b'{"case": "' + case.name.encode() + b'", "a": {"text": "' + ARTICLE.encode()
        + b'"}, "b": ' + case.raw + b"}\n"
        for case in cases or CASES
    )
