"""What a request carries, read under the service's rules: its body (size-limited, gunzipped),
its query parameters, an id in its path; anything else is an :class:`HTTPError` (400, 413,
415)."""

from __future__ import annotations

import zlib

from starlette.requests import Request

from neardup.ingest.errors import DocumentError
from neardup.ingest.records import validate_id
from neardup.ingest.server.responses import HTTPError

__all__ = ["int_param", "path_id", "read_body", "refresh_param"]


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


def int_param(request: Request, name: str, default: int, low: int, high: int) -> int:
    """The query parameter ``name``, an integer in ``[low, high]`` (``default`` when absent)."""
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


def refresh_param(request: Request) -> bool:
    """``?refresh``: true for ``true``, ``wait_for`` or no value; false for ``false``."""
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


def path_id(request: Request, name: str, route: str) -> str:
    """A document or group id from the path, under the id rule of every input
    (:func:`neardup.ingest.records.validate_id`): 400 for one no document can have."""
    raw = request.path_params.get(name, "")
    try:
        return validate_id(raw)
    except DocumentError as exc:
        reason = f"an id is required: {route}" if not raw.strip() else exc.message
        raise HTTPError(400, "illegal_argument_exception", reason) from None
