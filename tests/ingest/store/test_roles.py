"""The store by role (:mod:`neardup.ingest.store.roles`): each backend offers the roles it
implements and no other, no role answers "unsupported", the store that waits for its engine
offers every role of one, and a caller that needs a role it was not given says so."""

from __future__ import annotations

import ast
import inspect
from collections.abc import Iterator

import pytest
from support.fakes import FakeBatchQueue

from neardup.ingest.server.service import IngestService
from neardup.ingest.store import open_store, roles
from neardup.ingest.store.errors import StoreUnavailable, Unsupported
from neardup.ingest.store.lazy import LazyStore
from neardup.ingest.store.opensearch import OpenSearchStore
from neardup.ingest.store.roles import (
    EngineCandidates,
    EngineConnection,
    EngineReads,
    EngineStore,
    EngineWrites,
    Store,
)

ENGINE_ROLES = (EngineConnection, EngineWrites, EngineCandidates, EngineReads)


@pytest.fixture
def embedded() -> Iterator[Store]:
    store = open_store("embedded")
    yield store
    store.close()


def _methods(role: type) -> set[str]:
    return {n for n, v in vars(role).items() if not n.startswith("_") and callable(v)}


def test_the_embedded_store_offers_every_backends_roles_and_no_engines(embedded: Store) -> None:
    assert isinstance(embedded, Store)
    assert not [r.__name__ for r in ENGINE_ROLES if isinstance(embedded, r)]
    engine_only = set().union(*map(_methods, ENGINE_ROLES)) - set().union(
        *map(_methods, Store.__mro__))
    assert "top_groups" in engine_only and "delete" in engine_only
    assert not [n for n in engine_only if hasattr(embedded, n)]  # absent, not a stub


def test_an_engine_backend_offers_every_role() -> None:
    store = OpenSearchStore(object(), "news")  # no request is made: a client is only held
    assert isinstance(store, EngineStore) and all(isinstance(store, r) for r in ENGINE_ROLES)
    assert store.index == "news"


def test_no_role_answers_unsupported() -> None:
    """A role's method is abstract, or does what it says for every backend offering it."""
    tree = ast.parse(inspect.getsource(roles))
    raised = [
        ast.unparse(node.exc)
        for node in ast.walk(tree)
        if isinstance(node, ast.Raise) and node.exc is not None
    ]
    assert raised == []


def _unreachable() -> EngineStore:
    raise StoreUnavailable("nothing answers yet")


def test_the_store_waiting_for_its_engine_offers_every_role_without_asking() -> None:
    lazy = LazyStore(_unreachable, "news")  # type: ignore[abstract]
    assert isinstance(lazy, EngineStore)
    every = set().union(*map(_methods, EngineStore.__mro__))
    assert every <= set(dir(lazy)) and len(every) > 40
    assert lazy.index == "news" and lazy.product_headers() == {}
    lazy.observe_requests(lambda kind, seconds: None)
    with pytest.raises(StoreUnavailable):
        lazy.top_groups("anything")


def test_a_service_without_a_search_engine_says_which_role_a_call_needs(
    embedded: Store,
) -> None:
    service = IngestService(embedded, queue=FakeBatchQueue(embedded))
    assert service.readiness()["opensearch"] == "ok"  # a store in this process is ready
    assert service.product_headers() == {}
    assert service.index == "pages"
    with pytest.raises(Unsupported, match="GET / needs a search engine"):
        service.cluster_info()
    with pytest.raises(Unsupported, match="the lookup needs a search engine"):
        service.reads.lookup("text", None)
    with pytest.raises(Unsupported, match="the overview needs a search engine"):
        service.reads.overview()

