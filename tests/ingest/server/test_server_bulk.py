"""The ``_bulk`` NDJSON format and the ``POST /documents`` body, on bytes (no I/O)."""

from __future__ import annotations

import json

import pytest

from neardup.ingest.server.bulk import (
    BulkOp,
    BulkSyntaxError,
    DocumentsSyntaxError,
    ItemError,
    error_item,
    generate_id,
    ok_item,
    parse_bulk,
    parse_documents,
    raw_document,
)


def ndjson(*lines: object) -> bytes:
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def test_actions_with_and_without_source_in_order() -> None:
    body = ndjson(
        {"index": {"_index": "logs", "_id": "1"}},
        {"text": "one"},
        {"create": {"_id": "2"}},
        {"html": "<p>two</p>"},
        {"delete": {"_id": "3"}},
        {"update": {"_id": "4"}},
        {"doc": {"title": "x"}},
    )
    ops = parse_bulk(body, default_index="pages")
    assert [(o.action, o.index, o.id) for o in ops] == [
        ("index", "logs", "1"),
        ("create", "pages", "2"),
        ("delete", "pages", "3"),
        ("update", "pages", "4"),
    ]
    assert ops[0].source == {"text": "one"}
    assert ops[2].source is None
    assert ops[3].source == {"doc": {"title": "x"}}


def test_blank_lines_crlf_and_missing_final_newline_are_accepted() -> None:
    body = b'\r\n{"index":{"_id":"a"}}\r\n\r\n{"text":"t"}'
    [op] = parse_bulk(body)
    assert (op.id, op.source) == ("a", {"text": "t"})


