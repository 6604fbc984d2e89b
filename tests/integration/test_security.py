"""Clusters with security on (docs/security.md): Elasticsearch 8.19 and 9.x with ``xpack.security``
(HTTPS with a private CA, the bootstrap password, users and roles of the file realm) and
OpenSearch 2.19 with its security plugin (HTTPS, internal users and roles), each started once
by its script (tests/support/security.py) as the ``engine`` of tests/integration/conftest.py.

The compatibility suite (test_engines.py, test_backends_agree.py) runs on these engines too,
as a user holding only the role docs/security.md gives, over TLS with basic auth, on indices
named as the role's pattern (``pages*``). Here, on the same nodes:

- the suite's user is that user: refused what the role does not grant;
- the commands run as that user: ``templates install``, ``worker``, ``ingest --wait``,
  ``search``, ``stoplist compute``;
- a wrong password, an untrusted or missing CA and a refused API key are one line and exit 1
  for every command that talks to the engine, and for a worker started with ``celery -A``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import urllib3
from support.security import SecuredNode, selected_secured
from support.server import free_port
from support.workers import ROOT, celery_worker, cleanup_broker, worker_env

# Every test here on each engine with security on; the compatibility suite's tests take the same
# ``engine`` (tests/integration/conftest.py), so each node is started once for all of them.
pytestmark = pytest.mark.parametrize("engine", selected_secured(), indirect=True)


def test_the_tests_run_as_the_least_privileged_user(engine: SecuredNode) -> None:
    """Not as a superuser: the user of the suite is refused what the role does not grant."""
    env = engine.client_env
    http = urllib3.PoolManager(cert_reqs="CERT_REQUIRED", ca_certs=env["OPENSEARCH_CA_CERTS"])
    auth = urllib3.make_headers(basic_auth=f"{env['OPENSEARCH_USER']}:{env['OPENSEARCH_PASSWORD']}")
    assert http.request("PUT", f"{engine.url}/other-index", headers=auth).status == 403
    settings = {"persistent": {"cluster.routing.allocation.enable": "all"}}
    answer = http.request("PUT", f"{engine.url}/_cluster/settings", headers=auth, json=settings)
    assert answer.status == 403
    assert http.request("GET", f"{engine.url}/", headers=auth).status in (200, 405)


# --- the commands as the least-privileged user ----------------------------------------------


def _neardup(
    env: dict[str, str], *argv: str, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "neardup.ingest.cli", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **env},
    )


@pytest.mark.slow
def test_the_commands_run_as_the_least_privileged_user(
    engine: SecuredNode, engine_index: str, redis_url: str, tmp_path: Path
) -> None:
    env = worker_env(redis_url, engine.url, engine_index, **engine.client_env)
    installed = _neardup(env, "templates", "install")
    assert installed.returncode == 0, installed.stderr
    assert f"{engine_index}-mappings\tinstalled" in installed.stdout
    log = tmp_path / "worker.log"
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "neardup.ingest.cli",
            "worker",
            "--pool",
            "solo",
            "-c",
            "1",
            "-n",
            f"sec-{uuid.uuid4().hex[:6]}@%h",
            "--",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ],
        cwd=ROOT,
        env={**os.environ, **env},
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )
    try:
        ingested = _neardup(
            env,
            "ingest",
            str(ROOT / "examples" / "sample_pages.jsonl"),
            "--wait",
            "--no-progress",
            "--timeout",
            "120",
        )
        assert ingested.returncode == 0, (ingested.stderr[-3000:], log.read_text()[-3000:])
        summary = json.loads(ingested.stdout.splitlines()[-1])
        assert summary["indexed"] == summary["accepted"] == 36 and summary["errors"] == 0
        assert worker.poll() is None, log.read_text()[-3000:]
    finally:
        worker.terminate()
        worker.wait(30)
        cleanup_broker(env)
    found = _neardup(env, "search", "module", "--json")
    assert found.returncode == 0, found.stderr
    hits = json.loads(found.stdout)
    assert hits and any(h["group_size"] > 1 for h in hits)
    assert len({h["dup_group"] for h in hits}) == len(hits)  # one hit per group
    stoplist = _neardup(env, "stoplist", "compute")
    assert stoplist.returncode == 0, stoplist.stderr
    assert "Traceback" not in log.read_text()


# --- a wrong password, CA or key: one line, exit 1 -------------------------------------------

# Every command that talks to the engine ({pages}: a JSONL file; {port}: a free port).
COMMANDS = [
    ["ingest", "{pages}"],
    ["worker", "--pool", "solo"],
    ["search", "harbour"],
    ["backfill", "pages-any", "--no-progress"],
    ["serve", "--port", "{port}"],
    ["templates", "install"],
    ["stoplist", "show"],
    ["dedup", "{pages}", "--backend", "opensearch", "--no-progress"],
    ["dashboards", "import", "--url", "http://127.0.0.1:9"],
]


def _bad(node: SecuredNode, kind: str, tmp_path: Path) -> tuple[dict[str, str], str]:
    """The user's settings spoilt one way, and what the line must say."""
    env = dict(node.client_env)
    if kind == "password":
        env["OPENSEARCH_PASSWORD"] = "not-the-password"
        return env, "refused the credentials (401: "
    if kind == "api-key":
        env.pop("OPENSEARCH_PASSWORD")
        env["OPENSEARCH_USER"] = ""
        env["OPENSEARCH_API_KEY"] = "bm90LWFuLWlkOm5vdC1hLWtleQ=="  # not-an-id:not-a-key
        return env, "refused the credentials (401: "
    if kind == "ca":  # a CA that did not sign the node's certificate
        other = tmp_path / "other-ca"
        subprocess.run([str(ROOT / "scripts" / "certs.sh"), str(other)], check=True)
        env["OPENSEARCH_CA_CERTS"] = str(other / "ca.crt")
        return env, "is not trusted (certificate verify failed: "
    env["OPENSEARCH_CA_CERTS"] = str(tmp_path / "no-such-ca.pem")
    return env, "is not trusted (the CA bundle cannot be read"


