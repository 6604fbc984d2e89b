"""A real ``neardup serve`` process for the integration tests, and :class:`Stack`: a running
server (and its workers) on a private index and queue, as the ``stack`` fixture of
tests/integration/conftest.py starts it."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from support.ci import unavailable
from support.wait import wait_for
from support.workers import ROOT

MAX_BODY = 1024 * 1024  # the stack's --max-body


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Stack:
    """A running ``neardup serve`` (and its workers) on a private index and queue."""

    url: str
    index: str
    queue: str
    token: str | None
    logs: Path
    opensearch_url: str = "http://127.0.0.1:9200"
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)
    broker_url: str = ""

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def http(self) -> httpx.Client:
        return httpx.Client(base_url=self.url, headers=self.auth, timeout=60)

    def refresh(self) -> None:
        from opensearchpy import OpenSearch

        client = OpenSearch(self.opensearch_url)
        client.indices.refresh(index=self.index)
        client.close()

    def tail_logs(self) -> str:
        out = []
        for log in sorted(self.logs.glob("*.log")):
            out.append(f"--- {log.name}\n{log.read_text(errors='replace')[-3000:]}")
        return "\n".join(out)

    def wait_grouped(self, ids: list[str], timeout: float = 240) -> dict[str, dict[str, Any]]:
        """GET /documents/{id} until none of ``ids`` is pending; their answers by id.

        ``GET /documents`` reads in real time; group listings are searches, which see the
        last write-backs after the index's next refresh (:meth:`refresh`)."""
        docs: dict[str, dict[str, Any]] = {}
        left = list(ids)
        with self.http() as client:

            def still_pending() -> list[str]:
                for doc_id in list(left):
                    r = client.get(f"/documents/{doc_id}")
                    if r.status_code == 200 and r.json()["status"] != "pending":
                        docs[doc_id] = r.json()
                        left.remove(doc_id)
                return left

            wait_for(still_pending, f"{len(ids)} documents grouped", timeout,
                     until=lambda pending: not pending, interval=0.5,
                     describe=lambda pending: f"{len(pending)} still pending, e.g. {pending[:5]}",
                     context=self.tail_logs)
        return docs


def server_env(queue: str, opensearch_url: str, redis_url: str, index: str) -> dict[str, str]:
    """The environment of a ``neardup serve`` on ``index``, queueing on ``queue``."""
    env = dict(os.environ)
    env.update(
        OPENSEARCH_URL=opensearch_url,
        CELERY_BROKER_URL=redis_url,
        NEARDUP_INDEX=index,
        NEARDUP_QUEUE=queue,
        NEARDUP_DEAD_LETTER=f"{queue}.dead",
        PYTHONUNBUFFERED="1",
    )
    return env


def start_server(
    env: dict[str, str], logs: Path, name: str, token: str | None, *extra: str,
    port: int | None = None,
) -> tuple[subprocess.Popen[bytes], str]:
    """``neardup serve`` on ``port`` (default: a free one), its output in ``logs/<name>.log``;
    ``(process, url)`` once ``/healthz`` answers. A server that does not come up is
    :func:`~support.ci.unavailable`."""
    port = port or free_port()
    env = dict(env)
    env.pop("NEARDUP_TOKEN", None)
    if token:
        env["NEARDUP_TOKEN"] = token
    log = logs / f"{name}.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "neardup.ingest.cli", "serve", "--port", str(port), *extra],
        cwd=ROOT,
        env=env,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"

    def health() -> int | str:
        if proc.poll() is not None:
            return f"exited with {proc.returncode}"
        return httpx.get(f"{url}/healthz", timeout=1).status_code

    try:
        answer = wait_for(health, f"neardup serve on {url}", 60,
                          until=lambda got: got == 200 or isinstance(got, str),
                          tolerate=(httpx.TransportError,))
    except AssertionError as exc:
        answer = str(exc)
    if answer == 200:
        return proc, url
    stop(proc)
    unavailable(f"neardup serve did not start ({answer}):\n{log.read_text()[-3000:]}")


def stop(proc: subprocess.Popen[bytes]) -> None:
    """End a process this test started (and its children, in their own session)."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=15)
    except (subprocess.TimeoutExpired, ProcessLookupError):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=10)


def bulk_actions(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``helpers.bulk`` actions for the labelled pages (with fields neardup drops)."""
    return [
        {
            "_op_type": "index",
            "_index": "crawl-2024.05",
            "_id": d["id"],
            "_source": {"text": d["text"], "site": d["site"], "title": d["id"], "crawler": "x"},
        }
        for d in docs
    ]
