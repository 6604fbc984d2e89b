"""docs/quickstart.md, run: every ``sh`` block of the page, in order, in one bash session, on a
fresh copy of the checkout (its tracked files), with ports picked free at test time.

The copy installs neardup into its own venv (building the Cython extensions), starts its own
OpenSearch and Redis with ``scripts/opensearch.sh`` / ``scripts/redis.sh``, a worker, ingests
the sample pages with ``--wait``, searches, starts ``neardup serve`` and stops everything, as
the page says. Only the ports line is given other numbers, and ``NEARDUP_CACHE`` points at
this checkout's cache so OpenSearch is not downloaded again (the nodes' data go to
``run/<name>-<port>`` there and are deleted afterwards).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
from pathlib import Path

import pytest
from support.ci import IN_CI

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "quickstart.md"
PORTS_LINE = re.compile(r"^export OPENSEARCH_PORT=\d+ REDIS_PORT=\d+ NEARDUP_PORT=\d+$", re.M)

pytestmark = pytest.mark.slow


def sh_blocks(markdown: str) -> list[str]:
    """The ``sh`` code blocks of a Markdown page, in order."""
    return re.findall(r"^```sh\n(.*?)^```$", markdown, flags=re.M | re.S)


def _free(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_ports() -> tuple[int, int, int]:
    """An OpenSearch HTTP port whose transport port (+100) is free too, a Redis port and an
    HTTP port: all free now, in 20000-39999 (away from the ports services use by default)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = 20000 + s.getsockname()[1] % 19000
    while not (_free(port) and _free(port + 100)):
        port += 1
    taken = {port, port + 100}
    others: list[int] = []
    candidate = port + 1
    while len(others) < 2:
        if candidate not in taken and _free(candidate):
            others.append(candidate)
        candidate += 1
    return port, others[0], others[1]


def _copy_checkout(dest: Path) -> None:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout.decode().split("\0")
    for name in filter(None, listed):
        src = ROOT / name
        if src.is_symlink():  # src/neardup's links to the top-level packages, as they are
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            (dest / name).symlink_to(os.readlink(src))
        elif src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)


def _user_environ(cache: Path) -> dict[str, str]:
    """A newcomer's environment: none of neardup's variables, no venv on PATH."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("NEARDUP_", "OPENSEARCH_", "CELERY_", "REDIS_", "VIRTUAL_ENV"))}  # fmt: skip
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if "/.venv/" not in p + "/")  # fmt: skip
    env["NEARDUP_CACHE"] = str(cache)
    return env


def test_quickstart_page_runs(tmp_path: Path) -> None:
    page = PAGE.read_text(encoding="utf-8")
    blocks = sh_blocks(page)
    assert len(blocks) >= 6, "docs/quickstart.md lost its sh blocks"
    os_port, redis_port, http_port = free_ports()
    script = "\n".join(blocks)
    assert PORTS_LINE.search(script), "the ports line of docs/quickstart.md changed"
    script = PORTS_LINE.sub(
        f"export OPENSEARCH_PORT={os_port} REDIS_PORT={redis_port} NEARDUP_PORT={http_port}",
        script, count=1,
    )
    clone = tmp_path / "neardup"
    clone.mkdir()
    _copy_checkout(clone)
    cache = Path(os.environ.get("NEARDUP_CACHE") or ROOT / ".cache")
    env = _user_environ(cache)
    run_dirs = [cache / "run" / f"opensearch-{os_port}", cache / "run" / f"redis-{redis_port}"]
    proc = subprocess.Popen(
        ["bash", "-euo", "pipefail", "-c", script], cwd=clone, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=1500)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
        stop_env = dict(env, OPENSEARCH_PORT=str(os_port), REDIS_PORT=str(redis_port))
        for name in ("redis.sh", "opensearch.sh"):  # whatever the page did not stop
            subprocess.run([str(clone / "scripts" / name), "stop"], env=stop_env, cwd=clone,
                           capture_output=True, timeout=120)  # fmt: skip
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the worker and server, if still there
        except ProcessLookupError:
            pass
        for d in run_dirs:
            shutil.rmtree(d, ignore_errors=True)
    if proc.returncode != 0 and not IN_CI and "java is required" in out:
        pytest.skip("needs Java and Maven for OpenSearch (scripts/dev setup)")
    assert proc.returncode == 0, out[-6000:]
    assert f"export OPENSEARCH_URL=http://127.0.0.1:{os_port}" not in out  # eval'd, not printed
    assert f"OpenSearch: http://127.0.0.1:{os_port}  broker: redis://127.0.0.1:{redis_port}/0" in out
    assert '"indexed": 36' in out and '"timed_out": false' in out
    assert "36 of 36 pages grouped" in out
    assert "group py/library/posix.html (2 pages)" in out, out[-4000:]
    # the crawl (examples/sample_crawl.warc.gz): its pages and what else it held, its groups
    assert '"warc": {"records": 58, "pages": 36, "errors": 0' in out, out[-4000:]
    crawl_posix = "<urn:uuid:307451d0-3aef-58cf-b73c-dad83ee0139a>"
    assert f"posix.html  [{crawl_posix}]  group {crawl_posix} (2 pages)" in out, out[-4000:]
    assert '"state":"representative"' in out.replace(" ", "")
    assert '"groups":[' in out.replace(" ", "")
