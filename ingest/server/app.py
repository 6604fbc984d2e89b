"""``neardup serve``: HTTP ingest, an OpenSearch ``_bulk``-compatible endpoint, the inspector.

Pages come in over HTTP (``POST /documents``, ``POST /_bulk``), go through the same pipeline as
``neardup ingest`` (extract → sentences → fingerprints), are indexed into the pages index
through the store and queued for verification; the Celery workers write ``dup_group`` back.
``GET /documents/{id}`` and ``GET /groups/{id}`` read the outcome, and ``/inspector`` shows the
largest groups with the trustable LCS region of each member highlighted. See docs/http.md.

Starlette app (run by uvicorn). Blocking I/O (opensearch-py, kombu, the verifier) runs in the
thread pool; the event loop only reads bodies and writes answers.
"""

from __future__ import annotations

import hmac
import json
import logging
import time
import zlib
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from neardup.ingest.errors import ConfigError, DocumentError
from neardup.ingest.records import MAX_BODY_BYTES, dumps_bytes, validate_id
from neardup.ingest.server.backend import Backend, IngestItem
from neardup.ingest.server.bulk import (
    BulkSyntaxError,
    DocumentsSyntaxError,
    ItemError,
    error_item,
    generate_id,
    ok_item,
    parse_bulk,
    parse_documents,
    raw_document,
)
from neardup.ingest.server.inspector import MAX_GROUPS
from neardup.ingest.store.errors import StoreUnavailable
from neardup.ingest.store.query import FIND_FILTERS
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse as _StarletteJSONResponse
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = [
    "API_CSP",
    "DEFAULT_MAX_BODY",
    "INSPECTOR_CSP",
    "HTTPError",
    "ServerConfig",
    "create_app",
]

log = logging.getLogger(__name__)
log.addHandler(logging.NullHandler())

DEFAULT_MAX_BODY = MAX_BODY_BYTES  # the input rules' number (docs/limits.md)
INSPECTOR_DIR = Path(__file__).resolve().parent / "static"

# Reachable without the token: probes (kubelet has no token) and the inspector's static files
# (the page asks for the token and sends it with its API calls).
_OPEN_PATHS = ("/healthz", "/readyz", "/inspector", "/favicon.ico")

# The inspector runs only its own files: no inline script or style, no other origin, never in
# a frame. (Page text is written with textContent; this is the second line of defence.)
INSPECTOR_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
# JSON answers are data, never a document to render or frame.
API_CSP = "default-src 'none'; frame-ancestors 'none'"


class JSONResponse(_StarletteJSONResponse):
    """JSON that always encodes: a string with a lone surrogate (echoed from a request) is
    written as its ``\\uXXXX`` escape instead of failing the answer with a 500."""

    def render(self, content: Any) -> bytes:
        return dumps_bytes(content)


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """Options of ``neardup serve`` (validated on creation).

    ``token``: when set, every endpoint but the probes and the inspector's static files needs
    ``Authorization: Bearer <token>`` (or HTTP Basic auth with the token as password).
    ``max_body_bytes``: largest request body, after gzip decompression (413 beyond).
    ``text_field``: a source field taken as ``text`` when a document has none of ``text``,
    ``html``, ``rst``, ``markdown`` (``message`` for Logstash events, ``log`` for Fluent Bit).
    ``max_explain_members``: members compared on the fly by one inspector request.
    """

    token: str | None = None
    max_body_bytes: int = DEFAULT_MAX_BODY
    text_field: str | None = None
    max_explain_members: int = 200

    def __post_init__(self) -> None:
        if self.max_body_bytes < 1024:
            raise ConfigError(f"max_body_bytes must be >= 1024, got {self.max_body_bytes}")
        if self.token is not None and not self.token.strip():
            raise ConfigError("token must not be empty (omit it to disable auth)")
        if self.max_explain_members < 1:
            raise ConfigError(f"max_explain_members must be >= 1, got {self.max_explain_members}")


