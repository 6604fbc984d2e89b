"""The ASGI middleware of ``neardup serve``: the token (:class:`TokenAuth`), the security
headers of every answer (:class:`SecurityHeaders`), the engine's product headers
(:class:`ProductHeaders`)."""

from __future__ import annotations

import hmac
from collections.abc import Callable
from typing import Any

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from neardup.ingest.server.responses import error_response

__all__ = [
    "API_CSP",
    "INSPECTOR_CSP",
    "OPEN_PATHS",
    "ProductHeaders",
    "SecurityHeaders",
    "TokenAuth",
    "authorized",
]

# Reachable without the token: probes (kubelet has no token) and the inspector's static files
# (the page asks for the token and sends it with its API calls).
OPEN_PATHS = ("/healthz", "/readyz", "/inspector", "/favicon.ico")

# The inspector runs only its own files: no inline script or style, no other origin, never in
# a frame. (Page text is written with textContent; this is the second line of defence.)
INSPECTOR_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
# JSON answers are data, never a document to render or frame.
API_CSP = "default-src 'none'; frame-ancestors 'none'"


def authorized(header: str | None, token: str) -> bool:
    """Whether an ``Authorization`` header carries ``token`` (Bearer, or Basic's password)."""
    if not header:
        return False
    scheme, _, value = header.partition(" ")
    scheme = scheme.lower()
    value = value.strip()
    if scheme == "bearer":
        return hmac.compare_digest(value.encode(), token.encode())
    if scheme == "basic":
        # Bulk shippers that only do basic auth (Fluent Bit, Logstash user/password) send the
        # token as the password; the user name is not checked.
        import base64
        import binascii

        try:
            decoded = base64.b64decode(value, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return False
        _, _, password = decoded.partition(":")
        return hmac.compare_digest(password.encode(), token.encode())
    return False


class TokenAuth:
    """ASGI middleware: 401 unless the request carries the token (open paths excepted)."""

    def __init__(self, app: ASGIApp, token: str | None) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.token is None:
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        if any(path == p or path.startswith(p + "/") for p in OPEN_PATHS):
            await self.app(scope, receive, send)
            return
        header = None
        for name, value in scope.get("headers", ()):
            if name == b"authorization":
                header = value.decode("latin-1")
                break
        if authorized(header, self.token):
            await self.app(scope, receive, send)
            return
        response = error_response(
            401,
            "security_exception",
            "missing or invalid token: send 'Authorization: Bearer <token>'",
            {"WWW-Authenticate": 'Bearer realm="neardup"'},
        )
        await response(scope, receive, send)


class SecurityHeaders:
    """ASGI middleware: ``X-Content-Type-Options: nosniff``, no framing and a
    Content-Security-Policy on every answer (the inspector's own under ``/inspector``)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        csp = INSPECTOR_CSP if path == "/inspector" or path.startswith("/inspector/") else API_CSP
        extra = [
            (b"x-content-type-options", b"nosniff"),
            (b"x-frame-options", b"DENY"),
            (b"referrer-policy", b"no-referrer"),
            (b"content-security-policy", csp.encode()),
        ]

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                names = {name.lower() for name, _ in extra}
                headers = [h for h in message.get("headers", []) if h[0].lower() not in names]
                message = {**message, "headers": headers + extra}
            await send(message)

        await self.app(scope, receive, send_with_headers)


class ProductHeaders:
    """ASGI middleware: the engine's product headers on every answer (Elasticsearch's official
    clients refuse a server whose 2xx answers lack ``X-Elastic-Product: Elasticsearch``)."""

    def __init__(self, app: ASGIApp, headers: Callable[[], dict[str, str]]) -> None:
        self.app = app
        self.headers = headers  # asked per answer: the engine may be known only later

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                out = MutableHeaders(scope=message)
                for name, value in self.headers().items():
                    out[name] = value
            await send(message)

        await self.app(scope, receive, send_with_headers)
