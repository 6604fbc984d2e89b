"""``neardup compare PAIRS.jsonl [-o OUT.jsonl] [--profile P] [--single-region]``: verify given
pairs (steps 2-3 only).

Input, one JSON object per line: ``{"a": {"text"|"html": ...}, "b": {...}, ...}``; every other
key is passed through. Output, one object per input line in the same order: the passed-through
keys plus ``similar``, ``resemble``, ``contain``, ``tlcs``; a bad line gives ``{"line": n,
"error": "...", "type": "..."}`` (plus its pass-through keys when the line parsed) and the run
goes on. Lines are read and each side validated by the input layer every command shares
(:mod:`neardup.ingest.records`, docs/limits.md). Exit status 0 when the run completed, 2 on usage
errors (argparse, unreadable input).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import ExitStack
from typing import IO, Any, TextIO

from neardup.ingest.cli import command_parser
from neardup.ingest.errors import DocumentError, InvalidField
from neardup.ingest.jsoncodec import dumps_str
from neardup.ingest.pairs import compare_documents
from neardup.ingest.records import (
    DEFAULT_LIMITS,
    Limits,
    decode_record,
    read_jsonl,
    validate_page,
)
from neardup.ingest.settings import Settings
from neardup.verifier.config import PROFILES, VerifyConfig

log = logging.getLogger(__name__)


def add_parser(subparsers: Any) -> None:

    p = command_parser(subparsers, "compare", __doc__.split("\n\n", 1)[1] if __doc__ else None)
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


def compare_lines(
    lines: Iterable[tuple[int, bytes | str | DocumentError]],
    config: Any,
    limits: Limits = DEFAULT_LIMITS,
) -> Iterator[dict[str, Any]]:
    """One output object per input line (blank lines included, as errors): ``lines`` are
    ``(line number, raw line)`` as :func:`neardup.ingest.records.read_jsonl` gives them."""

    for number, raw in lines:
        out: dict[str, Any] = {}
        try:
            if isinstance(raw, DocumentError):
                raise raw
            pair = decode_record(raw, limits)
            out = {k: v for k, v in pair.items() if k not in ("a", "b")}
            a, b = (_side(pair, name, limits) for name in ("a", "b"))
            out.update(compare_documents(a, b, config).as_dict())
        except DocumentError as exc:
            out.update(line=number, error=str(exc), type=exc.type)
        except Exception as exc:  # noqa: BLE001 - a verifier bug: one pair's failure, not the run's
            log.exception("pair on line %d", number)
            out.update(line=number, error=f"{type(exc).__name__}: {exc}", type="document_error")
        yield out


def _side(pair: dict[str, Any], name: str, limits: Limits) -> Any:
    side = pair.get(name)
    if not isinstance(side, dict):
        raise InvalidField(f"'{name}' must be an object with 'text', 'html', 'rst' or 'markdown'")
    try:
        return validate_page(side, limits, require_id=False)
    except DocumentError as exc:
        exc.message = f"'{name}': {exc.message}"
        raise


def run(args: argparse.Namespace, settings: Settings) -> int:

    config = VerifyConfig.profile(args.profile)
    if args.single_region and args.iterative:
        print("neardup compare: --single-region and --iterative contradict each other", file=sys.stderr)
        return 2
    if args.single_region:
        config = config.replace(iterative=False)
    limits = Limits.from_settings(settings)
    with ExitStack() as stack:
        try:
            src: IO[bytes] = (
                sys.stdin.buffer if args.pairs == "-" else stack.enter_context(open(args.pairs, "rb"))
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
        for out in compare_lines(read_jsonl(src, limits, skip_blank=False), config, limits):
            counts["error" if "error" in out else "similar" if out["similar"] else "different"] += 1
            dst.write(dumps_str(out) + "\n")
        log.info("compared %d pairs: %s (%s)", sum(counts.values()), dict(counts), config)
        if counts["error"]:
            print(f"neardup compare: {counts['error']} bad line(s), see 'error' fields", file=sys.stderr)
    return 0
