"""An article swapped into another page of the same site is never similar (issue 16), on real
pages: the Python docs as Debian ships them, one Sphinx template around every article.

The swapped page is page X's own HTML with its main ``div[role=main]`` replaced by page Y's;
both articles are short (under 2,500 characters of main content), so the shared chrome —
navigation, sidebars, footer — weighs as much as the article, the case where the paper's
TLCS rule alone calls the pages near-duplicates. Pages are drawn with a fixed seed. Pages are
compared as the product compares them (:func:`neardup.ingest.pairs.compare_documents`: the main
content of each page), and the whole texts, chrome included, under the content rule
without its containment path."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import lxml.html
import pytest

from neardup.ingest.extract import document_texts
from neardup.ingest.pairs import compare_documents
from neardup.verifier.compare import compare
from neardup.verifier.config import PROFILES

SHORT_ARTICLE = 2500


def _swap(chrome_html: str, article_html: str) -> str:
    page = lxml.html.fromstring(chrome_html)
    article = lxml.html.fromstring(article_html).xpath('//div[@role="main"]')[0]
    main = page.xpath('//div[@role="main"]')[0]
    main.getparent().replace(main, article)
    return str(lxml.html.tostring(page, encoding="unicode"))


@pytest.fixture(scope="module")
def short_pages(python_doc_html: Path) -> list[str]:
    pages = []
    for path in sorted(python_doc_html.glob("*/*.html")):
        html = path.read_text(encoding="utf-8")
        if 'role="main"' in html and len(document_texts({"html": html}).content) < SHORT_ARTICLE:
            pages.append(html)
    assert len(pages) > 100
    return pages


@pytest.mark.parametrize("profile", ["web", "precise"])
def test_an_article_swapped_into_a_page_of_the_same_site_is_never_similar(
    short_pages: list[str], profile: str
) -> None:
    rng = random.Random(2007)
    config = PROFILES[profile]
    checked = 0
    for _ in range(120):
        x, y = rng.sample(short_pages, 2)
        original, swapped = document_texts({"html": x}), document_texts({"html": _swap(x, y)})
        if original.content == swapped.content:
            continue  # two pages with the same article
        v = compare_documents({"html": x}, {"html": _swap(x, y)}, config)
        assert not v.similar, (v.reason, v.resemble, v.word_resemble, v.core_resemble)
        # The whole texts: a short page is mostly chrome, which one page "contains"; the core
        # of the two pages (the article) differs.
        whole = compare(original.text, swapped.text, replace(config, min_word_contain=1.01))
        assert not whole.similar, (whole.reason, whole.word_resemble, whole.core_resemble)
        checked += 1
    assert checked > 100


def test_the_same_article_in_its_own_chrome_stays_similar(short_pages: list[str]) -> None:
    rng = random.Random(1998)
    for x in rng.sample(short_pages, 30):
        y = rng.choice(short_pages)
        # X's article inside Y's page (another sidebar, other links) against X itself
        moved = document_texts({"html": _swap(y, x)})
        original = document_texts({"html": x})
        v = compare(original.content, moved.content)
        assert v.similar, (v.reason, v.resemble, v.word_resemble, v.core_resemble)
