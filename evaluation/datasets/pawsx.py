"""The ``pawsx`` set: PAWS-X zh sentence pairs, the short-text adversarial set."""

from __future__ import annotations

import random
from typing import Any

from neardup.evaluation.datasets.sources import read_tsv
from neardup.evaluation.datasets.splits import SPLIT_SEED, SPLITS

__all__ = ["pawsx_pairs"]


def pawsx_pairs(
    split: str = "dev", n_pairs: int | None = 1000, seed: int | None = None
) -> list[dict[str, Any]]:
    """PAWS-X zh sentence pairs (label 1 = paraphrase): the short-text adversarial set.

    ``dev`` reads ``dev_2k.tsv``, ``test`` reads ``test_2k.tsv``; a seeded sample of
    ``n_pairs`` (all when None).
    """
    name = {"dev": "pawsx_zh/dev_2k.tsv", "test": "pawsx_zh/test_2k.tsv"}.get(split)
    if name is None:
        raise ValueError(f"unknown split {split!r}; known: {', '.join(SPLITS)}")
    rows = [r for r in read_tsv(name) if r.get("sentence1") and r.get("sentence2")]
    out = [
        {
            "id": f"pawsx-{split}-{r['id']}",
            "a": {"text": r["sentence1"]},
            "b": {"text": r["sentence2"]},
            "label": int(r["label"]),
            "kind": "paraphrase" if r["label"] == "1" else "word-swap",
        }
        for r in rows
    ]
    if n_pairs is not None and n_pairs < len(out):
        seed = SPLIT_SEED[split] if seed is None else seed
        out = random.Random(f"pawsx/{split}/{seed}").sample(out, n_pairs)
    return out
