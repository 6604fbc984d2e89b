"""neardup.ingest.settings: parsing, validation and defaults; the environment is read nowhere else
(but ``NEARDUP_IMPL`` by the verifier's implementation helper), and by no module at import; every
field is in the documentation table."""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path

import pytest

from neardup.ingest.errors import ConfigError
from neardup.ingest.settings import Settings, settings_table

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "settings.md"
# Source trees scanned for environment reads (tests/ and scripts/ are not part of the product).
PACKAGES = ("ingest", "verifier", "evaluation", "mappings")
SETTINGS_MODULE = Path("ingest/settings.py")
# The one other module that reads the environment: the verifier's twin selector reads
# NEARDUP_IMPL itself, because the verifier imports nothing of ingest (Settings included) and
# its modules bind their compiled or pure-Python twin when imported. Settings.impl validates
# the same variable at the edge.
IMPLEMENTATION_MODULE = Path("verifier/implementation.py")
# The one module that builds its Settings when imported: the Celery app module, a worker's entry
# point (``celery -A``), where the app must be configured before any task runs.
IMPORT_TIME_SETTINGS = {Path("ingest/workers/app.py")}


# --- parsing, validation, defaults --------------------------------------------------------------


def test_defaults_from_an_empty_environment() -> None:
    s = Settings.from_env({})
    assert s == Settings()
    assert s.opensearch_url == "http://127.0.0.1:9200"
    assert s.opensearch_user is None and s.opensearch_password is None
    assert s.opensearch_verify_certs is True and s.opensearch_ca_certs is None
    assert s.index == "pages"
    assert s.broker_url == "redis://127.0.0.1:6379/0"
    assert s.queue == "neardup.verify"
    assert s.visibility_timeout == 300.0 and s.task_time_limit is None
    assert s.effective_task_time_limit == pytest.approx(240.0)
    assert (s.dead_letter, s.outage_budget, s.max_live_batches) == ("neardup.dead", 900.0, 8)
    assert s.message_batch == 250
    assert s.max_doc_bytes == 8 * 1024 * 1024
    assert s.impl == ""
    assert (s.host, s.port, s.token) == ("127.0.0.1", 8080, None)
    assert s.mappings_dir is None and s.shared_data is None and s.cache is None
    assert s.wordnet_dir == Path("/usr/share/wordnet")
    assert s.deb_roots == ()


def test_every_variable_is_parsed() -> None:
    s = Settings.from_env(
        {
            "OPENSEARCH_URL": "https://search.example:9201",
            "OPENSEARCH_USER": "neardup",
            "OPENSEARCH_PASSWORD": "secret",
            "OPENSEARCH_VERIFY_CERTS": "off",
            "OPENSEARCH_CA_CERTS": "/etc/ca.pem",
            "NEARDUP_INDEX": "news",
            "NEARDUP_MAPPINGS_DIR": "/srv/mappings",
            "OPENSEARCH_DASHBOARDS_USER": "viewer",
            "OPENSEARCH_DASHBOARDS_PASSWORD": "y",
            "CELERY_BROKER_URL": "redis://redis:6379/1",
            "NEARDUP_QUEUE": "q",
            "NEARDUP_VISIBILITY_TIMEOUT": "600",
            "NEARDUP_TASK_TIME_LIMIT": "100.5",
            "NEARDUP_DEAD_LETTER": "dead",
            "NEARDUP_OUTAGE_BUDGET": "60",
            "NEARDUP_MAX_LIVE_BATCHES": "3",
            "NEARDUP_MESSAGE_BATCH": "16",
            "NEARDUP_MAX_DOC_BYTES": "1000",
            "NEARDUP_IMPL": " Python ",
            "NEARDUP_HOST": "0.0.0.0",
            "NEARDUP_PORT": "9000",
            "NEARDUP_TOKEN": "t0k",
            "NEARDUP_SHARED_DATA": "/data",
            "NEARDUP_CACHE": "/cache",
            "NEARDUP_WORDNET_DIR": "/wn",
            "NEARDUP_DEB_PYTHON3_11_DOC": "/pydoc",
            "UNRELATED": "x",
        }
    )
    assert s.opensearch_url == "https://search.example:9201"
    assert (s.opensearch_user, s.opensearch_password) == ("neardup", "secret")
    assert s.opensearch_verify_certs is False and s.opensearch_ca_certs == "/etc/ca.pem"
    assert s.index == "news" and s.mappings_dir == Path("/srv/mappings")
    assert s.dashboards_credentials() == ("viewer", "y")
    assert (s.broker_url, s.queue) == ("redis://redis:6379/1", "q")
    assert s.visibility_timeout == 600.0 and s.effective_task_time_limit == 100.5
    assert (s.dead_letter, s.outage_budget, s.max_live_batches) == ("dead", 60.0, 3)
    assert (s.message_batch, s.max_doc_bytes) == (16, 1000)
    assert s.impl == "python"
    assert (s.host, s.port, s.token) == ("0.0.0.0", 9000, "t0k")
    assert (s.shared_data, s.cache, s.wordnet_dir) == (Path("/data"), Path("/cache"), Path("/wn"))
    assert s.deb_root("python3.11-doc") == Path("/pydoc") and s.deb_root("manpages-zh") is None


