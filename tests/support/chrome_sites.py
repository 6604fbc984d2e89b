"""One site's pages inside a large chrome (header, navigation, footer in the text): short,
different articles and edited copies of one of them; what the chrome tests of the embedded
``neardup dedup`` and of its OpenSearch backend share."""

from __future__ import annotations

import random
from typing import Any

__all__ = ["EN_SITE", "LETTERS", "ZH_SITE", "en_chrome", "expected", "partition", "prose", "zh_chrome"]

LETTERS = "abcdefghijklmnopqrstuvwxyz"
FUNCTION_WORDS = (
    "the of and to in a is that for it as was with be by on not he this are or his from at "
    "which but have an had they you were their one all we can her has there been if more when "
    "will would who so no she after its into than two over also new some could them these other"
).split()


def _words(rng: random.Random, n: int) -> list[str]:
    """English-like: 45 % function words, the rest pseudo-words of 3-9 letters."""
    return [rng.choice(FUNCTION_WORDS) if rng.random() < 0.45
            else "".join(rng.choice(LETTERS) for _ in range(rng.randint(3, 9)))
            for _ in range(n)]


def prose(rng: random.Random, n_words: int) -> str:
    """Sentences of 8-16 pseudo-words, about ``n_words`` in all."""
    out: list[str] = []
    while sum(len(s.split()) for s in out) < n_words:
        w = _words(rng, rng.randint(8, 16))
        out.append(" ".join([w[0].capitalize(), *w[1:]]) + ".")
    return " ".join(out)


def _zhprose(rng: random.Random, n_chars: int) -> str:
    """Chinese-looking sentences (CJK characters, ，and 。), about ``n_chars`` characters."""
    out: list[str] = []
    while sum(len(s) for s in out) < n_chars:
        clause = "".join(chr(rng.randint(0x4E00, 0x9FA5)) for _ in range(rng.randint(8, 14)))
        out.append(clause + rng.choice("，，。"))
    return "".join(out)[:-1] + "。"


def en_chrome(rng: random.Random) -> tuple[list[str], list[str]]:
    """~600 words of header and footer lines: name, navigation, sign-in, notices, links."""
    header = ["The Riverside Courier", "Home | World | Business | Tech | Sports | Culture",
              "Sign in | Subscribe | Newsletters | Today's paper",
              prose(rng, 100), prose(rng, 80), prose(rng, 70)]
    footer = ["About us | Contact | Careers | Advertise | Privacy | Terms",
              prose(rng, 110), prose(rng, 100), prose(rng, 70),
              "© 2004-2024 The Riverside Courier. All rights reserved."]
    return header, footer


def zh_chrome(rng: random.Random) -> tuple[list[str], list[str]]:
    """A ~390-character Chinese header and a short footer."""
    header = ["江城日报网", "首页 | 国内 | 国际 | 财经 | 科技 | 体育 | 文化", _zhprose(rng, 135),
              _zhprose(rng, 125), _zhprose(rng, 115)]
    footer = ["关于我们 | 联系我们 | 版权声明", "江城日报网 版权所有 京ICP备12345678号"]
    return header, footer


def _edit(text: str, rng: random.Random, rate: float = 0.03) -> str:
    """A copy with about ``rate`` of its words replaced and one sentence added."""
    words = text.split(" ")
    for i in rng.sample(range(len(words)), max(1, int(rate * len(words)))):
        words[i] = "".join(rng.choice(LETTERS) for _ in range(len(words[i]) or 1))
    return " ".join(words) + " " + prose(rng, 10)


def _site_pages(chrome: tuple[list[str], list[str]], article_words: int, n_articles: int,
                seed: int) -> tuple[list[dict[str, Any]], set[str]]:
    """``n_articles`` pages of different articles and 3 edited copies of the first, all in
    one site's chrome (a date line that varies per page, as sites print one); the ids of
    the first article's group."""
    rng = random.Random(seed)
    header, footer = chrome

    def page(doc_id: str, paragraphs: list[str], n: int) -> dict[str, Any]:
        date = f"Published 2024-0{n % 9 + 1}-1{n % 10} 0{n % 10}:30 · {17 * n + 3:,} views"
        return {"id": doc_id, "url": f"https://www.courier.example/news/{doc_id}.html",
                "text": "\n".join([*header, date, *paragraphs, *footer])}

    articles = [[prose(rng, article_words // 2), prose(rng, article_words // 2)]
                for _ in range(n_articles)]
    pages = [page(f"a{i:02d}", body, i) for i, body in enumerate(articles)]
    copies = [page(f"copy{j}", [_edit(p, rng) for p in articles[0]], 40 + j) for j in range(3)]
    # the copies come among the other pages, not after them
    return pages[:5] + copies[:1] + pages[5:15] + copies[1:] + pages[15:], \
        {"a00", "copy0", "copy1", "copy2"}


def partition(groups: dict[str, str]) -> set[frozenset[str]]:
    by: dict[str, set[str]] = {}
    for doc_id, g in groups.items():
        by.setdefault(g, set()).add(doc_id)
    return {frozenset(m) for m in by.values()}


def expected(pages: list[dict[str, Any]], copies: set[str]) -> set[frozenset[str]]:
    return {frozenset(copies)} | {frozenset([p["id"]]) for p in pages if p["id"] not in copies}


# ~125-word articles: with ~150 words in a ~600-word chrome the verifier's content rule alone
# (word resemble >= 0.525 and core resemble >= 0.70) already tells most of them apart (core
# resemble ~0.67), and the test would not show what masking does.
EN_SITE = _site_pages(en_chrome(random.Random(101)), 125, 26, seed=1)
ZH_SITE = _site_pages(zh_chrome(random.Random(202)), 80, 26, seed=2)
