"""Traditional → Simplified Chinese (``to_simplified=True``): OpenCC ``t2s`` via
opencc-python-reimplemented, imported on first use."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

__all__ = ["t2s_converter", "to_simplified"]


@lru_cache(maxsize=1)
def t2s_converter() -> Any:
    """OpenCC's ``t2s`` converter (its ``convert(text)``), built on first use."""
    try:
        import opencc
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "Traditional→Simplified conversion needs opencc-python-reimplemented "
            "(pip install 'neardup[eval]')"
        ) from exc
    return opencc.OpenCC("t2s")


def to_simplified(text: str) -> str:
    """Traditional → Simplified Chinese (OpenCC ``t2s``)."""
    return str(t2s_converter().convert(text))
