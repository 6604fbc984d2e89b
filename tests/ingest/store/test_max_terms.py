"""The workers' candidate search stays within the index's ``index.max_terms_count``: a batch's
terms go out in parts of at most that many, the hits are those of one search (each page once, in
``seq``/``id`` order), and a limit lowered during a run is read again and the part sent again
smaller. An in-memory node stands in for the engine, refusing as OpenSearch 2.19 and
Elasticsearch 8.19 do (the error bodies below are theirs); the real nodes:
tests/integration/test_max_terms.py."""

from __future__ import annotations

import random
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import elastic_transport
import elasticsearch8
import opensearchpy
import pytest

from neardup.ingest.store.elasticsearch import dialect
from neardup.ingest.store.engine import EngineBackend
from neardup.ingest.store.engine.candidates import DEFAULT_MAX_TERMS
from neardup.ingest.store.opensearch import OpenSearchStore

CONFIG = "cfg"


def _reason(sent: int, allowed: int) -> str:
    return (f"The number of terms [{sent}] used in the Terms Query request has exceeded the "
            f"allowed maximum of [{allowed}]. This maximum can be set by changing the "
            "[index.max_terms_count] index level setting.")


def _shard_failure(sent: int, allowed: int, index: str = "pages") -> dict[str, Any]:
    return {"shard": 0, "index": index, "node": "n1", "reason": {
        "type": "query_shard_exception", "reason": f"failed to create query: {_reason(sent, allowed)}",
        "index": index, "caused_by": {"type": "illegal_argument_exception",
                                      "reason": _reason(sent, allowed)}}}  # fmt: skip


def refusal(sent: int, allowed: int) -> dict[str, Any]:
    """The answer of both engines to a ``terms`` query of ``sent`` terms on an index allowing
    ``allowed`` (HTTP 400)."""
    return {"error": {
        "root_cause": [{"type": "query_shard_exception",
                        "reason": f"failed to create query: {_reason(sent, allowed)}",
                        "index": "pages"}],
        "type": "search_phase_execution_exception", "reason": "all shards failed",
        "phase": "query", "grouped": True, "failed_shards": [_shard_failure(sent, allowed)],
    }, "status": 400}  # fmt: skip


def _opensearch_error(body: dict[str, Any]) -> Exception:
    return opensearchpy.RequestError(body["status"], body["error"]["type"], body)


def _elasticsearch_error(body: dict[str, Any]) -> Exception:
    meta = elastic_transport.ApiResponseMeta(
        status=body["status"], http_version="1.1", headers=elastic_transport.HttpHeaders(),
        duration=0.0, node=elastic_transport.NodeConfig("http", "127.0.0.1", 9200))
    return elasticsearch8.BadRequestError(body["error"]["type"], meta, body)


class ElasticsearchStore(EngineBackend):
    """The store as it speaks to Elasticsearch 8 (its dialect, without a client of that
    package)."""

    dialect = dialect("elasticsearch8")


ENGINES: dict[str, tuple[type[EngineBackend], Callable[[dict[str, Any]], Exception]]] = {
    "opensearch": (OpenSearchStore, _opensearch_error),
    "elasticsearch": (ElasticsearchStore, _elasticsearch_error),
}


