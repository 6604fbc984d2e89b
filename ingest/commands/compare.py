"""``neardup compare PAIRS.jsonl [-o OUT.jsonl] [--profile P] [--single-region]``: verify given
pairs (steps 2-3 only).

Input, one JSON object per line: ``{"a": {"text"|"html": ...}, "b": {...}, ...}``; every other
key is passed through. Output, one object per input line in the same order: the passed-through
keys plus ``similar``, ``resemble``, ``contain``, ``tlcs``; a bad line gives ``{"line": n,
"error": "..."}`` (plus its pass-through keys when the line parsed) and the run goes on.
Exit status 0 when the run completed, 2 on usage errors (argparse, unreadable input).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any, TextIO

from ingest.settings import Settings
from verifier.compare import compare_documents
from verifier.config import PROFILES, VerifyConfig

log = logging.getLogger(__name__)


def add_parser(subparsers: Any) -> None:

    p = subparsers.add_parser(
        "compare",
        help="verify pairs of pages (TLCS resemble/contain rates)",
        description=__doc__.split("\n\n", 1)[1] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("pairs", metavar="PAIRS.jsonl", help="input pairs, '-' for stdin")
    p.add_argument("-o", "--output", metavar="OUT.jsonl", default="-", help="default: stdout")
    p.add_argument("--profile", choices=sorted(PROFILES), default="web", help="verifier parameters")
    p.add_argument(
        "--single-region",
        action="store_true",
        help="one trustable region per pair (the paper's TLCS) instead of the default iterative "
        "TLCS, which also matches reordered paragraphs",
    )
    # The iterative TLCS is the default now; the old switch is still accepted.
    p.add_argument("--iterative", action="store_true", help=argparse.SUPPRESS)
    p.set_defaults(func=run)


def compare_lines(lines: Iterator[str], config: Any) -> Iterator[dict[str, Any]]:
    """One output object per input line (blank lines included, as errors)."""

    for number, line in enumerate(lines, start=1):
        out: dict[str, Any] = {}
        try:
            pair = json.loads(line)
            if not isinstance(pair, dict):
                raise ValueError("a line must be a JSON object with 'a' and 'b'")
            out = {k: v for k, v in pair.items() if k not in ("a", "b")}
            a, b = pair.get("a"), pair.get("b")
            if not isinstance(a, dict) or not isinstance(b, dict):
                raise ValueError("'a' and 'b' must be objects with 'text' or 'html'")
            out.update(compare_documents(a, b, config).as_dict())
        except Exception as exc:  # noqa: BLE001 - a bad pair must not stop the run
            out["line"] = number
            out["error"] = f"{type(exc).__name__}: {exc}"
        yield out


def run(args: argparse.Namespace, settings: Settings) -> int:

    config = VerifyConfig.profile(args.profile)
    if args.single_region and args.iterative:
        print("neardup compare: --single-region and --iterative contradict each other", file=sys.stderr)
        return 2
    if args.single_region:
        config = config.replace(iterative=False)
    with ExitStack() as stack:
        try:
            src: TextIO = (
                sys.stdin
                if args.pairs == "-"
                else stack.enter_context(open(args.pairs, encoding="utf-8"))
            )
            dst: TextIO = (
                sys.stdout
                if args.output == "-"
                else stack.enter_context(open(args.output, "w", encoding="utf-8"))
            )
        except OSError as exc:
            print(f"neardup compare: {exc}", file=sys.stderr)
            return 2
        counts: Counter[str] = Counter()
        for out in compare_lines(iter(src), config):
            counts["error" if "error" in out else "similar" if out["similar"] else "different"] += 1
            dst.write(json.dumps(out, ensure_ascii=False) + "\n")
        log.info("compared %d pairs: %s (%s)", sum(counts.values()), dict(counts), config)
        if counts["error"]:
            print(f"neardup compare: {counts['error']} bad line(s), see 'error' fields", file=sys.stderr)
    return 0
