"""The real paragraphs the synthetic sets are made of: People's Daily (zh), the Python docs (en)."""

from __future__ import annotations

import gzip
import json
import re
from functools import lru_cache

from neardup.evaluation.datasets.sources import cache_dir, derived_file, pydoc_html_dir

__all__ = ["paragraph_source", "people_daily_paragraphs", "pydoc_paragraphs"]


@lru_cache(maxsize=1)
def people_daily_paragraphs() -> tuple[str, ...]:
    """People's Daily 1998-01 paragraphs, in order, minus headlines (< 30 chars) and repeats."""
    with gzip.open(
        derived_file("people_daily_199801.plain.txt.gz", "people-daily"), "rt", encoding="utf-8"
    ) as fh:
        lines = [" ".join(line.split()) for line in fh]
    counts: dict[str, int] = {}
    for line in lines:
        counts[line] = counts.get(line, 0) + 1
    return tuple(p for p in lines if len(p) >= 30 and counts[p] == 1)


_PYDOC_SKIP = re.compile(r"^(genindex|py-modindex|search|contents|copyright|license|bugs)")


@lru_cache(maxsize=1)
def pydoc_paragraphs() -> tuple[str, ...]:
    """English prose: the ``<p>`` paragraphs of the Python 3.11 docs HTML pages, page by page."""
    cache = cache_dir() / "datasets" / "pydoc_paragraphs.json"
    if cache.exists():
        return tuple(json.loads(cache.read_text(encoding="utf-8")))
    import lxml.html

    root = pydoc_html_dir()
    out: list[str] = []
    seen: set[str] = set()
    for path in sorted(root.rglob("*.html")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith(("_", "whatsnew/changelog")) or _PYDOC_SKIP.match(rel):
            continue
        tree = lxml.html.parse(str(path)).getroot()
        for main in tree.xpath('//div[@role="main"]'):
            for p in main.xpath(".//p"):
                text = " ".join(p.text_content().split())
                if len(text) >= 80 and len(text.split()) >= 12 and text not in seen:
                    seen.add(text)
                    out.append(text)
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(out, ensure_ascii=False), encoding="utf-8")
    return tuple(out)


def paragraph_source(lang: str) -> tuple[str, ...]:
    if lang == "zh":
        return people_daily_paragraphs()
    if lang == "en":
        return pydoc_paragraphs()
    raise ValueError(f"unknown language {lang!r}; known: zh, en")
