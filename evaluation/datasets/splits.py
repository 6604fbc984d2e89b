"""The two splits of every dataset: ``dev`` (for tuning) and ``test`` (held out).

They use disjoint source ranges *and* different seeds, so a parameter that only fits dev shows
up as a gap between the two.
"""

from __future__ import annotations

import hashlib

__all__ = ["SPLITS", "SPLIT_SEED", "split_range", "stable_half"]

SPLITS = ("dev", "test")

#: each split's default generator seed
SPLIT_SEED = {"dev": 1998, "test": 2007}


def split_range(n: int, split: str) -> tuple[int, int]:
    """Disjoint halves of a source list: dev = first half, test = second half."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; known: {', '.join(SPLITS)}")
    half = n // 2
    return (0, half) if split == "dev" else (half, n)


def stable_half(key: str, split: str) -> bool:
    """Whether ``key`` (a page's path) falls in ``split``: a stable hash halves a list of pages."""
    h = int(hashlib.md5(key.encode("utf-8")).hexdigest(), 16) % 2
    return (h == 0) == (split == "dev")
