"""Store backends behind one interface (:class:`ingest.store.base.Store`).

>>> store = open_store("embedded")            # in-process, no server
>>> store = open_store("opensearch", settings)  # URL, credentials, index from Settings

The ``opensearch`` backend takes its node, credentials, TLS options and index from
:class:`ingest.settings.Settings` (``OPENSEARCH_URL``, ``NEARDUP_INDEX``, ...; see
docs/settings.md); without ``settings``, from the environment.
"""

from __future__ import annotations

import importlib
import logging
from typing import Any

from ingest.errors import ConfigError
from ingest.settings import Settings
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
DEFAULT_URL = Settings.opensearch_url


def default_index(settings: Settings | None = None) -> str:
    return (settings or Settings.from_env()).index


class _OneLine(logging.Filter):
    """opensearch-py logs every failed request at WARNING *with its traceback* (dozens of lines
    per attempt while a node is down). The store raises :class:`StoreUnavailable` with the
    cause, so its log keeps one line per failed request; at DEBUG (``-vv``) the tracebacks
    stay."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and not logging.getLogger(record.name).isEnabledFor(logging.DEBUG):
            error = record.exc_info[1]
            record.msg = f"{record.getMessage()}: {type(error).__name__}"
            record.args = ()
            record.exc_info = None
            record.exc_text = None
        return True


_ONE_LINE = _OneLine()


def quiet_transport_log() -> None:
    """Install :class:`_OneLine` on opensearch-py's logger (idempotent)."""
    logger = logging.getLogger("opensearch")
    if _ONE_LINE not in logger.filters:
        logger.addFilter(_ONE_LINE)


def client_from_env(
    url: str | None = None, settings: Settings | None = None, **kwargs: Any
) -> Any:
    """An ``opensearchpy.OpenSearch`` client configured from ``settings`` (default: the
    environment's); keyword arguments override (``timeout``, ``max_retries``, ...)."""
    from opensearchpy import OpenSearch

    quiet_transport_log()
    settings = settings or Settings.from_env()
    options: dict[str, Any] = {
        "hosts": [url or settings.opensearch_url],
        "timeout": 30,
        "max_retries": 3,
        "retry_on_timeout": True,
    }
    if settings.opensearch_user:
        options["http_auth"] = (settings.opensearch_user, settings.opensearch_password or "")
    options["verify_certs"] = settings.opensearch_verify_certs
    if not options["verify_certs"]:
        options["ssl_show_warn"] = False
    if settings.opensearch_ca_certs:
        options["ca_certs"] = settings.opensearch_ca_certs
    options.update(kwargs)
    return OpenSearch(**options)


def open_store(
    backend: str = "embedded", settings: Settings | None = None, **options: Any
) -> Store:
    """A store by backend name.

    ``embedded``: options of :class:`~ingest.store.embedded.EmbeddedStore` (``path``: an
    SQLite file, default in memory). ``opensearch``: ``client`` (default
    :func:`client_from_env`), ``url``, ``index`` (default ``settings.index``) and the
    options of :class:`~ingest.store.opensearch.OpenSearchStore`. ``settings`` (default:
    the environment's, :meth:`Settings.from_env`) configure the client and the index.
    """
    # Backends are loaded by name when opened (a lazy door, like the CLI's): the embedded
    # store never loads an engine client.
    if backend == "embedded":
        embedded = importlib.import_module("ingest.store.embedded")
        store: Store = embedded.EmbeddedStore(**options)
        return store
    if backend == "opensearch":
        engine = importlib.import_module("ingest.store.opensearch")
        settings = settings or Settings.from_env()
        client = options.pop("client", None)
        url = options.pop("url", None)
        if client is None:
            client = client_from_env(url, settings)
        index = options.pop("index", None) or settings.index
        store = engine.OpenSearchStore(client, index, mappings_dir=settings.mappings_dir, **options)
        return store
    raise ConfigError(f"unknown store backend {backend!r}; choose one of {', '.join(BACKENDS)}")
