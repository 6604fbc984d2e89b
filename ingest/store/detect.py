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
from neardup.ingest.settings import Settings
from neardup.ingest.store.errors import StoreError, StoreUnavailable

__all__ = ["ENGINES", "Detected", "detect"]

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


def detect(url: str, settings: Settings | None = None) -> Detected:
    """Ask the node at ``url`` what it is (credentials and TLS options from ``settings``).

    Raises :class:`StoreUnavailable` when nothing answers and :class:`StoreError` when what
    answers is neither engine."""
    settings = settings or Settings.from_env()
    headers: dict[str, str] = {"Accept": "application/json"}
    if settings.opensearch_user:
        headers.update(
            urllib3.make_headers(
                basic_auth=f"{settings.opensearch_user}:{settings.opensearch_password or ''}"
            )
        )
    if not settings.opensearch_verify_certs:
        urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)
    pool = _pool(settings)
    base = url.rstrip("/")
    try:
        root = pool.request("GET", f"{base}/", headers=headers)
        product = root.headers.get("X-Elastic-Product", "")
        body = _json(root.data) if root.status == 200 else {}
        version = (body.get("version") or {}).get("number")
        if version is None:
            nodes = pool.request(
                "GET", f"{base}/_nodes/_local?filter_path=nodes.*.version", headers=headers
            )
            product = product or nodes.headers.get("X-Elastic-Product", "")
            found = (_json(nodes.data).get("nodes") or {}).values()
            version = next((n.get("version") for n in found), None)
    except urllib3.exceptions.HTTPError as exc:
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
