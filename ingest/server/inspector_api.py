"""The inspector's JSON API (``/api/...``: the largest groups, a lookup of pages, the
overview, a group explained) and the redirect to its page; the data comes from
:class:`~neardup.ingest.server.reads.PageReads`, shaped by
:mod:`neardup.ingest.server.inspector`."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from neardup.ingest.server.config import ServerConfig
from neardup.ingest.server.inspector import MAX_GROUPS
from neardup.ingest.server.request import int_param, path_id
from neardup.ingest.server.responses import HTTPError, JSONResponse
from neardup.ingest.server.service import IngestService
from neardup.ingest.store.query import FIND_FILTERS

__all__ = ["api_explain", "api_groups", "api_overview", "api_pages", "inspector_root"]


async def api_groups(request: Request, *, service: IngestService) -> Response:
    size = int_param(request, "size", 20, 1, MAX_GROUPS)
    min_size = int_param(request, "min_size", 2, 1, 1_000_000)
    offset = int_param(request, "offset", 0, 0, MAX_GROUPS - size)
    return JSONResponse(
        await run_in_threadpool(service.reads.largest_groups, size, min_size, offset)
    )


async def api_pages(request: Request, *, service: IngestService) -> Response:
    text = request.query_params.get("q", "").strip() or None
    state = request.query_params.get("state", "").strip() or None
    if state is not None and state not in FIND_FILTERS:
        raise HTTPError(400, "illegal_argument_exception",
                        f"state must be one of {', '.join(FIND_FILTERS)}, got {state!r}")
    if text is None and state is None:
        raise HTTPError(400, "illegal_argument_exception", "give q (id, URL or words) or state")
    size = int_param(request, "size", 20, 1, 100)
    offset = int_param(request, "offset", 0, 0, 10_000 - size)
    return JSONResponse(await run_in_threadpool(service.reads.lookup, text, state, offset, size))


async def api_overview(request: Request, *, service: IngestService) -> Response:
    return JSONResponse(await run_in_threadpool(service.reads.overview))


async def api_explain(
    request: Request, *, service: IngestService, config: ServerConfig
) -> Response:
    group_id = path_id(request, "group_id", "GET /api/groups/{id}/explain")
    limit = int_param(request, "members", 20, 1, config.max_explain_members)
    explained = await run_in_threadpool(service.reads.explain, group_id, limit)
    if explained is None:
        raise HTTPError(404, "group_missing_exception", f"group [{group_id}] not found")
    return JSONResponse(explained)


async def inspector_root(request: Request) -> Response:
    return RedirectResponse(url="/inspector/", status_code=308)