def test_empty_counts_as_unset() -> None:
    assert Settings.from_env({"NEARDUP_INDEX": "", "NEARDUP_PORT": "", "NEARDUP_DEB_X": ""}) == (
        Settings()
    )


def test_dashboards_credentials_fall_back_to_opensearch() -> None:
    env = {"OPENSEARCH_USER": "indexer", "OPENSEARCH_PASSWORD": "x"}
    assert Settings.from_env(env).dashboards_credentials() == ("indexer", "x")
    # a Dashboards password without a Dashboards user is not used
    env["OPENSEARCH_DASHBOARDS_PASSWORD"] = "y"
    assert Settings.from_env(env).dashboards_credentials() == ("indexer", "x")
    assert Settings().dashboards_credentials() == (None, None)


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("NEARDUP_VISIBILITY_TIMEOUT", "soon", "expected a number"),
        ("NEARDUP_VISIBILITY_TIMEOUT", "0", "positive"),
        ("NEARDUP_TASK_TIME_LIMIT", "-1", "positive"),
        ("NEARDUP_OUTAGE_BUDGET", "nan", "positive"),
        ("NEARDUP_MAX_LIVE_BATCHES", "1.5", "expected an integer"),
        ("NEARDUP_MESSAGE_BATCH", "0", "positive integer"),
        ("NEARDUP_MAX_DOC_BYTES", "8MiB", "expected an integer"),
        ("NEARDUP_PORT", "http", "expected an integer"),
        ("NEARDUP_PORT", "70000", "port"),
        ("OPENSEARCH_VERIFY_CERTS", "perhaps", "true or false"),
        ("NEARDUP_IMPL", "fortran", "python or cython"),
    ],
)
def test_a_bad_value_names_the_variable(variable: str, value: str, message: str) -> None:
    with pytest.raises(ConfigError, match=f"^{variable}=.*{message}"):
        Settings.from_env({variable: value})


def test_frozen_and_secrets_kept_out_of_repr() -> None:
    s = Settings.from_env({"OPENSEARCH_PASSWORD": "hunter2", "NEARDUP_TOKEN": "t0k"})
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.index = "other"  # type: ignore[misc]
    assert "hunter2" not in repr(s) and "t0k" not in repr(s)


def test_direct_construction_converts_and_validates() -> None:
    assert Settings(port="81").port == 81  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="NEARDUP_PORT"):
        Settings(port=-1)


# --- the environment is read in one place -------------------------------------------------------


def _reads_environment(tree: ast.AST) -> list[int]:
    """Lines that touch ``os.environ`` / ``os.getenv`` / ``environ`` imported from os,
    except as the default value of a ``from_env`` parameter."""
    allowed: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "from_env":
            allowed.update(id(d) for d in node.args.defaults + node.args.kw_defaults if d)
    lines = []
    for node in ast.walk(tree):
        if id(node) in allowed:
            continue
        if (
            isinstance(node, ast.Attribute)
            and node.attr in ("environ", "environb", "getenv", "getenvb", "putenv", "unsetenv")
            and isinstance(node.value, ast.Name)
            and node.value.id == "os"
        ):
            lines.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            if any(a.name in ("environ", "environb", "getenv", "getenvb") for a in node.names):
                lines.append(node.lineno)
    return lines


