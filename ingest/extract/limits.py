"""The limits of one extraction: the input's size and the per-document deadline.

* **Size**: input larger than ``max_bytes`` (default ``NEARDUP_MAX_DOC_BYTES``, 8 MiB: the
  limit of docs/limits.md) raises :class:`DocumentTooLarge` before any work.
* **Deadline** (``timeout`` seconds, per document): enforced by checking the clock between
  stages (decode, parse, tree walk) and every few thousand elements during the walk, raising
  :class:`ExtractTimeout` once it has passed. lxml parses in C and cannot be interrupted from
  Python, so a single parse is never cut short; but parsing is linear and the size limit bounds
  it (a 10 MB page parses in well under a second), so the walk and decoding — where
  pathological pages spend their time — are what the deadline has to catch. A thread or process
  per document would cost more than the extraction itself on ordinary pages.
"""

from __future__ import annotations

import time

from neardup.ingest.errors import DocumentTooLarge, ExtractTimeout
from neardup.ingest.settings import Settings

__all__ = ["DEFAULT_MAX_BYTES", "DEFAULT_TIMEOUT", "check_deadline", "check_size", "deadline_after"]

DEFAULT_MAX_BYTES = Settings.max_doc_bytes  # one page limit on every path (docs/limits.md)
DEFAULT_TIMEOUT = 5.0


def check_size(source: str | bytes, max_bytes: int, doc_id: str | None) -> None:
    """Raise :class:`DocumentTooLarge` when ``source`` (UTF-8 for str) exceeds ``max_bytes``."""
    size = len(source) if isinstance(source, bytes) else _utf8_len(source, max_bytes)
    if size > max_bytes:
        raise DocumentTooLarge(
            f"document of {size} bytes exceeds the {max_bytes}-byte limit", doc_id
        )


def _utf8_len(text: str, limit: int) -> int:
    if len(text) * 4 <= limit:  # cannot exceed: skip the encode
        return len(text)
    return len(text.encode("utf-8", errors="surrogatepass"))


def deadline_after(timeout: float | None) -> float | None:
    """The clock time (:func:`time.monotonic`) ``timeout`` seconds from now; None for none."""
    return None if timeout is None else time.monotonic() + timeout


def check_deadline(deadline: float | None, doc_id: str | None, stage: str) -> None:
    """Raise :class:`ExtractTimeout` (naming ``stage``) once ``deadline`` has passed."""
    if deadline is not None and time.monotonic() > deadline:
        raise ExtractTimeout(f"extraction exceeded its deadline while {stage}", doc_id)
