"""The probes: ``GET /healthz`` (the process answers) and ``GET /readyz`` (the engine and the
broker answer too; the reasons only for a caller with the token)."""

from __future__ import annotations

import logging

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from neardup.ingest.server.config import ServerConfig
from neardup.ingest.server.middleware import authorized
from neardup.ingest.server.responses import JSONResponse
from neardup.ingest.server.service import IngestService

log = logging.getLogger(__name__)
log.addHandler(logging.NullHandler())

__all__ = ["healthz", "readyz"]


async def healthz(request: Request) -> Response:
    return JSONResponse({"status": "ok"})


async def readyz(request: Request, *, service: IngestService, config: ServerConfig) -> Response:
    checks = await run_in_threadpool(service.readiness)
    ready = all(v == "ok" for v in checks.values())
    if not ready:
        log.warning("not ready: %s", checks)
    # The reasons name hosts and ports: only a caller with the token reads them; the
    # probes (no token) need the status alone.
    if config.token is None or not authorized(
        request.headers.get("authorization"), config.token
    ):
        checks = {k: "ok" if v == "ok" else "unavailable" for k, v in checks.items()}
    return JSONResponse(
        {"status": "ready" if ready else "unavailable", "checks": checks},
        status_code=200 if ready else 503,
    )
