"""How one engine's official client speaks: its :class:`Dialect` (the helpers, the error classes,
the product headers), the errors it answers translated into the store's
(:func:`translate_errors`), and the options both clients take alike (:func:`client_options`).

The two engines' official clients take the same calls (``search``, ``mget``, ``update``,
``bulk``, the template APIs, ``helpers.streaming_bulk``) with keyword arguments; what differs
is data, handed to the store by each backend module (:mod:`neardup.ingest.store.opensearch`,
:mod:`neardup.ingest.store.elasticsearch`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import wraps
from types import ModuleType
from typing import Any, TypeVar

from neardup.ingest.settings import Settings
from neardup.ingest.store.errors import (
    AuthenticationFailed,
    CertificateNotTrusted,
    IndexNotFound,
    PermissionDenied,
    StoreError,
    StoreUnavailable,
    certificate_problem,
)

__all__ = [
    "TRANSIENT_STATUS",
    "Dialect",
    "TooManyTerms",
    "client_options",
    "terms_allowed",
    "translate_errors",
    "translated",
]

TRANSIENT_STATUS = frozenset({429, 502, 503, 504})
# Error types of a node leaving or joining the cluster. A search that was reading a shard copy
# on a node that has just gone answers 500 ``search_phase_execution_exception`` whose root
# cause is one of these: the next attempt reads another copy (or the node is back), so it is
# an outage to wait out, not a failure of the request.
TRANSIENT_TYPES = frozenset({
    "node_disconnected_exception",
    "node_not_connected_exception",
    "node_closed_exception",
    "connect_transport_exception",
    "no_shard_available_action_exception",
    "unavailable_shards_exception",
    "primary_missing_action_exception",
})
# How both engines refuse a ``terms`` query over the limit (400 ``search_phase_execution_exception``,
# root cause ``query_shard_exception``; a shard's failure in a 200 answer when only some of the
# searched indices have the lower limit).
_TOO_MANY_TERMS = re.compile(
    r"The number of terms \[(\d+)\] used in the Terms Query request has exceeded "
    r"the allowed maximum of \[(\d+)\]"
)

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Dialect:
    """What one engine's official client calls things: the data the store needs to speak to
    it, so that the store's methods never ask which engine they talk to."""

    name: str  # "OpenSearch", "Elasticsearch": for messages
    helpers: ModuleType  # the client's helpers module (streaming_bulk, bulk)
    not_found: type[Exception]  # 404
    conflict: type[Exception]  # 409 (version conflict, document exists)
    bad_request: type[Exception]  # 400 (resource_already_exists_exception, ...)
    api_error: type[Exception]  # any error answer of the engine (has a status)
    unreachable: tuple[type[Exception], ...]  # no answer: connection refused, timeout, TLS
    status: Callable[[Exception], int | None]  # an api_error's HTTP status
    error_type: Callable[[Exception], str | None]  # an api_error's type, e.g. "..._exception"
    error_body: Callable[[Exception], Any]  # an api_error's JSON answer
    # ``client.<api>`` with a per-request timeout, in seconds (opensearch-py takes a
    # ``request_timeout`` argument; the Elasticsearch clients, ``client.options(...)``).
    with_timeout: Callable[[Any, float], tuple[Any, dict[str, Any]]]
    distribution: str | None = None  # ``version.distribution`` in ``GET /`` (OpenSearch's)
    # Headers the engine puts on every answer, which its clients check (Elasticsearch's
    # product header): what a service standing in for the engine must send too.
    product_headers: tuple[tuple[str, str], ...] = ()


def client_options(url: str | None, settings: Settings, timeout: str) -> dict[str, Any]:
    """The options both official clients take alike, from ``settings``: the node (``url``,
    default the settings'), retries, a 30-second ``timeout`` (the option's name in that client)
    and the TLS verification. Each client names its credentials its own way."""
    options: dict[str, Any] = {
        "hosts": [url or settings.opensearch_url],
        timeout: 30,
        "max_retries": 3,
        "retry_on_timeout": True,
        "verify_certs": settings.opensearch_verify_certs,
    }
    if not settings.opensearch_verify_certs:
        options["ssl_show_warn"] = False
    if settings.opensearch_ca_certs:
        options["ca_certs"] = settings.opensearch_ca_certs
    return options


