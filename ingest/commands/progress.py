"""Progress bars on stderr for the long-running commands (``dedup``, ``ingest``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable
from typing import Any

from tqdm import tqdm

__all__ = ["Progress", "progress_bar"]

Progress = Callable[..., Iterable[Any]]


def progress_bar(args: argparse.Namespace) -> Progress:
    """``wrap(iterable, desc, total=None)``: a tqdm bar on an interactive stderr, unless
    ``--no-progress``; the iterable unchanged otherwise."""
    quiet = getattr(args, "no_progress", False) or not sys.stderr.isatty()

    def wrap(it: Iterable[Any], desc: str, total: int | None = None) -> Iterable[Any]:
        if quiet:
            return it
        return tqdm(it, desc=desc, total=total, unit="doc", file=sys.stderr, leave=False)

    return wrap
