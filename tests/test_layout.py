"""The layout's rules, checked on the source (see docs/architecture.md).

* No import cycle between the project's modules.
* No function-local import of a project module. The lazy doors load a module by name with
  :func:`importlib.import_module` instead: the CLI resolves a subcommand's module only when it
  runs (``ingest/cli.py``), :func:`neardup.ingest.store.open_store` a backend only when it is opened,
  ``neardup dedup`` its engine path only for ``--backend opensearch``, and ``neardup.verifier.lcs``
  the pure-Python reference only when chosen.
* ``verifier`` and ``evaluation`` never import the HTTP service or the CLI.
* A compiled module of the verifier has one shape: ``x.py`` the front its callers import,
  ``_x.pyx`` compiled (typed by ``_x.pyi``), ``_x_py.py`` the pure-Python reference with the
  same public API; the front binds one of them (``select``, ``bind``) and no module imports
  them.
* One module per concept: docs/architecture.md's table "One module per concept" names each
  concept's module and what it defines; each module stands once in it, and each name is
  defined at the top of that module (or of its twins) and of no other module.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# The package as it installs: the front door, and links to the repository's top-level
# directories that install beneath it (pyproject.toml [tool.setuptools.packages.find]).
PACKAGE = ROOT / "src" / "neardup"
LINKED = ("ingest", "verifier", "evaluation", "mappings")


def _modules() -> dict[str, Path]:
    """Every module of the package by name, with the path of its file in the repository."""
    found: dict[str, Path] = {}
    for folder, dirs, files in os.walk(PACKAGE, followlinks=True):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(f for f in files if f.endswith(".py")):
            path = Path(folder, name)
            parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path.resolve()
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


def _reach(graph: dict[str, set[str]], package: str) -> set[str]:
    """The project modules importing ``package`` (and its modules) loads."""
    seen: set[str] = set()
    todo = [m for m in graph if m == package or m.startswith(package + ".")]
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo.extend(graph.get(module, ()))
    return seen


def test_the_verifier_imports_no_other_project_package() -> None:
    graph = _graph()
    outside = sorted(
        f"{m} imports {t}"
        for m in graph
        if m.startswith("neardup.verifier")
        for t in graph[m]
        # the package itself, and the root of the error tree it shares (both import nothing)
        if not t.startswith("neardup.verifier") and t not in ("neardup", "neardup.errors")
    )
    assert not outside, "the verifier is the bottom layer:\n" + "\n".join(outside)


COMPILED_MODULES = sorted((ROOT / "verifier").glob("_*.pyx"))


def _public_names(path: Path) -> set[str]:
    """The public functions and module-level names ``path`` (a module or a stub) defines."""
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return {name for name in names if not name.startswith("_")}


def _imported_names(tree: ast.AST) -> set[str]:
    """Every absolute name an import statement of ``tree`` that runs names (``from a import
    b``: a, a.b); imports under ``if TYPE_CHECKING:`` never run."""
    names: set[str] = set()
    typing_only = {
        id(n) for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for stmt in node.body for n in ast.walk(stmt)
    }
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_the_verifier_has_compiled_modules() -> None:
    assert [p.name for p in COMPILED_MODULES] == ["_lcs.pyx", "_words.pyx"]


@pytest.mark.parametrize("pyx", COMPILED_MODULES, ids=lambda p: p.stem)
def test_a_compiled_module_has_a_front_and_a_reference(pyx: Path) -> None:
    package = ".".join(["neardup", *pyx.parent.relative_to(ROOT).parts])
    front, reference = pyx.with_name(f"{pyx.stem[1:]}.py"), pyx.with_name(f"{pyx.stem}_py.py")
    compiled_name, reference_name = f"{package}.{pyx.stem}", f"{package}.{pyx.stem}_py"
    assert front.is_file() and reference.is_file() and pyx.with_suffix(".pyi").is_file()
    # The reference has the compiled module's public API (its stub's names), and more at most.
    assert _public_names(pyx.with_suffix(".pyi")) <= _public_names(reference)
    # The front names both twins, picks one through the one selector and binds its API last.
    tree = ast.parse(front.read_text(encoding="utf-8"))
    constants = {
        t.id: node.value.value
        for node in tree.body if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
        for t in node.targets if isinstance(t, ast.Name)
    }
    assert constants.get("COMPILED") == compiled_name
    assert constants.get("REFERENCE") == reference_name
    assert "select(COMPILED, REFERENCE" in ast.unparse(tree)
    assert ast.unparse(tree.body[-1]).startswith("bind(globals(), ")
    # What it binds (its __all__ but what it defines) the compiled module has, by its stub.
    exported = next(
        ast.literal_eval(node.value) for node in tree.body
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "__all__"
    )
    bound = set(exported) - _public_names(front)
    assert "IMPLEMENTATION" in bound and bound <= _public_names(pyx.with_suffix(".pyi"))
    # No module imports either twin: the front reaches them by name, through the selector.
    importers = sorted(
        module for module, path in MODULES.items()
        if {compiled_name, reference_name} & _imported_names(ast.parse(path.read_text(encoding="utf-8")))
    )
    assert importers == [], f"{pyx.stem} is imported, not reached through {front.name}: {importers}"


def test_ingest_imports_no_evaluation() -> None:
    graph = _graph()
    bad = sorted(
        f"{m} imports {t}"
        for m in graph
        if m.startswith("neardup.ingest")
        for t in graph[m]
        if t.startswith("neardup.evaluation")
    )
    assert not bad, "evaluation uses ingest, never the reverse:\n" + "\n".join(bad)


def test_the_top_level_package_imports_nothing_at_import() -> None:
    # `import neardup.verifier` runs src/neardup/__init__.py first: it must load no layer; and
    # neardup.errors, which the verifier shares, nothing at all.
    graph = _graph()
    assert graph["neardup"] == set() and graph["neardup.errors"] <= {"neardup"}


def test_the_package_links_each_top_level_package_directory() -> None:
    # Relative links, so that every clone and copy of the checkout holds a whole package; and
    # none missing: a top-level directory with an __init__.py is a part of the package.
    top = {d.name for d in ROOT.iterdir() if (d / "__init__.py").is_file()}
    assert top == set(LINKED)
    links = {p.name: os.readlink(p) for p in PACKAGE.iterdir() if p.is_symlink()}
    assert links == {name: f"../../{name}" for name in LINKED}


def test_every_directory_of_code_is_a_regular_package() -> None:
    # Discovery takes a directory without an __init__.py as a namespace package: right for
    # the data folders (ingest/server/static/, mappings/dashboards/), wrong for code.
    bare = sorted(str(path.parent.relative_to(ROOT)) for path in MODULES.values()
                  if not (path.parent / "__init__.py").is_file())
    assert not bare, f"modules in a directory without __init__.py: {bare}"


def test_benches_never_import_tests_and_tests_never_touch_sys_path() -> None:
    """A bench imports the product and its own helpers (bench/_*.py), never the tests, pytest
    or a conftest — nor the test helpers through a ``sys.path`` entry. A test never touches
    ``sys.path``, nor imports another test module or a conftest: what tests share lives in
    tests/support/, importable as ``support`` because pytest puts tests/ on ``sys.path``."""
    tests, bench = ROOT / "tests", ROOT / "bench"
    # the names of the test helpers and of tests/' packages, bench's own modules aside
    test_names = {p.stem for p in tests.rglob("*.py")} | {
        p.name for p in tests.iterdir() if p.is_dir() and any(p.rglob("*.py"))
    }
    banned = {"tests", "pytest", "_pytest", "conftest"} | test_names - {
        p.stem for p in bench.glob("*.py")
    }

    def imported(tree: ast.AST) -> Iterator[tuple[int, str]]:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                yield from ((node.lineno, a.name) for a in node.names)
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                yield node.lineno, node.module

    def touches_sys_path(tree: ast.AST) -> Iterator[int]:
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and node.attr == "path"
                    and isinstance(node.value, ast.Name) and node.value.id == "sys"):
                yield node.lineno
            elif isinstance(node, ast.ImportFrom) and node.module == "sys" and any(
                    a.name == "path" for a in node.names):
                yield node.lineno

    bad = []
    for path in sorted(bench.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        where = path.relative_to(ROOT)
        bad += [f"{where}:{line} imports {name}" for line, name in imported(tree)
                if name.split(".")[0] in banned]
        bad += [f"{where}:{node.lineno} puts the tests on sys.path" for node in ast.walk(tree)
                if isinstance(node, ast.Call) and "sys.path" in ast.unparse(node.func)
                and "tests" in (ast.get_source_segment(source, node) or "")]
    for path in sorted(tests.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        where = path.relative_to(ROOT)
        bad += [f"{where}:{line} touches sys.path" for line in touches_sys_path(tree)]
        bad += [f"{where}:{line} imports {name}" for line, name in imported(tree)
                if name.split(".")[-1] == "conftest" or name.split(".")[-1].startswith("test_")]
    assert not bad, "\n".join(bad)


def test_test_modules_have_unique_names() -> None:
    # The tests are collected as top-level modules (no packages): two files of one name in
    # different folders stop the whole collection.
    seen: dict[str, Path] = {}
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        other = seen.setdefault(path.name, path)
        assert other == path, f"{path.relative_to(ROOT)} and {other.relative_to(ROOT)}"


# --- one module per concept (docs/architecture.md) ---------------------------------------------

def _concepts() -> list[tuple[str, Path, list[str]]]:
    """The rows of docs/architecture.md's table "One module per concept"."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## One module per concept", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or cells[0] in ("concept", "") or set(cells[0]) <= {"-"}:
            continue
        module = ROOT / cells[1].strip("`")
        rows.append((cells[0], module, [n.strip(" `") for n in cells[2].split(",")]))
    return rows


