"""The store backends are sealed: outside ``ingest/store/`` no module imports a backend
(``neardup.ingest.store.opensearch``, ``neardup.ingest.store.elasticsearch``,
``neardup.ingest.store.engine`` and its modules, ``neardup.ingest.store.embedded``), asks
``isinstance(x, <backend>)`` or touches a store's ``client``. Callers use
:func:`neardup.ingest.store.open_store` and the roles of :mod:`neardup.ingest.store.roles`; a
role a backend lacks is absent, and a caller that needs it asks ``isinstance(store, <role>)``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PACKAGES = ("ingest", "verifier", "evaluation", "mappings", "bench", "examples", "scripts")
SEALED = ROOT / "ingest" / "store"
BACKEND_MODULES = frozenset(
    {
        "neardup.ingest.store.opensearch",
        "neardup.ingest.store.elasticsearch",
        "neardup.ingest.store.engine",
        "neardup.ingest.store.embedded",
    }
)
BACKEND_NAMES = frozenset(
    {"OpenSearchStore", "ElasticsearchStore", "EngineBackend", "EmbeddedStore", "translate_errors"}
)


def _backend(module: str) -> bool:
    return any(module == m or module.startswith(f"{m}.") for m in BACKEND_MODULES)


def _sources() -> list[Path]:
    files = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if SEALED not in path.parents:
                files.append(path)
    return files


def violations(source: str, filename: str = "<string>") -> list[str]:
    """What in ``source`` breaks the seal, as ``line: what`` strings."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source, filename)):
        where = f"{filename}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _backend(alias.name):
                    found.append(f"{where}: imports {alias.name}")
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if _backend(module):
                found.append(f"{where}: imports from {module}")
            elif module == "neardup.ingest.store":
                for alias in node.names:
                    if _backend(f"neardup.ingest.store.{alias.name}"):
                        found.append(f"{where}: imports neardup.ingest.store.{alias.name}")
            for alias in node.names:
                if alias.name in BACKEND_NAMES:
                    found.append(f"{where}: imports {alias.name}")
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id == "isinstance" and len(node.args) == 2:
                klass = node.args[1]
                names = klass.elts if isinstance(klass, ast.Tuple) else [klass]
                for n in names:
                    name = n.attr if isinstance(n, ast.Attribute) else getattr(n, "id", None)
                    if name in BACKEND_NAMES:
                        found.append(f"{where}: isinstance(..., {name})")
        elif isinstance(node, ast.Attribute) and node.attr == "client":
            found.append(f"{where}: accesses .client ({ast.unparse(node)})")
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "getattr"
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and node.args[1].value == "client"
        ):
            found.append(f"{where}: getattr(..., 'client')")
    return found


def test_the_scan_covers_the_packages() -> None:
    files = _sources()
    assert any(p.name == "tasks.py" and p.parent.name == "workers" for p in files)
    assert not any(SEALED in p.parents for p in files)


@pytest.mark.parametrize(
    "source",
    [
        "from neardup.ingest.store.opensearch import OpenSearchStore",
        "from neardup.ingest.store.engine.reads import IndexReads",
        "from neardup.ingest.store.engine import cluster",
        "import neardup.ingest.store.engine.writes",
        "import neardup.ingest.store.embedded",
        "from neardup.ingest.store import opensearch",
        "from neardup.ingest.store.embedded import EmbeddedStore as E",
        "def f(s):\n    from neardup.ingest.store.opensearch import translate_errors",
        "isinstance(store, OpenSearchStore)",
        "isinstance(store, (int, backends.EmbeddedStore))",
        "store.client.search(index='x')",
        "c = self.store.client",
        "getattr(store, 'client', None)",
    ],
)
def test_each_kind_of_breach_is_caught(source: str) -> None:
    assert violations(source)


def test_the_interface_is_allowed() -> None:
    assert not violations(
        "from neardup.ingest.store import open_store\n"
        "from neardup.ingest.store.roles import EngineReads, EngineStore, Store\n"
        "store = open_store('opensearch')\n"
        "store.fingerprint_holders({}, [])\n"
        "isinstance(store, EngineReads)\n"
    )


def test_no_module_outside_the_store_breaks_the_seal() -> None:
    found = [
        v
        for path in _sources()
        for v in violations(path.read_text("utf-8"), str(path.relative_to(ROOT)))
    ]
    assert not found, "\n".join(found)
