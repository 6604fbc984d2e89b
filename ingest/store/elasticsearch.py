"""The Elasticsearch backend: :class:`~neardup.ingest.store.engine.EngineBackend` spoken through the
official clients, ``elasticsearch8`` for 8.x nodes and ``elasticsearch`` (9.0.x) for 9.x.

An Elasticsearch client sends ``compatible-with=<its major>`` and a node refuses a newer major
than its own, so the client is picked by the node's major version (:func:`client_module`).
Both clients share one transport (elastic-transport 8), so both error trees are the same
classes underneath; each still gets its own :class:`Dialect` built from its own package.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import Any

from neardup.ingest.settings import Settings
from neardup.ingest.store import engine
from neardup.ingest.store.detect import detect
from neardup.ingest.store.engine import Dialect, EngineBackend, client_options
from neardup.ingest.store.errors import StoreError

__all__ = ["ElasticsearchStore", "client_module", "connect", "dialect", "open_backend"]

# Server major -> the official client package for it (the newest one serves later majors).
CLIENTS = {8: "elasticsearch8", 9: "elasticsearch"}


def client_module(major: int) -> str:
    """The client package for an Elasticsearch ``major`` version."""
    if major < min(CLIENTS):
        raise StoreError(
            f"Elasticsearch {major}.x is not supported: neardup speaks to 8.x and 9.x "
            "(the composable index templates and the clients it uses)"
        )
    return CLIENTS.get(major, CLIENTS[max(CLIENTS)])


@cache
def dialect(package: str) -> Dialect:
    """The :class:`Dialect` of the client ``package`` (``elasticsearch8`` or ``elasticsearch``)."""
    es = importlib.import_module(package)
    transport = importlib.import_module("elastic_transport")
    return Dialect(
        name="Elasticsearch",
        helpers=importlib.import_module(f"{package}.helpers"),
        not_found=es.NotFoundError,
        conflict=es.ConflictError,
        bad_request=es.BadRequestError,
        api_error=es.ApiError,
        unreachable=(transport.ConnectionError, transport.ConnectionTimeout),
        status=lambda exc: getattr(getattr(exc, "meta", None), "status", None),
        error_type=lambda exc: getattr(exc, "message", None),
        error_body=lambda exc: getattr(exc, "body", None),
        with_timeout=lambda client, seconds: (client.options(request_timeout=seconds), {}),
        product_headers=(("X-Elastic-Product", "Elasticsearch"),),
    )


class ElasticsearchStore(EngineBackend):
    """Pages on an Elasticsearch cluster (``client``: an ``elasticsearch8.Elasticsearch`` or
    an ``elasticsearch.Elasticsearch``; the dialect follows the client's package)."""

    def __init__(self, client: Any, index: str = "pages", **options: Any) -> None:
        self.dialect = dialect(type(client).__module__.split(".")[0])
        super().__init__(client, index, **options)


def connect(
    url: str | None = None,
    settings: Settings | None = None,
    version: str | None = None,
    **kwargs: Any,
) -> Any:
    """The official client for the Elasticsearch node at ``url`` (default the settings' URL),
    configured from ``settings``: the client of the node's major ``version`` (default: asked
    of the node). Keyword arguments override (``request_timeout``, ...)."""
    settings = settings or Settings.from_env()
    url = url or settings.opensearch_url
    if version is None:
        version = detect(url, settings).version
    es = importlib.import_module(client_module(int(version.split(".")[0])))
    options = client_options(url, settings, "request_timeout")
    if settings.opensearch_user:
        options["basic_auth"] = (settings.opensearch_user, settings.opensearch_password or "")
    if settings.opensearch_api_key:
        options["api_key"] = settings.opensearch_api_key
    options.update(kwargs)
    return es.Elasticsearch(**options)


def open_backend(settings: Settings, **options: Any) -> ElasticsearchStore:
    """The store :func:`neardup.ingest.store.open_store` opens for ``elasticsearch``
    (:func:`neardup.ingest.store.engine.open_backend`)."""
    return engine.open_backend(ElasticsearchStore, connect, settings, **options)