class Node:
    """A fingerprints index of ``docs`` (``id``, ``seq``, ``fingerprints``) answering the
    holders search and ``GET <index>/_settings`` as the engine does, with ``limit`` as its
    ``index.max_terms_count``."""

    def __init__(self, docs: list[dict[str, Any]], limit: int = DEFAULT_MAX_TERMS,
                 error: Callable[[dict[str, Any]], Exception] = _opensearch_error) -> None:
        self.docs = docs
        self.limit = limit
        self.error = error
        self.settings_error: Exception | None = None
        self.partial = False  # refuse as one index of two behind an alias: a 200 answer
        self.sent: list[int] = []  # the terms of each search, in order
        self.refused: list[int] = []
        self.settings_reads = 0
        self.before_search: Callable[[Node], None] = lambda node: None
        self.indices = SimpleNamespace(get_settings=self.get_settings)

    def get_settings(self, *, index: str, name: str, include_defaults: bool,
                     flat_settings: bool) -> dict[str, Any]:
        assert (name, include_defaults, flat_settings) == ("index.max_terms_count", True, True)
        assert index == "pages-fingerprints"  # the candidate search's index
        self.settings_reads += 1
        if self.settings_error is not None:
            raise self.settings_error
        if self.limit == DEFAULT_MAX_TERMS:
            return {index: {"settings": {}, "defaults": {"index.max_terms_count": "65536"}}}
        return {index: {"settings": {"index.max_terms_count": str(self.limit)}, "defaults": {}}}

    def search(self, *, index: str, body: dict[str, Any]) -> dict[str, Any]:
        assert index == "pages-fingerprints"
        self.before_search(self)
        query = body["query"]["bool"]
        terms = query["filter"][0]["terms"]["fingerprints"]
        assert query["filter"][1] == {"term": {"fp_config": CONFIG}}
        left_out = set(query["must_not"][0]["ids"]["values"])
        shards = {"total": 1, "successful": 1, "skipped": 0, "failed": 0}
        if len(terms) > self.limit:
            self.refused.append(len(terms))
            if not self.partial:
                raise self.error(refusal(len(terms), self.limit))
            shards = {"total": 2, "successful": 1, "skipped": 0, "failed": 1,
                      "failures": [_shard_failure(len(terms), self.limit)]}
        self.sent.append(len(terms))
        wanted = set(terms)
        hits = sorted((d for d in self.docs
                       if d["id"] not in left_out and wanted & set(d["fingerprints"])),
                      key=lambda d: (d["seq"], d["id"]))
        if "search_after" in body:
            after = tuple(body["search_after"])
            hits = [d for d in hits if (d["seq"], d["id"]) > after]
        assert body["docvalue_fields"] == ["id", "seq"]
        out = [{"_index": index, "_id": d["id"], "_score": None,
                "fields": {"id": [d["id"]], "seq": [d["seq"]]}, "sort": [d["seq"], d["id"]]}
               for d in hits[:body["size"]]]
        return {"took": 1, "timed_out": False, "_shards": shards, "hits": {"hits": out}}

    def close(self) -> None:
        pass


def _docs(n: int = 60, seed: int = 5) -> list[dict[str, Any]]:
    """``n`` pages of 12 fingerprints out of 200, many shared; seqs not in id order."""
    rng = random.Random(seed)
    return [{"id": f"p{i:03d}", "seq": rng.randrange(1000),
             "fingerprints": rng.sample([f"t{t:03d}" for t in range(200)], 12)}
            for i in range(n)]


TERMS = [f"t{t:03d}" for t in range(0, 200, 2)]  # 100 terms
LEFT_OUT = ["p001", "p002"]


def _one_search(docs: list[dict[str, Any]]) -> list[Any]:
    node = Node(docs)
    got = OpenSearchStore(node, "pages").fingerprint_holders({CONFIG: TERMS}, LEFT_OUT)
    assert node.sent == [len(TERMS)]
    return got


@pytest.fixture(params=sorted(ENGINES))
def engine_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _store(kind: str, node: Node) -> EngineBackend:
    store_class, error = ENGINES[kind]
    node.error = error
    return store_class(node, "pages")


def test_a_batch_over_the_limit_is_searched_in_parts_with_the_hits_of_one_search(
    engine_kind: str,
) -> None:
    docs = _docs()
    want = _one_search(docs)
    assert len(want) > 20
    node = Node(docs, limit=30)
    store = _store(engine_kind, node)
    store.page = 7  # several pages of hits a part too
    got = store.fingerprint_holders({CONFIG: TERMS}, LEFT_OUT)
    assert got == want  # each page once, in seq/id order, with its fields
    assert store.max_terms() == 30 and node.settings_reads == 1
    assert sum(1 for n in node.sent if n == 30) >= 3 and max(node.sent) == 30
    assert not node.refused


def test_the_limit_is_read_once_per_store() -> None:
    node = Node(_docs(), limit=40)
    store = OpenSearchStore(node, "pages")
    for _ in range(3):
        store.fingerprint_holders({CONFIG: TERMS}, LEFT_OUT)
    assert node.settings_reads == 1 and max(node.sent) == 40
    assert OpenSearchStore(Node([]), "pages").max_terms() == DEFAULT_MAX_TERMS  # the default


