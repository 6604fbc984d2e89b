"""neardup.ingest.pipeline: line validation, per-document errors, order and seq (no network)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.wait import wait_for

from neardup.ingest.errors import ConfigError, DocumentError, EmptyDocument, ExtractError
from neardup.ingest.pipeline import (
    MAX_ID_BYTES,
    Prepared,
    fingerprint_config,
    prepare_document,
    prepare_lines,
    read_lines,
)
from neardup.ingest.records import Limits

ARTICLE = "新华社北京一月一日电 今天是新年的第一天，首都各界群众欢聚一堂，庆祝新年的到来。" * 12
CONFIG = fingerprint_config("web")


def line(**obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False).encode()


def prepare(lines: list[bytes | str], **kwargs: Any) -> list[Prepared]:
    return list(prepare_lines(enumerate(lines, 1), CONFIG, **kwargs))


# --- reading lines (the input layer, neardup.ingest.records, through the pipeline) ----------------------


def one(raw: bytes | str) -> Prepared:
    (p,) = prepare([raw])
    return p


def test_a_line_becomes_a_document() -> None:
    p = one(line(id="a", text=ARTICLE))
    assert (p.id, p.error) == ("a", None) and p.doc is not None and "新年" in p.doc.body
    assert one(json.dumps({"id": "a", "text": ARTICLE})).ok  # str input too


@pytest.mark.parametrize(
    ("raw", "expected_id", "kind", "message"),
    [
        (b"{not json", None, "parse_exception", "invalid JSON"),
        (b"[1, 2]", None, "parse_exception", "must be a JSON object, got an array"),
        (b'"text"', None, "parse_exception", "must be a JSON object, got a string"),
        (line(text="no id"), None, "illegal_argument_exception", "missing 'id'"),
        (line(id=None, text="x"), None, "illegal_argument_exception", "missing 'id'"),
        (line(id=7.5, text="x"), None, "illegal_argument_exception",
         "'id' must be a string or an integer, got a number"),
        (line(id=True, text="x"), None, "illegal_argument_exception", "got a boolean"),
        (line(id=["a"], text="x"), None, "illegal_argument_exception", "got an array"),
        (line(id="", text="x"), None, "illegal_argument_exception", "'id' is empty"),
        (line(id="   ", text="x"), None, "illegal_argument_exception", "'id' is empty"),
        (b"\xff\xfe binary", None, "parse_exception", "not UTF-8"),
        (b'{"id": "\\ud800", "text": "x"}', None, "illegal_argument_exception", "lone surrogate"),
        (b'{"id": "a", "text": "x", "n": NaN}', None, "parse_exception", "NaN is not JSON"),
        (b'{"id": "a", "id": "b", "text": "x"}', None, "parse_exception", "duplicate key"),
        (b'{"id": "a", "text": "x", "n": ' + b"1" * 5000 + b"}", None, "parse_exception",
         "invalid JSON"),
        (b'{"id": "a", "text": "x", "deep": ' + b"[" * 500 + b"]" * 500 + b"}", None,
         "parse_exception", "nested deeper than 100 levels"),
    ],
)
def test_line_errors(raw: bytes, expected_id: str | None, kind: str, message: str) -> None:
    p = one(raw)
    assert p.doc is None and p.id == expected_id and p.error_type == kind
    assert p.error is not None and message in p.error, p.error


def test_integer_ids_are_their_decimal_digits() -> None:
    out = prepare([line(id=7, text=ARTICLE), line(id="7", text=ARTICLE + "变")])
    assert out[0].ok and out[0].id == "7" and out[0].doc is not None and out[0].doc.id == "7"
    assert out[1].error_type == "duplicate_id" and "first seen on line 1" in (out[1].error or "")


def test_id_length_limit_counts_utf8_bytes() -> None:
    ok = "中" * (MAX_ID_BYTES // 3)  # 3 bytes each
    assert one(line(id=ok, text=ARTICLE)).ok
    p = one(line(id=ok + "中", text=ARTICLE))
    assert not p.ok and p.error is not None and f"at most {MAX_ID_BYTES}" in p.error


@pytest.mark.parametrize("doc_id", ['q*"/ x', "a b", "中文/标识", "a\\b", "?*[]{}~^:!", "💡"])
def test_query_metacharacters_are_plain_ids(doc_id: str) -> None:
    p = one(line(id=doc_id, text=ARTICLE))
    assert (p.id, p.error) == (doc_id, None) and p.ok


def test_too_large_page_is_an_error_with_its_id() -> None:
    limits = Limits(max_doc_bytes=1000)
    (p,) = prepare([line(id='big "one"', text="x" * 2000)], limits=limits)
    assert p.id == 'big "one"' and p.error_type == "document_too_large"
    assert p.error is not None and "exceeds the 1000-byte limit" in p.error
    assert p.error.startswith('big "one"')
    # over the record limit (4 × the page limit): not even parsed, the id read from its head
    (p,) = prepare([line(id="huge", text="x" * 5000)], limits=limits)
    assert p.id == "huge" and p.error_type == "document_too_large" and "record of" in (p.error or "")


# --- prepare_document ---------------------------------------------------------------------------


def test_prepare_document_fingerprints_and_keeps_metadata() -> None:
    doc = prepare_document(
        {"id": "a", "text": ARTICLE, "url": "http://x/", "site": "x", "title": 5}, 42, CONFIG
    )
    assert (doc.id, doc.seq, doc.url, doc.site, doc.title) == ("a", 42, "http://x/", "x", "5")
    assert doc.fingerprints and doc.fp_config == CONFIG.identity
    assert doc.body.strip()


def test_prepare_document_from_html() -> None:
    html = f"<html><body><p>{ARTICLE}</p><script>var x = 1;</script></body></html>"
    doc = prepare_document({"id": "h", "html": html}, 1, CONFIG)
    assert "新年" in doc.body and "var x" not in doc.body


def test_prepare_document_fingerprints_the_main_content_and_stores_the_whole_text() -> None:
    nav = "".join(f'<li><a href="/{i}">栏目{i}频道新闻首页导航链接</a></li>' for i in range(12))
    footer = "版权所有 本网站所有内容未经书面授权不得转载，违者必究。联系电话：010-12345678。"
    page = f"<html><body><nav><ul>{nav}</ul></nav><p>{ARTICLE}</p><footer>{footer}</footer></body></html>"
    doc = prepare_document({"id": "h", "html": page}, 1, CONFIG)
    plain = prepare_document({"id": "t", "text": ARTICLE}, 1, CONFIG)
    assert "栏目3" in doc.body and "版权所有" in doc.body  # stored and verified as a whole
    assert doc.fingerprints == plain.fingerprints  # fingerprinted without the template


def test_prepare_document_from_rst() -> None:
    source = f"Title\n=====\n\nSee :func:`len` and ``x``.\n\n{ARTICLE}\n"
    doc = prepare_document({"id": "r", "rst": source}, 1, CONFIG)
    assert ":func:" not in doc.body and "len" in doc.body and "新年" in doc.body
    assert doc.fingerprints


@pytest.mark.parametrize(
    ("obj", "kind", "message"),
    [
        ({"id": "a"}, EmptyDocument, "neither 'text', 'html', 'rst' nor 'markdown'"),
        ({"id": "a", "text": None, "html": None}, EmptyDocument, "neither"),
        ({"id": "a", "text": ""}, EmptyDocument, "no text"),
        ({"id": "a", "text": " \n\t "}, EmptyDocument, "no text"),
        ({"id": "a", "text": 12}, DocumentError, "'text' must be a string"),
        ({"id": "a", "text": ARTICLE, "url": ["x"]}, DocumentError, "'url' must be a string"),
        ({"id": "a", "text": ARTICLE, "site": "s" * 9000}, DocumentError, "at most 8192"),
        ({"id": "a", "html": {"x": 1}}, DocumentError, "'html' must be a string"),
        ({"id": "a", "text": "\x00\x01\x02\x03" * 100}, ExtractError, "binary junk"),
        ({"id": "a", "text": ("ab\x07" * 50)}, ExtractError, "binary junk"),
    ],
)
def test_prepare_document_errors_carry_the_id(
    obj: dict[str, Any], kind: type[Exception], message: str
) -> None:
    with pytest.raises(kind) as err:
        prepare_document(obj, 1, CONFIG)
    assert isinstance(err.value, DocumentError) and err.value.doc_id == "a"
    assert message in str(err.value) and str(err.value).startswith("a: ")


def test_a_few_control_characters_are_blanked_not_rejected() -> None:
    doc = prepare_document({"id": "a", "text": ARTICLE + "\x00\x1b"}, 1, CONFIG)
    assert "\x00" not in doc.body and "\x1b" not in doc.body and "新年" in doc.body


def test_lone_surrogates_in_text_become_replacement_characters() -> None:
    obj = json.loads('{"id": "s", "text": "' + ARTICLE + '\\ud800", "title": "t\\udc00"}')
    doc = prepare_document(obj, 1, CONFIG)
    assert doc.body.endswith("\ufffd") and doc.title == "t\ufffd"
    doc.body.encode("utf-8")  # storable


def test_unknown_profile_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="unknown profile"):
        fingerprint_config("nope")


# --- prepare_lines ------------------------------------------------------------------------------


BAD_INPUT: list[bytes | str] = [
    line(id="ok-1", text=ARTICLE),
    b"{not json",
    line(text="no id"),
    line(id="", text=ARTICLE),
    line(id="empty", text="   "),
    line(id="no-text"),
    line(id="ok-1", text=ARTICLE + "不同"),  # duplicate id: the first wins
    line(id='q*"/ 中文 id', text=ARTICLE),
    line(id="junk", text="\x00\x01\x02\x03" * 500),
    b"\xff\xfe binary",
    line(id="ok-2", html=f"<p>{ARTICLE}</p>"),
]


@pytest.mark.parametrize("processes", [1, 2])
def test_one_result_per_line_in_order(processes: int) -> None:
    out = prepare(BAD_INPUT, seq_base=1000, processes=processes, chunksize=2)
    assert [p.line_no for p in out] == list(range(1, len(BAD_INPUT) + 1))
    assert [p.ok for p in out] == [True, False, False, False, False, False, False, True, False,
                                   False, True]
    assert all((p.doc is None) != (p.error is None) for p in out)
    ok = [p for p in out if p.ok]
    assert [p.doc.id for p in ok if p.doc] == ["ok-1", 'q*"/ 中文 id', "ok-2"]
    assert [p.doc.seq for p in ok if p.doc] == [1001, 1008, 1011]  # seq_base + line number
    assert out[6].id == "ok-1" and out[6].error and "duplicate id" in out[6].error
    assert out[4].id == "empty" and out[4].error and "no text" in out[4].error
    assert out[8].id == "junk" and out[8].error and "binary junk" in out[8].error
    assert out[9].id is None and out[9].error and "not UTF-8" in out[9].error
    assert [p.error_type for p in out if not p.ok] == [
        "parse_exception", "illegal_argument_exception", "illegal_argument_exception",
        "empty_document", "empty_document", "duplicate_id", "extract_error", "parse_exception",
    ]


def test_processes_do_not_change_the_result() -> None:
    one = prepare(BAD_INPUT, processes=1)
    two = prepare(BAD_INPUT, processes=2, chunksize=1)
    assert [(p.line_no, p.id, p.error, p.doc) for p in one] == [
        (p.line_no, p.id, p.error, p.doc) for p in two
    ]


def test_the_pool_reads_no_further_ahead_than_allowed() -> None:
    """``imap`` alone reads the whole input while the caller holds its first page; bounded,
    the reader stops ``ahead`` pages (plus the one waiting for a slot and the freed one) in."""
    read = 0

    def lines() -> Iterator[tuple[int, bytes]]:
        nonlocal read
        for n in range(1, 3001):
            read += 1
            yield n, line(id=f"d{n}", text=f"{n} {ARTICLE}")

    pages = prepare_lines(lines(), CONFIG, processes=2, chunksize=4, ahead=50)
    first = next(pages)
    assert first.ok and first.id == "d1"
    seen = [-1]

    def stopped(n: int) -> bool:  # the same count as half a second ago
        still, seen[0] = n == seen[0], n
        return still

    wait_for(lambda: read, "the reader to stop", 20, until=stopped, interval=0.5)
    assert read <= 50 + 2
    rest = list(pages)  # and the rest still comes, in order
    assert [p.id for p in rest] == [f"d{n}" for n in range(2, 3001)]


def test_a_caller_that_stops_early_ends_the_pool() -> None:
    pages = prepare_lines(((n, line(id=f"d{n}", text=ARTICLE)) for n in range(1, 3001)), CONFIG,
                          processes=2, chunksize=4, ahead=20)
    assert next(pages).ok
    pages.close()  # the reader waits for a slot that never comes: it must still end


@pytest.mark.parametrize("processes", [1, 2])  # 2: the pool decodes, the reader rules on ids
def test_a_bad_first_occurrence_does_not_claim_the_id(processes: int) -> None:
    # the first "x" fails validation of its text, not of its id: the id is still taken
    out = prepare([line(id="x", text="   "), line(id="x", text=ARTICLE)], processes=processes)
    assert not out[0].ok and not out[1].ok and "duplicate" in (out[1].error or "")
    assert out[1].error_type == "duplicate_id" and out[1].id == "x"
    # a line whose id is unusable never claims an id
    out = prepare([line(id=7.0, text=ARTICLE), line(id="7.0", text=ARTICLE)],
                  processes=processes)
    assert not out[0].ok and out[1].ok


def test_an_extractor_crash_is_one_documents_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from neardup.ingest import extract, pipeline

    real = extract.document_texts

    def boom(obj: Any, **options: Any) -> extract.ExtractedText:
        if obj["id"] == "bad":
            raise RuntimeError("extractor bug")
        return real(obj, **options)

    monkeypatch.setattr(pipeline, "document_texts", boom)
    out = prepare([line(id="a", text=ARTICLE), line(id="bad", text=ARTICLE),
                   line(id="b", text=ARTICLE)])
    assert [p.ok for p in out] == [True, False, True]
    assert out[1].error == "bad: RuntimeError: extractor bug"


def test_read_lines_skips_blank_lines_and_keeps_numbers(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    path.write_bytes(b'{"id": "a"}\n\n   \n{"id": "b"}\r\n\xff\n')
    got = list(read_lines(path))
    assert [n for n, _ in got] == [1, 4, 5]
    assert got[1][1] == b'{"id": "b"}' and got[2][1] == b"\xff"


def test_read_lines_reads_past_an_over_long_line(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    limits = Limits(max_doc_bytes=100)  # records up to 400 bytes
    path.write_bytes(line(id="a", text="x") + b"\n" + line(id="long", text="y" * 10_000) + b"\n"
                     + line(id="b", text="z") + b"\n")
    got = list(read_lines(path, limits))
    assert [n for n, _ in got] == [1, 2, 3]
    err = got[1][1]
    assert isinstance(err, DocumentError) and err.doc_id == "long" and "record of" in str(err)
    assert got[2][1] == line(id="b", text="z")


def test_an_html_page_keeps_its_main_content_for_the_verifier() -> None:
    nav = "<nav>" + " ".join(f'<a href="/{i}">Section {i}</a>' for i in range(40)) + "</nav>"
    html = f"<html><body>{nav}<main><p>{ARTICLE}</p></main><footer>Contact us</footer></body></html>"
    (p,) = prepare([line(id="h", html=html)])
    assert p.doc is not None
    assert "Section 7" in p.doc.body  # the whole text is stored and shown
    assert p.doc.content is not None and "Section 7" not in p.doc.content
    assert p.doc.verified_text == p.doc.content
    (t,) = prepare([line(id="t", text=ARTICLE)])
    assert t.doc is not None and t.doc.content is None and t.doc.verified_text == t.doc.body


def test_a_page_comes_back_from_the_pool_as_it_was_prepared() -> None:
    """The pool sends a prepared page back packed (its fields in a tuple, its terms in one
    string): unpacked, it is the page; a page with no terms, a term holding the separator, a
    field prepare_document does not set, or a line in error travel as they are."""
    from neardup.ingest.pipeline import _packed, _unpacked

    varied = " ".join(f"Sentence number {n} of the article tells part {n * 7} of it." for n in range(30))
    pages = prepare([line(id="a", text=varied, url="https://x.example/a", title="T"),
                     line(id="b", text="短"), line(id="c", html="<p>" + ARTICLE + "</p>"),
                     b"{not json"])
    assert [p.doc is not None for p in pages] == [True, True, True, False]
    for p in pages:
        packed = _packed(p)
        assert isinstance(packed, tuple) == (p.doc is not None)
        assert _unpacked(packed) == p
    doc = pages[0].doc
    assert doc is not None and len(doc.fingerprints) > 1
    for change in ({"fingerprints": []}, {"fingerprints": ["a b", "c"]},
                   {"dup_group": "a"}, {"status": "grouped"}):
        p = Prepared(pages[0].line_no, "a", dataclasses.replace(doc, **change))
        assert _packed(p) is p
    # through the pool, the pages are those prepared in one process
    lines = [line(id=f"d{n}", text=ARTICLE + str(n)) for n in range(40)] + [b"{bad"]
    assert prepare(lines, processes=2, chunksize=4) == prepare(lines)