CONCEPTS = _concepts()


_PYX_DEF = re.compile(r"^(?:cpdef|def)\s+(?:[\w.\[\]]+\s+)*?(\w+)\s*\(|^(?:cdef\s+)?class\s+(\w+)",
                      re.M)


def _top_level_names(path: Path) -> set[str]:
    """The functions, classes and assigned names at the top of a module (a .pyx: its ``def``,
    ``cpdef`` and ``class`` lines)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".pyx":
        return {a or b for a, b in _PYX_DEF.findall(text)}
    names = set()
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return names


def _twins(module: Path) -> set[Path]:
    """A module and its compiled and reference twins (``_x.pyx``, ``_x_py.py``)."""
    stem = module.stem
    return {module} | {p for p in (module.with_name(f"_{stem}.pyx"),
                                   module.with_name(f"_{stem}_py.py")) if p.exists()}


def test_the_concept_table_names_each_module_once() -> None:
    assert len(CONCEPTS) >= 20
    modules = [m for _, m, _ in CONCEPTS]
    assert len(set(modules)) == len(modules), "a module stands for two concepts"
    assert len({c for c, _, _ in CONCEPTS}) == len(CONCEPTS), "a concept stands twice"
    for concept, module, _ in CONCEPTS:
        assert module.is_file(), f"{concept}: {module} is missing"


@pytest.mark.parametrize(("concept", "module", "names"), CONCEPTS,
                         ids=[c for c, _, _ in CONCEPTS])
def test_a_concept_lives_in_its_module_alone(concept: str, module: Path, names: list[str]
                                             ) -> None:
    home = _twins(module.resolve())
    defined_home = set().union(*(_top_level_names(p) for p in home))
    for name in names:
        assert name in defined_home, f"{concept}: {name} is not defined in {module.name}"
    sources = [p for p in set(MODULES.values()) | {
        p.resolve() for d in LINKED for p in (ROOT / d).rglob("*.pyx")} if p not in home]
    elsewhere = {name: sorted(str(p.relative_to(ROOT)) for p in sources
                              if name in _top_level_names(p)) for name in names}
    assert not {n: w for n, w in elsewhere.items() if w}, f"{concept} is written twice"