def _sources() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))


def test_only_the_settings_module_reads_the_environment() -> None:
    offenders = []
    for path in _sources():
        rel = path.relative_to(ROOT)
        for line in _reads_environment(ast.parse(path.read_text(encoding="utf-8"))):
            offenders.append(f"{rel}:{line}")
    allowed = {o for o in offenders if o.startswith(f"{SETTINGS_MODULE}:")}
    assert allowed, "ingest/settings.py should be the module that reads os.environ"
    selector = {o for o in offenders if o.startswith(f"{IMPLEMENTATION_MODULE}:")}
    assert len(selector) == 1, "verifier/implementation.py reads NEARDUP_IMPL, once"
    assert sorted(set(offenders) - allowed - selector) == [], (
        "read the environment through neardup.ingest.settings.Settings, not os.environ"
    )


def test_the_selector_reads_only_neardup_impl() -> None:
    source = (ROOT / IMPLEMENTATION_MODULE).read_text(encoding="utf-8")
    assert 'VARIABLE = "NEARDUP_IMPL"' in source
    assert "os.environ.get(VARIABLE" in source and source.count("os.environ") == 1


def _import_time_calls(tree: ast.Module) -> list[int]:
    """Lines of ``Settings.from_env(...)`` calls that run when the module is imported (outside
    any function or class body)."""
    lines: list[int] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return  # runs when called
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "from_env"
        ):
            lines.append(node.lineno)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return lines


def test_no_module_reads_its_settings_when_imported() -> None:
    """Settings are passed down, or read at first use: importing a module (a library use, a
    test) never depends on the environment of that moment. The Celery app module aside."""
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in _sources()
        if path.relative_to(ROOT) not in IMPORT_TIME_SETTINGS
        for line in _import_time_calls(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert found == []


def test_the_import_time_scan_catches_a_call() -> None:
    tree = ast.parse(
        "s = Settings.from_env()\nclass A:\n    x = Settings.from_env()\n"
        "def f(s=None):\n    return s or Settings.from_env()\n"
    )
    assert _import_time_calls(tree) == [1, 3]


def test_the_scan_catches_a_read() -> None:
    tree = ast.parse(
        "import os\nfrom os import getenv\nx = os.environ.get('A')\ny = os.getenv('B')\n"
        "def from_env(environ=os.environ): ...\n"
    )
    assert sorted(_reads_environment(tree)) == [2, 3, 4]


# --- one documentation table --------------------------------------------------------------------


def test_every_field_is_in_the_documentation_table() -> None:
    text = DOC.read_text(encoding="utf-8")
    rows = {
        m.group(2): m.group(1)
        for m in re.finditer(r"^\| `([A-Z0-9_<>]+)` \| `([a-z_0-9]+)` \|", text, re.MULTILINE)
    }
    for f in dataclasses.fields(Settings):
        assert rows.get(f.name) == f.metadata["env"], f"{f.name} missing from {DOC.name}"
    assert set(rows) == {f.name for f in dataclasses.fields(Settings)}


def test_the_documentation_table_is_the_generated_one() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert settings_table() in text, "regenerate it: python -m neardup.ingest.settings"


def test_readme_links_the_settings_page() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "## Settings" in readme and "docs/settings.md" in readme


def test_neardup_exits_2_on_a_bad_variable(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from neardup.ingest.cli import main

    monkeypatch.setenv("NEARDUP_VISIBILITY_TIMEOUT", "soon")
    assert main(["compare", "-"]) == 2
    assert "NEARDUP_VISIBILITY_TIMEOUT='soon': expected a number" in capsys.readouterr().err


def test_the_implementation_choices_are_the_selectors() -> None:
    from neardup.ingest import settings
    from neardup.verifier import implementation

    assert settings.IMPLEMENTATIONS == implementation.CHOICES
