"""The same article under two sites' templates, chrome larger than the article: verified on
each page's main content it is one page (issue 16), on the whole texts it is not. Grouped so by
``neardup dedup`` in-process and through OpenSearch, Redis and real Celery workers, which read
the main content stored beside the whole text."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from neardup.ingest.extract import document_texts
from neardup.ingest.pairs import compare_documents
from neardup.verifier.compare import compare

ROOT = Path(__file__).resolve().parents[2]
WORDS = (
    "river harbour council budget school winter market railway museum festival library "
    "hospital election bridge garden factory village coast"
).split()


def _article(seed: int) -> str:
    rng = random.Random(seed)
    text = " ".join(rng.choice(WORDS) for _ in range(300)).capitalize() + "."
    return "<p>" + ". </p><p>".join(text.split(". ")) + "</p>"


def _page(site: str, seed: int, article: str) -> str:
    rng = random.Random(seed)
    words = [f"{site}{i}" for i in range(60)]
    nav = "<nav>" + " ".join(f'<a href="/{w}">{w} {rng.choice(words)}</a>' for w in words) + "</nav>"
    aside = "<aside>" + " ".join(
        f"<p>{rng.choice(words)} {rng.choice(words)} {rng.choice(words)}</p>" for _ in range(80)
    ) + "</aside>"
    foot = "<footer>" + " ".join(rng.choice(words) for _ in range(150)) + "</footer>"
    return (f"<html><body><header>{site} news</header>{nav}<main><article>{article}</article>"
            f"</main>{aside}{foot}</body></html>")


PAGES = [
    {"id": "alpha-1", "html": _page("alpha", 1, _article(10)), "site": "alpha"},
    {"id": "beta-1", "html": _page("beta", 2, _article(10)), "site": "beta"},  # alpha-1's article
    {"id": "alpha-2", "html": _page("alpha", 3, _article(11)), "site": "alpha"},  # another one
]


def test_only_the_main_content_makes_them_one_page() -> None:
    a, b = PAGES[0], PAGES[1]
    whole = compare(document_texts(a).text, document_texts(b).text)
    assert not whole.similar  # the templates outweigh the article
    assert compare_documents(a, b).similar
    assert not compare_documents(PAGES[0], PAGES[2]).similar


def _dedup(tmp_path: Path, *extra: str, env: dict[str, str] | None = None) -> dict[str, str]:
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text("".join(json.dumps(p) + "\n" for p in PAGES), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "neardup.ingest.cli", "dedup", str(src), "-o", str(out), "--no-progress",
         *extra],
        cwd=ROOT, capture_output=True, text=True, timeout=600, env=env,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return {r["id"]: r["dup_group"] for r in map(json.loads, out.read_text().splitlines())}


def test_dedup_groups_on_the_main_content_embedded(tmp_path: Path) -> None:
    assert _dedup(tmp_path, "-j", "1") == {
        "alpha-1": "alpha-1", "beta-1": "alpha-1", "alpha-2": "alpha-2"
    }


@pytest.mark.usefixtures("redis_url")
def test_dedup_groups_on_the_main_content_opensearch(
    tmp_path: Path, opensearch_url: str, redis_url: str, index_name: str
) -> None:
    env = dict(os.environ, OPENSEARCH_URL=opensearch_url, CELERY_BROKER_URL=redis_url)
    groups = _dedup(
        tmp_path, "--backend", "opensearch", "--index", index_name, "--start-workers", "1",
        "--timeout", "300", env=env,
    )
    assert groups == {"alpha-1": "alpha-1", "beta-1": "alpha-1", "alpha-2": "alpha-2"}
