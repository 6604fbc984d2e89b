"""The search engines the compatibility suite runs on, as data: each is started by the project's
own script (scripts/opensearch.sh, scripts/elasticsearch.sh) on its own port.

``NEARDUP_TEST_ENGINES`` (comma-separated names, default all) picks them; each port comes from
its variable, so two checkouts testing on one machine keep apart. The default OpenSearch 2.19
node is the suite's usual one (``OPENSEARCH_URL``); the others are started for their tests and
stopped afterwards when this process started them.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Engine:
    name: str  # test id: "elasticsearch-8"
    engine: str  # what detection must say: "opensearch" | "elasticsearch"
    script: str  # scripts/<script> start|stop|status
    version_var: str  # the script's version variable
    version: str
    port_var: str  # the script's port variable
    test_port_var: str  # where the tests take the port from
    default_port: int
    # The pipeline clients tested against ``neardup serve`` in front of this engine: in front of
    # Elasticsearch neardup answers as Elasticsearch, and its official clients work unchanged.
    bulk_clients: tuple[str, ...] = ("opensearch-py", "curl")

    @property
    def port(self) -> int:
        if self.name == "opensearch-2":  # the suite's usual node
            return int(os.environ.get("OPENSEARCH_PORT", self.default_port))
        return int(os.environ.get(self.test_port_var, self.default_port))

    @property
    def url(self) -> str:
        if self.name == "opensearch-2":
            return os.environ.get("OPENSEARCH_URL", f"http://127.0.0.1:{self.port}")
        return f"http://127.0.0.1:{self.port}"

    @property
    def client_env(self) -> dict[str, str]:
        """What a client of this node needs in its environment (``OPENSEARCH_URL``; a node with
        security on adds its credentials and CA: tests/support/security.py)."""
        return {"OPENSEARCH_URL": self.url}

    @property
    def admin_env(self) -> dict[str, str]:
        """The same for the superuser that cleans up after a test (security off: anyone)."""
        return self.client_env

    # Test indices are named <prefix><hex> (a node with security on: its role's pattern).
    index_prefix = "neardup-test-"

    def script_env(self) -> dict[str, str]:
        heap = self.port_var.replace("_PORT", "_HEAP")
        return {
            **os.environ,
            self.version_var: self.version,
            self.port_var: str(self.port),
            heap: os.environ.get(heap, "384m"),
        }

    def run(self, action: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(ROOT / "scripts" / self.script), action],
            env=self.script_env(), capture_output=True, text=True, timeout=600,
        )


ENGINES = {
    e.name: e
    for e in (
        Engine("opensearch-2", "opensearch", "opensearch.sh", "OPENSEARCH_VERSION",
               os.environ.get("OPENSEARCH_VERSION", "2.19.1"), "OPENSEARCH_PORT",
               "OPENSEARCH_PORT", 9200),
        Engine("opensearch-3", "opensearch", "opensearch.sh", "OPENSEARCH_VERSION", "3.3.2",
               "OPENSEARCH_PORT", "NEARDUP_TEST_OPENSEARCH3_PORT", 9230),
        Engine("elasticsearch-8", "elasticsearch", "elasticsearch.sh", "ELASTICSEARCH_VERSION",
               "8.19.21", "ELASTICSEARCH_PORT", "NEARDUP_TEST_ELASTICSEARCH8_PORT", 9210,
               ("opensearch-py", "elasticsearch8", "elasticsearch", "curl")),
        Engine("elasticsearch-9", "elasticsearch", "elasticsearch.sh", "ELASTICSEARCH_VERSION",
               "9.2.0", "ELASTICSEARCH_PORT", "NEARDUP_TEST_ELASTICSEARCH9_PORT", 9220,
               ("opensearch-py", "elasticsearch8", "elasticsearch", "curl")),
    )
}


# The suffix of an engine with security on (tests/support/security.py: "elasticsearch-8-security").
SECURITY = "-security"


def requested() -> list[str] | None:
    """The names in ``NEARDUP_TEST_ENGINES``, or None when it is unset (every engine)."""
    raw = os.environ.get("NEARDUP_TEST_ENGINES", "")
    return [n.strip() for n in raw.split(",") if n.strip()] or None


def selected() -> list[str]:
    """The engines of :data:`ENGINES` named in ``NEARDUP_TEST_ENGINES`` (default: all); names
    ending in ``-security`` are the same engines with security on (tests/support/security.py)."""
    names = requested()
    if names is None:
        return list(ENGINES)
    unknown = sorted(n for n in names if n.removesuffix(SECURITY) not in ENGINES)
    if unknown:
        raise ValueError(f"NEARDUP_TEST_ENGINES: unknown {unknown}; known: {sorted(ENGINES)} "
                         f"and with security on, {sorted(n + SECURITY for n in ENGINES)}")
    return [n for n in names if n in ENGINES]
