"""Which engine answers at a URL: OpenSearch or Elasticsearch, and its version, asked once at
connect time (``NEARDUP_ENGINE`` or ``neardup --engine`` skip the question).

Elasticsearch marks every answer with ``X-Elastic-Product: Elasticsearch`` (since 7.14; its
official clients refuse a server without it). Its integ-test build answers ``GET /`` with 405,
so the version comes from ``GET /_nodes/_local`` there; OpenSearch answers both and never sends
the header.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import urllib3

from neardup.ingest.errors import redact
from neardup.ingest.settings import Settings
from neardup.ingest.store.errors import (
    AuthenticationFailed,
    CertificateNotTrusted,
    PermissionDenied,
    StoreError,
    StoreUnavailable,
    certificate_problem,
)

__all__ = ["ENGINES", "Detected", "auth_headers", "detect"]

ENGINES = ("opensearch", "elasticsearch")


@dataclass(frozen=True, slots=True)
class Detected:
    """The engine at a URL: ``engine`` (one of :data:`ENGINES`) and its ``version``."""

    engine: str
    version: str

    @property
    def major(self) -> int:
        return int(self.version.split(".")[0])


def _pool(settings: Settings) -> urllib3.PoolManager:
    # No retries: a refused connection is an answer (StoreUnavailable), and the callers retry
    # with their own policy (the workers' outage budget, a client's resend).
    options: dict[str, Any] = {"retries": False}
    options["cert_reqs"] = "CERT_REQUIRED" if settings.opensearch_verify_certs else "CERT_NONE"
    if settings.opensearch_ca_certs:
        options["ca_certs"] = settings.opensearch_ca_certs
    return urllib3.PoolManager(timeout=urllib3.Timeout(total=10.0), **options)


def auth_headers(settings: Settings) -> dict[str, str]:
    """The ``Authorization`` header of ``settings``' credentials: an API key
    (``ApiKey <encoded>``), else basic auth, else none."""
    if settings.opensearch_api_key:
        return {"Authorization": f"ApiKey {settings.opensearch_api_key}"}
    if settings.opensearch_user:
        return urllib3.make_headers(
            basic_auth=f"{settings.opensearch_user}:{settings.opensearch_password or ''}"
        )
    return {}


def _refused(status: int, data: bytes, url: str) -> None:
    """Raise :class:`AuthenticationFailed` for a 401 answer."""
    if status == 401:
        raise AuthenticationFailed(f"401: {_reason(data)}", redact(url))


def _reason(data: bytes) -> str:
    """The reason of an error answer: Elasticsearch's and OpenSearch's JSON, or its text."""
    body = _json(data)
    error = body.get("error")
    if isinstance(error, dict):
        return str(error.get("reason") or error.get("type") or error)
    if isinstance(error, str):
        return error
    return data.decode("utf-8", "replace").strip()[:300] or "no reason given"


def detect(url: str, settings: Settings | None = None) -> Detected:
    """Ask the node at ``url`` what it is (credentials and TLS options from ``settings``).

    Raises :class:`StoreUnavailable` when nothing answers, :class:`CertificateNotTrusted`
    when its certificate cannot be verified, :class:`AuthenticationFailed` when it refuses the
    credentials, :class:`PermissionDenied` when they lack the privilege to say what it is, and
    :class:`StoreError` when what answers is neither engine."""
    settings = settings or Settings.from_env()
    headers: dict[str, str] = {"Accept": "application/json", **auth_headers(settings)}
    if not settings.opensearch_verify_certs:
        urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)
    pool = _pool(settings)
    base = url.rstrip("/")
    try:
        root = pool.request("GET", f"{base}/", headers=headers)
        _refused(root.status, root.data, url)
        product = root.headers.get("X-Elastic-Product", "")
        body = _json(root.data) if root.status == 200 else {}
        version = (body.get("version") or {}).get("number")
        if version is None:
            nodes = pool.request(
                "GET", f"{base}/_nodes/_local?filter_path=nodes.*.version", headers=headers
            )
            _refused(nodes.status, nodes.data, url)
            product = product or nodes.headers.get("X-Elastic-Product", "")
            found = (_json(nodes.data).get("nodes") or {}).values()
            version = next((n.get("version") for n in found), None)
            if version is None and nodes.status == 403:
                raise PermissionDenied(
                    f"403: {_reason(nodes.data)}; neardup asks the node's version with the "
                    "monitor cluster privilege: grant it, or name the engine (NEARDUP_ENGINE)",
                    redact(url),
                )
    except (urllib3.exceptions.HTTPError, OSError) as exc:
        problem = certificate_problem(exc)
        if problem is not None:
            raise CertificateNotTrusted(problem, redact(url)) from exc
        raise StoreUnavailable(f"no search engine answers at {url}: {exc}") from exc
    finally:
        pool.clear()
    if version is None:
        raise StoreError(
            f"{url} answered {root.status} without a version: not OpenSearch or Elasticsearch, "
            "or the credentials lack the monitor privilege (set NEARDUP_ENGINE to skip this)"
        )
    if product == "Elasticsearch":
        return Detected("elasticsearch", str(version))
    return Detected("opensearch", str(version))


def _json(data: bytes) -> dict[str, Any]:
    try:
        value = json.loads(data)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
