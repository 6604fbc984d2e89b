"""`neardup` console script: one sub-command per module in :mod:`ingest.commands`.

Each command module exposes ``add_parser(subparsers)`` (registers its arguments and sets
``func``) and is imported lazily by name, so a broken optional dependency of one command never
breaks the others.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys

COMMANDS = (
    "compare",
    "dedup",
    "ingest",
    "worker",
    "search",
    "stoplist",
    "serve",
    "eval",
    "dashboards",
    "templates",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="neardup",
        description="Near-duplicate web page detection (LCS / trustable LCS) for OpenSearch.",
    )
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"ingest.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"ingest.commands.{name}":
                continue  # command not part of this build
            raise
        module.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.WARNING - 10 * min(args.verbose, 2),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
