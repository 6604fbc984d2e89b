"""Pairs of pages in, verdicts out: the verifier on pages rather than texts.

The verifier (:func:`neardup.verifier.compare.compare`) takes two texts. A page — a JSONL
document with ``text``, ``html``, ``rst`` or ``markdown`` — goes through the input layer
first (:func:`neardup.ingest.records.validate_page`, no id needed) and the extractor
(:func:`neardup.ingest.extract.document_texts`), and the verifier compares what comes out.
``neardup compare`` (:mod:`neardup.ingest.commands.compare`) and the front door
(:func:`neardup.compare`) go through here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from neardup.ingest.extract import document_texts
from neardup.ingest.records import Page, clean_text, validate_page
from neardup.verifier.compare import DEFAULT_CONFIG, compare
from neardup.verifier.config import VerifyConfig
from neardup.verifier.verdict import Verdict

__all__ = ["compare_documents", "verified_text"]


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

    >>> story = "The harbour authority confirmed on Monday that the northern pier will close."
    >>> compare_documents({"text": story}, {"html": f"<p>{story}</p>"}).reason
    'exact'
    """
    return compare(verified_text(a), verified_text(b), config)


def verified_text(doc: Page | Mapping[str, Any]) -> str:
    """The text of a JSONL document that the verifier compares: its main content."""
    page = doc if isinstance(doc, Page) else validate_page(doc, require_id=False)
    return clean_text(document_texts(page.document()).content)
