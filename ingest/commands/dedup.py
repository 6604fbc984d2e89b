"""``neardup dedup INPUT [-o OUT.jsonl] [--backend embedded|opensearch] [--profile web|precise|short]``

The whole method on a file (the command-line contract of the README). Output: one JSON object per input line, in
input order — ``{"id", "dup_group", "dup_of", "resemble", "contain"}``, or ``{"id", "line",
"error", "type"}`` for a bad document (its line in the input, the error's kind: docs/limits.md). Exit 0 when the run completed (even with per-document errors), 2 on usage
errors.

INPUT may be a WARC or WET file (``.warc``, ``.warc.gz``, ``.wet.gz``; told by its content):
one object per page record, in file order, keeping the record's id and URL — ``{"id", "url",
"dup_group", ...}``, ``{"id", "url", "offset", "error", "type"}`` for a record in error —
and the summary counts the records skipped, by kind (docs/crawl.md).

* ``embedded`` (default): no servers (:mod:`neardup.ingest.dedup`). Extraction and
  fingerprinting run in a process pool, verification too. Site chrome is masked from
  plain-text pages first (docs/chrome.md): a counting pass reads the input once (stdin is
  spooled to a temporary file for it), then each ``text``/``rst``/``markdown`` page is
  fingerprinted and verified without the lines that at least ``--chrome-min-pages`` pages of
  its site carry (``--no-chrome``: as they are).
* ``opensearch``: through the real stack — the documents are ingested into a fresh index
  (``--index``; deleted afterwards unless ``--keep-index``), verified by Celery workers, and
  read back. Workers must be running on the queue (``neardup worker``), or pass
  ``--start-workers N`` to start N worker processes for the run. The pages are masked as for
  ``embedded`` (the workers verify the masked ``content`` they are staged with).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from typing import Any

from neardup.ingest.candidates import CandidateIndex
from neardup.ingest.chrome import ChromeCounts
from neardup.ingest.chrome_pass import KeptHashes, chrome_counts_keeping_hashes
from neardup.ingest.cli import command_parser, existing_input, usage_error
from neardup.ingest.commands.chrome_args import add_chrome_arguments, chrome_rule
from neardup.ingest.commands.progress import progress_bar
from neardup.ingest.crawl import CrawlStats, input_format
from neardup.ingest.dedup import (
    DEFAULT_K,
    CandidateLists,
    DiskTexts,
    dedup_embedded,
    spool_texts,
)
from neardup.ingest.jsoncodec import dumps_str
from neardup.ingest.pipeline import (
    Prepared,
    fingerprint_config,
    prepare_lines,
    read_lines,
)
from neardup.ingest.records import Limits
from neardup.ingest.settings import Settings

__all__ = ["add_parser", "result_line", "run"]


def add_parser(sub: Any) -> None:
    p = command_parser(sub, "dedup", __doc__)
    p.add_argument(
        "input", help="JSONL (id, html or text, optional url/site/title), or a WARC or WET file "
        "('-' = stdin)",
    )
    p.add_argument(
        "--id", dest="id_from", choices=("record", "url"), default="record",
        help="WARC/WET input: a page's id is its WARC-Record-ID (default) or its URL",
    )
    p.add_argument("-o", "--output", default="-", help="output JSONL (default stdout)")
    p.add_argument("--backend", choices=("embedded", "opensearch"), default="embedded")
    p.add_argument("--profile", choices=("web", "precise", "short"), default="web")
    p.add_argument("-k", "--candidates", type=int, default=DEFAULT_K, help="top-k candidates")
    p.add_argument(
        "-j", "--processes", type=int, default=os.cpu_count() or 1, help="embedded: processes"
    )
    p.add_argument("--index", help="opensearch: index to use (default: a fresh temporary one)")
    p.add_argument("--keep-index", action="store_true", help="opensearch: keep the index")
    p.add_argument(
        "--start-workers", type=int, default=0, metavar="N",
        help="opensearch: start N worker processes for this run",
    )
    p.add_argument("--timeout", type=float, default=3600, help="opensearch: max wait (s)")
    add_chrome_arguments(p)
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.set_defaults(func=run)


def result_line(p: Prepared, groups: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The output object of one input line (of a WARC record: with its URL, and its offset
    when in error)."""
    crawl = p.offset is not None
    if p.error is not None or p.id not in groups:
        where: dict[str, Any] = {"url": p.url, "offset": p.offset} if crawl else {"line": p.line_no}
        return {"id": p.id, **where, "error": p.error or "not grouped",
                "type": p.error_type or "not_grouped"}
    return {"id": p.id, "url": p.url, **groups[p.id]} if crawl else {"id": p.id, **groups[p.id]}


