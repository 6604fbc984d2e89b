"""Store backends behind one interface (:class:`ingest.store.base.Store`).

>>> store = open_store("embedded")            # in-process, no server
>>> store = open_store("opensearch")          # OPENSEARCH_URL, NEARDUP_INDEX, ... from the env

Environment of the ``opensearch`` backend: ``OPENSEARCH_URL`` (default
``http://127.0.0.1:9200``), ``OPENSEARCH_USER``/``OPENSEARCH_PASSWORD`` (basic auth),
``OPENSEARCH_VERIFY_CERTS`` (``true``/``false``, default true), ``OPENSEARCH_CA_CERTS`` (a CA
bundle path), ``NEARDUP_INDEX`` (default ``pages``).
"""

from __future__ import annotations

import os
from typing import Any

from ingest.errors import ConfigError
from ingest.store.base import (
    Candidate,
    GroupUpdate,
    PutResult,
    StoplistEntry,
    Store,
    StoredDocument,
)
from ingest.store.errors import DocumentNotFound, StoreError, StoreUnavailable

__all__ = [
    "BACKENDS",
    "Candidate",
    "DocumentNotFound",
    "GroupUpdate",
    "PutResult",
    "StoplistEntry",
    "Store",
    "StoreError",
    "StoreUnavailable",
    "StoredDocument",
    "client_from_env",
    "default_index",
    "open_store",
]

BACKENDS = ("embedded", "opensearch")
DEFAULT_URL = "http://127.0.0.1:9200"


def default_index() -> str:
    return os.environ.get("NEARDUP_INDEX") or "pages"


def _env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    value = raw.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise ConfigError(f"{name}={raw!r}: expected true or false")


def client_from_env(url: str | None = None, **kwargs: Any) -> Any:
    """An ``opensearchpy.OpenSearch`` client configured from the environment; keyword
    arguments override (``timeout``, ``max_retries``, ...)."""
    from opensearchpy import OpenSearch

    options: dict[str, Any] = {
        "hosts": [url or os.environ.get("OPENSEARCH_URL") or DEFAULT_URL],
        "timeout": 30,
        "max_retries": 3,
        "retry_on_timeout": True,
    }
    user = os.environ.get("OPENSEARCH_USER")
    if user:
        options["http_auth"] = (user, os.environ.get("OPENSEARCH_PASSWORD", ""))
    options["verify_certs"] = _env_bool("OPENSEARCH_VERIFY_CERTS", True)
    if not options["verify_certs"]:
        options["ssl_show_warn"] = False
    ca_certs = os.environ.get("OPENSEARCH_CA_CERTS")
    if ca_certs:
        options["ca_certs"] = ca_certs
    options.update(kwargs)
    return OpenSearch(**options)


def open_store(backend: str = "embedded", **options: Any) -> Store:
    """A store by backend name.

    ``embedded``: options of :class:`~ingest.store.embedded.EmbeddedStore` (``path``: an
    SQLite file, default in memory). ``opensearch``: ``client`` (default
    :func:`client_from_env`), ``url``, ``index`` (default ``$NEARDUP_INDEX`` or ``pages``) and
    the options of :class:`~ingest.store.opensearch.OpenSearchStore`.
    """
    if backend == "embedded":
        from ingest.store.embedded import EmbeddedStore

        return EmbeddedStore(**options)
    if backend == "opensearch":
        from ingest.store.opensearch import OpenSearchStore

        client = options.pop("client", None)
        url = options.pop("url", None)
        if client is None:
            client = client_from_env(url)
        index = options.pop("index", None) or default_index()
        return OpenSearchStore(client, index, **options)
    raise ConfigError(f"unknown store backend {backend!r}; choose one of {', '.join(BACKENDS)}")
