"""``OPENSEARCH_API_KEY`` reaches the node: every client neardup makes (the Elasticsearch 8 and 9
clients, opensearch-py, the engine detection), the commands and a worker send
``Authorization: ApiKey <encoded>`` with every request, checked on a local HTTP stub that records
the headers it receives (tests/support/stub.py). A key the node refuses is one line and exit 1.

API keys cannot be made on the Elasticsearch integ-test build the integration tests run (no
security index: docs/security.md), hence the stub.
"""

from __future__ import annotations

import base64
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.stub import StubNode, stub_node
from support.workers import ROOT, celery_worker, worker_env

from neardup.ingest.errors import ConfigError
from neardup.ingest.settings import Settings
from neardup.ingest.store import client_from_env, open_store

KEY_ID, KEY_SECRET = "VuaCfGcBCdbkQm-e5aOx", "ui2lp2axTNmsyakw9tvNnw"
ENCODED = base64.b64encode(f"{KEY_ID}:{KEY_SECRET}".encode()).decode()


def _keyed(node: StubNode) -> None:
    """Every request the stub saw carried the API key (and there were some)."""
    seen = node.seen()
    assert seen, "no request reached the stub"
    wrong = [
        (s.method, s.path, s.headers.get("authorization"))
        for s in seen
        if s.headers.get("authorization") != f"ApiKey {ENCODED}"
    ]
    assert not wrong, wrong


# --- the setting ---------------------------------------------------------------------------


def test_the_key_is_taken_encoded_or_as_id_colon_key_and_never_shown() -> None:
    encoded = Settings.from_env({"OPENSEARCH_API_KEY": ENCODED})
    pair = Settings.from_env({"OPENSEARCH_API_KEY": f"{KEY_ID}:{KEY_SECRET}"})
    assert encoded.opensearch_api_key == pair.opensearch_api_key == ENCODED
    assert ENCODED not in repr(encoded) and KEY_SECRET not in repr(pair)
    assert Settings.from_env({}).opensearch_api_key is None


def test_a_key_beside_a_user_or_not_a_key_is_a_configuration_error() -> None:
    with pytest.raises(ConfigError, match="OPENSEARCH_API_KEY and OPENSEARCH_USER"):
        Settings.from_env({"OPENSEARCH_API_KEY": ENCODED, "OPENSEARCH_USER": "neardup"})
    with pytest.raises(ConfigError, match="OPENSEARCH_API_KEY: expected") as caught:
        Settings.from_env({"OPENSEARCH_API_KEY": "not-a-key"})
    assert "not-a-key" not in str(caught.value)


# --- every client ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("product", "version", "package"),
    [
        ("elasticsearch", "8.19.21", "elasticsearch8"),
        ("elasticsearch", "9.2.0", "elasticsearch"),
        ("opensearch", "2.19.1", "opensearchpy"),
    ],
)
def test_every_client_sends_the_key(product: str, version: str, package: str) -> None:
    with stub_node(product, version, api_key=ENCODED) as node:
        settings = Settings.from_env({"OPENSEARCH_URL": node.url, "OPENSEARCH_API_KEY": ENCODED})
        client = client_from_env(settings=settings)  # detection (urllib3), then the client
        assert type(client).__module__.split(".")[0] == package
        assert not client.indices.exists(index="pages")
        client.close()
        store = open_store("engine", settings, index="pages")  # the store's own client
        assert set(store.install_templates().values()) == {"installed"}
        assert store.collapsed_search("harbour", size=5, inner_hits_size=2) == []
        store.close()
        _keyed(node)
        assert len(node.seen()) >= 8


# --- the commands and the worker -------------------------------------------------------------


def _neardup(env: dict[str, str], *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "neardup.ingest.cli", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **env},
    )


def test_the_commands_send_the_key() -> None:
    with stub_node(api_key=ENCODED) as node:
        env = {"OPENSEARCH_URL": node.url, "OPENSEARCH_API_KEY": f"{KEY_ID}:{KEY_SECRET}"}
        done = _neardup(env, "templates", "install", "--index", "news")
        assert done.returncode == 0, done.stderr
        assert "news-mappings\tinstalled" in done.stdout
        _neardup(env, "search", "harbour", "--index", "news")
        _keyed(node)
        assert any(s.path.startswith("/news/_search") for s in node.seen())


def test_a_refused_key_is_one_line_and_exit_1() -> None:
    with stub_node(api_key="another-key") as node:
        env = {"OPENSEARCH_URL": node.url, "OPENSEARCH_API_KEY": ENCODED}
        for argv in (["templates", "install"], ["search", "harbour"], ["worker"]):
            done = _neardup(env, *argv)
            assert done.returncode == 1, done.stderr
            assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
            assert done.stderr.startswith(
                f"neardup {argv[0]}: the node at {node.url} refused "
                "the credentials (401: unable to authenticate"
            )
            assert "check OPENSEARCH_API_KEY" in done.stderr and ENCODED not in done.stderr


def test_a_worker_sends_the_key_and_stops_on_a_refused_one(redis_url: str, tmp_path: Path) -> None:
    with stub_node(api_key=ENCODED) as node:
        env = worker_env(redis_url, node.url, "pages", OPENSEARCH_API_KEY=ENCODED)
        worker = celery_worker(env, tmp_path / "worker.log")
        try:
            deadline = time.monotonic() + 60
            while not node.seen() and time.monotonic() < deadline and worker.poll() is None:
                time.sleep(0.2)
            _keyed(node)
            assert worker.poll() is None, (tmp_path / "worker.log").read_text()
        finally:
            worker.terminate()
            worker.wait(30)
    with stub_node(api_key="another-key") as node:
        env = worker_env(redis_url, node.url, "pages", OPENSEARCH_API_KEY=ENCODED)
        worker = celery_worker(env, tmp_path / "refused.log")
        assert worker.wait(60) == 1
        log = (tmp_path / "refused.log").read_text()
        refused = [line for line in log.splitlines() if "neardup worker:" in line]
        assert len(refused) == 1 and "ERROR" in refused[0], log
        assert "refused the credentials" in refused[0] and "check OPENSEARCH_API_KEY" in refused[0]
        assert "Traceback" not in log and ENCODED not in log
