"""The layout's rules, checked on the source (see docs/architecture.md).

* No import cycle between the project's modules.
* No function-local import of a project module. The lazy doors load a module by name with
  :func:`importlib.import_module` instead: the CLI resolves a subcommand's module only when it
  runs (``ingest/cli.py``), :func:`neardup.ingest.store.open_store` a backend only when it is opened,
  ``neardup dedup`` its engine path only for ``--backend opensearch``, and ``neardup.verifier.lcs``
  the pure-Python reference only when chosen.
* ``verifier`` and ``evaluation`` never import the HTTP service or the CLI.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# The repository's directories and the packages they install as (pyproject.toml package-dir).
PACKAGES = ("neardup", "ingest", "verifier", "evaluation", "mappings")


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            if parts[:1] != ["neardup"]:
                parts.insert(0, "neardup")
            found[".".join(parts)] = path
    return found


MODULES = _modules()


def _project_target(name: str) -> str | None:
    """The project module an import of ``name`` loads (a package's ``__init__`` for a name
    inside it), or None for a third-party name."""
    if name.split(".")[0] != "neardup":
        return None
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(tree: ast.AST, module: str) -> Iterator[tuple[ast.stmt, str, bool]]:
    """(node, imported project module, at module level?) for every import statement."""
    top = {id(n) for n in ast.iter_child_nodes(tree)}
    # Imports under `if TYPE_CHECKING:` never run.
    typing_only: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            typing_only.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        level = id(node) in top or _in_module_level_try(tree, node)
        if isinstance(node, ast.Import):
            for alias in node.names:
                if target := _project_target(alias.name):
                    yield node, target, level
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = module.split(".")
                base = ".".join(pkg[: len(pkg) - node.level + 1] + ([base] if base else []))
            for alias in node.names:
                target = _project_target(f"{base}.{alias.name}") or _project_target(base)
                if target:
                    yield node, target, level


def _in_module_level_try(tree: ast.AST, node: ast.AST) -> bool:
    for stmt in ast.iter_child_nodes(tree):
        if isinstance(stmt, ast.Try) and any(node is n for n in ast.walk(stmt)):
            return True
    return False


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        graph[module] = {t for _, t, level in _imports(tree, module) if level and t != module}
        # Importing a.b.c runs a/__init__ and a/b/__init__ first.
        for target in list(graph[module]):
            parts = target.split(".")
            graph[module].update(
                ".".join(parts[:i]) for i in range(1, len(parts)) if ".".join(parts[:i]) in MODULES
            )
        graph[module].discard(module)
    return graph


def test_no_import_cycle() -> None:
    graph = _graph()
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt.startswith(node + "."):
                continue  # a package's __init__ may re-export its own modules
            if state.get(nxt) == 1:
                cycle = path[path.index(nxt) :] + [nxt]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt)
        path.pop()
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module)


def test_project_imports_are_at_module_level() -> None:
    local = []
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        local += [
            f"{path.relative_to(ROOT)}:{node.lineno} imports {target}"
            for node, target, level in _imports(tree, module)
            if not level
        ]
    assert not local, "function-local imports of project modules:\n" + "\n".join(local)


@pytest.mark.parametrize("package", ["neardup.verifier", "neardup.evaluation"])
def test_deciding_and_evaluating_never_load_the_service_or_cli(package: str) -> None:
    graph = _graph()
    seen: set[str] = set()
    todo = [m for m in graph if m == package or m.startswith(package + ".")]
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        todo.extend(graph.get(module, ()))
    bad = sorted(m for m in seen if m.startswith(("neardup.ingest.server", "neardup.ingest.cli", "neardup.ingest.commands")))
    assert not bad, f"{package} loads {bad}"
