"""A small chrome-heavy corpus for the live-index tests (tests/integration/test_live_index.py):
three sites of 30 short articles each inside a large site chrome, near-copies of some articles
(on their own site and on another one), a block of related links that 6 pages of one site carry
(3 early, 3 late: chrome only once both halves are counted), and a bridge page that joins two
articles that are not similar to each other."""

from __future__ import annotations

import random
from typing import Any

from support.chrome_sites import LETTERS, en_chrome, prose

__all__ = ["BRIDGE", "LATE", "MIN_PAGES", "edited", "live_pages", "site_page"]

MIN_PAGES = 5  # --chrome-min-pages: the header and footer (30 pages) and the late block (6)
SITES = 3
PER_SITE = 30
LATE = {2, 6, 10, 20, 24, 28}  # the pages of site 0 with the related block
BRIDGE = ("s1-05", "bridge", "s2-05")  # a ~ b ~ c, a !~ c


def _host(site: int) -> str:
    return f"www.site{site}.example"


def _chrome(site: int) -> tuple[list[str], list[str]]:
    header, footer = en_chrome(random.Random(700 + site))
    name = f"The Site{site} Gazette"
    return [name, *header[1:]], [*footer[:-1], f"© 2004-2024 {name}. All rights reserved."]


CHROME = [_chrome(s) for s in range(SITES)]
RELATED = "Related stories: " + prose(random.Random(99), 330)


def site_page(site: int, doc_id: str, article: list[str], n: int,
              related: bool = False) -> dict[str, Any]:
    """A page of ``site``: its header, a date line of its own, ``article``, (the related block)
    and its footer."""
    header, footer = CHROME[site]
    date = f"Published 2024-0{n % 9 + 1}-1{n % 10} 0{n % 10}:30 · {17 * n + 3:,} views"
    body = [*header, date, *article, *([RELATED] if related else []), *footer]
    return {"id": doc_id, "url": f"https://{_host(site)}/news/{doc_id}.html",
            "text": "\n".join(body)}


def edited(article: list[str], rng: random.Random, rate: float = 0.03) -> list[str]:
    """A near-copy: about ``rate`` of the words replaced, one sentence added."""
    out = []
    for para in article:
        words = para.split(" ")
        for i in rng.sample(range(len(words)), max(1, int(rate * len(words)))):
            words[i] = "".join(rng.choice(LETTERS) for _ in range(len(words[i]) or 1))
        out.append(" ".join(words))
    return [*out, prose(rng, 10)]


def live_pages(seed: int = 11) -> tuple[list[dict[str, Any]], dict[str, list[str]]]:
    """The pages, in sending order, and the articles by page id (for updates)."""
    rng = random.Random(seed)
    articles: dict[str, list[str]] = {}
    pages: list[dict[str, Any]] = []
    for i in range(PER_SITE):
        for s in range(SITES):
            doc_id = f"s{s}-{i:02d}"
            articles[doc_id] = [prose(rng, 45), prose(rng, 45)]
            if doc_id == BRIDGE[2]:  # c shares its first paragraph with a (too little alone)
                articles[doc_id][0] = articles[BRIDGE[0]][1]
            pages.append(site_page(s, doc_id, articles[doc_id], 3 * i + s,
                                   related=(s == 0 and i in LATE)))
    # the bridge: a's text and c's (a and c share one paragraph of their two)
    a, c = articles[BRIDGE[0]], articles[BRIDGE[2]]
    articles["bridge"] = [*a, c[1]]
    copies = [  # (id, site, article)
        ("s0-03-copy", 0, edited(articles["s0-03"], rng)),
        ("s0-03-mirror", 2, edited(articles["s0-03"], rng)),
        ("s1-08-copy", 1, edited(articles["s1-08"], rng)),
        ("s2-13-mirror", 0, edited(articles["s2-13"], rng)),
        ("s1-21-copy", 1, edited(articles["s1-21"], rng)),
        ("s1-21-mirror", 2, edited(articles["s1-21"], rng)),
        ("bridge", 0, articles["bridge"]),
    ]
    out = list(pages)
    for j, (doc_id, site, article) in enumerate(copies):
        articles[doc_id] = article
        # among the pages, not after them
        out.insert(12 * j + 20, site_page(site, doc_id, article, 200 + j))
    return out, articles
