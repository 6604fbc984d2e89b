"""Generated near-duplicate and non-duplicate page pairs for the verifier benchmark.

Articles (~5,000 characters) mix real Chinese paragraphs (People's Daily, January 1998, from
``../shared/data``) with real English prose (the Python documentation topics that ship with
CPython in ``pydoc_data``: the same docs as ``python311doc_html_vs_rst_pairs.tsv``, whose rows
only name files).

- near-duplicate: the same article under two site templates (or one), with a few paragraphs
  inserted and deleted and ~5 % of characters edited in short runs (typo fixes, changed
  numbers and names: substitutions, insertions and deletions of 1-6 characters);
- non-duplicate: two different articles sharing one ~500-character site template (header and
  footer), the paper's "same template, different main object".
"""

from __future__ import annotations

import gzip
import random
import re
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


@dataclass(frozen=True, slots=True)
class Pair:
    kind: str  # "near" or "non"
    a: str
    b: str


def load_paragraphs(data: Path = DATA) -> tuple[list[str], list[str]]:
    """(Chinese paragraphs, English paragraphs) of real prose."""
    with gzip.open(data / "people_daily_199801.plain.txt.gz", "rt", encoding="utf-8") as f:
        zh = [line.strip() for line in f if len(line.strip()) >= 40]
    from pydoc_data.topics import topics

    en: list[str] = []
    for text in topics.values():
        for para in re.split(r"\n\s*\n", text):
            para = " ".join(para.split())
            if len(para) >= 120 and para.count(" ") > len(para) // 12:
                en.append(para)
    return zh, en


class PairGenerator:
    def __init__(self, seed: int = 0, data: Path = DATA, article_chars: int = 5000) -> None:
        self.rnd = random.Random(seed)
        self.zh, self.en = load_paragraphs(data)
        self.article_chars = article_chars
        self.edit_chars = list("的了是在和中国人民年月日一二三四五") + list("etaoinshrdlu0123456789")

    def paragraph(self) -> str:
        return self.rnd.choice(self.zh) if self.rnd.random() < 0.6 else self.rnd.choice(self.en)

    def article(self) -> list[str]:
        paras: list[str] = []
        size = 0
        while size < self.article_chars:
            paras.append(self.paragraph())
            size += len(paras[-1]) + 1
        return paras

    def template(self) -> tuple[str, str]:
        """A site's ~500-character header and footer."""
        nav = ["首页", "新闻中心", "国内", "国际", "财经", "体育", "Home", "News", "About us",
               "Contact", "Login", "RSS", "版权所有", "联系我们", "广告服务", "网站地图", "Privacy"]
        site = f"{self.rnd.choice(['人民', '新华', 'Daily', 'Global'])}{self.rnd.randrange(10**4)}网"
        head = site + " | " + " | ".join(self.rnd.sample(nav, 8)) + "\n" + self.paragraph()[:150]
        foot = " · ".join(self.rnd.sample(nav, 6)) + f"\nCopyright © 1998-2007 {site} " + self.paragraph()[:120]
        return head[:300], foot[:200]

    def edit(self, text: str, rate: float = 0.05) -> str:
        chars = list(text)
        budget = int(len(chars) * rate)
        while budget > 0 and chars:
            run = min(budget, self.rnd.randint(1, 6))
            pos = self.rnd.randrange(len(chars))
            new = [self.rnd.choice(self.edit_chars) for _ in range(run)]
            kind = self.rnd.random()
            if kind < 0.4:
                chars[pos : pos + run] = new
            elif kind < 0.7:
                del chars[pos : pos + run]
            else:
                chars[pos:pos] = new
            budget -= run
        return "".join(chars)

    def near(self) -> Pair:
        paras = self.article()
        other = list(paras)
        for _ in range(self.rnd.randint(0, 2)):
            if len(other) > 3:
                del other[self.rnd.randrange(len(other))]
        for _ in range(self.rnd.randint(0, 2)):
            other.insert(self.rnd.randrange(len(other) + 1), self.paragraph())
        ha, fa = self.template()
        hb, fb = self.template() if self.rnd.random() < 0.5 else (ha, fa)
        a = ha + "\n" + "\n".join(paras) + "\n" + fa
        b = hb + "\n" + self.edit("\n".join(other)) + "\n" + fb
        return Pair("near", a, b)

    def non(self) -> Pair:
        head, foot = self.template()
        a = head + "\n" + "\n".join(self.article()) + "\n" + foot
        b = head + "\n" + "\n".join(self.article()) + "\n" + foot
        return Pair("non", a, b)

    def pairs(self, n: int, kind: str) -> list[Pair]:
        make = self.near if kind == "near" else self.non
        return [make() for _ in range(n)]