@contextmanager
def translate_errors(dialect: Dialect) -> Iterator[None]:
    """Re-raise transient transport failures as :class:`StoreUnavailable`, a missing index as
    :class:`IndexNotFound`, and refused credentials or privileges and an untrusted certificate
    as :class:`~neardup.ingest.store.errors.AccessDenied` (a setting to fix, not an outage)."""
    try:
        yield
    except dialect.unreachable as exc:  # includes timeouts and TLS errors
        problem = certificate_problem(exc)
        if problem is not None:
            raise CertificateNotTrusted(problem) from exc
        raise StoreUnavailable(f"{dialect.name} unreachable: {exc}") from exc
    except dialect.not_found as exc:
        if dialect.error_type(exc) == "index_not_found_exception":
            body = dialect.error_body(exc)
            error = body.get("error") if isinstance(body, dict) else None
            index = error.get("index") if isinstance(error, dict) else None
            raise IndexNotFound(str(index or "?")) from exc
        raise
    except dialect.api_error as exc:
        status = dialect.status(exc)
        if status == 401:
            raise AuthenticationFailed(f"401: {_reason(dialect, exc)}") from exc
        # 403 is also a cluster block (a read-only index): only the security layer's is a
        # missing privilege (a HEAD request's answer has no body to say which)
        body = dialect.error_body(exc)
        if status == 403 and (not body or "security_exception" in _error_types(body)):
            raise PermissionDenied(f"403: {_reason(dialect, exc)}") from exc
        if status in TRANSIENT_STATUS:
            raise StoreUnavailable(f"{dialect.name} busy ({status}): {exc}") from exc
        if _error_types(dialect.error_body(exc)) & TRANSIENT_TYPES:
            raise StoreUnavailable(f"{dialect.name} lost a node ({status}): {exc}") from exc
        raise


def translated(func: F) -> F:
    """A method of the store run under :func:`translate_errors` of its ``dialect``."""

    @wraps(func)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        with translate_errors(self.dialect):
            return func(self, *args, **kwargs)

    return wrapper  # type: ignore[return-value]


def _reason(dialect: Dialect, exc: Exception) -> str:
    """The reason of an error answer (``error.reason`` of its JSON), else the client's text."""
    body = dialect.error_body(exc)
    error = body.get("error") if isinstance(body, dict) else body
    if isinstance(error, dict) and error.get("reason"):
        return str(error["reason"])
    if isinstance(error, str) and error.strip():
        return error.strip()
    if not body:  # a HEAD request's answer
        return "no reason given"
    return str(exc)


def _error_types(body: Any) -> set[str]:
    """Every ``type`` in an error answer: the error's, its causes', its root causes' and its
    failed shards' reasons'."""
    found: set[str] = set()
    stack = [body.get("error") if isinstance(body, dict) else None]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, dict):
            if isinstance(node.get("type"), str):
                found.add(node["type"])
            stack.extend(node.get(k) for k in ("root_cause", "caused_by", "failed_shards", "reason"))
    return found


class TooManyTerms(StoreError):
    """A shard refused a search for the number of terms of its ``terms`` query; it allows
    ``allowed``."""

    def __init__(self, allowed: int) -> None:
        super().__init__(f"a shard refused a terms query: it allows {allowed} terms")
        self.allowed = allowed


def terms_allowed(error: Any) -> int | None:
    """The ``index.max_terms_count`` an error answer (or a shard's failure) says a ``terms``
    query went over, or None when it is another error.

    >>> terms_allowed({"error": {"reason": "The number of terms [6] used in the Terms Query "
    ...                "request has exceeded the allowed maximum of [5]. This maximum ..."}})
    5
    """
    found = _TOO_MANY_TERMS.search(str(error))
    return int(found.group(2)) if found else None
