"""Every setting neardup takes from the environment, read in one place.

:meth:`Settings.from_env` turns the process environment into a frozen :class:`Settings`. The
entry points call it once — ``neardup`` main, the HTTP server, the Celery app module (a worker's
only entry point, loaded by ``celery -A``) — and pass the object down to what needs it: the
commands' ``run(args, settings)``, ``open_store``, the server's backend. A function that takes
a ``settings`` argument may be called without one (from a library, a test, a script): it then
builds its own at that call (``settings or Settings.from_env()``). No module calls it when
imported, the Celery app module aside; the compiled fingerprinter, which is given no settings,
reads ``NEARDUP_CACHE_DIR`` through it at its first use.

No module but this one reads ``os.environ``, with one exception: ``NEARDUP_IMPL`` (compiled or
pure-Python twins) is read by :mod:`neardup.verifier.implementation` when a module binds its
twin, since the verifier takes no settings; ``impl`` below validates the same variable at the
edge. ``tests/ingest/test_settings.py`` checks both, and that the table of variables in
``docs/settings.md`` matches the fields below (``python -m neardup.ingest.settings`` prints it).

An empty variable counts as unset. A bad value raises :class:`~neardup.ingest.errors.ConfigError`
naming the variable, when the object is created.

This module imports only the standard library and :mod:`neardup.ingest.errors`, so every
layer can take it without loading the rest of ``ingest``, nor the verifier: a bad
``NEARDUP_IMPL`` is a usage error here (exit 2 from the command line) before any twin is bound.
"""

from __future__ import annotations

import base64
import dataclasses
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from neardup.ingest.errors import ConfigError

# The values of NEARDUP_IMPL (neardup.verifier.implementation.CHOICES; a test holds them equal).
IMPLEMENTATIONS = ("", "python", "cython")

__all__ = ["DEB_PREFIX", "Settings", "child_environ", "export_broker_url", "settings_table"]

DEB_PREFIX = "NEARDUP_DEB_"
ENGINES = ("", "opensearch", "elasticsearch")


def _var(env: str, doc: str, default: Any = None, *, secret: bool = False) -> Any:
    """A field read from the variable ``env``; ``doc`` is its line in the table."""
    return field(default=default, repr=not secret, metadata={"env": env, "doc": doc})


