"""Traditional → Simplified Chinese (``to_simplified=True``): OpenCC ``t2s`` via
opencc-python-reimplemented, imported on first use."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from neardup.ingest.extract.optional import optional_import

__all__ = ["t2s_converter", "to_simplified"]


@lru_cache(maxsize=1)
def t2s_converter() -> Any:
    """OpenCC's ``t2s`` converter (its ``convert(text)``), built on first use."""
    opencc = optional_import(
        "opencc", "Traditional→Simplified conversion", "opencc-python-reimplemented",
        "'neardup[eval]'",
    )
    return opencc.OpenCC("t2s")


def to_simplified(text: str) -> str:
    """Traditional → Simplified Chinese (OpenCC ``t2s``)."""
    return str(t2s_converter().convert(text))
