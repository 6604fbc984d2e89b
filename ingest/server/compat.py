"""The OpenSearch-compatible endpoints: what pipeline clients (Logstash, Fluent Bit, Data
Prepper, the engines' own clients) send, answered as the engine would — ``GET /``,
``/_bulk``, ``/{index}/_doc``, ``/_create``, ``_refresh``, ``_cluster/health``,
``_cat/health``, ``/{index}/_mapping``, ``PUT|HEAD /{index}``, ``DELETE /{index}/_doc/{id}``.
Every write goes through the same ingest path as ``POST /documents``
(:meth:`IngestService.ingest`), with its semantics (see
:mod:`neardup.ingest.server.service`):

* ``index`` — a new page (``created``, 201), the same page again (``noop``, 200), or a new
  version of a page already accepted (``updated``, 200: staged as a change that a worker's
  repair applies; the last version to arrive wins).
* ``create`` — as ``index``, but an id that exists is a 409 (``version_conflict_engine_exception``).
* ``update`` — ``{"doc": {...}}`` merged over the page's current URL, site and title, then
  as ``index``; the ``doc`` must carry the page's text (``text``, ``html``, ``rst`` or
  ``markdown``: neardup keeps the extracted text, not the source, so it cannot re-extract a
  page from some of its fields). An unknown id is a 404 ``document_missing_exception``, unless
  ``"doc_as_upsert": true``; ``script`` and ``upsert`` are refused (400).
* ``delete`` — ``deleted`` (200: staged as a change; the repair removes the page from both
  indices and decides its group again) or ``not_found`` (404, not an error, as in OpenSearch).
"""

from __future__ import annotations

import json
import time
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from neardup.ingest.server.bulk import (
    BulkOp,
    BulkSyntaxError,
    ItemError,
    error_item,
    generate_id,
    ok_item,
    parse_bulk,
    raw_document,
)
from neardup.ingest.server.config import ServerConfig
from neardup.ingest.server.request import path_id, read_body, refresh_param
from neardup.ingest.server.responses import HTTPError, JSONResponse, took_ms
from neardup.ingest.server.service import IngestItem, IngestService

__all__ = [
    "bulk",
    "cat_health",
    "cluster_health",
    "delete_document",
    "get_mapping",
    "head_index",
    "put_document",
    "put_index",
    "put_mapping",
    "refresh_index",
    "root",
]


async def root(request: Request, *, service: IngestService) -> Response:
    # Bulk shippers (Logstash, Data Prepper) ask GET / for the version before sending.
    info = await run_in_threadpool(service.cluster_info)
    return JSONResponse(info)


async def bulk(request: Request, *, service: IngestService, config: ServerConfig) -> Response:
    started = time.monotonic()
    url_index = request.path_params.get("index")
    body = await read_body(request, config.max_body_bytes)
    try:
        ops = parse_bulk(body, url_index, service.limits)
    except BulkSyntaxError as exc:
        raise HTTPError(400, "illegal_argument_exception", str(exc)) from None
    items = await run_in_threadpool(
        _ingest_ops, ops, service, config, refresh_param(request)
    )
    errors = any("error" in next(iter(i.values())) for i in items)
    return JSONResponse({"took": took_ms(started), "errors": errors, "items": items})


