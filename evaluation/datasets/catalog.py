"""The built-in datasets of ``neardup eval``: what each is, what it is made from (and what is
missing to build it here), how to build it and write it out."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from neardup.evaluation.datasets.manpages import manpages_pairs
from neardup.evaluation.datasets.pawsx import pawsx_pairs
from neardup.evaluation.datasets.pydoc import pydoc_pairs
from neardup.evaluation.datasets.sources import (
    FETCH_SCRIPT,
    DatasetUnavailable,
    debian_package_root,
    derived_data_dir,
    derived_file,
    shared_data_dir,
    shared_file,
)
from neardup.evaluation.datasets.splits import SPLITS
from neardup.evaluation.datasets.synthetic import synthetic_corpus, synthetic_pairs
from neardup.ingest.settings import Settings

__all__ = [
    "DATASETS",
    "SOURCES",
    "DatasetSpec",
    "build_dataset",
    "missing_sources",
    "write_jsonl",
]


@dataclass(frozen=True)
class DatasetSpec:
    """A built-in dataset: how to build it and how to evaluate it, and what it is built from
    (``sources``: names of :data:`SOURCES`)."""

    name: str
    mode: str  # "pairs" or "corpus"
    profile: str  # "web" or "short"
    build: Callable[..., list[dict[str, Any]]]
    description: str
    web_style: bool = True
    sources: tuple[str, ...] = ()


def _fetched(target: str) -> Callable[[Settings], str | None]:
    """A source that ``scripts/fetch_data.py fetch TARGET`` puts into the cache."""

    def missing(settings: Settings) -> str | None:
        try:
            if target == "people-daily":
                derived_file("people_daily_199801.plain.txt.gz", target)
            else:
                debian_package_root(target, settings)
        except DatasetUnavailable:
            return f"{target} (run `{FETCH_SCRIPT} fetch {target}`)"
        return None

    return missing


def _from_shared(*names: str) -> Callable[[Settings], str | None]:
    """A source from the shared development data (:func:`shared_file`)."""

    def missing(settings: Settings) -> str | None:
        absent = []
        for name in names:
            try:
                shared_file(name, settings)
            except DatasetUnavailable:
                absent.append(name)
        if not absent:
            return None
        return (f"{', '.join(absent)} from the shared data (looked in "
                f"{shared_data_dir(settings)} and {derived_data_dir(settings)}; set "
                "NEARDUP_SHARED_DATA or copy it into the latter)")  # fmt: skip

    return missing


#: What the built-in datasets are made from: name -> ``missing(settings)``, which says what is
#: missing and how to get it, or None when the source is at hand.
SOURCES: dict[str, Callable[[Settings], str | None]] = {
    "people-daily": _fetched("people-daily"),
    "python3.11-doc": _fetched("python3.11-doc"),
    "manpages-zh": _fetched("manpages-zh"),
    "pydoc-pairs": _from_shared("python311doc_html_vs_rst_pairs.tsv"),
    "manpages-pairs": _from_shared("manpages_zh_CN_vs_TW_pairs.tsv"),
    "pawsx": _from_shared("pawsx_zh/dev_2k.tsv", "pawsx_zh/test_2k.tsv"),
    "webis": _from_shared("webis_dev_pairs.jsonl.gz"),
}


def missing_sources(name: str, settings: Settings | None = None) -> list[str]:
    """What built-in dataset ``name`` lacks, each with how to get it; empty when it can be built."""
    settings = settings or Settings.from_env()
    found = (SOURCES[source](settings) for source in DATASETS[name].sources)
    return [m for m in found if m is not None]


DATASETS: dict[str, DatasetSpec] = {
    "synthetic-zh": DatasetSpec(
        "synthetic-zh",
        "pairs",
        "web",
        lambda split, n=None, seed=None: synthetic_pairs("zh", n or 600, seed, split),
        "People's Daily articles on generated Chinese site templates (paper's guidelines)",
        sources=("people-daily",),
    ),
    "synthetic-en": DatasetSpec(
        "synthetic-en",
        "pairs",
        "web",
        lambda split, n=None, seed=None: synthetic_pairs("en", n or 600, seed, split),
        "Python docs prose on generated English site templates (paper's guidelines)",
        sources=("python3.11-doc",),
    ),
    "pydoc": DatasetSpec(
        "pydoc",
        "pairs",
        "web",
        lambda split, n=None, seed=None: pydoc_pairs(split, seed, n_pairs=n),
        "Python 3.11 docs HTML vs reST source; negatives share the Sphinx template",
        sources=("python3.11-doc", "pydoc-pairs"),
    ),
    "manpages": DatasetSpec(
        "manpages",
        "pairs",
        "web",
        lambda split, n=None, seed=None: manpages_pairs(split, seed, n_pairs=n),
        "manpages-zh Simplified vs Traditional (after t2s); negatives share troff boilerplate",
        sources=("manpages-zh", "manpages-pairs"),
    ),
    "pawsx": DatasetSpec(
        "pawsx",
        "pairs",
        "short",
        lambda split, n=None, seed=None: pawsx_pairs(split, n or 1000, seed),
        "PAWS-X zh sentence pairs: short-text adversarial set",
        web_style=False,
        sources=("pawsx",),
    ),
    "webis-dev": DatasetSpec(
        "webis-dev",
        "pairs",
        "web",
        lambda split, n=None, seed=None: __import__(
            "neardup.evaluation.webis", fromlist=["webis_records"]
        ).webis_records(split, n, seed),
        "Webis ECIR 2020 human-judged web/news pairs (dev half); report: evaluation/webis.py",
        sources=("webis",),
    ),
    "synthetic-zh-corpus": DatasetSpec(
        "synthetic-zh-corpus",
        "corpus",
        "web",
        lambda split, n=None, seed=None: synthetic_corpus("zh", n or 430, seed, split),
        "corpus version of synthetic-zh: groups of near-duplicate pages (~1,000 docs)",
        sources=("people-daily",),
    ),
    "synthetic-en-corpus": DatasetSpec(
        "synthetic-en-corpus",
        "corpus",
        "web",
        lambda split, n=None, seed=None: synthetic_corpus("en", n or 430, seed, split),
        "corpus version of synthetic-en: groups of near-duplicate pages (~1,000 docs)",
        sources=("python3.11-doc",),
    ),
}


def build_dataset(
    name: str, split: str = "dev", n: int | None = None, seed: int | None = None
) -> list[dict[str, Any]]:
    """Build the built-in dataset ``name`` (a key of :data:`DATASETS`) for ``split``.

    ``n`` is the number of pairs (pairs sets) or of groups (corpora); None = the default size.
    """
    try:
        spec = DATASETS[name]
    except KeyError:
        raise ValueError(f"unknown dataset {name!r}; known: {', '.join(DATASETS)}") from None
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; known: {', '.join(SPLITS)}")
    return spec.build(split, n, seed)


def write_jsonl(
    records: Sequence[dict[str, Any]] | Iterator[dict[str, Any]], path: str | Path
) -> int:
    """Write records as JSON lines (UTF-8); returns the number written. ``-`` = stdout."""
    import sys

    n = 0
    fh = sys.stdout if str(path) == "-" else open(path, "w", encoding="utf-8")  # noqa: SIM115
    try:
        for rec in records:
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
            n += 1
    finally:
        if fh is not sys.stdout:
            fh.close()
    return n
