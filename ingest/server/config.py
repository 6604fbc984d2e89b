"""The options of ``neardup serve``: :class:`ServerConfig`, validated on creation."""

from __future__ import annotations

from dataclasses import dataclass

from neardup.ingest.errors import ConfigError
from neardup.ingest.records import MAX_BODY_BYTES

__all__ = ["DEFAULT_MAX_BODY", "ServerConfig"]

DEFAULT_MAX_BODY = MAX_BODY_BYTES  # the input rules' number (docs/limits.md)


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """Options of ``neardup serve`` (validated on creation).

    ``token``: when set, every endpoint but the probes and the inspector's static files needs
    ``Authorization: Bearer <token>`` (or HTTP Basic auth with the token as password).
    ``max_body_bytes``: largest request body, after gzip decompression (413 beyond).
    ``text_field``: a source field taken as ``text`` when a document has none of ``text``,
    ``html``, ``rst``, ``markdown`` (``message`` for Logstash events, ``log`` for Fluent Bit).
    ``max_explain_members``: members compared on the fly by one inspector request.
    """

    token: str | None = None
    max_body_bytes: int = DEFAULT_MAX_BODY
    text_field: str | None = None
    max_explain_members: int = 200

    def __post_init__(self) -> None:
        if self.max_body_bytes < 1024:
            raise ConfigError(f"max_body_bytes must be >= 1024, got {self.max_body_bytes}")
        if self.token is not None and not self.token.strip():
            raise ConfigError("token must not be empty (omit it to disable auth)")
        if self.max_explain_members < 1:
            raise ConfigError(f"max_explain_members must be >= 1, got {self.max_explain_members}")