def test_a_limit_that_cannot_be_read_is_the_engines_default() -> None:
    node = Node(_docs())
    node.settings_error = opensearchpy.NotFoundError(  # no index yet
        404, "index_not_found_exception", {"error": {"type": "index_not_found_exception"}})
    store = OpenSearchStore(node, "pages")
    assert store.max_terms() == DEFAULT_MAX_TERMS
    assert store.fingerprint_holders({CONFIG: []}, []) == [] and not node.sent


def test_a_limit_lowered_during_a_run_is_read_again_and_the_part_split_smaller(
    engine_kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store read 80; the node now allows 25: the refused part is sent again in parts of
    25, after the limit is read anew, and the next batches keep to it."""
    docs = _docs()
    want = _one_search(docs)
    node = Node(docs, limit=80)
    store = _store(engine_kind, node)
    assert store.max_terms() == 80
    node.limit = 25
    assert store.fingerprint_holders({CONFIG: TERMS}, LEFT_OUT) == want
    assert node.refused == [80] and node.settings_reads == 2
    assert node.sent == [25, 25, 25, 25] and store.max_terms() == 25
    node.sent.clear()
    assert store.fingerprint_holders({CONFIG: TERMS}, LEFT_OUT) == want
    assert node.sent == [25, 25, 25, 25] and node.settings_reads == 2


def test_a_limit_lowered_between_two_pages_of_hits() -> None:
    """Refused on the second page of a part's hits: the hits of the first are not counted
    twice."""
    docs = _docs()
    want = _one_search(docs)
    node = Node(docs)
    store = OpenSearchStore(node, "pages")
    store.page = 5

    def lower(node: Node) -> None:
        if len(node.sent) == 1:
            node.limit = 50

    node.before_search = lower
    assert store.fingerprint_holders({CONFIG: TERMS}, LEFT_OUT) == want
    assert node.refused == [100] and node.sent[0] == 100 and max(node.sent[1:]) == 50


def test_a_refusal_tells_the_limit_when_the_settings_cannot_be_read() -> None:
    """No privilege to read the index's settings (the OpenSearch role of docs/security.md):
    the default is tried, and the limit the refusal names is kept."""
    docs = _docs()
    want = _one_search(docs)
    node = Node(docs, limit=30)
    node.settings_error = opensearchpy.AuthorizationException(
        403, "security_exception", {"error": {"type": "security_exception"}})
    store = OpenSearchStore(node, "pages")
    assert store.fingerprint_holders({CONFIG: TERMS}, LEFT_OUT) == want
    assert node.refused == [100] and node.sent == [30, 30, 30, 10]
    assert store.max_terms() == 30


def test_a_shard_refusing_in_an_answer_of_the_others_is_a_refusal() -> None:
    """Behind an alias, an index with the lower limit fails its shards and the others answer
    (200, ``_shards.failures``): its hits would be missing, so the part is sent again."""
    docs = _docs()
    want = _one_search(docs)
    node = Node(docs, limit=30)
    node.partial = True
    node.settings_error = opensearchpy.AuthorizationException(
        403, "security_exception", {"error": {"type": "security_exception"}})
    assert OpenSearchStore(node, "pages").fingerprint_holders({CONFIG: TERMS}, LEFT_OUT) == want
    assert node.refused == [100] and node.sent == [100, 30, 30, 30, 10]


def test_other_refusals_are_raised(engine_kind: str) -> None:
    node = Node(_docs())
    store = _store(engine_kind, node)
    other = {"error": {"type": "search_phase_execution_exception", "reason": "all shards failed",
                       "root_cause": [{"type": "query_shard_exception", "reason": "bad query"}]},
             "status": 400}

    def refuse(node: Node) -> None:
        raise node.error(other)

    node.before_search = refuse
    with pytest.raises(store.dialect.api_error):
        store.fingerprint_holders({CONFIG: TERMS}, LEFT_OUT)
    assert node.settings_reads == 1  # read once, not again for another error


def test_a_limit_of_one_term_refused_is_raised() -> None:
    node = Node(_docs(), limit=1)
    store = OpenSearchStore(node, "pages")

    def refuse_all(node: Node) -> None:
        node.limit = 0

    node.before_search = refuse_all
    with pytest.raises(opensearchpy.RequestError):
        store.fingerprint_holders({CONFIG: TERMS[:3]}, [])

