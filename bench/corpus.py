"""A seeded corpus of plain-text web pages with site chrome and edited copies (WET-like).

    python bench/corpus.py --pages 20000 --seed 1 -o pages.jsonl [--truth truth.jsonl]
                           [--no-truth-field] [--copy-share 0.4] [--sites 12]

One JSON object per line: ``id``, ``text``, ``site``, ``url`` and (unless ``--no-truth-field``)
``truth`` — ``{"cluster", "of", "char_pct", "char_frac", "para_frac", "lang"}``: the page's true
cluster (the article it carries), the original page it is a copy of (``null`` for an
original), the character-edit rate asked for (0-7 %) and the one applied, the share of the
body changed by paragraph edits, and the body language. ``neardup dedup`` ignores the field;
``--truth FILE`` writes the same records (with ``id``) to a file of their own.

What the pages look like, as Common Crawl WET text gives them: one line per block, the site's
header and footer ("chrome") inside the text of every page.

* **Sites** (``--sites``, default 12): a third with English chrome, a third Chinese, a third
  mixed; chrome from ~25 words to ~600 English words (the Chinese large one ~390 CJK
  characters): site name, navigation, login line, a breadcrumb per section, a date/views line
  that varies per page, a "trending" block that changes every few dozen pages of the site (dynamic
  chrome, shared by some but not all pages), footer links, copyright, ICP number, and
  disclaimer / cookie / newsletter prose filling the size.
* **Articles**: English, Chinese or mixed (per site mix), body length log-uniform between ~150
  and ~2,000 words (Chinese: ~300 to ~4,000 characters), paragraphs of 2-7 sentences. Text comes
  from a seeded sentence model over a pseudo-word vocabulary (30,000 English-like words, 3,500
  CJK characters, Zipf-distributed; 60 topics that bias word choice; each article has its own
  names), so two different articles share no sentence by accident, while articles of one topic
  share vocabulary.
* **Copies** (``--copy-share``, default 40 % of pages): an edited copy of an earlier original
  (half of them from the last 2,000 originals, half from any), on the same site or (half the
  time) another, under that site's chrome; paragraph edits (add / remove / move, up to ~20 %
  of the body; none for a quarter of the copies) and character edits at a rate drawn from 0-7 %
  (runs of 1-3 characters substituted, inserted or deleted).
* **Viral stories** (``--viral N``, default none): the first N originals take
  ``--viral-share`` (default 5 %) of the copies, so a site carries one story many times (more
  than a chrome threshold of 20 pages): the case where "lines many pages share" is content.

Deterministic for a seed: every page draws from its own generator seeded by ``(seed, page)``,
an article from ``(seed, article)`` — a copy regenerates its original instead of keeping it —
so pages stream out with only a small index of the originals in memory (a million pages need
a few tens of MB). No data files: the vocabulary is built from the seed.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import multiprocessing
import random
import re
import string
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

__all__ = ["Article", "Corpus", "Lexicon", "Site", "generate", "main"]

FUNCTION_WORDS = (
    "the of and to in a is that for it as was with be by on not he this are or his from at "
    "which but have an had they you were their one all we can her has there been if more when "
    "will would who so no she after its into than two over also new some could them these other "
    "may then do first any my now such like our what about out up only over most"
).split()

_ONSETS = ("b c d f g h j k l m n p r s t v w z bl br ch cl cr dr fl fr gl gr pl pr sc sh sk sl "
           "sm sn sp st str sw th tr tw").split()
_VOWELS = "a e i o u a e i o ai ea ee oo ou ie".split()
_CODAS = ("", "", "", "n", "r", "s", "t", "l", "m", "nd", "nt", "st", "rt", "ck", "ng", "x", "th")

LANGS = ("en", "zh", "mixed")
_CJK_LO, _CJK_HI = 0x4E00, 0x9FA5
_SECTIONS_EN = ("news", "world", "business", "tech", "sports", "culture", "science", "opinion")
_SECTIONS_ZH = ("新闻", "国际", "财经", "科技", "体育", "文化", "社会", "评论")


def _zipf_cum(n: int, s: float = 1.0, q: float = 2.7) -> list[float]:
    return list(itertools.accumulate(1.0 / (r + q) ** s for r in range(n)))


class Lexicon:
    """The seeded vocabulary: English-like pseudo-words, CJK characters, function words and
    topics, with Zipf weights."""

    def __init__(self, seed: int, n_words: int = 30000, n_cjk: int = 3500, n_topics: int = 60):
        rng = random.Random(f"lexicon:{seed}")
        words: set[str] = set(FUNCTION_WORDS)
        en: list[str] = []
        while len(en) < n_words:
            w = "".join(
                rng.choice(_ONSETS) + rng.choice(_VOWELS) + rng.choice(_CODAS)
                for _ in range(rng.choices((1, 2, 3, 4), (0.4, 0.4, 0.16, 0.04))[0])
            )
            if 2 <= len(w) <= 14 and w not in words:
                words.add(w)
                en.append(w)
        en.sort(key=len)  # the frequent words are the short ones
        self.en = en
        self.en_cum = _zipf_cum(n_words)
        self.fn = list(FUNCTION_WORDS)
        self.fn_cum = _zipf_cum(len(self.fn), 1.1, 1.0)
        cjk = rng.sample(range(_CJK_LO, _CJK_HI + 1), n_cjk)
        self.cjk = [chr(c) for c in cjk]
        self.cjk_cum = _zipf_cum(n_cjk, 0.9, 10.0)
        # topics: mid-frequency English words and two-character Chinese words
        self.topics_en = [rng.sample(en[200:8000], 40) for _ in range(n_topics)]
        self.topics_zh = [
            ["".join(rng.sample(self.cjk[50:2000], 2)) for _ in range(30)] for _ in range(n_topics)
        ]


@dataclass(slots=True)
class Article:
    """An article: its language, title and body paragraphs."""

    id: int
    lang: str
    title: str
    paragraphs: list[str]
    topic: int
    names_en: list[str] = field(default_factory=list)
    names_zh: list[str] = field(default_factory=list)


class Writer:
    """The sentence model: sentences and paragraphs from one generator."""

    def __init__(self, lex: Lexicon, rng: random.Random, topic: int,
                 names_en: Sequence[str] = (), names_zh: Sequence[str] = ()) -> None:
        self.lex, self.rng, self.topic = lex, rng, topic
        self.names_en = list(names_en) or [w.capitalize() for w in rng.sample(lex.en, 4)]
        self.names_zh = list(names_zh) or [
            "".join(rng.sample(lex.cjk[:1500], rng.choice((2, 3)))) for _ in range(4)
        ]

    def en_sentence(self, n: int | None = None) -> str:
        rng, lex = self.rng, self.lex
        n = n or rng.randint(7, 24)
        content = rng.choices(lex.en, cum_weights=lex.en_cum, k=n)
        fn = rng.choices(lex.fn, cum_weights=lex.fn_cum, k=n)
        topic = lex.topics_en[self.topic]
        out: list[str] = []
        for i in range(n):
            r = rng.random()
            if r < 0.36:
                w = fn[i]
            elif r < 0.46:
                w = rng.choice(topic)
            elif r < 0.49:
                w = rng.choice(self.names_en)
            elif r < 0.505:
                w = str(rng.choice((rng.randint(2, 99), rng.randint(1900, 2030),
                                    rng.randint(100, 99999))))
            else:
                w = content[i]
            if rng.random() < 0.05 and i < n - 1:
                w += ","
            out.append(w)
        out[0] = out[0][:1].upper() + out[0][1:]
        end = rng.random()
        return " ".join(out).rstrip(",") + ("." if end < 0.9 else "?" if end < 0.95 else "!")

    def zh_sentence(self, n: int | None = None, latin: float = 0.0) -> str:
        rng, lex = self.rng, self.lex
        n = n or rng.randint(12, 40)
        chars = rng.choices(lex.cjk, cum_weights=lex.cjk_cum, k=n)
        topic = lex.topics_zh[self.topic]
        out: list[str] = []
        since_comma = 0
        next_comma = rng.randint(6, 14)
        i = 0
        while i < n:
            r = rng.random()
            if r < 0.08:
                piece = rng.choice(topic)
            elif r < 0.10:
                piece = rng.choice(self.names_zh)
            elif r < 0.11:
                piece = f"{rng.randint(1, 2030)}{rng.choice('年月日个万元人')}"
            elif r < 0.11 + latin:
                piece = rng.choice(self.names_en) if rng.random() < 0.5 else rng.choice(
                    lex.en[:3000]
                ).upper() if rng.random() < 0.3 else rng.choice(lex.en[:3000])
            else:
                piece = chars[i]
            out.append(piece)
            i += 1
            since_comma += len(piece)
            if since_comma >= next_comma and i < n - 3:
                out.append("，")
                since_comma = 0
                next_comma = rng.randint(6, 14)
        end = rng.random()
        return "".join(out) + ("。" if end < 0.9 else "！" if end < 0.95 else "？")

    def paragraph(self, lang: str) -> str:
        rng = self.rng
        if lang == "mixed":
            lang = rng.choices(("zh", "en", "zhlat"), (0.45, 0.35, 0.2))[0]
        if lang == "en":
            return " ".join(self.en_sentence() for _ in range(rng.randint(2, 7)))
        latin = 0.06 if lang == "zhlat" else 0.0
        return "".join(self.zh_sentence(latin=latin) for _ in range(rng.randint(2, 6)))

    def title(self, lang: str) -> str:
        rng = self.rng
        if lang == "en" or (lang == "mixed" and rng.random() < 0.4):
            s = self.en_sentence(rng.randint(5, 10)).rstrip(".?!")
            return " ".join(w[:1].upper() + w[1:] for w in s.split())
        return self.zh_sentence(rng.randint(8, 18)).rstrip("。！？")


_LATIN_WORD = re.compile(r"[A-Za-z0-9]+")
_CJK_CHAR = re.compile(r"[\u4e00-\u9fa5]")


def _size(text: str) -> int:
    """Size in words: a Latin word, or two CJK characters."""
    return len(_LATIN_WORD.findall(text)) + len(_CJK_CHAR.findall(text)) // 2


@dataclass(slots=True)
class Site:
    """One site: its chrome (static lines, per-section breadcrumb, dynamic blocks)."""

    index: int
    name: str
    domain: str
    lang: str  # chrome language
    body_mix: tuple[float, float, float]  # P(en), P(zh), P(mixed) of its original articles
    header: list[str]
    footer: list[str]
    sections: list[str]
    crumbs: list[str]
    trending_every: int  # the trending block changes every this many pages of the site
    seed: int

    def trending(self, window: int, lex: Lexicon) -> list[str]:
        rng = random.Random(f"{self.seed}:trend:{self.index}:{window}")
        w = Writer(lex, rng, rng.randrange(len(lex.topics_en)))
        label = "Trending now" if self.lang == "en" else "热门文章" if self.lang == "zh" else "热门 Trending"
        lang = "en" if self.lang == "en" else "zh" if self.lang == "zh" else "mixed"
        return [label] + [w.title(lang) for _ in range(rng.randint(3, 6))]

    def dateline(self, rng: random.Random) -> str:
        y, m, d = rng.randint(2015, 2024), rng.randint(1, 12), rng.randint(1, 28)
        h, mi, views = rng.randint(0, 23), rng.randint(0, 59), rng.randint(3, 250000)
        if self.lang == "zh":
            return f"发布时间：{y}-{m:02d}-{d:02d} {h:02d}:{mi:02d}  来源：{self.name}  阅读：{views}"
        return f"Published {y}-{m:02d}-{d:02d} {h:02d}:{mi:02d} · {views:,} views"


_CHROME_WORDS = {  # target chrome size (English words; a CJK character counts 1/2) by class
    "tiny": 25, "small": 80, "medium": 200, "large": 600,
}
_CLASSES = ("large", "small", "medium", "tiny")


def make_sites(n: int, seed: int, lex: Lexicon) -> list[Site]:
    sites = []
    for i in range(n):
        rng = random.Random(f"{seed}:site:{i}")
        lang = LANGS[i * 3 // n] if n >= 3 else LANGS[i % 3]
        size_class = _CLASSES[i % len(_CLASSES)]
        budget = _CHROME_WORDS[size_class]
        if lang == "zh" and size_class == "large":
            budget = 195  # ~390 CJK characters
        w = Writer(lex, rng, rng.randrange(len(lex.topics_en)))
        base = rng.choice(lex.en[300:5000])
        name_en = base.capitalize() + rng.choice((" Daily", " Times", " Post", " Online", " News"))
        name_zh = "".join(rng.sample(lex.cjk[:800], 2)) + rng.choice(("日报", "新闻网", "在线", "时报"))
        domain = f"{base}{rng.choice(('news', 'daily', 'post', 'online'))}.{rng.choice(('com', 'cn', 'net', 'com.cn'))}"
        name = name_en if lang == "en" else name_zh if lang == "zh" else f"{name_zh} {name_en}"
        body_mix = {"en": (0.85, 0.05, 0.10), "zh": (0.05, 0.85, 0.10),
                    "mixed": (0.35, 0.35, 0.30)}[lang]
        sec = list(_SECTIONS_EN if lang == "en" else _SECTIONS_ZH)
        rng.shuffle(sec)
        sec = sec[: rng.randint(4, 8)]
        zh_ui = lang in ("zh", "mixed")
        nav_items = [rng.choice(lex.en[:4000]).capitalize() for _ in range(rng.randint(6, 16))]
        if zh_ui:
            nav_items = ["".join(rng.sample(lex.cjk[:1000], 2)) for _ in range(len(nav_items))]
        home = "首页" if zh_ui else "Home"
        header = [name, " | ".join([home, *sec, *nav_items[:4]])]
        footer_links = " | ".join(
            (["关于我们", "联系我们", "广告服务", "网站地图", "隐私政策"] if zh_ui else
             ["About us", "Contact", "Advertise", "Careers", "Privacy policy", "Terms of use"])
            + nav_items[4:]
        )
        year0 = rng.randint(1996, 2012)
        footer = [footer_links]
        if lang == "zh":
            footer.append(f"版权所有 © {year0}-2024 {name} 保留所有权利")
            footer.append(f"京ICP备{rng.randint(10000000, 99999999)}号  京公网安备{rng.randint(10**13, 10**14 - 1)}号")
        elif lang == "mixed":
            footer.append(f"© {year0}-2024 {name_en}. All rights reserved. 版权所有")
            footer.append(f"沪ICP备{rng.randint(10000000, 99999999)}号")
        else:
            footer.append(f"© {year0}-2024 {name}. All rights reserved.")
        if size_class != "tiny":
            header.append("登录 | 注册 | 订阅" if zh_ui else "Sign in | Register | Subscribe | Newsletter")
        # prose: disclaimer, cookie notice, newsletter pitch... to the size class
        prose_lang = "en" if lang == "en" else "zh" if lang == "zh" else "mixed"
        used = sum(_size(x) for x in header + footer) + 8
        head_prose = 0
        while used < budget:
            if prose_lang == "mixed":
                line = w.en_sentence() if rng.random() < 0.5 else w.zh_sentence()
            elif prose_lang == "en":
                line = w.en_sentence()
            else:
                line = w.zh_sentence()
            if budget - used < _size(line) * 0.5:
                break
            if rng.random() < 0.7:
                line += (" " if prose_lang == "en" else "") + (
                    w.en_sentence() if prose_lang == "en" else w.zh_sentence())
            used += _size(line)
            if head_prose < budget // 4 and rng.random() < 0.3:
                header.append(line)
                head_prose += _size(line)
            else:
                footer.insert(len(footer) - 1, line)
        crumbs = [f"{home} > {s}" if not zh_ui else f"{home} > {s} > 正文" for s in sec]
        sites.append(Site(i, name, domain, lang, body_mix, header, footer, sec, crumbs,
                          rng.randint(25, 120), seed))
    return sites


class Corpus:
    """The page stream of one seed (see the module docstring)."""

    def __init__(self, seed: int = 1, n_sites: int = 12, copy_share: float = 0.4,
                 recent: int = 2000, viral: int = 0, viral_share: float = 0.05) -> None:
        self.seed = seed
        self.lex = Lexicon(seed)
        self.sites = make_sites(n_sites, seed, self.lex)
        self.copy_share = copy_share
        self.recent = recent
        self.viral, self.viral_share = viral, viral_share

    def article(self, article_id: int, lang: str) -> Article:
        """Article ``article_id`` (regenerated the same way each time)."""
        rng = random.Random(f"{self.seed}:article:{article_id}")
        topic = rng.randrange(len(self.lex.topics_en))
        w = Writer(self.lex, rng, topic)
        target = math.exp(rng.uniform(math.log(150), math.log(2000)))
        paras: list[str] = []
        size = 0
        while size < target:
            p = w.paragraph(lang)
            paras.append(p)
            size += _size(p)
        return Article(article_id, lang, w.title(lang), paras, topic, w.names_en, w.names_zh)

    def plan(self, n: int) -> Iterator[tuple[int, int, int, int, int, int]]:
        """What each page is, cheaply and in order: ``(page, article, lang index, site, original
        page or -1, the page's rank on its site)``. Only this needs the pages before it."""
        originals: list[tuple[int, int, int]] = []  # (article id, page index, lang index)
        site_pages = [0] * len(self.sites)
        for i in range(n):
            rng = random.Random(f"{self.seed}:plan:{i}")
            if originals and rng.random() < self.copy_share:
                if self.viral and rng.random() < self.viral_share:
                    art_id, orig_page, li = originals[rng.randrange(min(self.viral,
                                                                        len(originals)))]
                elif rng.random() < 0.5:
                    art_id, orig_page, li = originals[rng.randrange(
                        max(0, len(originals) - self.recent), len(originals))]
                else:
                    art_id, orig_page, li = originals[rng.randrange(len(originals))]
                site = self._site_of(orig_page)
                if rng.random() < 0.5:
                    site = rng.randrange(len(self.sites))
            else:
                orig_page = -1
                site = self._site_of(i)
                li = rng.choices(range(3), self.sites[site].body_mix)[0]
                art_id = len(originals)
                originals.append((art_id, i, li))
            yield i, art_id, li, site, orig_page, site_pages[site]
            site_pages[site] += 1

    def render(self, plan: tuple[int, int, int, int, int, int]) -> dict[str, Any]:
        """The page of one :meth:`plan` entry (a function of it alone)."""
        i, art_id, li, site, orig_page, k = plan
        rng = random.Random(f"{self.seed}:page:{i}")
        art = self.article(art_id, LANGS[li])
        if orig_page >= 0:
            body, truth = self._copy(art, rng)
            truth["of"] = _page_id(orig_page)
        else:
            body = [art.title, *art.paragraphs]
            truth = {"of": None, "char_pct": 0, "char_frac": 0.0, "para_frac": 0.0}
        truth = {"cluster": f"a{art_id}", **truth, "lang": LANGS[li]}
        return self._page(i, self.sites[site], k, body, rng, truth)

    def pages(self, n: int, processes: int = 1) -> Iterator[dict[str, Any]]:
        """The first ``n`` pages, in order (rendered by ``processes`` processes)."""
        if processes <= 1:
            yield from map(self.render, self.plan(n))
            return
        global _CORPUS
        _CORPUS = self
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(processes) as pool:
            yield from pool.imap(_render, self.plan(n), chunksize=64)

    def _site_of(self, page: int) -> int:
        """The site an original page is published on (a function of the page, so a copy
        knows its original's site without keeping it); sites get unequal shares."""
        r = random.Random(f"{self.seed}:home:{page}").random()
        n = len(self.sites)
        weights = [1.0 / (k + 2) for k in range(n)]
        total = sum(weights)
        acc = 0.0
        for k, w in enumerate(weights):
            acc += w / total
            if r < acc:
                return k
        return n - 1

    def _copy(self, art: Article, rng: random.Random) -> tuple[list[str], dict[str, Any]]:
        paras = list(art.paragraphs)
        total = sum(_size(p) for p in paras)
        budget = 0.0 if rng.random() < 0.25 else rng.uniform(0.02, 0.20) * total
        changed = 0
        w = Writer(self.lex, rng, art.topic, art.names_en, art.names_zh)
        tries = 0
        while changed < budget and tries < 50:
            tries += 1
            op = rng.choice(("add", "remove", "move"))
            if op == "add":
                p = w.paragraph(art.lang)
                if changed + _size(p) > budget * 1.3:
                    continue
                paras.insert(rng.randint(0, len(paras)), p)
                changed += _size(p)
            elif len(paras) > 1:
                j = rng.randrange(len(paras))
                if changed + _size(paras[j]) > budget * 1.3:
                    continue
                p = paras.pop(j)
                changed += _size(p)
                if op == "move":
                    paras.insert(rng.randint(0, len(paras)), p)
        pct = rng.randint(0, 7)
        body = [art.title, *paras]
        edited, n_chars = _char_edits(body, pct / 100.0, rng, self.lex)
        return edited, {"char_pct": pct, "char_frac": round(n_chars, 4),
                        "para_frac": round(changed / max(total, 1), 4)}

    def _page(self, i: int, s: Site, k: int, body: list[str], rng: random.Random,
              truth: dict[str, Any]) -> dict[str, Any]:
        sec = rng.randrange(len(s.sections))
        share = "分享到：微信 微博 QQ空间" if s.lang != "en" else "Share this article: Facebook Twitter Email"
        lines = [*s.header, s.crumbs[sec], body[0], s.dateline(rng), *body[1:], share,
                 *s.trending(k // s.trending_every, self.lex), *s.footer]
        slug = "".join(ch for ch in body[0].lower()[:40] if ch.isascii() and ch.isalnum()) or "a"
        return {"id": _page_id(i), "text": "\n".join(lines), "site": s.domain,
                "url": f"https://www.{s.domain}/{s.sections[sec]}/{slug}-{i}.html", "truth": truth}


_CORPUS: Corpus | None = None  # the corpus of a rendering pool (inherited by fork)


def _render(plan: tuple[int, int, int, int, int, int]) -> dict[str, Any]:
    assert _CORPUS is not None
    return _CORPUS.render(plan)


def _page_id(i: int) -> str:
    return f"p{i:07d}"


_LETTERS = string.ascii_lowercase


def _char_edits(paras: list[str], rate: float, rng: random.Random,
                lex: Lexicon) -> tuple[list[str], float]:
    """``paras`` with ~``rate`` of their characters edited in runs of 1-3 (substituted 60 %,
    inserted 20 %, deleted 20 %); also the share of characters actually edited."""
    total = sum(len(p) for p in paras)
    if rate <= 0 or total == 0:
        return paras, 0.0
    runs = max(1, round(rate * total / 2))  # mean run length 2
    text = "\n".join(paras)
    positions = sorted(rng.sample(range(len(text)), min(runs, len(text))))
    out: list[str] = []
    at = 0
    edited = 0
    for pos in positions:
        if pos < at or text[pos] == "\n":
            continue
        n = rng.randint(1, 3)
        seg = text[pos: pos + n]
        if "\n" in seg:
            seg = seg[: seg.index("\n")]
            n = len(seg)
        out.append(text[at:pos])
        op = rng.random()
        if op < 0.6:  # substitute
            out.append("".join(_like(ch, rng, lex) for ch in seg))
            at = pos + n
        elif op < 0.8:  # insert before
            out.append("".join(_like(text[pos], rng, lex) for _ in range(n)))
            at = pos
        else:  # delete
            at = pos + n
        edited += n
    out.append(text[at:])
    return "".join(out).split("\n"), edited / total


def _like(ch: str, rng: random.Random, lex: Lexicon) -> str:
    """A random character of ``ch``'s kind (CJK, or a letter)."""
    if _CJK_LO <= ord(ch) <= _CJK_HI:
        return lex.cjk[min(int(rng.expovariate(1 / 400)), len(lex.cjk) - 1)]
    c = rng.choice(_LETTERS)
    return c.upper() if ch.isupper() else c


def generate(n: int, seed: int, out: TextIO, truth: TextIO | None = None,
             truth_field: bool = True, processes: int = 1, **options: Any) -> dict[str, int]:
    """Write ``n`` pages of seed ``seed`` to ``out`` (JSONL); counts of originals and copies."""
    counts = {"pages": 0, "copies": 0}
    for page in Corpus(seed, **options).pages(n, processes):
        t = page["truth"]
        if truth is not None:
            truth.write(json.dumps({"id": page["id"], "site": page["site"], **t},
                                   ensure_ascii=False) + "\n")
        if not truth_field:
            del page["truth"]
        out.write(json.dumps(page, ensure_ascii=False) + "\n")
        counts["pages"] += 1
        counts["copies"] += t["of"] is not None
    return counts


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-o", "--output", default="-", help="pages JSONL ('-' = stdout)")
    ap.add_argument("--truth", help="also write the truth records to this JSONL file")
    ap.add_argument("--no-truth-field", action="store_true", help="no 'truth' in the pages")
    ap.add_argument("--sites", type=int, default=12)
    ap.add_argument("--copy-share", type=float, default=0.4)
    ap.add_argument("--viral", type=int, default=0,
                    help="this many early originals take --viral-share of the copies")
    ap.add_argument("--viral-share", type=float, default=0.05)
    ap.add_argument("-j", "--processes", type=int, default=1, help="rendering processes")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    out = sys.stdout if args.output == "-" else open(args.output, "w", encoding="utf-8")
    truth = open(args.truth, "w", encoding="utf-8") if args.truth else None
    try:
        counts = generate(args.pages, args.seed, out, truth, not args.no_truth_field,
                          processes=args.processes, n_sites=args.sites,
                          copy_share=args.copy_share, viral=args.viral,
                          viral_share=args.viral_share)
    finally:
        if out is not sys.stdout:
            out.close()
        if truth is not None:
            truth.close()
    print(json.dumps({**counts, "seed": args.seed, "seconds": round(time.perf_counter() - t0, 1)}),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
