"""A document → its text (step 1 of the method, first stage: "remove all HTML tags and
formatting"), and its main content, what the fingerprints are computed from.

One concept per module:

* :mod:`~neardup.ingest.extract.document`: the text of a JSONL document from its first field
  of ``text``, ``html``, ``rst``, ``markdown`` (:func:`document_text`, :func:`document_texts`).
* :mod:`~neardup.ingest.extract.html`: HTML parsed (lxml, loaded with the first page that
  needs it) and its visible text (a flat tokenizer for pages nested too deep).
* :mod:`~neardup.ingest.extract.content`: a page's text (:func:`extract_text`) and its main
  content, without navigation, header, footer, sidebars and link lists
  (:func:`extract_texts`, :class:`ExtractedText`).
* :mod:`~neardup.ingest.extract.charset`: the charset of a page's bytes (:func:`decode_html`).
* :mod:`~neardup.ingest.extract.markup`: reStructuredText and Markdown → plain text
  (:func:`rst_text`, :func:`markdown_text`).
* :mod:`~neardup.ingest.extract.blocks`: the output's one structure, blocks apart by a blank
  line (:data:`BLOCK_BREAK`), read as sentence breaks by :mod:`neardup.ingest.sentences`.
* :mod:`~neardup.ingest.extract.limits`: the size limit (:class:`DocumentTooLarge`) and the
  per-document deadline (:class:`ExtractTimeout`).
* :mod:`~neardup.ingest.extract.simplified`: Traditional → Simplified Chinese
  (:func:`to_simplified`, OpenCC ``t2s``, loaded on first use).
* :mod:`~neardup.ingest.extract.optional`: the libraries only some inputs need, loaded on
  first use (a missing one named with its install command).
"""

from __future__ import annotations

from neardup.ingest.extract.blocks import BLOCK_BREAK
from neardup.ingest.extract.charset import decode_html
from neardup.ingest.extract.content import (
    LINK_DENSITY,
    MIN_CONTENT_CHARS,
    MIN_CONTENT_SHARE,
    ExtractedText,
    extract_text,
    extract_texts,
)
from neardup.ingest.extract.document import MARKUP_FIELDS, document_text, document_texts
from neardup.ingest.extract.limits import DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT
from neardup.ingest.extract.markup import markdown_text, rst_text
from neardup.ingest.extract.simplified import to_simplified

__all__ = [
    "BLOCK_BREAK",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_TIMEOUT",
    "LINK_DENSITY",
    "MARKUP_FIELDS",
    "MIN_CONTENT_CHARS",
    "MIN_CONTENT_SHARE",
    "ExtractedText",
    "decode_html",
    "document_text",
    "document_texts",
    "extract_text",
    "extract_texts",
    "markdown_text",
    "rst_text",
    "to_simplified",
]
