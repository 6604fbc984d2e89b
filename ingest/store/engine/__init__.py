"""The search-engine store on OpenSearch or Elasticsearch (:mod:`neardup.ingest.store.opensearch`,
:mod:`neardup.ingest.store.elasticsearch`): every role of
:class:`~neardup.ingest.store.roles.EngineStore`, a module a role —

- :mod:`~neardup.ingest.store.engine.cluster`: connection and templates, the three indices,
  refresh, probes;
- :mod:`~neardup.ingest.store.engine.writes`: pages put, verdicts written back, in bulk;
- :mod:`~neardup.ingest.store.engine.candidates`: the ``terms`` queries of the fingerprints
  index;
- :mod:`~neardup.ingest.store.engine.reads`: pages by id, groups, search, aggregations, scans;
- :mod:`~neardup.ingest.store.engine.stoplist`: the stoplist index and fingerprint frequencies

— all speaking through a :class:`~neardup.ingest.store.engine.dialect.Dialect`, data handed to
:class:`EngineBackend` by each backend module. No method asks which engine it talks to.
Transient transport failures surface as
:class:`neardup.ingest.store.errors.StoreUnavailable`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from neardup.ingest.settings import Settings
from neardup.ingest.store.engine.candidates import TermsSearch
from neardup.ingest.store.engine.dialect import Dialect, client_options, translate_errors
from neardup.ingest.store.engine.reads import IndexReads
from neardup.ingest.store.engine.writes import BulkWrites
from neardup.ingest.store.roles import EngineStore

__all__ = ["Dialect", "EngineBackend", "client_options", "open_backend", "translate_errors"]


class EngineBackend(BulkWrites, TermsSearch, IndexReads, EngineStore):
    """Every role of a search engine's store, on the cluster behind ``client`` (options:
    :class:`~neardup.ingest.store.engine.cluster.Cluster`); each backend module's subclass sets
    its :attr:`dialect`."""


B = TypeVar("B", bound=EngineBackend)


def open_backend(
    backend: type[B],
    connect: Callable[..., Any],
    settings: Settings,
    url: str | None = None,
    client: Any = None,
    version: str | None = None,
    **options: Any,
) -> B:
    """The store :func:`neardup.ingest.store.open_store` opens for a search engine:
    ``backend`` on ``client`` (default: ``connect(url, settings, version)``, the backend
    module's client for the node at ``url``, default the settings'), in ``options["index"]``
    (default the settings' index), with the other options of
    :class:`~neardup.ingest.store.engine.cluster.Cluster`."""
    if client is None:
        client = connect(url, settings, version)
    index = options.pop("index", None) or settings.index
    return backend(client, index, mappings_dir=settings.mappings_dir, **options)
