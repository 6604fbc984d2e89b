"""The synthetic web sets: labelled pairs and corpora of generated pages (``synthetic-zh``,
``synthetic-en`` and their ``-corpus`` versions).

*Similar* = paragraphs added or removed (< 40 % of the length), one page contains the other's
key paragraphs, small edits (< 10 %) inside paragraphs, a few paragraphs reordered — plus the
same article under a different site template; *not similar* = the main object differs: a
different article under the same template, two product pages of one shop for different
products, unrelated pages.
"""

from __future__ import annotations

import random
from typing import Any

from neardup.evaluation.datasets.sites import (
    Descriptions,
    Site,
    make_product,
    material,
    render_page,
    site_templates,
)
from neardup.evaluation.datasets.splits import SPLIT_SEED
from neardup.evaluation.datasets.variants import mirror, variant

__all__ = ["synthetic_corpus", "synthetic_pairs"]

_POS_WEIGHTS = {
    "template": 15,
    "para-edit": 20,
    "key-para": 15,
    "small-edits": 20,
    "reorder": 12,
    "mixed": 12,
    "product-mirror": 6,
}
_NEG_WEIGHTS = {"same-template": 50, "product": 25, "unrelated": 25}


def _weighted(rng: random.Random, weights: dict[str, int]) -> str:
    kinds = list(weights)
    return rng.choices(kinds, weights=[weights[k] for k in kinds])[0]


def _page(site: Site, rng: random.Random, **content: Any) -> dict[str, Any]:
    return {"html": render_page(site, rng, **content), "site": site.domain}


def synthetic_pairs(
    lang: str = "zh",
    n_pairs: int = 600,
    seed: int | None = None,
    split: str = "dev",
    positive_share: float = 0.5,
) -> list[dict[str, Any]]:
    """Labelled web-page pairs following the paper's judging guidelines.

    Half positives (``kind`` in :data:`~neardup.evaluation.datasets.kinds.POSITIVE_KINDS`), half
    negatives (``kind`` in :data:`~neardup.evaluation.datasets.kinds.NEGATIVE_KINDS`); every
    page is HTML on one of 12 generated site templates.
    """
    src = material(lang, split)
    seed = SPLIT_SEED[split] if seed is None else seed
    rng = random.Random(f"pairs/{lang}/{split}/{seed}")
    sites = site_templates(src, seed)
    descs = Descriptions(src, rng)
    out: list[dict[str, Any]] = []
    n_pos = round(n_pairs * positive_share)
    for i in range(n_pairs):
        positive = i < n_pos
        kind = _weighted(rng, _POS_WEIGHTS if positive else _NEG_WEIGHTS)
        site_a = rng.choice(sites)
        other = rng.choice([s for s in sites if s is not site_a])
        if kind == "product-mirror":
            prod = make_product(src, rng, descs)
            a = _page(site_a, rng, product=prod)
            b = _page(other, rng, product=mirror(prod, rng))
        elif kind == "product":
            a = _page(site_a, rng, product=make_product(src, rng, descs))
            b = _page(site_a, rng, product=make_product(src, rng, descs))
        elif positive:
            art = rng.choice(src.articles)
            var = variant(kind, art, src, rng)
            site_b = other if kind == "template" or rng.random() < 0.5 else site_a
            a = _page(site_a, rng, article=art)
            b = _page(site_b, rng, article=var)
        else:
            art_a, art_b = rng.sample(src.articles, 2)
            site_b = site_a if kind == "same-template" else other
            a = _page(site_a, rng, article=art_a)
            b = _page(site_b, rng, article=art_b)
        if rng.random() < 0.5:
            a, b = b, a
        out.append(
            {"id": f"{lang}-{split}-{i:05d}", "a": a, "b": b, "label": int(positive), "kind": kind}
        )
    rng.shuffle(out)
    return out


_GROUP_SIZES = (1, 1, 1, 2, 2, 2, 3, 3, 4, 5)
_CORPUS_VARIANTS = {
    "template": 25,
    "para-edit": 20,
    "key-para": 10,
    "small-edits": 25,
    "reorder": 10,
    "mixed": 10,
}


def synthetic_corpus(
    lang: str = "zh",
    n_groups: int = 430,
    seed: int | None = None,
    split: str = "dev",
    product_share: float = 0.15,
) -> list[dict[str, Any]]:
    """A labelled corpus: ``n_groups`` groups of near-duplicate pages (sizes 1–5, mean 2.4).

    Each document is ``{"id", "html", "site", "group", "kind"}``; ``group`` is the id of the
    group's original page. Product groups hold one product on several shops. Pages of
    different groups often share a site template (the hard negatives). Documents come out in
    a shuffled, deterministic order.
    """
    src = material(lang, split)
    seed = SPLIT_SEED[split] if seed is None else seed
    rng = random.Random(f"corpus/{lang}/{split}/{seed}")
    sites = site_templates(src, seed)
    if n_groups > len(src.articles):
        raise ValueError(
            f"n_groups={n_groups} exceeds the {len(src.articles)} articles of {lang}/{split}"
        )
    articles = rng.sample(src.articles, n_groups)
    descs = Descriptions(src, rng)
    docs: list[dict[str, Any]] = []
    for g, art in enumerate(articles):
        gid = f"{lang}-{split}-g{g:05d}"
        size = rng.choice(_GROUP_SIZES)
        if rng.random() < product_share:
            prod = make_product(src, rng, descs)
            for v in range(size):
                site = rng.choice(sites)
                page = _page(site, rng, product=prod if v == 0 else mirror(prod, rng))
                docs.append(
                    {
                        "id": f"{gid}-{v}",
                        **page,
                        "group": gid,
                        "kind": "product" if v == 0 else "product-mirror",
                    }
                )
            continue
        site0 = rng.choice(sites)
        docs.append(
            {"id": f"{gid}-0", **_page(site0, rng, article=art), "group": gid, "kind": "original"}
        )
        for v in range(1, size):
            kind = _weighted(rng, _CORPUS_VARIANTS)
            site = (
                rng.choice([s for s in sites if s is not site0])
                if kind == "template"
                else rng.choice(sites)
            )
            var = variant(kind, art, src, rng, corpus=True)
            docs.append(
                {"id": f"{gid}-{v}", **_page(site, rng, article=var), "group": gid, "kind": kind}
            )
    rng.shuffle(docs)
    return docs
