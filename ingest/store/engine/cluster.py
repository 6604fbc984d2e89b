"""A search engine's connection and templates: the client and its :class:`~.dialect.Dialect`,
the three indices made from the templates (the pages index, what users search and collapse,
indexing no fingerprint; ``<index>-fingerprints``, each page's fingerprints as a ``keyword``
array, the workers' candidate search, docs/scale.md; ``<index>-stoplist``), their refresh, the
engine's probes.

Every role of :mod:`neardup.ingest.store.engine` builds on :class:`Cluster`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from neardup.ingest.store.engine.dialect import (
    Dialect,
    TooManyTerms,
    terms_allowed,
    translate_errors,
    translated,
)
from neardup.ingest.templates import install_templates, load

__all__ = ["Cluster"]

log = logging.getLogger(__name__)
log.addHandler(logging.NullHandler())

_OWN_REFRESH_POLL = 0.2  # seconds between two reads of the pages index's refresh counts


class Cluster:
    """Pages in ``index`` on the cluster behind ``client`` (the engine's official client,
    spoken to in its :attr:`dialect`): the connection and templates of
    :class:`~neardup.ingest.store.roles.EngineConnection`.

    ``refresh_writes`` is passed as ``refresh`` to bulk and update requests (``False``,
    ``True`` or ``"wait_for"``); the default leaves visibility to the refresh interval and to
    :meth:`refresh`. ``stoplist_ttl`` is how long (seconds) a read stoplist is reused.
    ``shards``/``replicas`` apply to indices created from the templates :meth:`install` puts,
    read from ``mappings_dir`` (default: the packaged ``mappings/``).
    """

    dialect: Dialect  # set by each backend's subclass
    #: hits a page of a sorted search (``search_after``): group members, holders, the stoplist
    page = 1000

    def __init__(
        self,
        client: Any,
        index: str = "pages",
        *,
        stoplist_ttl: float = 30.0,
        refresh_writes: bool | str = False,
        chunk_size: int = 500,
        max_retries: int = 5,
        initial_backoff: float = 1.0,
        max_backoff: float = 60.0,
        shards: int | None = None,
        replicas: int | None = None,
        mappings_dir: Path | None = None,
    ) -> None:
        self.client = client
        self.index = index
        self.stoplist_index = f"{index}-stoplist"
        # The workers' candidate search (mappings/fingerprints-template.json): one document per
        # page, its fingerprints as terms, its id and seq as doc values, no _source.
        self.fingerprints_index = f"{index}-fingerprints"
        self.stoplist_ttl = stoplist_ttl
        self.refresh_writes = refresh_writes
        self.chunk_size = chunk_size
        self.max_retries = max_retries
        self.initial_backoff = initial_backoff
        self.max_backoff = max_backoff
        self.shards = shards
        self.replicas = replicas
        self.mappings_dir = mappings_dir

    def __repr__(self) -> str:
        return f"{type(self).__name__}(index={self.index!r})"

    @translated
    def install(self) -> dict[str, str]:
        """Install the templates (versioned) and create both indices when missing.

        Returns what :func:`neardup.ingest.templates.install_templates` did, plus
        ``{index name: "created" | "exists"}``."""
        done = self.install_templates()
        done.update(self.create_indices())
        return done

    @translated
    def install_templates(self, force: bool = False) -> dict[str, str]:
        return install_templates(
            self.client,
            self.index,
            shards=self.shards,
            replicas=self.replicas,
            force=force,
            directory=self.mappings_dir,
            not_found=self.dialect.not_found,
        )

    @translated
    def create_indices(self) -> dict[str, str]:
        """Create the pages and stoplist indices (from the templates) when missing:
        ``{"index:<name>": "created" | "exists" | "exists, fields added"}``. A pages index
        made under an older mapping gets the fields added since (additions only: the mapping
        is ``dynamic: strict``, so a new field must be mapped before a document carries it)."""
        done = {f"index:{n}": self._create_index(n)
                for n in (self.index, self.stoplist_index, self.fingerprints_index)}
        if done[f"index:{self.index}"] == "exists" and self._add_new_fields():
            done[f"index:{self.index}"] = "exists, fields added"
        return done

    def _add_new_fields(self) -> bool:
        wanted = load("pages-mappings", self.mappings_dir)["template"]["mappings"]["properties"]
        current = self.client.indices.get_mapping(index=self.index)
        have: set[str] = set()
        for body in current.values():
            have.update(body.get("mappings", {}).get("properties", {}))
        missing = {name: spec for name, spec in wanted.items() if name not in have}
        if missing:
            self.client.indices.put_mapping(index=self.index, body={"properties": missing})
        return bool(missing)

    def _create_index(self, name: str) -> str:
        if self.client.indices.exists(index=name):
            return "exists"
        try:
            self.client.indices.create(index=name)
        except self.dialect.bad_request as exc:
            if self.dialect.error_type(exc) == "resource_already_exists_exception":  # lost a race
                return "exists"
            raise
        return "created"

    @translated
    def index_exists(self) -> bool:
        return bool(self.client.indices.exists(index=self.index))

    @translated
    def refresh(self) -> None:
        self.client.indices.refresh(index=f"{self.index},{self.fingerprints_index}")

    @translated
    def refresh_written(self, wait: float = 0.0) -> None:
        """The workers' refresh: the fingerprints index is refreshed (the candidate search
        finds the pages written before the call), and the pages index is left to its own
        refresh (``index.refresh_interval``, the user's) for up to ``wait`` seconds. A refresh
        of a shard copy that *started* after the call has finished once the copy's count of
        external refreshes (``_stats/refresh``) has gone up by two: refreshes of a shard run
        one at a time, so the second started after the first had ended. Only when that does
        not happen in time (no more writes coming, so no scheduled refresh either; a longer
        interval or ``-1``; an idle shard; counts that cannot be read) is the pages index
        refreshed here."""
        before = self._pages_refreshes() if wait > 0 else None
        self.client.indices.refresh(index=self.fingerprints_index)
        if before is not None:
            deadline = time.monotonic() + wait
            while time.monotonic() < deadline:
                time.sleep(_OWN_REFRESH_POLL)
                now = self._pages_refreshes()
                if now is None:
                    break
                if all(now.get(copy, -1) >= n + 2 for copy, n in before.items()):
                    return
        self.client.indices.refresh(index=self.index)

    def _pages_refreshes(self) -> dict[str, int] | None:
        """``{shard copy: external refreshes}`` of the pages index; None when unknown."""
        try:
            answer = self.client.indices.stats(index=self.index, metric="refresh", level="shards")
        except (self.dialect.api_error, *self.dialect.unreachable) as exc:
            log.debug("refresh counts of %s unread: %s", self.index, exc)
            return None
        counts: dict[str, int] = {}
        for name, stats in (answer.get("indices") or {}).items():
            for shard, copies in (stats.get("shards") or {}).items():
                for copy in copies:
                    routing, refresh = copy.get("routing") or {}, copy.get("refresh") or {}
                    if "external_total" not in refresh:
                        return None  # an engine that does not tell them apart
                    key = f"{name}/{shard}/{routing.get('node')}/{routing.get('primary')}"
                    counts[key] = int(refresh["external_total"])
        return counts or None

    @translated
    def drop(self) -> None:
        self.client.indices.delete(
            index=f"{self.index},{self.stoplist_index},{self.fingerprints_index}",
            ignore_unavailable=True,
        )

    def close(self) -> None:
        self.client.close()

    def check_health(self, timeout: float = 2.0) -> None:
        client, extra = self.dialect.with_timeout(self.client, timeout + 1)
        client.cluster.health(timeout=f"{max(1, int(timeout))}s", **extra)

    def engine_info(self) -> dict[str, Any]:
        """The node's version and build from ``_nodes/_local`` (Elasticsearch's integ-test
        build answers ``GET /`` with 405), shaped like ``GET /``'s answer."""
        with translate_errors(self.dialect):
            nodes = self.client.nodes.info(node_id="_local")
        node = next(iter(dict(nodes)["nodes"].values()))
        version: dict[str, Any] = {"number": node["version"]}
        for key in ("build_flavor", "build_type", "build_hash"):
            if key in node:
                version[key] = node[key]
        if self.dialect.distribution:
            version["distribution"] = self.dialect.distribution
        return {
            "name": node.get("name"),
            "cluster_name": dict(nodes).get("cluster_name"),
            "version": version,
            "engine": self.dialect.name,
        }

    def product_headers(self) -> dict[str, str]:
        return dict(self.dialect.product_headers)

    @translated
    def engine_health(self) -> dict[str, Any]:
        return dict(self.client.cluster.health())

    @translated
    def index_mapping(self) -> dict[str, Any]:
        return dict(self.client.indices.get_mapping(index=self.index))

    def observe_requests(self, callback: Callable[[str, float], None]) -> None:
        """Wrap the transport's ``perform_request`` once (later calls are ignored)."""
        transport = getattr(self.client, "transport", None)
        if transport is None or getattr(transport, "_neardup_timed", False):
            return
        perform = transport.perform_request

        def timed(method: str, url: str, *args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return perform(method, url, *args, **kwargs)
            finally:
                callback(_endpoint(method, url), time.perf_counter() - t0)

        transport.perform_request = timed
        transport._neardup_timed = True

    def _paged(self, body: dict[str, Any], index: str | None = None) -> Iterator[dict[str, Any]]:
        """Every hit of a sorted search of :attr:`page` hits a page, page by page
        (``search_after``). A shard that refused a ``terms`` query for its number of terms (the
        others answered) raises :class:`TooManyTerms`: its hits are missing."""
        while True:
            answer = self.client.search(index=index or self.index, body=body)
            shards = answer["_shards"] if "_shards" in answer else {}
            for failure in shards.get("failures") or ():
                allowed = terms_allowed(failure)
                if allowed is not None:
                    raise TooManyTerms(allowed)
            hits = answer["hits"]["hits"]
            yield from hits
            if len(hits) < self.page:
                return
            body["search_after"] = hits[-1]["sort"]


def _endpoint(method: str, url: str) -> str:
    """A request's kind: ``_mget``, ``_msearch``, ``_bulk``, ``_update``, ``_search``, ..."""
    parts = [p for p in url.split("?")[0].split("/") if p]
    for p in reversed(parts):
        if p.startswith("_"):
            return p
    return method.lower()