async def put_document(
    request: Request, *, service: IngestService, config: ServerConfig
) -> Response:
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
        ops = parse_bulk(one, request.path_params["index"], service.limits)
    except BulkSyntaxError as exc:
        raise HTTPError(400, "illegal_argument_exception", str(exc)) from None
    [item] = await run_in_threadpool(
        _ingest_ops, ops, service, config, refresh_param(request)
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


async def delete_document(request: Request, *, service: IngestService) -> Response:
    """``DELETE /{index}/_doc/{id}``: staged as a delete change, answered in the engine's
    shape (``deleted`` 200, ``not_found`` 404)."""
    doc_id = path_id(request, "doc_id", "DELETE /{index}/_doc/{id}")
    item = await run_in_threadpool(service.delete, doc_id, refresh_param(request))
    if item.error is not None:
        raise HTTPError(item.error.status, item.error.type, item.error.reason)
    return JSONResponse(
        {
            "_index": service.index, "_id": doc_id, "_version": 1, "result": item.result,
            "_shards": {"total": 1, "successful": 1, "failed": 0},
            "_seq_no": 0, "_primary_term": 1,
        },
        status_code=item.status,
    )


async def head_index(request: Request, *, service: IngestService) -> Response:
    known = request.path_params["index"] in (service.index, f"{service.index}-stoplist")
    return Response(status_code=200 if known else 404)


async def refresh_index(request: Request, *, service: IngestService) -> Response:
    await run_in_threadpool(service.refresh)
    return JSONResponse({"_shards": {"total": 1, "successful": 1, "failed": 0}})


async def cluster_health(request: Request, *, service: IngestService) -> Response:
    return JSONResponse(await run_in_threadpool(service.engine_health))


async def cat_health(request: Request, *, service: IngestService) -> Response:
    health = await run_in_threadpool(service.engine_health)
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


async def get_mapping(request: Request, *, service: IngestService) -> Response:
    return JSONResponse(await run_in_threadpool(service.index_mapping))


async def put_index(request: Request, *, service: IngestService, config: ServerConfig) -> Response:
    """``PUT /{index}``: the pages index is neardup's, made from its templates; asking for it
    is granted (created when missing), other indices are refused as the engine would."""
    index = request.path_params["index"]
    if index != service.index:
        raise HTTPError(
            400, "illegal_argument_exception",
            f"neardup serves the index [{service.index}] only, not [{index}]",
        )
    await read_body(request, config.max_body_bytes)  # its settings: the templates decide
    await run_in_threadpool(service.create_index)
    return JSONResponse({"acknowledged": True, "shards_acknowledged": True, "index": index})


async def put_mapping(
    request: Request, *, service: IngestService, config: ServerConfig
) -> Response:
    """``PUT /{index}/_mapping``: granted when every field is one of the pages mapping's
    (a mapping dumped from a neardup index); any other field is refused — the mapping is
    strict, a page's fields are the contract."""
    body = await read_body(request, config.max_body_bytes)
    try:
        wanted = json.loads(body or b"{}")
    except ValueError as exc:
        raise HTTPError(400, "parse_exception", f"not a JSON mapping: {exc}") from None
    mapping = await run_in_threadpool(service.index_mapping)
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


def _ingest_ops(
    ops: list[Any], service: IngestService, config: ServerConfig, refresh: bool
) -> list[dict[str, Any]]:
    """Bulk operations through the ingest path: one response item each, in order."""
    index_name = service.index
    slots: list[IngestItem | dict[str, Any]] = []
    for op in ops:
        if op.action == "delete":
            if op.error is not None or op.id is None:
                error = op.error or ItemError(400, "action_request_validation_exception",
                                              "Validation Failed: 1: id is missing;")
                slots.append(error_item(op.action, index_name, op.id, error))
            else:
                slots.append(IngestItem(action="delete", raw={"id": op.id}, id=op.id))
            continue
        upsert = False
        if op.action == "update":
            op, upsert, error = _update_doc(op)
            if error is not None:
                slots.append(error_item("update", index_name, op.id, error))
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
        slots.append(IngestItem(action=op.action, raw=raw, upsert=upsert))
    service.ingest([s for s in slots if isinstance(s, IngestItem)], refresh)
    return [_bulk_item(s, index_name) if isinstance(s, IngestItem) else s for s in slots]


def _update_doc(op: BulkOp) -> tuple[BulkOp, bool, ItemError | None]:
    """An ``update`` operation as the partial document it carries (``{"doc": {...}}``), whether
    it may create the page (``doc_as_upsert``), or why it is refused."""
    if op.error is not None:
        return op, False, op.error
    if op.id is None:
        return op, False, ItemError(400, "action_request_validation_exception",
                                    "Validation Failed: 1: id is missing;")
    source = op.source or {}
    if "script" in source or "upsert" in source:
        return op, False, ItemError(
            400, "illegal_argument_exception",
            "neardup accepts [update] with a [doc] only (no script, no upsert document)")
    doc = source.get("doc")
    if not isinstance(doc, dict):
        return op, False, ItemError(400, "action_request_validation_exception",
                                    "Validation Failed: 1: script or doc is missing;")
    upsert = source.get("doc_as_upsert") is True
    return BulkOp(action="update", index=op.index, id=op.id, source=doc), upsert, None


def _bulk_item(item: IngestItem, index: str) -> dict[str, Any]:
    doc_id = item.id or str(item.raw.get("id"))
    if item.error is not None:
        return error_item(item.action, index, doc_id, item.error)
    # a delete of an unknown id is a 404 "not_found" and not an error, as in OpenSearch
    return ok_item(item.action, index, doc_id, item.result or "created", item.status)
