"""A local HTTP stub standing in for an Elasticsearch (or OpenSearch) node: it records every
request's method, path and headers, so a test can check what neardup's clients send — the API
key above all (tests/ingest/test_api_key.py). It answers just enough for detection, the
template installation and an empty search; with ``api_key`` set it refuses (401, as
Elasticsearch does) any request without ``Authorization: ApiKey <that key>``."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Seen:
    """One request the stub received."""

    method: str
    path: str
    headers: dict[str, str]  # names in lower case


@dataclass
class StubNode:
    """The stub's address and what it has received (:attr:`requests`, in order)."""

    url: str
    product: str
    version: str
    api_key: str | None
    requests: list[Seen] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def seen(self) -> list[Seen]:
        with self.lock:
            return list(self.requests)


def _answer(node: StubNode, method: str, path: str) -> tuple[int, dict[str, Any]]:
    if path in ("/", "") and method == "GET":
        version: dict[str, Any] = {"number": node.version}
        if node.product == "opensearch":
            version["distribution"] = "opensearch"
        return 200, {"name": "stub", "cluster_name": "stub", "version": version}
    if path.startswith("/_nodes/_local"):
        return 200, {"nodes": {"n1": {"version": node.version}}}
    if path.split("?")[0].endswith("/_search"):
        return 200, {
            "took": 1,
            "timed_out": False,
            "hits": {"total": {"value": 0, "relation": "eq"}, "hits": []},
        }
    if method in ("GET", "HEAD"):
        return 404, {
            "error": {"type": "resource_not_found_exception", "reason": "no such thing"},
            "status": 404,
        }
    return 200, {"acknowledged": True}


def _handler(node: StubNode) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if length:
                self.rfile.read(length)
            with node.lock:
                node.requests.append(
                    Seen(self.command, self.path, {k.lower(): v for k, v in self.headers.items()})
                )
            if (
                node.api_key is not None
                and self.headers.get("Authorization") != f"ApiKey {node.api_key}"
            ):
                status, body = (
                    401,
                    {
                        "error": {
                            "type": "security_exception",
                            "reason": "unable to authenticate with provided credentials",
                        },
                        "status": 401,
                    },
                )
            else:
                status, body = _answer(node, self.command, self.path)
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            if node.product == "elasticsearch":
                self.send_header("X-Elastic-Product", "Elasticsearch")
            self.send_header("Content-Length", str(0 if self.command == "HEAD" else len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)

        do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _serve

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

    return Handler


@contextmanager
def stub_node(
    product: str = "elasticsearch", version: str = "8.19.21", api_key: str | None = None
) -> Iterator[StubNode]:
    """A running stub on 127.0.0.1 (a free port) for the ``with`` block."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    node = StubNode(f"http://127.0.0.1:{server.server_address[1]}", product, version, api_key)
    server.RequestHandlerClass = _handler(node)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield node
    finally:
        server.shutdown()
        server.server_close()
