"""The store, by role (:mod:`neardup.ingest.store.roles`), behind one door::

    store = open_store("embedded")            # in-process, no server: a Store
    store = open_store("engine", settings)    # the engine at the settings' URL: an EngineStore

``engine`` opens the backend of the search engine behind ``OPENSEARCH_URL`` — ``opensearch``
or ``elasticsearch``, detected at connect (:mod:`neardup.ingest.store.detect`) unless
``NEARDUP_ENGINE`` (``neardup --engine``) names it — with its node, credentials, TLS options
and index from :class:`neardup.ingest.settings.Settings` (see docs/settings.md); without ``settings``,
from the environment. Each backend lives in its own module, loaded when opened.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import logging
from typing import Any, Literal, overload

from neardup.ingest.errors import ConfigError
from neardup.ingest.settings import Settings
from neardup.ingest.store.base import StoplistEntry, StoredDocument
from neardup.ingest.store.errors import (
    AccessDenied,
    DocumentNotFound,
    PermissionDenied,
    StoreError,
    StoreUnavailable,
    Unsupported,
)
from neardup.ingest.store.lazy import LazyStore
from neardup.ingest.store.roles import EngineStore, Store

__all__ = [
    "BACKENDS",
    "AccessDenied",
    "DocumentNotFound",
    "EngineStore",
    "StoplistEntry",
    "Store",
    "StoreError",
    "StoreUnavailable",
    "StoredDocument",
    "Unsupported",
    "check_access",
    "client_from_env",
    "default_index",
    "engine_settings",
    "open_store",
    "quiet_transport_log",
]

# Backend name -> its module (each has ``open_backend(settings, **options)``). ``engine`` is
# not a module: it stands for whichever search engine answers at the URL.
_MODULES = {
    "embedded": "neardup.ingest.store.embedded",
    "opensearch": "neardup.ingest.store.opensearch",
    "elasticsearch": "neardup.ingest.store.elasticsearch",
}
BACKENDS = ("embedded", "engine", "opensearch", "elasticsearch")
DEFAULT_URL = Settings.opensearch_url


def _detect(url: str, settings: Settings) -> Any:
    """:func:`neardup.ingest.store.detect.detect`, loaded when first asked (a lazy door: it loads
    urllib3, which the CLI's commands without an engine — ``compare``, ``dedup`` — never need,
    though they import this package for its error types)."""
    return importlib.import_module("neardup.ingest.store.detect").detect(url, settings)


def default_index(settings: Settings | None = None) -> str:
    return (settings or Settings.from_env()).index


class _OneLine(logging.Filter):
    """The clients log every failed request at WARNING *with its traceback* (dozens of lines
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
    """Install :class:`_OneLine` on the clients' transport loggers: opensearch-py's and
    elastic-transport's (idempotent)."""
    for name in ("opensearch", "elastic_transport.transport"):
        logger = logging.getLogger(name)
        if _ONE_LINE not in logger.filters:
            logger.addFilter(_ONE_LINE)


def engine_settings(settings: Settings, url: str | None = None) -> Settings:
    """``settings`` with ``engine`` filled in: the configured one, else the node's answer
    (:func:`neardup.ingest.store.detect.detect`) at ``url`` (default: the settings' URL). Pass the
    result on (to workers, through ``NEARDUP_ENGINE``) and the question is asked once."""
    if settings.engine:
        return settings
    found = _detect(url or settings.opensearch_url, settings)
    return dataclasses.replace(settings, engine=found.engine)


def check_access(settings: Settings) -> None:
    """Raise :class:`AccessDenied` when the node at the settings' URL refuses them: wrong
    credentials, an untrusted TLS certificate. A node that does not answer (yet) is no error
    here: the store waits for it as for any outage. Made once at a worker's start, so that a
    wrong password stops it with one line instead of failing every batch."""
    try:
        _detect(settings.opensearch_url, settings)
    except PermissionDenied:
        if settings.engine != "opensearch":  # an Elasticsearch client asks the version
            raise
    except AccessDenied:
        raise
    except StoreError:  # nothing answers yet, or not an engine: the store reports it on use
        return


def client_from_env(
    url: str | None = None, settings: Settings | None = None, **kwargs: Any
) -> Any:
    """The official client of the engine at ``url`` (default the settings' URL; settings
    default to the environment's): ``opensearchpy.OpenSearch`` or an ``Elasticsearch`` of the
    node's major. Keyword arguments override the client's options (timeouts, retries)."""
    quiet_transport_log()
    settings = settings or Settings.from_env()
    if settings.engine:  # named: no question asked (an Elasticsearch client asks the version)
        return importlib.import_module(_MODULES[settings.engine]).connect(url, settings, **kwargs)
    found = _detect(url or settings.opensearch_url, settings)
    return importlib.import_module(_MODULES[found.engine]).connect(
        url, settings, found.version, **kwargs
    )


# The backends that are a search engine: open_store gives their roles, an EngineStore.
_EngineName = Literal["engine", "opensearch", "elasticsearch"]


@overload
def open_store(
    backend: Literal["embedded"] = ..., settings: Settings | None = ..., **options: Any
) -> Store: ...


@overload
def open_store(
    backend: _EngineName, settings: Settings | None = ..., **options: Any
) -> EngineStore: ...


@overload
def open_store(backend: str, settings: Settings | None = ..., **options: Any) -> Store: ...


def open_store(
    backend: str = "embedded", settings: Settings | None = None, **options: Any
) -> Store:
    """A store by backend name (:data:`BACKENDS`), with the roles that backend offers: a
    search engine's are an :class:`EngineStore`, the embedded store's a :class:`Store`, and so
    is a backend named by a setting (a caller that needs more asks ``isinstance``).

    ``embedded``: options of :class:`~neardup.ingest.store.embedded.EmbeddedStore` (``path``: an
    SQLite file, default in memory). ``engine``: the search engine at the URL, ``opensearch``
    or ``elasticsearch`` as ``settings.engine`` says or the node answers at connect.
    ``opensearch``, ``elasticsearch``: ``client`` (default: the official client from the
    settings), ``url``, ``index`` (default ``settings.index``) and the options of
    :class:`~neardup.ingest.store.engine.cluster.Cluster`. ``settings`` default to the
    environment's (:meth:`Settings.from_env`).
    """
    # Backends are loaded by name when opened (a lazy door, like the CLI's): the embedded
    # store never loads an engine client.
    if backend not in BACKENDS:
        raise ConfigError(
            f"unknown store backend {backend!r}; choose one of {', '.join(BACKENDS)}"
        )
    if backend == "embedded":
        store: Store = importlib.import_module(_MODULES[backend]).open_backend(**options)
        return store
    quiet_transport_log()
    settings = settings or Settings.from_env()
    if backend == "engine":
        try:
            return _open_engine(settings, options)
        except StoreUnavailable:  # nothing answers yet: ask again at first use
            opener = functools.partial(_open_engine, settings, options)
            index = options.get("index") or settings.index
            return LazyStore(opener, index)  # type: ignore[abstract]  # methods set on the class
    engine: EngineStore = importlib.import_module(_MODULES[backend]).open_backend(
        settings, **options
    )
    return engine


def _open_engine(settings: Settings, options: dict[str, Any]) -> EngineStore:
    """The backend of the engine at the URL (raises :class:`StoreUnavailable` when nothing
    answers there)."""
    settings = engine_settings(settings, options.get("url"))
    store: EngineStore = importlib.import_module(_MODULES[settings.engine]).open_backend(
        settings, **dict(options)
    )
    return store