@dataclass(frozen=True)
class Settings:
    """neardup's configuration from the environment (see ``docs/settings.md``).

    Build it with :meth:`from_env`; in tests, ``Settings.from_env({...})`` or
    ``Settings(index="news")``. Field values given as strings (what the environment holds) are
    converted to the field's type.

    >>> Settings.from_env({"NEARDUP_INDEX": "news", "NEARDUP_PORT": "9000"}).port
    9000
    >>> Settings.from_env({"NEARDUP_VISIBILITY_TIMEOUT": "soon"})
    Traceback (most recent call last):
    ...
    neardup.ingest.errors.ConfigError: NEARDUP_VISIBILITY_TIMEOUT='soon': expected a number
    """

    # --- OpenSearch (or Elasticsearch) ---------------------------------------------------------
    opensearch_url: str = _var(
        "OPENSEARCH_URL", "node URL (OpenSearch or Elasticsearch)", "http://127.0.0.1:9200"
    )
    engine: str = _var(
        "NEARDUP_ENGINE",
        "`opensearch` or `elasticsearch` (default: asked of the node at connect)",
        "",
    )
    opensearch_user: str | None = _var("OPENSEARCH_USER", "basic-auth user (none: no auth)")
    opensearch_password: str | None = _var(
        "OPENSEARCH_PASSWORD", "basic-auth password", secret=True
    )
    opensearch_verify_certs: bool = _var(
        "OPENSEARCH_VERIFY_CERTS", "verify the node's TLS certificate (true/false)", True
    )
    opensearch_ca_certs: str | None = _var("OPENSEARCH_CA_CERTS", "CA bundle to verify it with")
    opensearch_api_key: str | None = _var(
        "OPENSEARCH_API_KEY",
        "Elasticsearch API key instead of a user: the `encoded` value Elasticsearch returns, "
        "or `id:key` (docs/security.md)",
        secret=True,
    )
    index: str = _var(
        "NEARDUP_INDEX",
        "pages index (stoplist: `<index>-stoplist`; the workers' candidate search: "
        "`<index>-fingerprints`)", "pages",
    )
    mappings_dir: Path | None = _var(
        "NEARDUP_MAPPINGS_DIR",
        "index templates and Dashboards objects (default: the packaged `mappings/`)",
    )
    # --- OpenSearch Dashboards (`neardup dashboards import`) -----------------------------------
    dashboards_user: str | None = _var(
        "OPENSEARCH_DASHBOARDS_USER", "Dashboards user (default: `OPENSEARCH_USER`)"
    )
    dashboards_password: str | None = _var(
        "OPENSEARCH_DASHBOARDS_PASSWORD",
        "its password (`OPENSEARCH_PASSWORD` when no Dashboards user is set)",
        secret=True,
    )
    # --- Celery (broker, workers) --------------------------------------------------------------
    broker_url: str = _var("CELERY_BROKER_URL", "Celery broker (Redis)", "redis://127.0.0.1:6379/0")
    queue: str = _var("NEARDUP_QUEUE", "queue the `verify` tasks go to", "neardup.verify")
    visibility_timeout: float = _var(
        "NEARDUP_VISIBILITY_TIMEOUT",
        "seconds Redis keeps an unacknowledged message before redelivering it",
        300.0,
    )
    task_time_limit: float | None = _var(
        "NEARDUP_TASK_TIME_LIMIT", "hard task time limit, seconds (default: 80 % of the above)"
    )
    dead_letter: str = _var(
        "NEARDUP_DEAD_LETTER", "Redis list poison documents are pushed to", "neardup.dead"
    )
    outage_budget: float = _var(
        "NEARDUP_OUTAGE_BUDGET", "seconds a batch keeps retrying through an outage", 900.0
    )
    max_live_batches: int = _var(
        "NEARDUP_MAX_LIVE_BATCHES",
        "accepted batches that may wait to be decided and written at once (ingest waits "
        "beyond)", 8
    )
    refresh_every: float = _var(
        "NEARDUP_REFRESH_EVERY",
        "a worker forces a refresh of the index at most this often, seconds (batches written "
        "meanwhile become searchable together)", 0.5
    )
    message_batch: int = _var(
        "NEARDUP_MESSAGE_BATCH", "pages per accepted batch (one `decide_batch` message)", 250
    )
    # --- Pages and implementations -------------------------------------------------------------
    max_doc_bytes: int = _var(
        "NEARDUP_MAX_DOC_BYTES",
        "largest page (`text`/`html`/`rst`/`markdown`, UTF-8 bytes; a record: 4 ×; docs/limits.md)",
        8 * 1024 * 1024,
    )
    impl: str = _var(
        "NEARDUP_IMPL",
        "every compiled twin (verifier, word layer, fingerprinter, input checks, candidate "
        "table): `python` or `cython` (default: cython when built)",
        "",
    )
    cache_dir: str = _var(
        "NEARDUP_CACHE_DIR",
        "where the compiled fingerprinter keeps its character tables (built once: ~0.2 s)",
        "~/.cache/neardup",
    )
    # --- `neardup serve` -----------------------------------------------------------------------
    host: str = _var("NEARDUP_HOST", "address `neardup serve` listens on", "127.0.0.1")
    port: int = _var("NEARDUP_PORT", "its port", 8080)
    token: str | None = _var(
        "NEARDUP_TOKEN", "bearer token the HTTP service requires (none: open)", secret=True
    )
    # --- `neardup eval` (datasets and baselines) -----------------------------------------------
    shared_data: Path | None = _var(
        "NEARDUP_SHARED_DATA",
        "shared development data (default: `../shared/data` beside the checkout; "
        "`.cache/data` is searched too)",
    )
    cache: Path | None = _var("NEARDUP_CACHE", "dataset cache (default: `.cache` in the project)")
    wordnet_dir: Path = _var(
        "NEARDUP_WORDNET_DIR", "WordNet database (DW-DCS baseline)", Path("/usr/share/wordnet")
    )
    deb_roots: tuple[tuple[str, str], ...] = _var(
        DEB_PREFIX + "<PACKAGE>",
        "an unpacked Debian package instead of fetching it (`python3.11-doc` → "
        "`NEARDUP_DEB_PYTHON3_11_DOC`)",
        (),
    )

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> Settings:
        """The settings in ``environ`` (default: this process's environment)."""
        values: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            raw = environ.get(f.metadata["env"])
            if raw:  # empty counts as unset
                values[f.name] = raw
        values["deb_roots"] = tuple(
            sorted(
                (name.removeprefix(DEB_PREFIX), value)
                for name, value in environ.items()
                if name.startswith(DEB_PREFIX) and value
            )
        )
        return cls(**values)

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, str):
                converted = _convert(f.metadata["env"], str(f.type), value)
                if converted is not value:
                    object.__setattr__(self, f.name, converted)
        choice = self.impl.strip().lower()
        if choice not in IMPLEMENTATIONS:
            raise _bad("impl", self.impl, "expected python or cython")
        object.__setattr__(self, "impl", choice)
        engine = self.engine.strip().lower()
        if engine not in ENGINES:
            raise _bad("engine", self.engine, "expected opensearch or elasticsearch")
        object.__setattr__(self, "engine", engine)
        for name in ("visibility_timeout", "task_time_limit", "outage_budget"):
            if getattr(self, name) is not None and not getattr(self, name) > 0:
                raise _bad(name, getattr(self, name), "expected a positive number of seconds")
        for name in ("max_live_batches", "message_batch", "max_doc_bytes"):
            if getattr(self, name) < 1:
                raise _bad(name, getattr(self, name), "expected a positive integer")
        if not 0 <= self.port <= 65535:
            raise _bad("port", self.port, "expected a port number (0-65535)")
        if self.opensearch_api_key is not None:
            if self.opensearch_user:
                raise ConfigError(
                    "OPENSEARCH_API_KEY and OPENSEARCH_USER are both set: "
                    "authenticate with one of them"
                )
            object.__setattr__(
                self, "opensearch_api_key", _encoded_api_key(self.opensearch_api_key)
            )

    # --- derived values ------------------------------------------------------------------------

    @property
    def effective_task_time_limit(self) -> float:
        """``NEARDUP_TASK_TIME_LIMIT``, else 80 % of the visibility timeout."""
        if self.task_time_limit is not None:
            return self.task_time_limit
        return 0.8 * self.visibility_timeout

    def dashboards_credentials(self) -> tuple[str | None, str | None]:
        """``(user, password)`` for Dashboards: its own user and password when a Dashboards
        user is set, else the OpenSearch ones (the same security plugin usually guards both)."""
        if self.dashboards_user:
            return self.dashboards_user, self.dashboards_password
        return self.opensearch_user, self.opensearch_password

    def deb_root(self, package: str) -> Path | None:
        """``$NEARDUP_DEB_<PACKAGE>`` for a Debian package name (dots and dashes as ``_``)."""
        wanted = re.sub(r"[^A-Za-z0-9]", "_", package).upper()
        return next((Path(v) for k, v in self.deb_roots if k == wanted), None)


