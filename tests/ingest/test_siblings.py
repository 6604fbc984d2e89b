"""Template siblings of one site stay apart; the same pages on different sites are judged by
the verifier alone (:func:`neardup.ingest.pairs.site_verdict`, docs/quality.md)."""

from __future__ import annotations

from support.chrome_sites import partition
from support.sibling_sites import sibling_pages, twins

import neardup
from neardup.ingest.pairs import compare_documents


def _partition(pages: list[dict[str, object]]) -> set[frozenset[str]]:
    return partition({g.id: g.dup_group for g in neardup.dedup(pages)
                      if g.id is not None and g.dup_group is not None})


def test_siblings_of_one_site_stay_apart_and_twins_group() -> None:
    pages = sibling_pages("docs.example")
    assert _partition(pages) == twins(pages)


def test_without_a_common_site_the_verifier_alone_joins_siblings() -> None:
    # What the rule changes: the same pages, each on its own host, chain into one group.
    pages = sibling_pages(site=None)
    assert max(len(m) for m in _partition(pages)) > 2


def test_compare_names_the_reason() -> None:
    en_fg, gb_fg, en_bg = sibling_pages()[:3]
    assert compare_documents(en_fg, en_bg).reason == "subject-differs"
    assert not compare_documents(en_fg, en_bg).similar
    assert compare_documents(en_fg, gb_fg).similar  # the twin
    text_only = compare_documents({"text": en_fg["text"]}, {"text": en_bg["text"]})
    assert text_only.similar and text_only.reason == "content-similar"
    # a URL's host is a site as well
    by_url = compare_documents({"text": en_fg["text"], "url": "https://docs.example/a"},
                               {"text": en_bg["text"], "url": "https://www.docs.example/b"})
    assert by_url.reason == "subject-differs"
