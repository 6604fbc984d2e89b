"""Each page is written twice in one ``_bulk``: its source into the pages index and its
fingerprints document into the fingerprints index; it counts as written only when both are
(a page without its fingerprints document would never be a candidate). A fake bulk helper
stands in for the engine; the real nodes: tests/integration/test_store_opensearch.py."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

from neardup.ingest.store.base import StoredDocument
from neardup.ingest.store.opensearch import DIALECT, OpenSearchStore


class _Bulk:
    """``streaming_bulk`` answering every action, refusing those of ``refused`` (index, id)."""

    def __init__(self, refused: set[tuple[str, str]]) -> None:
        self.refused, self.actions = refused, []

    def streaming_bulk(self, client: Any, actions: list[dict[str, Any]],
                       **options: Any) -> Iterator[tuple[bool, dict[str, Any]]]:
        self.actions += actions
        for a in actions:
            op = a["_op_type"]
            if (a["_index"], a["_id"]) in self.refused:
                yield False, {op: {"_index": a["_index"], "_id": a["_id"], "status": 400,
                                   "error": {"type": "mapper_parsing_exception",
                                             "reason": "refused"}}}
            else:
                yield True, {op: {"_index": a["_index"], "_id": a["_id"], "status": 201,
                                  "result": "created"}}


def _store(bulk: _Bulk) -> OpenSearchStore:
    store = OpenSearchStore(SimpleNamespace(), "news")
    store.dialect = dataclasses.replace(DIALECT, helpers=bulk)  # type: ignore[arg-type]
    return store


def _docs() -> list[StoredDocument]:
    return [StoredDocument(f"p{i}", f"body {i}", [f"f{i}", "shared"], "cfg", i, site="s")
            for i in range(3)]


def test_every_page_goes_to_both_indices_in_one_bulk() -> None:
    bulk = _Bulk(set())
    results = list(_store(bulk).put(_docs()))
    assert [r.ok for r in results] == [True, True, True]
    assert [(a["_index"], a["_id"]) for a in bulk.actions] == [
        (index, f"p{i}") for i in range(3) for index in ("news", "news-fingerprints")]
    terms = bulk.actions[1]["_source"]
    assert terms == {"id": "p0", "fingerprints": ["f0", "shared"], "fp_config": "cfg", "seq": 0}
    assert "fingerprints" in bulk.actions[0]["_source"]  # the page keeps them in _source


def test_a_page_whose_fingerprints_are_refused_is_not_written() -> None:
    bulk = _Bulk({("news-fingerprints", "p1"), ("news", "p2")})
    results = list(_store(bulk).put(_docs()))
    assert [r.ok for r in results] == [True, False, False]
    assert results[1].error is not None and results[1].error.startswith("fingerprints not indexed")
    assert results[2].error == "400 mapper_parsing_exception: refused"  # the page's own error


def test_the_fingerprints_index_keeps_the_first_eleven_characters_of_each() -> None:
    bulk = _Bulk(set())
    doc = StoredDocument("p0", "body", ["AAAAAAAAAAAbbbbbbbbbbb", "AAAAAAAAAAAccccccccccc",
                                        "DDDDDDDDDDDeeeeeeeeeee"], "cfg", 0)
    list(_store(bulk).put([doc]))
    assert bulk.actions[1]["_source"]["fingerprints"] == ["AAAAAAAAAAA", "DDDDDDDDDDD"]
    assert bulk.actions[0]["_source"]["fingerprints"] == doc.fingerprints  # the page: whole
