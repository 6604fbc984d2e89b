"""The text of a JSONL document, from whichever field carries it (:data:`MARKUP_FIELDS`):
``text`` as it is, ``html`` extracted (:mod:`~neardup.ingest.extract.html`, with its main content:
:mod:`~neardup.ingest.extract.content`), ``rst`` and ``markdown`` converted
(:mod:`~neardup.ingest.extract.markup`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from neardup.ingest.errors import EmptyDocument, ExtractError
from neardup.ingest.extract.charset import decode_html
from neardup.ingest.extract.content import ExtractedText, extract_texts
from neardup.ingest.extract.limits import DEFAULT_MAX_BYTES
from neardup.ingest.extract.markup import markdown_text, rst_text
from neardup.ingest.extract.simplified import to_simplified

__all__ = ["MARKUP_FIELDS", "document_text", "document_texts"]

# Fields of a JSONL document that may carry its content, in order of precedence.
MARKUP_FIELDS = ("text", "html", "rst", "markdown")


def document_text(doc: Mapping[str, Any], **options: Any) -> str:
    """The text of a JSONL document: the ``text`` of :func:`document_texts`, without looking
    for the main content of HTML."""
    return document_texts(doc, main_content=False, **options).text


def document_texts(doc: Mapping[str, Any], **options: Any) -> ExtractedText:
    """The text of a JSONL document and its main content (for HTML; otherwise the text
    itself), as a :class:`ExtractedText`.

    The document's first field of :data:`MARKUP_FIELDS` that is present is used: ``text`` as
    it is; ``html`` extracted (:func:`extract_texts`); ``rst`` (reStructuredText, e.g. Sphinx
    sources) and ``markdown`` are converted to plain text (:func:`rst_text`,
    :func:`markdown_text`). ``text``/``html`` may be ``str`` or ``bytes``; an optional
    ``content_type`` is the HTTP header hint for bytes. ``options`` go to
    :func:`extract_texts` (``max_bytes``, ``timeout``, ``to_simplified``, ``main_content``,
    ``template``; ``max_bytes`` and ``to_simplified`` also apply to ``rst``/``markdown``). Raises
    :class:`EmptyDocument` when there is no text, :class:`ExtractError` (or a subclass) when the
    content cannot be extracted; both carry the document's ``id``.
    """
    doc_id = doc.get("id")
    doc_id = None if doc_id is None else str(doc_id)
    text = doc.get("text")
    if text is not None:
        if isinstance(text, bytes):
            text = decode_html(text, doc.get("content_type"))  # same evidence, minus meta
        text = str(text)
        if options.get("to_simplified"):
            text = to_simplified(text)
    elif doc.get("html") is not None:
        html = doc["html"]
        if not isinstance(html, str | bytes):
            raise ExtractError(f"'html' must be a string, got {type(html).__name__}", doc_id)
        both = extract_texts(html, content_type=doc.get("content_type"), doc_id=doc_id, **options)
        if not both.text.strip():
            raise EmptyDocument("document has no text", doc_id)
        return both
    elif doc.get("rst") is not None or doc.get("markdown") is not None:
        key = "rst" if doc.get("rst") is not None else "markdown"
        source = doc[key]
        if isinstance(source, bytes):
            source = decode_html(source, doc.get("content_type"))
        if not isinstance(source, str):
            raise ExtractError(f"'{key}' must be a string, got {type(source).__name__}", doc_id)
        convert = rst_text if key == "rst" else markdown_text
        text = convert(source, max_bytes=options.get("max_bytes", DEFAULT_MAX_BYTES), doc_id=doc_id)
        if options.get("to_simplified") and text:
            text = to_simplified(text)
    else:
        raise EmptyDocument(
            "document has none of " + ", ".join(f"'{k}'" for k in MARKUP_FIELDS), doc_id
        )
    if not text.strip():
        raise EmptyDocument("document has no text", doc_id)
    return ExtractedText(text, text)

