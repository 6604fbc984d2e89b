"""neardup's own endpoints for pages: ``POST /documents`` (one document or a JSONL body: a new
page is ``created``, a new version of a page already accepted ``updated``, the same page again
a ``noop``), ``DELETE /documents/{id}`` (a delete staged for the workers' repair),
``GET /documents/{id}`` (a page and what became of it), ``GET /groups/{id}``. See
:mod:`neardup.ingest.server.service` for the semantics."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from neardup.ingest.server.bulk import DocumentsSyntaxError, ItemError, parse_documents
from neardup.ingest.server.config import ServerConfig
from neardup.ingest.server.request import path_id, read_body, refresh_param
from neardup.ingest.server.responses import HTTPError, JSONResponse, took_ms
from neardup.ingest.server.service import IngestItem, IngestService

__all__ = ["delete_document", "get_document", "get_group", "post_documents"]


async def post_documents(
    request: Request, *, service: IngestService, config: ServerConfig
) -> Response:
    started = time.monotonic()
    body = await read_body(request, config.max_body_bytes)
    try:
        parsed, single = parse_documents(body, service.limits)
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
        service.ingest,
        [i for _, i in items if isinstance(i, IngestItem)],
        refresh_param(request),
    )
    results = [_document_result(i, line) for line, i in items]
    errors = any("error" in r for r in results)
    if single:
        return JSONResponse(results[0], status_code=results[0]["status"])
    return JSONResponse(
        {"took": took_ms(started), "errors": errors, "items": results}, status_code=200
    )


async def get_document(request: Request, *, service: IngestService) -> Response:
    return await _read(request, "doc_id", "document", service.reads.document)


async def delete_document(request: Request, *, service: IngestService) -> Response:
    """Stage the page's delete (a worker's repair removes it from both indices and decides its
    group again): 200 ``{"id", "status", "result": "deleted", "queued": true}``, or 404 when
    the page is neither indexed nor accepted."""
    doc_id = path_id(request, "doc_id", "DELETE /documents/{id}")
    item = await run_in_threadpool(service.delete, doc_id, refresh_param(request))
    if item.error is not None:
        raise HTTPError(item.error.status, item.error.type, item.error.reason)
    if item.result == "not_found":
        raise HTTPError(404, "document_missing_exception", f"document [{doc_id}] not found")
    return JSONResponse(_document_result(item), status_code=item.status)


async def get_group(request: Request, *, service: IngestService) -> Response:
    return await _read(request, "group_id", "group", service.reads.group)


async def _read(request: Request, param: str, what: str,
                read: Callable[[str], dict[str, Any] | None]) -> Response:
    """``GET /<what>s/{id}``: ``read(id)``, or 404 ``<what>_missing_exception``."""
    found_id = path_id(request, param, f"GET /{what}s/{{id}}")
    found = await run_in_threadpool(read, found_id)
    if found is None:
        raise HTTPError(404, f"{what}_missing_exception", f"{what} [{found_id}] not found")
    return JSONResponse(found)


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