HINTS = {
    "password": "check OPENSEARCH_USER (neardup) and OPENSEARCH_PASSWORD",
    "api-key": "check OPENSEARCH_API_KEY",
    "ca": "must hold the CA that signed",
    "missing-ca": "must hold the CA that signed",
}


def _one_line(
    proc: subprocess.CompletedProcess[str], command: str, says: str, hint: str, secret: str
) -> None:
    lines = [x for x in proc.stderr.splitlines() if x.strip()]
    assert proc.returncode == 1, (command, proc.returncode, proc.stderr[-2000:])
    assert len(lines) == 1, (command, proc.stderr[-2000:])
    assert lines[0].startswith(f"neardup {command}: "), lines
    assert says in lines[0] and hint in lines[0], lines[0]
    assert "Traceback" not in proc.stderr and secret not in proc.stderr


@pytest.mark.parametrize("kind", ["password", "ca", "api-key", "missing-ca"])
def test_a_wrong_password_ca_or_key_is_one_line_and_exit_1_in_every_command(
    engine: SecuredNode, kind: str, tmp_path: Path, redis_url: str
) -> None:
    bad, says = _bad(engine, kind, tmp_path)
    env = {**worker_env(redis_url, engine.url, "pages-refused"), **bad}
    pages = tmp_path / "pages.jsonl"
    pages.write_text(json.dumps({"id": "a", "text": "A harbour and a ship."}) + "\n")
    # the commands at once, two at a time (each is a Python start-up, most of its time)
    procs = []
    for argv in COMMANDS:
        args = [a.format(pages=pages, port=free_port()) for a in argv]
        procs.append(
            (
                argv[0],
                subprocess.Popen(
                    [sys.executable, "-m", "neardup.ingest.cli", *args],
                    cwd=ROOT,
                    text=True,
                    env={**os.environ, **env},
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                ),
            )
        )
        if len(procs) % 2 == 0:
            procs[-2][1].wait(120)
    for command, proc in procs:
        out, err = proc.communicate(timeout=120)
        done = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
        _one_line(done, command, says, HINTS[kind], engine.client_env["OPENSEARCH_PASSWORD"])


@pytest.mark.parametrize("kind", ["password", "ca", "api-key"])
def test_a_worker_started_by_celery_logs_one_line_and_exits_1(
    engine: SecuredNode, kind: str, tmp_path: Path, redis_url: str
) -> None:
    env, says = _bad(engine, kind, tmp_path)
    env = {**worker_env(redis_url, engine.url, "pages-refused"), **env}
    log = tmp_path / "worker.log"
    worker = celery_worker(env, log)
    try:
        assert worker.wait(120) == 1, log.read_text()[-3000:]
    finally:
        if worker.poll() is None:
            worker.kill()
    text = log.read_text()
    refused = [line for line in text.splitlines() if "neardup worker:" in line]
    assert len(refused) == 1, text[-3000:]
    assert "ERROR" in refused[0] and says in refused[0] and HINTS[kind] in refused[0]
    assert "Traceback" not in text
    assert engine.client_env["OPENSEARCH_PASSWORD"] not in text
