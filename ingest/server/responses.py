"""What the service answers: JSON that always encodes, errors in OpenSearch's shape
(``{"error": {"type", "reason"}, "status"}``), and which exception becomes which answer."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse as _StarletteJSONResponse
from starlette.responses import Response

from neardup.ingest.jsoncodec import dumps_bytes_strict
from neardup.ingest.store.errors import StoreUnavailable

__all__ = ["EXCEPTION_HANDLERS", "HTTPError", "JSONResponse", "error_response", "took_ms"]

log = logging.getLogger(__name__)
log.addHandler(logging.NullHandler())


class JSONResponse(_StarletteJSONResponse):
    """JSON that always encodes: a string with a lone surrogate (echoed from a request) is
    written as its ``\\uXXXX`` escape instead of failing the answer with a 500."""

    def render(self, content: Any) -> bytes:
        return dumps_bytes_strict(content)


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


def took_ms(started: float) -> int:
    """Milliseconds since ``started`` (:func:`time.monotonic`): a bulk answer's ``took``."""
    return int((time.monotonic() - started) * 1000)


# -- exceptions → answers ----------------------------------------------------------------------


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


#: The app's exception handlers, by exception class.
EXCEPTION_HANDLERS: dict[Any, Callable[[Request, Exception], Awaitable[Response]]] = {
    HTTPError: on_http_error,
    HTTPException: on_starlette_error,
    StoreUnavailable: on_unavailable,
    ConnectionError: on_unavailable,  # a client library's own, untranslated
    TimeoutError: on_unavailable,
    Exception: on_unexpected,
}
