"""``neardup ingest`` as the integration tests run it — on a file, or fed through a pipe line by
line — and what it leaves behind: the groups stored on the node, the dead letters; plus the
groups ``neardup dedup`` (embedded) finds for the same file, the reference every distributed
run must match."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from support.wait import wait_for
from support.workers import ROOT

FIELDS = ("id", "text", "site")


def write_jsonl(path: Path, docs: list[dict[str, Any]]) -> Path:
    """``docs`` as JSONL (their ``id``, ``text`` and ``site``) at ``path``; returns ``path``."""
    with path.open("w", encoding="utf-8") as f:
        for d in docs:
            f.write(json.dumps({k: d[k] for k in FIELDS}, ensure_ascii=False) + "\n")
    return path


def run_ingest(path: Path, env: dict[str, str], *extra: str, timeout: float = 900) -> dict[str, Any]:
    """``neardup ingest PATH --wait`` in ``env``; its summary (the last line it prints)."""
    proc = subprocess.run(
        [sys.executable, "-m", "neardup.ingest.cli", "ingest", str(path), "--wait", "--no-progress",
         "--timeout", str(timeout - 30), *extra],
        cwd=ROOT, env=dict(os.environ, **env),
        capture_output=True, text=True, timeout=timeout,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ``neardup ingest`` with neardup's own debug lines on: its retries (``retrying ... after
# ConnectionError(...)``) show in its log, the sign that it met an outage and waits it out.
_INGEST_LOGGING_RETRIES = (
    "import logging, sys; logging.getLogger('neardup').setLevel(logging.DEBUG); "
    "from neardup.ingest.cli import main; sys.exit(main())"
)


class PipedIngest:
    """``neardup ingest - --wait`` fed line by line by the test, its retries logged."""

    def __init__(self, env: dict[str, str], index: str, log: Path, *extra: str) -> None:
        # stderr (request logs) to a file: a pipe nobody reads would fill and block ingest
        self.log = log
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _INGEST_LOGGING_RETRIES, "ingest", "-", "--wait",
             "--no-progress", "-j", "1", "--batch", "25", "--index", index, "--timeout", "400",
             # pages fed in parts must not wait long for their sites' chrome counts
             "--chrome-max-wait", "1", *extra],
            cwd=ROOT, env=dict(os.environ, **env),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log.open("wb"),
        )

    def feed(self, lines: list[bytes]) -> None:
        """Write ``lines`` in the background: while ingest is blocked on a dead service it does
        not read, and a full pipe must not block the test."""
        self.feeding = threading.Thread(target=self._write, args=(lines,), daemon=True)
        self.feeding.start()

    def _write(self, lines: list[bytes]) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.writelines(lines)
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError):
            pass

    def logged(self) -> str:
        """What ingest has written to its log (stderr) so far."""
        return self.log.read_text(errors="replace")

    def check(self, doing: str = "running") -> None:
        """Fail at once when ingest has exited: a wait on its progress would only time out.
        Probes of :func:`~support.wait.wait_for` call it first."""
        if self.proc.poll() is not None:
            raise AssertionError(f"ingest exited with {self.proc.returncode} while {doing}:\n"
                                 f"{self.logged()[-3000:]}")

    def wait_for_retry(self, since: int, outage: str, timeout: float = 120) -> None:
        """Wait until ingest logs a retry after offset ``since`` of its log (``len(logged())``
        before the outage began): it has met the ``outage`` and waits it out. Fails when ingest
        exits instead."""

        def since_outage() -> str:
            self.check(f"waiting out {outage}")
            return self.logged()[since:]

        wait_for(since_outage, f"ingest to meet {outage}", timeout,
                 until=lambda text: "retrying" in text,
                 describe=lambda text: f"ingest's log since the outage: {text[-2000:]!r}")

    def finish(self, timeout: float = 450) -> dict[str, Any]:
        self.feeding.join(timeout)
        out, _ = self.proc.communicate(timeout=timeout)
        assert self.proc.returncode == 0, self.logged()[-3000:]
        return json.loads(out.decode().strip().splitlines()[-1])

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


def stored_groups(client: Any, index: str) -> dict[str, dict[str, Any]]:
    """Every page of ``index`` (refreshed first): its ``dup_group``, ``dup_of``, ``status``
    and ``seq``, by id, through an ``opensearchpy`` client."""
    from opensearchpy import helpers

    client.indices.refresh(index=index)
    return {
        h["_id"]: h["_source"]
        for h in helpers.scan(
            client, index=index, query={"query": {"match_all": {}}},
            _source=["dup_group", "dup_of", "status", "seq"],
        )
    }


def wait_grouped(
    url: str, index: str, ids: list[str], timeout: float = 300, env: dict[str, str] | None = None
) -> dict[str, Any]:
    """The stored documents of ``ids`` on the node at ``url`` (any engine; ``env``: its
    credentials and CA when security is on), once none of them is missing or pending (realtime
    reads)."""
    from neardup.ingest.settings import Settings
    from neardup.ingest.store import open_store

    def done(stored: dict[str, Any]) -> bool:
        return len(stored) == len(ids) and all(d.status != "pending" for d in stored.values())

    def describe(stored: dict[str, Any]) -> str:
        missing = [i for i in ids if i not in stored]
        pending = [i for i, d in stored.items() if d.status == "pending"]
        return (f"{len(missing)} of {len(ids)} missing (e.g. {missing[:5]}), "
                f"{len(pending)} pending (e.g. {pending[:5]})")

    store = open_store("engine", Settings.from_env({**(env or {}), "OPENSEARCH_URL": url}),
                       index=index)
    try:
        return wait_for(lambda: store.mget(ids, with_fingerprints=False),
                        f"{len(ids)} pages grouped in {index}", timeout, until=done,
                        interval=1.0, describe=describe)
    finally:
        store.close()


def embedded_groups(path: Path) -> dict[str, str]:
    """``{id: dup_group}`` of ``neardup dedup`` (embedded backend) on the JSONL at ``path``."""
    from neardup.ingest.dedup import dedup_embedded
    from neardup.ingest.pipeline import fingerprint_config, prepare_lines, read_lines

    prepared = list(prepare_lines(read_lines(path), fingerprint_config("web")))
    return {i: g["dup_group"] for i, g in dedup_embedded(prepared, processes=2).items()}


def dead_letters(env: dict[str, str]) -> list[str]:
    """The messages on this test's dead-letter list."""
    import redis

    r = redis.Redis.from_url(env["CELERY_BROKER_URL"])
    try:
        return [x.decode() for x in r.lrange(env["NEARDUP_DEAD_LETTER"], 0, -1)]
    finally:
        r.close()
