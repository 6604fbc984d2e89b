"""Shared fixtures: real services on 127.0.0.1, started by the project's own scripts.

Under ``CI=true`` a service that does not start fails the test run; elsewhere the integration
tests that need it are skipped with the reason.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def _unavailable(reason: str) -> None:
    if IN_CI:
        pytest.fail(f"required service unavailable under CI: {reason}", pytrace=False)
    pytest.skip(reason)


def _start(script: str) -> None:
    proc = subprocess.run(
        [str(ROOT / "scripts" / script), "start"], capture_output=True, text=True, timeout=600
    )
    if proc.returncode != 0:
        _unavailable(f"scripts/{script} start failed: {proc.stderr[-2000:]}")


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
def shared_data() -> Path:
    """The development data in ../shared/data."""
    if not DATA.is_dir():
        _unavailable(f"development data not found at {DATA}")
    return DATA