def run(args: argparse.Namespace, settings: Settings) -> int:

    if args.candidates < 1 or args.processes < 1:
        print("neardup dedup: -k and -j must be >= 1", file=sys.stderr)
        return 2
    try:
        rule = chrome_rule(args, "dedup")
        existing_input(args.input)
        config = fingerprint_config(args.profile)
        crawl = input_format(args.input) == "warc"
    except ValueError as exc:
        return usage_error("dedup", exc)
    stats = CrawlStats()
    limits = Limits.from_settings(settings)
    progress = progress_bar(args)
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    source = args.input
    spooled: str | None = None
    chrome: ChromeCounts | None = None
    kept: KeptHashes | None = None
    try:
        if rule is not None:
            # Two passes: the chrome counts are over the whole input before any page is
            # prepared, so a page is masked alike wherever it is in the input and whatever -j;
            # the engine path hands the masked pages to the workers (their `content`), so the
            # two backends group alike.
            if source == "-":
                spooled = source = spool_stdin()
            # the lines' hashes the counting takes are kept for the masking (on disk)
            chrome, kept = chrome_counts_keeping_hashes(source, rule, limits, args.processes)
            timings["chrome_s"] = time.perf_counter() - t0
        # embedded, a page's one text kept is the one compared (DiskTexts)
        lines = prepare_lines(read_lines(source, limits, id_from=args.id_from, stats=stats),
                              config, processes=args.processes, limits=limits, chrome=chrome,
                              kept=kept, verified_only=args.backend == "embedded")
        del chrome  # held by the preparing pass alone: gone with it, before the verifiers fork
        prepared, groups = _group(args, settings, lines, progress, timings, t0, kept)
    finally:
        if kept is not None:
            kept.close()
        if spooled is not None:
            os.unlink(spooled)
    out = sys.stdout if args.output == "-" else open(args.output, "w", encoding="utf-8")
    try:
        for p in prepared:
            out.write(dumps_str(result_line(p, groups)) + "\n")
    finally:
        if out is not sys.stdout:
            out.close()
    errors = sum(1 for p in prepared if not p.ok)
    summary: dict[str, Any] = {"documents": len(prepared), "errors": errors,
                               "groups": _n_groups(groups)}
    if crawl:
        cut = stats.cut_message(args.input)
        if cut is not None:
            print(f"neardup dedup: {cut}", file=sys.stderr)
        summary["warc"] = stats.summary()
    summary["timings"] = {k: round(v, 3) for k, v in timings.items()}
    print(json.dumps(summary), file=sys.stderr)
    return 0


def spool_stdin() -> str:
    """Standard input copied to a temporary file (the counting pass reads the input first)."""
    fd, path = tempfile.mkstemp(prefix="neardup-dedup-", suffix=".jsonl")
    try:
        with os.fdopen(fd, "wb") as f:
            shutil.copyfileobj(sys.stdin.buffer, f, 1 << 20)
    except BaseException:
        os.unlink(path)
        raise
    return path


def _group(
    args: argparse.Namespace, settings: Settings, lines: Iterator[Prepared], progress: Any,
    timings: dict[str, float], t0: float, kept: KeptHashes | None = None,
) -> tuple[list[Prepared], dict[str, dict[str, Any]]]:
    """The prepared pages, read from ``lines``, and their groups on the chosen backend
    (``kept``: the counting pass's hashes, closed once every page is prepared)."""
    # Embedded: the texts go to disk as they come (only fingerprints and group state stay in
    # memory, so a crawl of millions of pages fits); the engine path hands whole documents on.
    texts = DiskTexts() if args.backend == "embedded" else None
    earlier: CandidateLists | None = None
    index: CandidateIndex | None = None
    if texts is not None:
        earlier = CandidateLists(texts.ordinal)
        index = CandidateIndex(args.candidates)
        lines = spool_texts(lines, texts, index, earlier)
    if texts is None:
        # The engine path is a lazy door like the CLI's: the embedded default never loads an
        # engine client or a broker. It hands the pages on as they are prepared (the index
        # keeps them) and keeps each line's outcome without its text.
        engine = importlib.import_module("neardup.ingest.commands.ingest")
        outcomes: list[Prepared]
        outcomes, groups = engine.dedup_via_opensearch(
            progress(lines, desc="fingerprint"), args, progress, settings)
        return outcomes, groups
    prepared = list(progress(lines, desc="fingerprint"))
    if kept is not None:
        kept.close()
    if index is not None:
        index.close()  # every candidate is taken: its memory goes before the verifiers fork
    timings["fingerprint_s"] = time.perf_counter() - t0 - timings.get("chrome_s", 0.0)
    with texts:
        groups = dedup_embedded(
            prepared, args.profile, k=args.candidates, processes=args.processes,
            progress=progress, timings=timings, texts=texts, earlier=earlier,
        )
    return prepared, groups


def _n_groups(groups: dict[str, dict[str, Any]]) -> int:
    return len({g["dup_group"] for g in groups.values()})