class HTTPError(Exception):
    """An error answer in OpenSearch's shape: ``{"error": {"type", "reason"}, "status"}``."""

    def __init__(
        self, status: int, type_: str, reason: str, headers: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(reason)
        self.status = status
        self.type = type_
        self.reason = reason
        self.headers = dict(headers or {})


def error_response(
    status: int, type_: str, reason: str, headers: Mapping[str, str] | None = None
) -> JSONResponse:
    return JSONResponse(
        {"error": {"type": type_, "reason": reason}, "status": status},
        status_code=status,
        headers=dict(headers or {}),
    )


# -- auth --------------------------------------------------------------------------------------


def _authorized(header: str | None, token: str) -> bool:
    if not header:
        return False
    scheme, _, value = header.partition(" ")
    scheme = scheme.lower()
    value = value.strip()
    if scheme == "bearer":
        return hmac.compare_digest(value.encode(), token.encode())
    if scheme == "basic":
        # Bulk shippers that only do basic auth (Fluent Bit, Logstash user/password) send the
        # token as the password; the user name is not checked.
        import base64
        import binascii

        try:
            decoded = base64.b64decode(value, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return False
        _, _, password = decoded.partition(":")
        return hmac.compare_digest(password.encode(), token.encode())
    return False


class TokenAuth:
    """ASGI middleware: 401 unless the request carries the token (open paths excepted)."""

    def __init__(self, app: ASGIApp, token: str | None) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.token is None:
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        if any(path == p or path.startswith(p + "/") for p in _OPEN_PATHS):
            await self.app(scope, receive, send)
            return
        header = None
        for name, value in scope.get("headers", ()):
            if name == b"authorization":
                header = value.decode("latin-1")
                break
        if _authorized(header, self.token):
            await self.app(scope, receive, send)
            return
        response = error_response(
            401,
            "security_exception",
            "missing or invalid token: send 'Authorization: Bearer <token>'",
            {"WWW-Authenticate": 'Bearer realm="neardup"'},
        )
        await response(scope, receive, send)


class SecurityHeaders:
    """ASGI middleware: ``X-Content-Type-Options: nosniff``, no framing and a
    Content-Security-Policy on every answer (the inspector's own under ``/inspector``)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        csp = INSPECTOR_CSP if path == "/inspector" or path.startswith("/inspector/") else API_CSP
        extra = [
            (b"x-content-type-options", b"nosniff"),
            (b"x-frame-options", b"DENY"),
            (b"referrer-policy", b"no-referrer"),
            (b"content-security-policy", csp.encode()),
        ]

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                names = {name.lower() for name, _ in extra}
                headers = [h for h in message.get("headers", []) if h[0].lower() not in names]
                message = {**message, "headers": headers + extra}
            await send(message)

        await self.app(scope, receive, send_with_headers)


class ProductHeaders:
    """ASGI middleware: the engine's product headers on every answer (Elasticsearch's official
    clients refuse a server whose 2xx answers lack ``X-Elastic-Product: Elasticsearch``)."""

    def __init__(self, app: ASGIApp, headers: Callable[[], dict[str, str]]) -> None:
        self.app = app
        self.headers = headers  # asked per answer: the engine may be known only later

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                out = MutableHeaders(scope=message)
                for name, value in self.headers().items():
                    out[name] = value
            await send(message)

        await self.app(scope, receive, send_with_headers)


# -- bodies ------------------------------------------------------------------------------------


def _too_large(limit: int) -> HTTPError:
    return HTTPError(
        413,
        "request_entity_too_large",
        f"request body exceeds the limit of {limit} bytes; send smaller batches",
    )


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, gunzipped when ``Content-Encoding: gzip``, at most ``limit`` bytes.

    Refuses early on a declared ``Content-Length`` over the limit, and stops reading a chunked
    or lying body as soon as it passes the limit (and a gzip bomb as soon as its output does).
    """
    declared = request.headers.get("content-length")
    if declared is not None:
        try:
            if int(declared) > limit:
                raise _too_large(limit)
        except ValueError:
            raise HTTPError(400, "parse_exception", "invalid Content-Length") from None
    encoding = request.headers.get("content-encoding", "identity").strip().lower()
    if encoding not in ("identity", "", "gzip", "x-gzip", "deflate"):
        raise HTTPError(
            415, "illegal_argument_exception", f"unsupported Content-Encoding: {encoding}"
        )
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise _too_large(limit)
        chunks.append(chunk)
    body = b"".join(chunks)
    if encoding in ("gzip", "x-gzip", "deflate"):
        wbits = 16 + zlib.MAX_WBITS if encoding != "deflate" else zlib.MAX_WBITS
        inflater = zlib.decompressobj(wbits)
        try:
            body = inflater.decompress(body, limit + 1)
        except zlib.error as exc:
            raise HTTPError(400, "parse_exception", f"invalid {encoding} body: {exc}") from None
        if len(body) > limit or inflater.unconsumed_tail:
            raise _too_large(limit)
    return body


def _int_param(request: Request, name: str, default: int, low: int, high: int) -> int:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise HTTPError(
            400, "illegal_argument_exception", f"{name} must be an integer, got {raw!r}"
        ) from None
    if not low <= value <= high:
        raise HTTPError(
            400,
            "illegal_argument_exception",
            f"{name} must be between {low} and {high}, got {value}",
        )
    return value


def _refresh_param(request: Request) -> bool:
    raw = request.query_params.get("refresh")
    if raw is None:
        return False
    if raw in ("", "true", "wait_for"):
        return True
    if raw == "false":
        return False
    raise HTTPError(
        400, "illegal_argument_exception", f"refresh must be true, false or wait_for, got {raw!r}"
    )


# -- the app -----------------------------------------------------------------------------------


def create_app(backend: Backend, config: ServerConfig | None = None) -> Starlette:
    """The ASGI app over ``backend`` (the store, the pipeline, the queue)."""
    config = config or ServerConfig()

    async def healthz(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def readyz(request: Request) -> Response:
        checks = await run_in_threadpool(backend.readiness)
        ready = all(v == "ok" for v in checks.values())
        if not ready:
            log.warning("not ready: %s", checks)
        # The reasons name hosts and ports: only a caller with the token reads them; the
        # probes (no token) need the status alone.
        if config.token is None or not _authorized(
            request.headers.get("authorization"), config.token
        ):
            checks = {k: "ok" if v == "ok" else "unavailable" for k, v in checks.items()}
        return JSONResponse(
            {"status": "ready" if ready else "unavailable", "checks": checks},
            status_code=200 if ready else 503,
        )

    async def root(request: Request) -> Response:
        # Bulk shippers (Logstash, Data Prepper) ask GET / for the version before sending.
        info = await run_in_threadpool(backend.cluster_info)
        return JSONResponse(info)

    async def post_documents(request: Request) -> Response:
        started = time.monotonic()
        body = await read_body(request, config.max_body_bytes)
        try:
            parsed, single = parse_documents(body, backend.limits)
        except DocumentsSyntaxError as exc:
            raise HTTPError(400, "parse_exception", str(exc)) from None
        items: list[tuple[int | None, IngestItem | ItemError]] = []
        for line, entry in parsed:
            if isinstance(entry, ItemError):
                items.append((line, entry))
                continue
            # validated with the document by the input layer (neardup.ingest.records), as on every path
            items.append((line, IngestItem(action="index", raw=entry, line=line)))
        await run_in_threadpool(
            backend.ingest,
            [i for _, i in items if isinstance(i, IngestItem)],
            _refresh_param(request),
        )
        results = [_document_result(i, line) for line, i in items]
        errors = any("error" in r for r in results)
        if single:
            return JSONResponse(results[0], status_code=results[0]["status"])
        return JSONResponse(
            {"took": _took(started), "errors": errors, "items": results}, status_code=200
        )

    async def get_document(request: Request) -> Response:
        doc_id = _path_id(request, "doc_id", "GET /documents/{id}")
        doc = await run_in_threadpool(backend.document, doc_id)
        if doc is None:
            raise HTTPError(404, "document_missing_exception", f"document [{doc_id}] not found")
        return JSONResponse(doc)

    async def get_group(request: Request) -> Response:
        group_id = _path_id(request, "group_id", "GET /groups/{id}")
        group = await run_in_threadpool(backend.group, group_id)
        if group is None:
            raise HTTPError(404, "group_missing_exception", f"group [{group_id}] not found")
        return JSONResponse(group)

    async def bulk(request: Request) -> Response:
        started = time.monotonic()
        url_index = request.path_params.get("index")
        body = await read_body(request, config.max_body_bytes)
        try:
            ops = parse_bulk(body, url_index, backend.limits)
        except BulkSyntaxError as exc:
            raise HTTPError(400, "illegal_argument_exception", str(exc)) from None
        items = await run_in_threadpool(
            _ingest_ops, ops, backend, config, _refresh_param(request)
        )
        errors = any("error" in next(iter(i.values())) for i in items)
        return JSONResponse({"took": _took(started), "errors": errors, "items": items})

    # -- what pipeline clients send besides _bulk, answered as the engine would ---------------

    async def put_document(request: Request) -> Response:
        """``PUT|POST /{index}/_doc/{id}``, ``/_create/{id}``, ``POST /{index}/_doc``: a
        one-item ``_bulk`` through the same decision path, answered in the engine's shape."""
        action = "create" if request.url.path.split("/")[2] == "_create" else "index"
        if request.query_params.get("op_type") == "create":
            action = "create"
        doc_id = request.path_params.get("doc_id")
        body = await read_body(request, config.max_body_bytes)
        try:
            source = json.loads(body)
        except ValueError as exc:
            raise HTTPError(400, "parse_exception", f"not a JSON document: {exc}") from None
        if not isinstance(source, dict):
            raise HTTPError(400, "parse_exception", "the document must be a JSON object")
        meta = {"_id": doc_id} if doc_id is not None else {}
        one = (json.dumps({action: meta}) + "\n" + json.dumps(source) + "\n").encode()
        try:
            ops = parse_bulk(one, request.path_params["index"], backend.limits)
        except BulkSyntaxError as exc:
            raise HTTPError(400, "illegal_argument_exception", str(exc)) from None
        [item] = await run_in_threadpool(
            _ingest_ops, ops, backend, config, _refresh_param(request)
        )
        answer = next(iter(item.values()))
        if "error" in answer:
            error = answer["error"]
            raise HTTPError(int(answer["status"]), error["type"], error["reason"])
        status = int(answer["status"])
        return JSONResponse(
            {
                "_index": answer["_index"], "_id": answer["_id"], "_version": 1,
                "result": answer["result"],
                "_shards": {"total": 1, "successful": 1, "failed": 0},
                "_seq_no": 0, "_primary_term": 1,
            },
            status_code=status,
        )

    async def head_index(request: Request) -> Response:
        known = request.path_params["index"] in (backend.index, f"{backend.index}-stoplist")
        return Response(status_code=200 if known else 404)

    async def refresh_index(request: Request) -> Response:
        await run_in_threadpool(backend.refresh)
        return JSONResponse({"_shards": {"total": 1, "successful": 1, "failed": 0}})

    async def cluster_health(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(backend.engine_health))

    async def cat_health(request: Request) -> Response:
        health = await run_in_threadpool(backend.engine_health)
        now = time.time()
        row = {
            "epoch": str(int(now)), "timestamp": time.strftime("%H:%M:%S", time.gmtime(now)),
            "cluster": health.get("cluster_name"), "status": health.get("status"),
            "node.total": str(health.get("number_of_nodes")),
            "node.data": str(health.get("number_of_data_nodes")),
            "shards": str(health.get("active_shards")), "pri": str(health.get("active_primary_shards")),
        }
        if request.query_params.get("format") == "json":
            return JSONResponse([row])
        return PlainTextResponse(" ".join(str(v) for v in row.values()) + "\n")

    async def get_mapping(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(backend.index_mapping))

    async def put_index(request: Request) -> Response:
        """``PUT /{index}``: the pages index is neardup's, made from its templates; asking for it
        is granted (created when missing), other indices are refused as the engine would."""
        index = request.path_params["index"]
        if index != backend.index:
            raise HTTPError(
                400, "illegal_argument_exception",
                f"neardup serves the index [{backend.index}] only, not [{index}]",
            )
        await read_body(request, config.max_body_bytes)  # its settings: the templates decide
        await run_in_threadpool(backend.create_index)
        return JSONResponse({"acknowledged": True, "shards_acknowledged": True, "index": index})

    async def put_mapping(request: Request) -> Response:
        """``PUT /{index}/_mapping``: granted when every field is one of the pages mapping's
        (a mapping dumped from a neardup index); any other field is refused — the mapping is
        strict, a page's fields are the contract."""
        body = await read_body(request, config.max_body_bytes)
        try:
            wanted = json.loads(body or b"{}")
        except ValueError as exc:
            raise HTTPError(400, "parse_exception", f"not a JSON mapping: {exc}") from None
        mapping = await run_in_threadpool(backend.index_mapping)
        known: set[str] = set()
        for entry in mapping.values():
            known.update(entry.get("mappings", {}).get("properties", {}))
        asked = wanted.get("properties", {}) if isinstance(wanted, dict) else {}
        if "mappings" in wanted and isinstance(wanted["mappings"], dict):
            asked = wanted["mappings"].get("properties", {})
        unknown = sorted(set(asked) - known)
        if unknown:
            raise HTTPError(
                400, "strict_dynamic_mapping_exception",
                f"the pages mapping of neardup is fixed; unknown fields {unknown}",
            )
        return JSONResponse({"acknowledged": True})

    async def api_groups(request: Request) -> Response:
        size = _int_param(request, "size", 20, 1, MAX_GROUPS)
        min_size = _int_param(request, "min_size", 2, 1, 1_000_000)
        offset = _int_param(request, "offset", 0, 0, MAX_GROUPS - size)
        return JSONResponse(
            await run_in_threadpool(backend.largest_groups, size, min_size, offset)
        )

    async def api_pages(request: Request) -> Response:
        text = request.query_params.get("q", "").strip() or None
        state = request.query_params.get("state", "").strip() or None
        if state is not None and state not in FIND_FILTERS:
            raise HTTPError(400, "illegal_argument_exception",
                            f"state must be one of {', '.join(FIND_FILTERS)}, got {state!r}")
        if text is None and state is None:
            raise HTTPError(400, "illegal_argument_exception", "give q (id, URL or words) or state")
        size = _int_param(request, "size", 20, 1, 100)
        offset = _int_param(request, "offset", 0, 0, 10_000 - size)
        return JSONResponse(await run_in_threadpool(backend.lookup, text, state, offset, size))

    async def api_overview(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(backend.overview))

    async def api_explain(request: Request) -> Response:
        group_id = _path_id(request, "group_id", "GET /api/groups/{id}/explain")
        limit = _int_param(request, "members", 20, 1, config.max_explain_members)
        explained = await run_in_threadpool(backend.explain, group_id, limit)
        if explained is None:
            raise HTTPError(404, "group_missing_exception", f"group [{group_id}] not found")
        return JSONResponse(explained)

    async def inspector_root(request: Request) -> Response:
        return RedirectResponse(url="/inspector/", status_code=308)

    routes = [
        Route("/", root, methods=["GET"]),
        Route("/healthz", healthz, methods=["GET"]),
        Route("/readyz", readyz, methods=["GET"]),
        Route("/documents", post_documents, methods=["POST"]),
        Route("/documents/{doc_id:path}", get_document, methods=["GET"]),
        Route("/groups/{group_id:path}", get_group, methods=["GET"]),
        Route("/_bulk", bulk, methods=["POST", "PUT"]),
        Route("/api/groups", api_groups, methods=["GET"]),
        Route("/api/pages", api_pages, methods=["GET"]),
        Route("/api/overview", api_overview, methods=["GET"]),
        Route("/api/groups/{group_id:path}/explain", api_explain, methods=["GET"]),
        Route("/inspector", inspector_root, methods=["GET"]),
        Mount("/inspector", app=StaticFiles(directory=INSPECTOR_DIR, html=True), name="inspector"),
        Route("/{index}/_bulk", bulk, methods=["POST", "PUT"]),
        Route("/_refresh", refresh_index, methods=["POST", "GET"]),
        Route("/_cluster/health", cluster_health, methods=["GET"]),
        Route("/_cluster/health/{index}", cluster_health, methods=["GET"]),
        Route("/_cat/health", cat_health, methods=["GET"]),
        Route("/{index}/_refresh", refresh_index, methods=["POST", "GET"]),
        Route("/{index}/_mapping", get_mapping, methods=["GET"]),
        Route("/{index}/_mapping", put_mapping, methods=["PUT", "POST"]),
        Route("/{index}/_doc", put_document, methods=["POST"]),
        Route("/{index}/_doc/{doc_id:path}", put_document, methods=["PUT", "POST"]),
        Route("/{index}/_create/{doc_id:path}", put_document, methods=["PUT", "POST"]),
        Route("/{index}", head_index, methods=["HEAD"]),
        Route("/{index}", put_index, methods=["PUT"]),
    ]

    async def on_http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPError)
        return error_response(exc.status, exc.type, exc.reason, exc.headers)

    async def on_starlette_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        kind = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        reason = (
            exc.detail
            if exc.status_code not in (404, 405)
            else (f"no such endpoint: {request.method} {request.url.path}")
        )
        return error_response(exc.status_code, kind, str(reason), exc.headers)

    async def on_unavailable(request: Request, exc: Exception) -> Response:
        # The cause (host, port) goes to the log, not to whoever asked.
        log.warning("backend unavailable on %s %s: %s", request.method, request.url.path, exc)
        what = "OpenSearch" if isinstance(exc, StoreUnavailable) else "a backend"
        return error_response(
            503,
            "unavailable",
            f"{what} is unavailable right now; retry later",
            {"Retry-After": "5"},
        )

    async def on_unexpected(request: Request, exc: Exception) -> Response:
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        return error_response(500, "internal_error", f"{type(exc).__name__}: {exc}")

    handlers: dict[Any, Callable[[Request, Exception], Awaitable[Response]]] = {
        HTTPError: on_http_error,
        HTTPException: on_starlette_error,
        StoreUnavailable: on_unavailable,
        ConnectionError: on_unavailable,  # a client library's own, untranslated
        TimeoutError: on_unavailable,
        Exception: on_unexpected,
    }
    app = Starlette(routes=routes, exception_handlers=handlers)
    app.state.backend = backend
    app.state.config = config
    app.add_middleware(TokenAuth, token=config.token)
    app.add_middleware(ProductHeaders, headers=backend.product_headers)
    app.add_middleware(SecurityHeaders)  # outermost: 401 answers carry the headers too
    return app


def _ingest_ops(
    ops: list[Any], backend: Backend, config: ServerConfig, refresh: bool
) -> list[dict[str, Any]]:
    """Bulk operations through the ingest path: one response item each, in order (``delete``
    and ``update`` refused per item: a page's group depends on its text)."""
    index_name = backend.index
    slots: list[IngestItem | dict[str, Any]] = []
    for op in ops:
        if op.action in ("delete", "update"):
            slots.append(
                error_item(
                    op.action,
                    index_name,
                    op.id,
                    ItemError(
                        400,
                        "illegal_argument_exception",
                        f"neardup does not accept [{op.action}] in bulk requests: only "
                        "index and create (a page's group depends on its text; delete or "
                        "change pages in the engine directly)",
                    ),
                )
            )
            continue
        if op.id is None and op.error is None and (op.source or {}).get("id") is None:
            op.id = generate_id()
        raw, err = raw_document(op, config.text_field)
        if err is not None or raw is None:
            slots.append(
                error_item(
                    op.action,
                    index_name,
                    op.id,
                    err or ItemError(400, "parse_exception", "invalid item"),
                )
            )
            continue
        slots.append(IngestItem(action=op.action, raw=raw))
    backend.ingest([s for s in slots if isinstance(s, IngestItem)], refresh)
    return [_bulk_item(s, index_name) if isinstance(s, IngestItem) else s for s in slots]


def _took(started: float) -> int:
    return int((time.monotonic() - started) * 1000)


def _path_id(request: Request, name: str, route: str) -> str:
    """A document or group id from the path, under the id rule of every input
    (:func:`neardup.ingest.records.validate_id`): 400 for one no document can have."""
    raw = request.path_params.get(name, "")
    try:
        return validate_id(raw)
    except DocumentError as exc:
        reason = f"an id is required: {route}" if not raw.strip() else exc.message
        raise HTTPError(400, "illegal_argument_exception", reason) from None


def _document_result(item: IngestItem | ItemError, line: int | None = None) -> dict[str, Any]:
    where = {} if line is None else {"line": line}
    if isinstance(item, ItemError):
        return {"id": None, **where, "status": item.status, "error": item.to_json()}
    out: dict[str, Any] = {"id": item.id, **where, "status": item.status}
    if item.error is not None:
        out["error"] = item.error.to_json()
    else:
        out["result"] = item.result
        out["queued"] = item.queued
    return out


def _bulk_item(item: IngestItem, index: str) -> dict[str, Any]:
    doc_id = item.id or str(item.raw.get("id"))
    if item.error is not None:
        return error_item(item.action, index, doc_id, item.error)
    return ok_item(item.action, index, doc_id, item.result or "created", item.status)
