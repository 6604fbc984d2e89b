"""The libraries only some inputs need (docutils for reStructuredText, markdown-it-py for
Markdown, OpenCC for Traditional Chinese): imported on first use, a missing one named with the
command that installs it."""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["optional_import"]


def optional_import(name: str, purpose: str, distribution: str, install: str = "") -> ModuleType:
    """The module ``name``, imported now; when it is missing, an ImportError that says what
    ``purpose`` needs and how to install it (``pip install`` ``install``, default the
    ``distribution``).

    >>> optional_import("json", "JSON", "json").__name__
    'json'
    >>> optional_import("nd_absent", "Reading X", "x-reader")
    Traceback (most recent call last):
    ...
    ImportError: Reading X needs x-reader (pip install x-reader)
    """
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise ImportError(
            f"{purpose} needs {distribution} (pip install {install or distribution})"
        ) from exc