@pytest.mark.parametrize(
    "body, message",
    [
        (b"", "body is required"),
        (b"   \n\n", "body is required"),
        (b"not json\n", "line [1]"),
        (b'{"index": {}, "create": {}}\n', "exactly one"),
        (b'{"upsert": {}}\n{}\n', "but found [upsert]"),
        (b'{"index": "x"}\n{}\n', "START_OBJECT"),
        (b'["index"]\n', "exactly one"),
        (b'{"index": {"_id": "a"}}\n', "no source line"),
        (b'\xff\xfe{"index":{}}\n{}\n', "line [1]"),
    ],
)
def test_malformed_action_lines_fail_the_whole_request(body: bytes, message: str) -> None:
    with pytest.raises(BulkSyntaxError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_bulk(body)


def test_malformed_source_fails_only_its_item() -> None:
    body = b'{"index":{"_id":"a"}}\n{"text": oops}\n{"index":{"_id":"b"}}\n[1,2]\n{"index":{"_id":"c"}}\n{"text":"ok"}\n'
    ops = parse_bulk(body)
    assert [o.id for o in ops] == ["a", "b", "c"]
    assert ops[0].error is not None and ops[0].error.status == 400
    assert "line [2]" in ops[0].error.reason
    assert ops[1].error is not None and "must be a JSON object" in ops[1].error.reason
    assert ops[0].error.type == ops[1].error.type == "parse_exception"
    assert ops[2].error is None


def test_numeric_ids_become_strings() -> None:
    [op] = parse_bulk(b'{"index":{"_id":17}}\n{"text":"t"}\n')
    assert op.id == "17"


def test_raw_document_keeps_the_input_fields_only() -> None:
    op = BulkOp(
        "index", "pages", "a", {"text": "t", "url": "u", "@timestamp": "now", "fingerprints": ["x"]}
    )
    doc, err = raw_document(op)
    assert err is None
    assert doc == {"id": "a", "text": "t", "url": "u"}


def test_raw_document_text_field_stands_for_text() -> None:
    op = BulkOp("index", None, "a", {"message": "hello"})
    assert raw_document(op, text_field="message")[0] == {"id": "a", "text": "hello"}
    # text and html win over the configured field
    op = BulkOp("index", None, "a", {"message": "hello", "html": "<p>x</p>"})
    assert raw_document(op, text_field="message")[0] == {"id": "a", "html": "<p>x</p>"}
    # so do the markup sources, which are kept
    op = BulkOp("index", None, "a", {"message": "hello", "rst": "Title\n=====", "x": 1})
    assert raw_document(op, text_field="message")[0] == {"id": "a", "rst": "Title\n====="}
    op = BulkOp("index", None, "a", {"markdown": "# T"})
    assert raw_document(op, text_field="message")[0] == {"id": "a", "markdown": "# T"}


def test_raw_document_ids() -> None:
    assert raw_document(BulkOp("index", None, None, {"id": "s", "text": "t"}))[0] == {
        "id": "s",
        "text": "t",
    }
    assert raw_document(BulkOp("index", None, "a", {"id": "a", "text": "t"}))[1] is None
    _, err = raw_document(BulkOp("index", None, "a", {"id": "b", "text": "t"}))
    assert err is not None and "differ" in err.reason
    _, err = raw_document(BulkOp("index", None, None, {"text": "t"}))
    assert err is not None and "empty" in err.reason
    _, err = raw_document(BulkOp("index", None, None, {"id": ["x"], "text": "t"}))
    assert err is not None and err.status == 400


def test_generated_ids_are_unique_and_url_safe() -> None:
    ids = {generate_id() for _ in range(1000)}
    assert len(ids) == 1000
    assert all(len(i) == 20 and i.replace("-", "").replace("_", "").isalnum() for i in ids)


def test_response_items_have_the_opensearch_shape() -> None:
    assert ok_item("index", "pages", "a", "created", 201) == {
        "index": {"_index": "pages", "_id": "a", "result": "created", "status": 201}
    }
    item = error_item(
        "create", "pages", "a", ItemError(409, "version_conflict_engine_exception", "r")
    )
    assert item == {
        "create": {
            "_index": "pages",
            "_id": "a",
            "status": 409,
            "error": {"type": "version_conflict_engine_exception", "reason": "r"},
        }
    }


def test_documents_body_single_object() -> None:
    docs, single = parse_documents(b'{"id": "a", "text": "t"}')
    assert single and docs == [(None, {"id": "a", "text": "t"})]


def test_documents_body_array_with_a_bad_element() -> None:
    docs, single = parse_documents(b'[{"id": "a", "text": "t"}, 3]')
    assert not single
    assert docs[0] == (None, {"id": "a", "text": "t"})
    assert isinstance(docs[1][1], ItemError)


def test_documents_body_jsonl_with_a_bad_line() -> None:
    body = b'{"id": "a", "text": "t"}\n\n{"id": "b", \n{"id": "c", "text": "t"}\n"str"\n'
    docs, single = parse_documents(body)
    assert not single
    assert [d["id"] if isinstance(d, dict) else "ERR" for _, d in docs] == ["a", "ERR", "c", "ERR"]
    assert [n for n, _ in docs] == [1, 3, 4, 5]
    assert isinstance(docs[1][1], ItemError) and "line 3" in docs[1][1].reason


def test_documents_body_jsonl_line_not_utf8_fails_only_that_line() -> None:
    body = b'{"id": "a", "text": "t"}\n{"id": "b", "text": "\xff\xfe"}\n{"id": "c", "text": "t"}\n'
    docs, single = parse_documents(body)
    assert not single and [n for n, _ in docs] == [1, 2, 3]
    err = docs[1][1]
    assert isinstance(err, ItemError) and err.type == "parse_exception"
    assert "line 2" in err.reason and "not UTF-8" in err.reason


@pytest.mark.parametrize(
    "body", [b"", b"  \n", b"\xff\xfe", b"[]", b"42", b'"text"', b"nope\nnope\n"]
)
def test_documents_body_unusable(body: bytes) -> None:
    with pytest.raises(DocumentsSyntaxError):
        parse_documents(body)
