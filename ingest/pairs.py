"""Pairs of pages in, verdicts out: the verifier on pages rather than texts.

The verifier (:func:`neardup.verifier.compare.compare`) takes two texts. A page — a JSONL
document with ``text``, ``html``, ``rst`` or ``markdown`` — goes through the input layer
first (:func:`neardup.ingest.records.validate_page`, no id needed) and the extractor
(:func:`neardup.ingest.extract.document_texts`), and the verifier compares what comes out.
``neardup compare`` (:mod:`neardup.ingest.commands.compare`) and the front door
(:func:`neardup.compare`) go through here.

Pages know what texts do not: their site. Two pages of **one site** whose content the verifier
calls similar, but whose subjects differ, are template siblings and not duplicates
(:func:`site_verdict`, :mod:`neardup.verifier.subject`); ``neardup dedup`` and the workers
apply the same rule to every pair they verify.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from neardup.ingest.chrome import site_key
from neardup.ingest.extract import document_texts
from neardup.ingest.records import Page, clean_text, validate_page
from neardup.verifier.compare import DEFAULT_CONFIG, compare
from neardup.verifier.config import VerifyConfig
from neardup.verifier.subject import spelling_variants, subject_differs
from neardup.verifier.verdict import Verdict

__all__ = [
    "SPELLING_VARIANTS", "SUBJECT_DIFFERS", "compare_documents", "page_site", "siblings",
    "site_verdict", "verified_text",
]

SUBJECT_DIFFERS = "subject-differs"
"""The reason of a pair of one site that the content rule joined and the subject rule parts."""

SPELLING_VARIANTS = "spelling-variants"
"""The reason of a pair of one site that the content rule joins once both pages are written in
one spelling (:func:`neardup.verifier.subject.spelling_variants`)."""


def compare_documents(
    a: Page | Mapping[str, Any], b: Page | Mapping[str, Any], config: VerifyConfig = DEFAULT_CONFIG
) -> Verdict:
    """:func:`~neardup.verifier.compare.compare` on two JSONL documents (``text``, ``html``,
    ``rst``, ``markdown``), validated by the input layer
    (:func:`neardup.ingest.records.validate_page`, no id needed).

    An HTML page is verified on its *main content* (:func:`neardup.ingest.extract.document_texts`:
    without navigation, header, footer, sidebars and link lists; the whole text when the main
    content is too short to stand for the page — decided per page), so the chrome of two
    pages of one site never makes them similar and another site's template never keeps the
    same article apart. Other inputs are verified as they are. Spans refer to those texts.

    Two pages of one site (:func:`page_site`; for HTML pages without ``site`` or URL, of one
    template: :func:`neardup.ingest.extract.content.page_template`) are judged by
    :func:`site_verdict`.

    >>> story = "The harbour authority confirmed on Monday that the northern pier will close."
    >>> compare_documents({"text": story}, {"html": f"<p>{story}</p>"}).reason
    'exact'
    """
    pa = a if isinstance(a, Page) else validate_page(a, require_id=False)
    pb = b if isinstance(b, Page) else validate_page(b, require_id=False)
    (sa, ta), (sb, tb) = _site_and_text(pa), _site_and_text(pb)
    return site_verdict(compare(ta, tb, config), ta, tb, sa == sb != "",
                        lambda x, y: compare(x, y, config))


def _site_and_text(page: Page) -> tuple[str, str]:
    """A page's site (its own, its URL's, else its HTML template, as
    :func:`neardup.ingest.pipeline.prepare_document` stores it; two pages alone have no
    chrome counts) and the text the verifier compares."""
    site = page_site(page)
    texts = document_texts(page.document(), template=not site)
    return site or site_key(texts.template or None), clean_text(texts.content)


class _Located(Protocol):
    @property
    def site(self) -> str | None: ...

    @property
    def url(self) -> str | None: ...


def page_site(page: _Located) -> str:
    """The site of a page: its ``site``, else its URL's host without ``www.`` (case folded);
    ``""`` when it has neither (:func:`neardup.ingest.chrome.site_key`)."""
    return site_key(page.site, page.url)


def site_verdict(
    verdict: Verdict, a: str, b: str, same_site: bool,
    recompare: Callable[[str, str], Any] | None = None,
) -> Verdict:
    """``verdict`` on texts ``a`` and ``b``, with the rules for two pages of one site.

    * **Template siblings.** A similar pair other than one text twice whose subjects differ
      (:func:`neardup.verifier.subject.subject_differs`) is not similar: reason
      ``subject-differs``, its rates unchanged.
    * **Spelling variants.** A pair the verifier parts that differs in British and American
      spellings ("colour", "organise", "dialogue") is verified again with both texts in one
      spelling (:func:`neardup.verifier.subject.spelling_variants`; ``recompare``, the
      verifier with the caller's config, default :func:`~neardup.verifier.compare.compare`):
      similar then, and of one subject, it is similar with reason ``spelling-variants`` and
      the rates of that comparison.

    Pages of two sites, or of unknown sites, keep the verifier's verdict.

    >>> fg = ("Fill with FG Color. The Fill with FG Color command fills the active layer "
    ...       "selection with the solid color shown in the FG part of the Color Area of the "
    ...       "Toolbox. If some areas of the image are only partially selected, they are filled "
    ...       "in proportion to how much they are selected. You can access this command from "
    ...       "the image menubar through Edit, Fill with FG Color.")
    >>> bg = fg.replace("FG", "BG")
    >>> v = compare(fg, bg)
    >>> v.similar, site_verdict(v, fg, bg, same_site=False).reason
    (True, 'content-similar')
    >>> site_verdict(v, fg, bg, same_site=True).reason
    'subject-differs'
    """
    if not same_site:
        return verdict
    if verdict.similar:
        if siblings(verdict, a, b, same_site):
            return dataclasses.replace(verdict, similar=False, reason=SUBJECT_DIFFERS)
        return verdict
    if verdict.reason == "empty":
        return verdict
    one = spelling_variants(a, b)
    if one is None:
        return verdict
    again = (recompare or compare)(*one)
    if not again.similar or subject_differs(a, b):
        return verdict
    return dataclasses.replace(
        verdict, similar=True, reason=SPELLING_VARIANTS, resemble=again.resemble,
        contain=again.contain, word_resemble=again.word_resemble,
        core_resemble=again.core_resemble, word_contain=again.word_contain)


def siblings(verdict: Any, a: str, b: str, same_site: bool) -> bool:
    """Whether :func:`site_verdict` parts a pair the verifier joined (``verdict``: anything with
    ``similar`` and ``reason``). One text is never parted; two of the same words are when
    their symbols tell them apart (Haddock's index pages of the operators ``+`` and ``-``:
    the same module names under each, reason ``exact`` at the verifier's word level)."""
    return bool(
        same_site and verdict.similar
        and (verdict.reason != "exact" or a.split() != b.split()) and subject_differs(a, b)
    )


def verified_text(doc: Page | Mapping[str, Any]) -> str:
    """The text of a JSONL document that the verifier compares: its main content."""
    page = doc if isinstance(doc, Page) else validate_page(doc, require_id=False)
    return clean_text(document_texts(page.document()).content)
