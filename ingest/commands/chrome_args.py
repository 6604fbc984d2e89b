"""The site-chrome flags the commands share (docs/chrome.md): ``--no-chrome`` and
``--chrome-min-pages T``."""

from __future__ import annotations

import argparse

from neardup.ingest.chrome import DEFAULT_MIN_PAGES, ChromeRule

__all__ = ["add_chrome_arguments", "chrome_rule"]


def add_chrome_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-chrome", action="store_true",
        help="do not mask site chrome from plain-text pages (docs/chrome.md)",
    )
    parser.add_argument(
        "--chrome-min-pages", type=int, default=DEFAULT_MIN_PAGES, metavar="T",
        help="a line is chrome when at least T pages of its site carry it "
             f"(default {DEFAULT_MIN_PAGES}, at least 2)",
    )


def chrome_rule(args: argparse.Namespace, command: str) -> ChromeRule | None:
    """The rule the flags ask for (None: ``--no-chrome``); ``ValueError`` with the message for
    a threshold below 2."""
    if args.chrome_min_pages < 2:
        raise ValueError(f"neardup {command}: --chrome-min-pages must be >= 2")
    return None if args.no_chrome else ChromeRule(min_pages=args.chrome_min_pages)
