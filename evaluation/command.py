"""``neardup eval``: detection quality of every method side by side, on labelled data.

    neardup eval --dataset synthetic-zh [--split dev|test] [--methods all|lcs,simhash,...]
                 [--mode pairs|corpus] [--profile web|short] [--limit N] [--json OUT]
                 [--set theta=0.12 --set resemble=0.3 ...]
    neardup eval --make-dataset synthetic-zh-corpus [--split test] [--size N] -o FILE.jsonl
    neardup eval --list

``--list`` shows the built-in datasets, each marked available or not, with what a missing one
needs and how to get it. ``--dataset`` is a built-in name or a labelled JSONL file: pairs in the
``neardup compare`` format plus ``label`` (0/1) and optional ``kind``, or a corpus of documents
with ``id``, ``text``/``html``/``rst``/``markdown`` and ``group``. Bad lines are reported one by
one on stderr and left out. Output: an aligned text table on stdout (precision, recall, F1 of the duplicate class,
time), and the same as JSON with ``--json``. Progress on stderr.

Exit codes: 0 completed (even with per-line errors), 2 usage error, 1 data unavailable.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from neardup.evaluation import datasets, evaluate, webis
from neardup.ingest.chrome_pass import chrome_counts
from neardup.ingest.dedup import dedup_embedded
from neardup.ingest.errors import ConfigError
from neardup.ingest.pipeline import fingerprint_config, prepare_lines
from neardup.ingest.settings import Settings

__all__ = ["add_parser", "format_list", "run"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "eval",
        help="precision/recall of neardup and the baselines on labelled data",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--dataset", metavar="NAME|FILE", help="built-in dataset or labelled JSONL")
    what.add_argument("--make-dataset", metavar="NAME", help="write a built-in dataset (-o)")
    what.add_argument("--list", action="store_true", help="list the built-in datasets")
    p.add_argument("--split", choices=("dev", "test"), default="dev", help="built-in split")
    p.add_argument("--size", type=int, help="built-in size: pairs, or groups for a corpus")
    p.add_argument("--seed", type=int, help="generator seed (default: the split's own)")
    p.add_argument("-o", "--output", help="--make-dataset: output JSONL ('-' = stdout)")
    p.add_argument("--methods", default="all", help="'all' or a comma list (lcs = ours)")
    p.add_argument("--mode", choices=("pairs", "corpus"), help="default: from the dataset")
    p.add_argument("--profile", choices=("web", "precise", "short"), help="default: from the dataset")
    p.add_argument("--limit", type=int, help="use only the first N pairs / documents")
    p.add_argument("--json", metavar="OUT", help="also write the report as JSON ('-' = stdout)")
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a VerifyConfig field of our method (repeatable), e.g. theta=0.12",
    )
    p.add_argument(
        "--baseline-param",
        action="append",
        default=[],
        metavar="METHOD.KEY=VALUE",
        help="override a baseline parameter (repeatable), e.g. simhash.k=4",
    )
    p.add_argument("--no-kinds", action="store_true", help="omit the per-kind table")
    p.add_argument("--no-progress", action="store_true", help="no progress bars on stderr")
    p.set_defaults(func=run)


def format_list(settings: Settings) -> str:
    """``--list``: each built-in dataset, whether it can be built here, and if not what it
    lacks and how to get it."""
    lines = [f"{'dataset':22} {'mode':7} {'profile':7} {'available':9} description",
             f"{'-' * 22} {'-' * 7} {'-' * 7} {'-' * 9} {'-' * 11}"]  # fmt: skip
    for name, spec in datasets.DATASETS.items():
        missing = datasets.missing_sources(name, settings)
        lines.append(f"{name:22} {spec.mode:7} {spec.profile:7} {'no' if missing else 'yes':9} "
                     f"{spec.description}")  # fmt: skip
        lines.extend(f"{'':22}   needs {m}" for m in missing)
    return "\n".join(lines)


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _parse_sets(items: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--set expects KEY=VALUE, got {item!r}")
        out[key.strip()] = _value(value.strip())
    return out


def _parse_baseline_params(items: list[str]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for item in items:
        key, sep, value = item.partition("=")
        method, dot, param = key.partition(".")
        if not sep or not dot or not method or not param:
            raise ValueError(f"--baseline-param expects METHOD.KEY=VALUE, got {item!r}")
        out.setdefault(method.strip(), {})[param.strip()] = _value(value.strip())
    return out


def _usage(msg: str) -> int:
    print(f"neardup eval: {msg}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace, settings: Settings) -> int:

    if args.list:
        print(format_list(settings))
        return 0
    if args.size is not None and args.size < 1 or args.limit is not None and args.limit < 1:
        return _usage("--size and --limit must be >= 1")
    if args.make_dataset:
        if not args.output:
            return _usage("--make-dataset needs -o FILE.jsonl")
        try:
            records = datasets.build_dataset(args.make_dataset, args.split, args.size, args.seed)
        except ValueError as exc:
            return _usage(str(exc))
        except datasets.DatasetUnavailable as exc:
            print(f"neardup eval: {exc}", file=sys.stderr)
            return 1
        n = datasets.write_jsonl(records[: args.limit] if args.limit else records, args.output)
        print(f"wrote {n} records of {args.make_dataset} ({args.split})", file=sys.stderr)
        return 0

    try:
        methods = evaluate.resolve_methods(args.methods)
        overrides = _parse_sets(args.set)
        baseline_params = _parse_baseline_params(args.baseline_param)
        if overrides:
            evaluate.verify_config(args.profile or "web", overrides)  # validate early
    except (ValueError, TypeError) as exc:
        return _usage(str(exc))

    if args.dataset in webis.WEBIS_DATASETS:
        return _run_webis(args)
    errors: list[str] = []
    split: str | None = None
    if args.dataset in datasets.DATASETS:
        spec = datasets.DATASETS[args.dataset]
        split = args.split
        try:
            records = datasets.build_dataset(args.dataset, split, args.size, args.seed)
        except datasets.DatasetUnavailable as exc:
            print(f"neardup eval: {exc}", file=sys.stderr)
            return 1
        mode, profile = spec.mode, spec.profile
        name = args.dataset
    elif os.path.isfile(args.dataset):
        records, mode, errors = evaluate.load_jsonl(args.dataset)
        if args.mode and args.mode != mode:
            return _usage(f"{args.dataset} holds {mode}, not {args.mode}")
        for err in errors:
            print(f"neardup eval: {args.dataset}: {err}", file=sys.stderr)
        profile = "web"
        name = os.path.basename(args.dataset)
    else:
        known = ", ".join(datasets.DATASETS)
        return _usage(f"no such dataset or file: {args.dataset!r} (built-in: {known})")
    if args.mode and args.mode != mode:
        return _usage(f"dataset {name} is a {mode} set, not {args.mode}")
    profile = args.profile or profile
    if args.limit:
        records = records[: args.limit]
    progress = not args.no_progress and sys.stderr.isatty()
    run_fn = evaluate.evaluate_pairs if mode == "pairs" else evaluate.evaluate_corpus
    try:
        report = run_fn(
            records,
            methods,
            profile=profile,
            overrides=overrides,
            baseline_params=baseline_params,
            progress=progress,
            dataset=name,
            split=split,
        )
    except ConfigError as exc:
        return _usage(str(exc))
    report.errors = errors + report.errors
    print(evaluate.format_report(report, by_kind=not args.no_kinds))
    if args.json:
        _write_json(args.json, report.as_dict())
    return 0


def _dedup_groups(docs: Sequence[dict[str, Any]], profile: str) -> dict[str, str]:
    """``{id: dup_group}`` of ``neardup dedup``'s embedded grouping of ``docs`` (its site
    chrome rule included: the counts over ``docs``, then the pages prepared with them)."""
    lines = [(n, json.dumps(d, ensure_ascii=False)) for n, d in enumerate(docs, 1)]
    prepared = list(prepare_lines(lines, fingerprint_config(profile),
                                  chrome=chrome_counts(lines)))
    return {k: str(v["dup_group"]) for k, v in dedup_embedded(prepared, profile).items()}


def _run_webis(args: argparse.Namespace) -> int:
    """``--dataset webis-dev``: the human-judged report (:mod:`neardup.evaluation.webis`)."""
    if args.split != "dev":
        return _usage(f"{args.dataset} has a dev split only")
    try:
        records = datasets.build_dataset(args.dataset, "dev", args.size, args.seed)
    except datasets.DatasetUnavailable as exc:
        print(f"neardup eval: {exc}", file=sys.stderr)
        return 1
    if args.limit:
        records = records[: args.limit]
    out: dict[str, Any]
    if args.mode == "corpus":
        profile = args.profile or "web"
        corpus = webis.evaluate_webis_corpus(
            records, _dedup_groups, profile=profile, dataset=args.dataset
        )
        print(webis.format_corpus(corpus))
        out = corpus.as_dict()
    else:
        seed = args.seed or 0
        report = webis.evaluate_webis(
            records, seeds=range(seed, seed + 5), dataset=args.dataset
        )
        print(webis.format_webis(report))
        out = report.as_dict()
    if args.json:
        _write_json(args.json, out)
    return 0


def _write_json(path: str, report: dict[str, Any]) -> None:
    """``--json``: the report as JSON, to stdout for ``-``."""
    text = json.dumps(report, ensure_ascii=False, indent=1)
    if path == "-":
        print(text)
    else:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
