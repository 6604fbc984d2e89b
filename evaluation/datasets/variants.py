"""Near-duplicate variants of an article or a product (the paper's judging guidelines, §5):
paragraphs added or removed, the key paragraphs only, small edits inside paragraphs, a few
paragraphs reordered; a product listed on another shop."""

from __future__ import annotations

import random

from neardup.evaluation.datasets.sites import Article, Material, Product

__all__ = [
    "add_paragraphs",
    "key_paragraphs",
    "mirror",
    "remove_paragraphs",
    "reorder_paragraphs",
    "small_edits",
    "variant",
]


def _edit_paragraph(text: str, rate: float, src: Material, rng: random.Random) -> str:
    """Phrase-level edits changing about ``rate`` of a paragraph's tokens (characters in zh,
    words in en): spans of 1–4 tokens substituted, deleted or inserted — what a re-poster or
    an editor does (a name, a number, a clause), not uniform character noise."""
    if src.lang == "zh":
        units: list[str] = list(text)
        joiner = ""
    else:
        units = text.split()
        joiner = " "
    budget = round(len(units) * rate)
    while budget > 0 and units:
        span = min(budget, rng.randint(1, 4))
        i = rng.randrange(len(units))
        op = rng.random()
        if op < 0.5:
            units[i : i + span] = [rng.choice(src.tokens) for _ in range(span)]
        elif op < 0.75:
            del units[i : i + span]
        else:
            units[i:i] = [rng.choice(src.tokens) for _ in range(span)]
        budget -= span
    return joiner.join(units)


def small_edits(
    article: Article, src: Material, rng: random.Random, rate: float, share: float = 0.5
) -> Article:
    """Edit ``share`` of the paragraphs (at least one), each by about ``rate`` (< 10 %)."""
    n = len(article.paragraphs)
    chosen = set(rng.sample(range(n), max(1, round(n * share))))
    paras = tuple(
        _edit_paragraph(p, rate, src, rng) if i in chosen else p
        for i, p in enumerate(article.paragraphs)
    )
    return Article(article.title, paras)


def remove_paragraphs(article: Article, rng: random.Random, max_frac: float) -> Article:
    """Drop paragraphs (never all of them) totalling at most ``max_frac`` of the length."""
    paras = list(article.paragraphs)
    budget = article.length * max_frac
    removed = 0
    order = list(range(len(paras)))
    rng.shuffle(order)
    drop: set[int] = set()
    for i in order:
        if len(drop) >= len(paras) - 2:
            break
        if removed + len(paras[i]) <= budget:
            drop.add(i)
            removed += len(paras[i])
    return Article(article.title, tuple(p for i, p in enumerate(paras) if i not in drop))


def add_paragraphs(article: Article, src: Material, rng: random.Random, max_frac: float) -> Article:
    """Insert paragraphs of another article totalling at most ``max_frac`` of the new length."""
    paras = list(article.paragraphs)
    budget = article.length * max_frac / (1 - max_frac)
    donor = rng.choice(src.articles)
    added = 0
    for p in donor.paragraphs:
        if p in paras or added + len(p) > budget:
            continue
        paras.insert(rng.randint(1, len(paras)), p)
        added += len(p)
    return Article(article.title, tuple(paras))


def reorder_paragraphs(article: Article, rng: random.Random, moves: int) -> Article:
    paras = list(article.paragraphs)
    for _ in range(moves):
        if len(paras) < 3:
            break
        p = paras.pop(rng.randrange(len(paras)))
        paras.insert(rng.randrange(len(paras) + 1), p)
    return Article(article.title, tuple(paras))


def key_paragraphs(article: Article, rng: random.Random) -> Article:
    """The lead of an article: its first paragraphs, 40–65 % of its length."""
    target = article.length * rng.uniform(0.40, 0.65)
    out: list[str] = []
    size = 0
    for p in article.paragraphs:
        if out and size + len(p) / 2 > target:
            break
        out.append(p)
        size += len(p)
    return Article(article.title, tuple(out))


def variant(
    kind: str, article: Article, src: Material, rng: random.Random, *, corpus: bool = False
) -> Article:
    """A near-duplicate of ``article`` of the given kind."""
    if kind == "template":
        return article
    if kind == "para-edit":
        frac = rng.uniform(0.10, 0.25 if corpus else 0.38)
        op = rng.random()
        if op < 0.45:
            return remove_paragraphs(article, rng, frac)
        if op < 0.9:
            return add_paragraphs(article, src, rng, frac)
        return add_paragraphs(remove_paragraphs(article, rng, frac / 2), src, rng, frac / 2)
    if kind == "key-para":
        return key_paragraphs(article, rng)
    if kind == "small-edits":
        return small_edits(article, src, rng, rng.uniform(0.02, 0.09), rng.uniform(0.3, 1.0))
    if kind == "reorder":
        return reorder_paragraphs(article, rng, rng.randint(1, 3))
    if kind == "mixed":
        art = remove_paragraphs(article, rng, rng.uniform(0.05, 0.20))
        art = reorder_paragraphs(art, rng, 1)
        return small_edits(art, src, rng, rng.uniform(0.02, 0.06), rng.uniform(0.2, 0.5))
    raise ValueError(f"unknown variant kind {kind!r}")


def mirror(product: Product, rng: random.Random) -> Product:
    """The same product listed elsewhere: another price, spec rows in another order."""
    specs = list(product.specs)
    rng.shuffle(specs)
    cur = product.price[0]
    return Product(
        product.name, f"{cur}{rng.randint(99, 9999)}.00", tuple(specs), product.description
    )
