"""``neardup serve``: HTTP ingest, an OpenSearch ``_bulk``-compatible endpoint, the inspector.

Pages come in over HTTP (``POST /documents``, ``POST /_bulk``; a new version or a delete of a
page already accepted is staged as a change that a worker's repair applies), go through the same pipeline as
``neardup ingest`` (extract → sentences → fingerprints), are staged in Redis and queued; the
Celery workers decide them and index each page once, with its ``dup_group``.
``GET /documents/{id}`` and ``GET /groups/{id}`` read the outcome, and ``/inspector`` shows the
largest groups with the trustable LCS region of each member highlighted. See docs/http.md.

Starlette app (run by uvicorn). Blocking I/O (opensearch-py, kombu, the verifier) runs in the
thread pool; the event loop only reads bodies and writes answers.

This module only assembles the app: the routes to the handlers of
:mod:`~neardup.ingest.server.probes`, :mod:`~neardup.ingest.server.documents`,
:mod:`~neardup.ingest.server.inspector_api` and :mod:`~neardup.ingest.server.compat` (the
OpenSearch-compatible endpoints), each given what it needs (the
:class:`~neardup.ingest.server.service.IngestService`, the
:class:`~neardup.ingest.server.config.ServerConfig`); the middleware of
:mod:`~neardup.ingest.server.middleware`; the exception handlers of
:mod:`~neardup.ingest.server.responses`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from neardup.ingest.server import compat, documents, inspector_api, probes
from neardup.ingest.server.config import ServerConfig
from neardup.ingest.server.middleware import ProductHeaders, SecurityHeaders, TokenAuth
from neardup.ingest.server.responses import EXCEPTION_HANDLERS
from neardup.ingest.server.service import IngestService

__all__ = ["INSPECTOR_DIR", "create_app"]

INSPECTOR_DIR = Path(__file__).resolve().parent / "static"

Handler = Callable[[Request], Awaitable[Response]]


def create_app(service: IngestService, config: ServerConfig | None = None) -> Starlette:
    """The ASGI app over ``service`` (the store, the pipeline, the queue)."""
    config = config or ServerConfig()

    # Each handler is given what it needs: the service, and the options where it reads them.
    def svc(handler: Callable[..., Awaitable[Response]]) -> Handler:
        return partial(handler, service=service)

    def svc_cfg(handler: Callable[..., Awaitable[Response]]) -> Handler:
        return partial(handler, service=service, config=config)

    get, post, post_put = ["GET"], ["POST"], ["POST", "PUT"]
    routes: list[BaseRoute] = [
        Route("/", svc(compat.root), methods=get),
        Route("/healthz", probes.healthz, methods=get),
        Route("/readyz", svc_cfg(probes.readyz), methods=get),
        Route("/documents", svc_cfg(documents.post_documents), methods=post),
        Route("/documents/{doc_id:path}", svc(documents.get_document), methods=get),
        Route("/documents/{doc_id:path}", svc(documents.delete_document), methods=["DELETE"]),
        Route("/groups/{group_id:path}", svc(documents.get_group), methods=get),
        Route("/_bulk", svc_cfg(compat.bulk), methods=post_put),
        Route("/api/groups", svc(inspector_api.api_groups), methods=get),
        Route("/api/pages", svc(inspector_api.api_pages), methods=get),
        Route("/api/overview", svc(inspector_api.api_overview), methods=get),
        Route("/api/groups/{group_id:path}/explain", svc_cfg(inspector_api.api_explain),
              methods=get),
        Route("/inspector", inspector_api.inspector_root, methods=get),
        Mount("/inspector", app=StaticFiles(directory=INSPECTOR_DIR, html=True), name="inspector"),
        Route("/{index}/_bulk", svc_cfg(compat.bulk), methods=post_put),
        Route("/_refresh", svc(compat.refresh_index), methods=["POST", "GET"]),
        Route("/_cluster/health", svc(compat.cluster_health), methods=get),
        Route("/_cluster/health/{index}", svc(compat.cluster_health), methods=get),
        Route("/_cat/health", svc(compat.cat_health), methods=get),
        Route("/{index}/_refresh", svc(compat.refresh_index), methods=["POST", "GET"]),
        Route("/{index}/_mapping", svc(compat.get_mapping), methods=get),
        Route("/{index}/_mapping", svc_cfg(compat.put_mapping), methods=["PUT", "POST"]),
        Route("/{index}/_doc", svc_cfg(compat.put_document), methods=post),
        Route("/{index}/_doc/{doc_id:path}", svc_cfg(compat.put_document), methods=["PUT", "POST"]),
        Route("/{index}/_doc/{doc_id:path}", svc(compat.delete_document), methods=["DELETE"]),
        Route("/{index}/_create/{doc_id:path}", svc_cfg(compat.put_document),
              methods=["PUT", "POST"]),
        Route("/{index}", svc(compat.head_index), methods=["HEAD"]),
        Route("/{index}", svc_cfg(compat.put_index), methods=["PUT"]),
    ]
    app = Starlette(routes=routes, exception_handlers=EXCEPTION_HANDLERS)
    app.state.service = service
    app.state.config = config
    app.add_middleware(TokenAuth, token=config.token)
    app.add_middleware(ProductHeaders, headers=service.product_headers)
    app.add_middleware(SecurityHeaders)  # outermost: 401 answers carry the headers too
    return app
