"""neardup.ingest.records, the input layer every path uses: its rules, a Hypothesis fuzz test (arbitrary
JSON values and byte strings never raise anything but the documented per-record error), and
docs/limits.md against the code."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.ci import require_compiled

from neardup.ingest import _records_py, records
from neardup.ingest.errors import DocumentError, DocumentTooLarge, InvalidField, InvalidRecord
from neardup.ingest.jsoncodec import dumps_str
from neardup.ingest.pipeline import fingerprint_config, prepare_document
from neardup.ingest.records import (
    CONTENT_FIELDS,
    DEFAULT_LIMITS,
    METADATA_FIELDS,
    Limits,
    check_stored,
    clean_text,
    decode_record,
    limits_table,
    read_jsonl,
    validate_id,
    validate_page,
)
from neardup.ingest.store.base import StoredDocument

ROOT = Path(__file__).resolve().parents[2]
# Every type a per-record error can have (docs/limits.md).
ERROR_TYPES = {
    "parse_exception", "illegal_argument_exception", "document_too_large", "empty_document",
    "extract_error", "extract_timeout", "duplicate_id",
}  # fmt: skip
SMALL = Limits(max_doc_bytes=4096)


# --- the rules ---------------------------------------------------------------------------------


def test_brackets_inside_strings_are_not_nesting() -> None:
    text = "[" * 5000 + "{" * 5000
    obj = decode_record(json.dumps({"id": "a", "text": text}).encode())
    assert obj["text"] == text


@pytest.mark.parametrize("depth", [101, 1000, 100_000])
def test_depth_over_the_limit_is_refused_before_parsing(depth: int) -> None:
    raw = b'{"id": "a", "x": ' + b"[" * (depth - 1) + b"]" * (depth - 1) + b"}"
    with pytest.raises(InvalidRecord, match="nested deeper than 100 levels"):
        decode_record(raw)
    deep = b'{"id": "a", "x": ' + b"{\"k\": " * 100 + b"1" + b"}" * 100 + b"}"
    with pytest.raises(InvalidRecord):  # 100 objects below the record: 101 levels
        decode_record(deep)
    assert decode_record(b'{"x": ' + b"[" * 99 + b"]" * 99 + b"}")  # exactly 100


def test_a_bom_is_dropped_and_line_ends_are_not_content() -> None:
    assert decode_record(b'\xef\xbb\xbf{"id": "a"}') == {"id": "a"}
    stream = io.BytesIO(b'{"id": "a"}\r\n\n{"id": "b"}')
    assert list(read_jsonl(stream)) == [(1, b'{"id": "a"}'), (3, b'{"id": "b"}')]
    stream = io.BytesIO(b"x\n\ny")
    assert [n for n, _ in read_jsonl(stream, skip_blank=False)] == [1, 2, 3]


def test_an_over_long_line_is_read_past_in_pieces() -> None:
    limits = Limits(max_doc_bytes=10)  # records up to 40 bytes
    stream = io.BytesIO(b'{"id": "x", "text": "' + b"y" * 10_000 + b'"}\n{"id": "b"}\n')
    got = list(read_jsonl(stream, limits))
    assert isinstance(got[0][1], DocumentTooLarge) and got[0][1].doc_id == "x"
    assert "10023 bytes exceeds the 40-byte limit" in str(got[0][1])
    assert got[1] == (2, b'{"id": "b"}')


@pytest.mark.parametrize(
    ("value", "expected"),
    [("a", "a"), (7, "7"), (-3, "-3"), (" a ", " a "), ("中" * 170 + "ab", "中" * 170 + "ab")],
)
def test_ids(value: Any, expected: str) -> None:
    assert validate_id(value) == expected


@pytest.mark.parametrize(
    "value", [None, True, False, 7.0, float("inf"), [], {}, "", " \t", "\ud800", "x" * 513, 10**600]
)
def test_bad_ids(value: Any) -> None:
    with pytest.raises(InvalidField) as err:
        validate_id(value)
    assert err.value.type == "illegal_argument_exception" and err.value.doc_id is None


def test_page_limits_count_utf8_bytes() -> None:
    limits = Limits(max_doc_bytes=30)
    assert validate_page({"id": "a", "text": "中" * 10}, limits).source == "中" * 10  # 30 bytes
    with pytest.raises(DocumentTooLarge, match="31 bytes exceeds the 30-byte limit"):
        validate_page({"id": "a", "text": "中" * 10 + "x"}, limits)
    with pytest.raises(DocumentTooLarge):  # any content field, html too
        validate_page({"id": "a", "html": "<p>" + "x" * 40 + "</p>"}, limits)


def test_metadata() -> None:
    page = validate_page({"id": "a", "text": "t", "url": "u\ud800", "site": 5, "title": None})
    assert (page.url, page.site, page.title) == ("u\ufffd", "5", None)
    for bad in ({"url": ["x"]}, {"site": {"a": 1}}, {"title": True}, {"url": "u" * 8193}):
        with pytest.raises(InvalidField) as err:
            validate_page({"id": "a", "text": "t", **bad})
        assert err.value.doc_id == "a"


def test_clean_text() -> None:
    assert clean_text("a\x00b\tc\n" + "x" * 100) == "a b\tc\n" + "x" * 100
    with pytest.raises(DocumentError, match="binary junk"):
        clean_text("\x01" * 10 + "abc")
    with pytest.raises(DocumentError, match="no text"):
        clean_text(" \n\t ")


def test_stored_pages_the_verifier_cannot_take() -> None:
    good = StoredDocument("a", "text", [], "fp", 1)
    check_stored(good)
    for bad, message in (
        (StoredDocument.from_source({"id": "a", "seq": 1}), "no text"),
        (StoredDocument.from_source({"id": "a", "body": 5, "seq": 1}), "no text"),
        (StoredDocument.from_source({"id": "a", "body": "x"}), "no ingest sequence"),
        (StoredDocument("a", "x" * 5000, [], "fp", 1), "exceeds the 4096-byte limit"),
    ):
        with pytest.raises(DocumentError, match=message):
            check_stored(bad, SMALL)


# --- fuzz: nothing but the documented per-record error ----------------------------------------

_SURROGATES = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
_TEXT = st.text(st.characters() | _SURROGATES | st.sampled_from("\x00\x01\n\r\t[]{}\"\\<>"),
                max_size=60)
_SCALARS = (
    st.none() | st.booleans() | st.integers() | st.integers(min_value=10**20)
    | st.floats(allow_nan=True, allow_infinity=True) | _TEXT
)
JSON_VALUES = st.recursive(
    _SCALARS,
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(_TEXT | st.sampled_from(["id", *CONTENT_FIELDS, *METADATA_FIELDS]),
                      children, max_size=5),
    max_leaves=30,
)
# Records shaped like documents, each field any JSON value (strings most of the time).
_FIELD = _TEXT | JSON_VALUES
RECORDS = st.fixed_dictionaries(
    {},
    optional={name: _FIELD for name in ("id", *CONTENT_FIELDS, *METADATA_FIELDS, "extra")},
)


def _only_documented_errors(call: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        return call(*args, **kwargs)
    except DocumentError as exc:
        assert exc.type in ERROR_TYPES, exc
        assert str(exc) and exc.message
        dumps_str({"error": str(exc), "type": exc.type}).encode("utf-8")  # always reportable
        return None


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=300))
def test_fuzz_bytes(raw: bytes) -> None:
    obj = _only_documented_errors(decode_record, raw, SMALL)
    if obj is not None:
        _only_documented_errors(validate_page, obj, SMALL)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(JSON_VALUES)
def test_fuzz_json_values(value: Any) -> None:
    _only_documented_errors(validate_page, value, SMALL)
    _only_documented_errors(validate_page, value, SMALL, require_id=False)
    raw = json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")
    obj = _only_documented_errors(decode_record, raw, SMALL)
    if obj is not None:
        _only_documented_errors(validate_page, obj, SMALL)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(RECORDS)
def test_fuzz_documents_through_step_1(record: dict[str, Any]) -> None:
    """Document-shaped records, validated, then extracted and fingerprinted: the whole of
    step 1 raises nothing but a per-record error."""
    config = fingerprint_config("web")
    for raw in (
        json.dumps(record, ensure_ascii=False).encode("utf-8", "surrogatepass"),
        json.dumps(record).encode(),
    ):
        obj = _only_documented_errors(decode_record, raw, SMALL)
        if obj is None:
            continue
        page = _only_documented_errors(validate_page, obj, SMALL)
        if page is not None:
            doc = _only_documented_errors(prepare_document, page, 1, config, SMALL)
            if doc is not None:
                json.dumps(doc.to_source(), ensure_ascii=False).encode("utf-8")  # storable


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=1, max_value=20_000), st.sampled_from([b"[", b'{"k":']))
def test_fuzz_nesting(depth: int, opener: bytes) -> None:
    closer = b"]" if opener == b"[" else b"}"
    raw = b'{"id": "a", "text": "t", "x": ' + opener * depth + b"1" * (opener == b'{"k":') + (
        closer * depth) + b"}"
    obj = _only_documented_errors(decode_record, raw)
    assert (obj is not None) == (depth < DEFAULT_LIMITS.max_depth)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_fuzz_corrupted_records(data: st.DataObject) -> None:
    raw = bytearray(json.dumps({"id": "a", "text": "新年 [x] {y}", "url": "http://x/"}).encode())
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(raw)))
        raw[at:at] = data.draw(st.binary(min_size=1, max_size=3))
    obj = _only_documented_errors(decode_record, bytes(raw), SMALL)
    if obj is not None:
        _only_documented_errors(validate_page, obj, SMALL)


# --- docs/limits.md ------------------------------------------------------------------------------


def test_docs_table_is_the_codes() -> None:
    doc = (ROOT / "docs" / "limits.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- limits-table[^>]*-->\n(.*?)<!-- /limits-table -->", doc, re.DOTALL)
    assert m, "docs/limits.md has lost its generated table"
    assert m.group(1) == limits_table(), "docs/limits.md differs: python -m neardup.ingest.records"
    assert f"{DEFAULT_LIMITS.max_doc_bytes} bytes (8 MiB)" in m.group(1)


# Controls (and the tab and line ends that are not), lone surrogates, and text of every width
# a str can be stored in: ASCII, Latin-1, the BMP, beyond.
_CHECKED = st.text(
    st.sampled_from(list("\x00\x01\x08\t\n\x0b\x0c\r\x0e\x1f\x7f a~é©") + ["中", "\ud800", "\udfff",
                                                                          "\U00020001", "\uffff"]),
    max_size=40,
)


@settings(max_examples=400, deadline=None)
@given(_CHECKED, st.sampled_from(["", "x", "é", "中", "\U00020001"]))
def test_compiled_text_checks_are_the_reference(text: str, pad: str) -> None:
    compiled = require_compiled("neardup.ingest._records")
    for t in (text, pad * 50 + text, text + pad * 50):
        assert compiled.text_flags(t) == _records_py.text_flags(t), ascii(t)
        assert records.has_surrogates(t) == bool(_records_py.SURROGATE_CHARS.search(t))
