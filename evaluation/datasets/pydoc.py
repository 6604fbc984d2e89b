"""The ``pydoc`` set: Python 3.11 docs pages, HTML vs their own reST source."""

from __future__ import annotations

import random
from typing import Any

from neardup.evaluation.datasets.sources import pydoc_html_dir, read_tsv
from neardup.evaluation.datasets.splits import SPLIT_SEED, split_range, stable_half

__all__ = ["pydoc_pairs"]


def pydoc_pairs(
    split: str = "dev", seed: int | None = None, max_chars: int = 60_000, n_pairs: int | None = None
) -> list[dict[str, Any]]:
    """Python 3.11 docs: a page's HTML vs its own reST source (positive, kind ``format``), and
    two different HTML pages of one directory sharing the Sphinx template (negative, kind
    ``same-template``). Pages are split dev/test by a hash of their path; pages whose HTML is
    larger than ``max_chars`` are left out to keep runs short.

    The source side is the document field ``rst``, so every method sees the extractor's plain
    text of it (:func:`neardup.ingest.extract.rst_text`: docutils, roles and directives rendered as
    Sphinx does), not the raw markup."""
    split_range(2, split)
    seed = SPLIT_SEED[split] if seed is None else seed
    rng = random.Random(f"pydoc/{split}/{seed}")
    root = pydoc_html_dir()
    pages: list[tuple[str, str, str]] = []
    for row in read_tsv("python311doc_html_vs_rst_pairs.tsv"):
        h, r = row["html_path"], row["rst_source_path"]
        if not stable_half(h, split):
            continue
        hp, rp = root / h, root / r
        if not hp.exists() or not rp.exists():
            continue
        html = hp.read_text(encoding="utf-8", errors="replace")
        if len(html) > max_chars:
            continue
        pages.append((h, html, rp.read_text(encoding="utf-8", errors="replace")))
    out: list[dict[str, Any]] = []
    for h, html, rst in pages:
        out.append(
            {
                "id": f"pydoc-{h}",
                "a": {"html": html, "site": "docs.python.org"},
                "b": {"rst": rst, "site": "rst"},
                "label": 1,
                "kind": "format",
            }
        )
    by_dir: dict[str, list[int]] = {}
    for i, (h, _, _) in enumerate(pages):
        by_dir.setdefault(h.rsplit("/", 1)[0] if "/" in h else "", []).append(i)
    for i, (h, html, _) in enumerate(pages):
        sib = [j for j in by_dir[h.rsplit("/", 1)[0] if "/" in h else ""] if j != i]
        j = (
            rng.choice(sib)
            if sib and rng.random() < 0.7
            else rng.choice([k for k in range(len(pages)) if k != i])
        )
        out.append(
            {
                "id": f"pydoc-{h}~{pages[j][0]}",
                "a": {"html": html, "site": "docs.python.org"},
                "b": {"html": pages[j][1], "site": "docs.python.org"},
                "label": 0,
                "kind": "same-template",
            }
        )
    rng.shuffle(out)
    return out[:n_pairs] if n_pairs else out
