"""A node lost mid-request is an outage to wait out (StoreUnavailable), not a failed request.

A search reading a shard copy on a node that has just gone answers 500
``search_phase_execution_exception`` with ``node_disconnected_exception`` as its root cause
(seen in the two-node cluster test: the workers gave up on 25 pages). The error classes are the
clients' own; no engine is needed to raise them.
"""

from __future__ import annotations

import opensearchpy
import pytest

from neardup.ingest.store.engine import translate_errors
from neardup.ingest.store.errors import StoreUnavailable
from neardup.ingest.store.opensearch import DIALECT

NODE_GONE = {
    "error": {
        "root_cause": [{"type": "node_disconnected_exception",
                        "reason": "[n2][127.0.0.1:9342][indices:data/read/search] disconnected"}],
        "type": "search_phase_execution_exception",
        "reason": "all shards failed",
        "phase": "fetch",
        "failed_shards": [{"shard": 0, "index": "pages", "node": "x",
                           "reason": {"type": "node_disconnected_exception", "reason": "gone"}}],
    },
    "status": 500,
}  # fmt: skip


def _raise(status: int, error: str, body: object) -> None:
    with translate_errors(DIALECT):
        raise opensearchpy.TransportError(status, error, body)


def test_a_search_that_lost_its_node_is_an_outage() -> None:
    with pytest.raises(StoreUnavailable, match="lost a node"):
        _raise(500, "search_phase_execution_exception", NODE_GONE)


def test_a_shard_without_a_copy_is_an_outage() -> None:
    body = {"error": {"type": "search_phase_execution_exception", "reason": "all shards failed",
                      "caused_by": {"type": "no_shard_available_action_exception"}}}
    with pytest.raises(StoreUnavailable):
        _raise(500, "search_phase_execution_exception", body)


def test_other_server_errors_stay_errors() -> None:
    body = {"error": {"type": "search_phase_execution_exception", "reason": "all shards failed",
                      "root_cause": [{"type": "query_shard_exception", "reason": "bad query"}]}}
    with pytest.raises(opensearchpy.TransportError) as caught:
        _raise(500, "search_phase_execution_exception", body)
    assert not isinstance(caught.value, StoreUnavailable)
    with pytest.raises(opensearchpy.TransportError):
        _raise(500, "exception", "not json")


def test_the_client_serializer_is_orjson_with_the_stock_fallback() -> None:
    """Bodies go through orjson; what it refuses (a Decimal, an escaped lone surrogate) takes
    the stock serializer's path, with the same result the stock client gives."""
    from decimal import Decimal

    from opensearchpy.serializer import JSONSerializer

    from neardup.ingest.store.opensearch import FastJSONSerializer

    fast, stock = FastJSONSerializer(), JSONSerializer()
    for value in ({"a": "é 中", "b": [1, 2.5, None]}, {"d": Decimal("1.5")}, "as is",
                  {"lone": "x\ud800"}):
        assert fast.dumps(value) == stock.dumps(value)
    for text in ('{"a":["é",1.5,null]}', '"\\ud800"'):
        assert fast.loads(text) == stock.loads(text)
