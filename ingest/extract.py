"""HTML → text (first stage of step 1). Minimal version; the full extractor replaces it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import lxml.html


def extract_text(html: str | bytes) -> str:
    """Visible text of an HTML document, one line per block."""
    if not html or not (html.strip() if isinstance(html, str) else html.strip()):
        return ""
    root = lxml.html.fromstring(html)
    for el in root.xpath("//script|//style|//noscript"):
        el.drop_tree()
    return "\n".join(t.strip() for t in root.itertext() if t.strip())


def document_text(doc: Mapping[str, Any]) -> str:
    """The text of a JSONL document: its ``text`` field, else its ``html`` extracted."""
    if doc.get("text") is not None:
        return str(doc["text"])
    if doc.get("html") is not None:
        return extract_text(doc["html"])
    raise ValueError("document has neither 'text' nor 'html'")
