"""Errors raised by the store layer.

::

    NeardupError (neardup.ingest.errors)
    └── StoreError                    the store could not do what was asked
        ├── StoreUnavailable          transient: node down, timeout, 429/502/503/504 — retry later
        ├── DocumentNotFound(KeyError) the document to update does not exist
        ├── IndexNotFound             the index asked for does not exist (nothing ingested yet?)
        ├── Unsupported               the store lacks a role the call needs (full-text search
        │                             on the embedded store, say): a configuration matter
        └── AccessDenied              the node will not serve this client as configured: fix
            │                         the settings (never retried, never a traceback)
            ├── AuthenticationFailed  401: a wrong user, password or API key, or none given
            ├── PermissionDenied      403: the user or key lacks a privilege (docs/security.md)
            └── CertificateNotTrusted the node's TLS certificate is not signed by a trusted CA

Transient transport failures of opensearch-py (``ConnectionError``, ``ConnectionTimeout``,
``TransportError`` with status 429/502/503/504) are re-raised as :class:`StoreUnavailable`
(the original is its ``__cause__``), so callers — Celery tasks with ``autoretry_for`` — retry
on one type whatever the backend. Answers 401 and 403, and a TLS certificate that cannot be
verified, are :class:`AccessDenied` (:func:`explain` says which setting to fix, in one line).
Any other ``TransportError`` (a 400 from a bad mapping or query, say) is a bug, not a blip,
and propagates unchanged.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from neardup.ingest.errors import NeardupError, redact

if TYPE_CHECKING:
    from neardup.ingest.settings import Settings

__all__ = [
    "AccessDenied",
    "AuthenticationFailed",
    "CertificateNotTrusted",
    "DocumentNotFound",
    "IndexNotFound",
    "PermissionDenied",
    "StoreError",
    "StoreUnavailable",
    "Unsupported",
    "certificate_problem",
    "explain",
]


class StoreError(NeardupError):
    """Base class of store failures."""


class StoreUnavailable(StoreError):
    """The backend is unreachable or overloaded right now; the same call may succeed later."""


class _Missing(StoreError):
    """Something named is not there: its ``name``, said in :attr:`sentence`."""

    sentence = "{} does not exist"

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name

    def __str__(self) -> str:
        return self.sentence.format(self.name)


class DocumentNotFound(_Missing, KeyError):
    """No document with this id (:attr:`doc_id`)."""

    sentence = "document not found: {}"

    @property
    def doc_id(self) -> str:
        return self.name


class IndexNotFound(_Missing):
    """The index does not exist (a search before anything was ingested into it)."""

    sentence = "index [{}] does not exist"

    @property
    def index(self) -> str:
        return self.name


class Unsupported(StoreError):
    """The store lacks the role the call needs (:mod:`neardup.ingest.store.roles`): a search
    engine's, on the embedded store."""


class AccessDenied(StoreError):
    """The node answered, but will not serve this client as configured: its credentials, its
    privileges or its trust in the node's certificate. ``detail`` is the node's (or the TLS
    library's) own reason, ``url`` the node's address when known; :func:`explain` makes the
    one line a user reads."""

    what = "refused access"

    def __init__(self, detail: str, url: str | None = None) -> None:
        detail = " ".join(str(detail).split())  # one line, whatever the node said
        super().__init__(detail)
        self.detail = detail
        self.url = url

    def __str__(self) -> str:
        where = f"the node at {self.url}" if self.url else "the node"
        return f"{where} {self.what} ({self.detail[:400]})"


class AuthenticationFailed(AccessDenied):
    """401: the credentials are wrong, or none were sent to a node that requires them."""

    what = "refused the credentials"


class PermissionDenied(AccessDenied):
    """403: authenticated, but without a privilege the request needs."""

    what = "denied a privilege"


class CertificateNotTrusted(AccessDenied):
    """The node's TLS certificate could not be verified (unknown CA, wrong host name, expired),
    or the CA bundle to verify it with could not be read."""

    def __str__(self) -> str:
        where = f"of {self.url} " if self.url else ""
        return f"the TLS certificate {where}is not trusted ({self.detail[:400]})"


def explain(exc: AccessDenied, settings: Settings, url: str | None = None) -> str:
    """``exc`` in one line with the setting to fix (what ``neardup`` prints and a worker logs).
    ``url`` (else the settings') names the node where the error does not; credentials in it are
    hidden."""
    if exc.url is None:
        exc.url = redact(url or settings.opensearch_url)
    if isinstance(exc, CertificateNotTrusted):
        if settings.opensearch_ca_certs:
            return (
                f"{exc}; OPENSEARCH_CA_CERTS={settings.opensearch_ca_certs} must hold the CA "
                "that signed the node's certificate"
            )
        return f"{exc}; set OPENSEARCH_CA_CERTS to the CA bundle that signed the node's certificate"
    if isinstance(exc, AuthenticationFailed):
        if settings.opensearch_api_key:
            return f"{exc}; check OPENSEARCH_API_KEY (expired or invalidated?)"
        if settings.opensearch_user:
            return (
                f"{exc}; check OPENSEARCH_USER ({settings.opensearch_user}) and OPENSEARCH_PASSWORD"
            )
        return f"{exc}; set OPENSEARCH_USER and OPENSEARCH_PASSWORD, or OPENSEARCH_API_KEY"
    if isinstance(exc, PermissionDenied):
        return f"{exc}; grant the role of docs/security.md"
    return str(exc)




_VERIFY_FAILED = re.compile(r"certificate verify failed: ([^'\")(\]]+)", re.IGNORECASE)


def certificate_problem(exc: BaseException) -> str | None:
    """Why the node's TLS certificate was not accepted, when ``exc`` (a client's TLS or
    connection error, or anything in its chain of causes) says so; else None (a TLS handshake
    cut by a node going down is an outage, not a certificate problem)."""
    seen: set[int] = set()
    stack: list[BaseException] = [exc]
    while stack:
        error = stack.pop()
        if id(error) in seen:
            continue
        seen.add(id(error))
        if isinstance(error, (FileNotFoundError, PermissionError)):
            return f"the CA bundle cannot be read: {error.strerror or error}"
        text = str(error)
        found = _VERIFY_FAILED.search(text)
        if found:
            return "certificate verify failed: " + found.group(1).strip().rstrip(".")
        if "CERTIFICATE_VERIFY_FAILED" in text:
            return "certificate verify failed"
        if "no certificate or crl found" in text.lower() or "PEM lib" in text:
            return "the CA bundle holds no readable certificate"
        stack.extend(e for e in (error.__cause__, error.__context__) if e is not None)
        stack.extend(a for a in getattr(error, "args", ()) if isinstance(a, BaseException))
        reason = getattr(error, "reason", None)  # urllib3's MaxRetryError
        if isinstance(reason, BaseException):
            stack.append(reason)
        errors = getattr(error, "errors", None)  # elastic-transport's retried errors
        if isinstance(errors, (list, tuple)):
            stack.extend(e for e in errors if isinstance(e, BaseException))
    return None
