"""The OpenSearch backend: :class:`~neardup.ingest.store.engine.EngineBackend` spoken through
opensearch-py (2.x and 3.x nodes alike)."""

from __future__ import annotations

from typing import Any

import opensearchpy
import orjson
from opensearchpy import helpers
from opensearchpy.serializer import JSONSerializer

from neardup.ingest.settings import Settings
from neardup.ingest.store import engine
from neardup.ingest.store.engine import Dialect, EngineBackend, client_options

__all__ = ["DIALECT", "OpenSearchStore", "connect", "open_backend"]


def _status(exc: Exception) -> int | None:
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) else None


DIALECT = Dialect(
    name="OpenSearch",
    helpers=helpers,
    not_found=opensearchpy.NotFoundError,
    conflict=opensearchpy.ConflictError,
    bad_request=opensearchpy.RequestError,
    api_error=opensearchpy.TransportError,
    unreachable=(opensearchpy.ConnectionError,),  # includes ConnectionTimeout and SSLError
    status=_status,
    error_type=lambda exc: getattr(exc, "error", None),
    error_body=lambda exc: getattr(exc, "info", None),
    with_timeout=lambda client, seconds: (client, {"request_timeout": seconds}),
    distribution="opensearch",
)


class OpenSearchStore(EngineBackend):
    """Pages on an OpenSearch cluster (``client``: an ``opensearchpy.OpenSearch``)."""

    dialect = DIALECT


class FastJSONSerializer(JSONSerializer):
    """The client's JSON by orjson (request and response bodies of the workers' searches,
    ``mget`` and ``_bulk`` are most of their CPU in ``json``); the stock serializer wherever
    orjson refuses (a lone surrogate, a type only the stock ``default`` knows)."""

    def loads(self, s: str) -> Any:
        try:
            return orjson.loads(s)
        except orjson.JSONDecodeError:
            return super().loads(s)

    def dumps(self, data: Any) -> Any:
        if isinstance(data, str):
            return data
        try:
            return orjson.dumps(data, default=self.default).decode()
        except orjson.JSONEncodeError:
            return super().dumps(data)


def connect(
    url: str | None = None,
    settings: Settings | None = None,
    version: str | None = None,
    **kwargs: Any,
) -> Any:
    """An ``opensearchpy.OpenSearch`` client configured from ``settings`` (default: the
    environment's), for a node of any ``version`` (2.x, 3.x); keyword arguments override
    (``timeout``, ``max_retries``, ...)."""
    settings = settings or Settings.from_env()
    options = client_options(url, settings, "timeout")
    options["serializer"] = FastJSONSerializer()
    if settings.opensearch_user:
        options["http_auth"] = (settings.opensearch_user, settings.opensearch_password or "")
    if settings.opensearch_api_key:  # opensearch-py has no api_key option: the header itself
        options["headers"] = {"Authorization": f"ApiKey {settings.opensearch_api_key}"}
    options.update(kwargs)
    return opensearchpy.OpenSearch(**options)


def open_backend(settings: Settings, **options: Any) -> OpenSearchStore:
    """The store :func:`neardup.ingest.store.open_store` opens for ``opensearch``
    (:func:`neardup.ingest.store.engine.open_backend`)."""
    return engine.open_backend(OpenSearchStore, connect, settings, **options)
