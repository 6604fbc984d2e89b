"""The ``manpages`` set: manpages-zh pages in Simplified vs Traditional Chinese."""

from __future__ import annotations

import gzip
import hashlib
import random
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from neardup.evaluation.datasets.sources import manpages_dir, read_tsv
from neardup.evaluation.datasets.splits import SPLIT_SEED, split_range, stable_half

__all__ = ["manpages_pairs"]


def _t2s(text: str) -> str:
    from opencc import OpenCC  # opencc-python-reimplemented

    return _opencc(OpenCC)(text)


@lru_cache(maxsize=1)
def _opencc(cls: Callable[[str], Any]) -> Callable[[str], str]:
    convert: Callable[[str], str] = cls("t2s").convert
    return convert


def manpages_pairs(
    split: str = "dev", seed: int | None = None, max_chars: int = 30_000, n_pairs: int | None = None
) -> list[dict[str, Any]]:
    """manpages-zh: a page in Simplified (``a``) vs the same page in Traditional Chinese (``b``)
    — positive after Traditional→Simplified normalisation (kind ``t2s``); a Simplified page vs a
    *different* Traditional page of the same section, which share the troff boilerplate and
    licence header — negative (kind ``same-template``). Each pair carries
    ``"normalize": "t2s"`` (the extractor option ``neardup eval`` applies to both sides).

    Pages whose Simplified texts are equal (aliases such as bzip2/bunzip2) never form a negative.
    """
    split_range(2, split)
    seed = SPLIT_SEED[split] if seed is None else seed
    rng = random.Random(f"manpages/{split}/{seed}")
    root = manpages_dir()
    pages: list[tuple[str, str, str]] = []
    seen: set[str] = set()
    for row in read_tsv("manpages_zh_CN_vs_TW_pairs.tsv"):
        rel = row["rel_path"]
        if not stable_half(rel, split):
            continue
        cn_path, tw_path = root / "zh_CN" / rel, root / "zh_TW" / rel
        if not cn_path.exists() or not tw_path.exists():
            continue
        cn_text = gzip.decompress(cn_path.read_bytes()).decode("utf-8", errors="replace")
        tw_text = gzip.decompress(tw_path.read_bytes()).decode("utf-8", errors="replace")
        if len(cn_text) > max_chars or len(tw_text) > max_chars:
            continue
        digest = hashlib.md5(cn_text.encode("utf-8")).hexdigest()
        if digest in seen:  # an alias of a page already taken
            continue
        seen.add(digest)
        pages.append((rel, cn_text, tw_text))
    lines = [set(_t2s(cn).splitlines()) - {""} for _, cn, _ in pages]
    out: list[dict[str, Any]] = []
    for rel, cn, tw in pages:
        out.append(
            {
                "id": f"man-{rel}",
                "a": {"text": cn, "site": "zh_CN"},
                "b": {"text": tw, "site": "zh_TW"},
                "label": 1,
                "kind": "t2s",
                "normalize": "t2s",
            }
        )
    section = [rel.split("/", 1)[0] for rel, _, _ in pages]
    for i, (rel, cn, _) in enumerate(pages):
        choices = [j for j in range(len(pages)) if j != i and section[j] == section[i]]
        rng.shuffle(choices)
        for j in choices[:20]:
            inter = len(lines[i] & lines[j])
            if inter / max(1, min(len(lines[i]), len(lines[j]))) < 0.5:
                break
        else:
            continue
        out.append(
            {
                "id": f"man-{rel}~{pages[j][0]}",
                "a": {"text": cn, "site": "zh_CN"},
                "b": {"text": pages[j][2], "site": "zh_TW"},
                "label": 0,
                "kind": "same-template",
                "normalize": "t2s",
            }
        )
    rng.shuffle(out)
    return out[:n_pairs] if n_pairs else out
