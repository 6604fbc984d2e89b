"""Engines with security on, for tests/integration/test_security.py: Elasticsearch 8.19 and 9.x
(``xpack.security``: HTTPS with a private CA, the ``elastic`` bootstrap password, the file realm)
and OpenSearch 2.19 with its security plugin (HTTPS, internal users), each started by the
project's script with its security variable, on a port of its own.

The least-privilege role comes from docs/security.md itself (the YAML block after
``<!-- role: <engine> -->``), so the role the documentation gives is the role the tests run as.
"""

from __future__ import annotations

import os
import re
import secrets
import shlex
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from support.ci import unavailable
from support.engines import ENGINES, ROOT, SECURITY, Engine, requested

DOC = ROOT / "docs" / "security.md"
USER = "neardup"  # the least-privileged user the tests make; its role is ROLE
ROLE = "neardup"


def documented_role(engine: str) -> str:
    """The ``roles.yml`` of ``engine`` (``elasticsearch`` or ``opensearch``) in docs/security.md."""
    found = re.search(
        rf"<!-- role: {engine} -->\s*```yaml\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S
    )
    if found is None:
        raise AssertionError(f"docs/security.md has no role block for {engine}")
    return found.group(1)


@dataclass(frozen=True)
class SecuredEngine:
    """An engine of :mod:`support.engines` started with security on, on ``default_port``
    (or ``$<port_var>``)."""

    name: str  # test id: "elasticsearch-8-security"
    base: Engine  # the same engine with security off: script, version, clients
    security_var: str  # the script's switch: ELASTICSEARCH_SECURITY, OPENSEARCH_SECURITY
    users_var: str  # the script's file-realm / internal users: "name:password:role"
    roles_var: str  # the script's roles.yml to install
    port_var: str  # where the tests take the port from
    default_port: int

    @property
    def port(self) -> int:
        return int(os.environ.get(self.port_var, self.default_port))

    def script_env(self, roles: Path | None = None, password: str = "") -> dict[str, str]:
        env = {
            **self.base.script_env(),
            self.base.port_var: str(self.port),
            self.security_var: "true",
        }
        if roles is not None:
            env[self.roles_var] = str(roles)
            env[self.users_var] = f"{USER}:{password}:{ROLE}"
        return env

    def run(
        self, action: str, roles: Path | None = None, password: str = ""
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(ROOT / "scripts" / self.base.script), action],
            env=self.script_env(roles, password),
            capture_output=True,
            text=True,
            timeout=900,
        )


def exports(stdout: str) -> dict[str, str]:
    """The ``export NAME=value`` lines a script printed, as a mapping."""
    found = {}
    for line in stdout.splitlines():
        if line.startswith("export "):
            name, _, value = line.removeprefix("export ").partition("=")
            found[name] = shlex.split(value)[0] if value else ""
    return found


@dataclass(frozen=True)
class SecuredNode:
    """A running node with security on, as the compatibility suite's ``engine`` fixture gives
    engines (``name``, ``engine``, ``version``, ``url``, ``bulk_clients``, ``client_env``): its
    clients connect as the least-privileged user. ``admin_env`` is the superuser's."""

    name: str  # the engine's name with security off: the suite picks clients by it
    engine: str
    version: str
    url: str
    bulk_clients: tuple[str, ...]
    client_env: dict[str, str] = field(default_factory=dict)
    admin_env: dict[str, str] = field(default_factory=dict)
    index_prefix: str = "pages-test-"  # under the documented role's pattern, pages*


def password() -> str:
    return "Nd-" + secrets.token_urlsafe(12)  # the security plugin wants a strong password


SECURED = {
    s.name: s
    for s in (
        SecuredEngine(
            "elasticsearch-8-security",
            ENGINES["elasticsearch-8"],
            "ELASTICSEARCH_SECURITY",
            "ELASTICSEARCH_USERS",
            "ELASTICSEARCH_ROLES",
            "NEARDUP_TEST_SECURE_ELASTICSEARCH8_PORT",
            9260,
        ),
        SecuredEngine(
            "elasticsearch-9-security",
            ENGINES["elasticsearch-9"],
            "ELASTICSEARCH_SECURITY",
            "ELASTICSEARCH_USERS",
            "ELASTICSEARCH_ROLES",
            "NEARDUP_TEST_SECURE_ELASTICSEARCH9_PORT",
            9264,
        ),
        SecuredEngine(
            "opensearch-2-security",
            ENGINES["opensearch-2"],
            "OPENSEARCH_SECURITY",
            "OPENSEARCH_USERS",
            "OPENSEARCH_ROLES",
            "NEARDUP_TEST_SECURE_OPENSEARCH2_PORT",
            9262,
        ),
    )
}


def selected_secured() -> list[str]:
    """The engines with security on named in ``NEARDUP_TEST_ENGINES`` (default: all of
    :data:`SECURED`)."""
    names = requested()
    if names is None:
        return list(SECURED)
    unknown = sorted(n for n in names if n.endswith(SECURITY) and n not in SECURED)
    if unknown:
        raise ValueError(
            f"NEARDUP_TEST_ENGINES: no {unknown} with security on; known: {sorted(SECURED)}"
        )
    return [n for n in names if n in SECURED]


@contextmanager
def running(name: str, workdir: Path) -> Iterator[SecuredNode]:
    """The engine ``name`` of :data:`SECURED`, started by its script with the role of
    docs/security.md and a user holding only it, for the ``with`` block; stopped afterwards.
    A node that does not start is :func:`~support.ci.unavailable` (a failure under CI)."""
    chosen = SECURED[name]
    roles = workdir / "roles.yml"
    roles.write_text(documented_role(chosen.base.engine), encoding="utf-8")
    secret = password()
    chosen.run("stop")  # a node left by an earlier run has other users: start afresh
    started = chosen.run("start", roles, secret)
    if started.returncode != 0:
        unavailable(f"{name}: scripts/{chosen.base.script} start failed: {started.stderr[-3000:]}")
    admin = exports(started.stdout)
    if not admin.get("OPENSEARCH_URL", "").startswith("https://"):
        chosen.run("stop")
        raise AssertionError(f"{name}: no HTTPS URL among the exports: {started.stdout!r}")
    user = {**admin, "OPENSEARCH_USER": USER, "OPENSEARCH_PASSWORD": secret}
    try:
        yield SecuredNode(
            chosen.base.name,
            chosen.base.engine,
            chosen.base.version,
            admin["OPENSEARCH_URL"],
            chosen.base.bulk_clients,
            user,
            admin,
        )
    finally:
        chosen.run("stop")