def _encoded_api_key(value: str) -> str:
    """An API key as the ``Authorization: ApiKey`` header carries it: base64 of ``id:key``.
    Elasticsearch answers a new key with ``id``, ``api_key`` and their ``encoded`` form; both
    ``encoded`` and ``id:key`` are taken (base64 has no colon). The value is never echoed.

    >>> _encoded_api_key("VuaCfGcBCdbkQm-e5aOx:ui2lp2axTNmsyakw9tvNnw")
    'VnVhQ2ZHY0JDZGJrUW0tZTVhT3g6dWkybHAyYXhUTm1zeWFrdzl0dk5udw=='
    >>> _encoded_api_key(" VnVhQ2ZHY0JDZGJrUW0tZTVhT3g6dWkybHAyYXhUTm1zeWFrdzl0dk5udw== ")
    'VnVhQ2ZHY0JDZGJrUW0tZTVhT3g6dWkybHAyYXhUTm1zeWFrdzl0dk5udw=='
    """
    key = value.strip()
    if ":" in key:
        return base64.b64encode(key.encode()).decode("ascii")
    try:
        decoded = base64.b64decode(key, validate=True)
    except ValueError:
        decoded = b""
    if b":" not in decoded:
        raise ConfigError(
            "OPENSEARCH_API_KEY: expected the `encoded` value Elasticsearch returns for a new "
            "key (base64 of id:key), or id:key"
        )
    return key


def _bad(name: str, value: object, expected: str) -> ConfigError:
    env = next(f.metadata["env"] for f in dataclasses.fields(Settings) if f.name == name)
    return ConfigError(f"{env}={value!r}: {expected}")


def _convert(env: str, kind: str, raw: str) -> Any:
    """``raw`` as a value of the field type ``kind`` (the annotation as written above)."""
    if kind in ("str", "str | None"):
        return raw
    if kind in ("Path", "Path | None"):
        return Path(raw)
    if kind == "bool":
        value = raw.strip().lower()
        if value in ("1", "true", "yes", "on"):
            return True
        if value in ("0", "false", "no", "off"):
            return False
        raise ConfigError(f"{env}={raw!r}: expected true or false")
    if kind == "int":
        try:
            return int(raw)
        except ValueError:
            raise ConfigError(f"{env}={raw!r}: expected an integer") from None
    if kind in ("float", "float | None"):
        try:
            return float(raw)
        except ValueError:
            raise ConfigError(f"{env}={raw!r}: expected a number") from None
    raise ConfigError(f"{env}: a string is not a {kind}")


def _default(f: dataclasses.Field[Any]) -> str:
    if f.default in (None, "", ()):
        return ""
    if isinstance(f.default, bool):
        return "true" if f.default else "false"
    if isinstance(f.default, float) and f.default.is_integer():
        return str(int(f.default))
    if isinstance(f.default, int):
        return str(f.default)
    return f"`{f.default}`"


def settings_table() -> str:
    """The Markdown table of every variable (docs/settings.md holds a copy; a test compares)."""
    rows = ["| Variable | Field | Default | Meaning |", "|---|---|---|---|"]
    for f in dataclasses.fields(Settings):
        rows.append(f"| `{f.metadata['env']}` | `{f.name}` | {_default(f)} | {f.metadata['doc']} |")
    return "\n".join(rows) + "\n"


def child_environ(**overrides: str) -> dict[str, str]:
    """This process's environment with ``overrides``, for a child process (a worker)."""
    return {**os.environ, **overrides}


def export_broker_url(url: str) -> None:
    """Make ``url`` this process's broker. Celery reads ``CELERY_BROKER_URL`` itself, ahead of
    its configuration, so an override (``neardup serve --broker-url``) goes through the
    environment, before :mod:`neardup.ingest.workers.app` is imported."""
    os.environ["CELERY_BROKER_URL"] = url


if __name__ == "__main__":  # pragma: no cover
    print(settings_table(), end="")
