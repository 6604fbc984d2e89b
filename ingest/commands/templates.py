"""``neardup templates``: install or print the index templates (mappings/*.json)."""

from __future__ import annotations

import argparse
import json
import sys

from neardup.ingest.cli import command_parser
from neardup.ingest.settings import Settings
from neardup.ingest.store import open_store
from neardup.ingest.templates import TEMPLATE_FILES, render, template_names


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = command_parser(
        subparsers, "templates",
        "Versioned index templates: installed when missing or older than the files in "
        "mappings/ (see docs/opensearch.md).", as_written=False,
    )
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    sub.required = True
    for name, helptext in (
        ("install", "install the templates (and create the indices with --create-indices)"),
        ("show", "print the templates as they would be installed"),
    ):
        p = sub.add_parser(name, help=helptext)
        p.add_argument("--index", default=None, help="index name (default $NEARDUP_INDEX or pages)")
        p.add_argument("--shards", type=int, default=None, help="primary shards (default 1)")
        p.add_argument("--replicas", type=int, default=None, help="replicas (default 0)")
        if name == "install":
            p.add_argument(
                "--url", default=None, help="OpenSearch or Elasticsearch URL (default $OPENSEARCH_URL)"
            )
            p.add_argument("--force", action="store_true", help="put even if not newer")
            p.add_argument(
                "--create-indices", action="store_true", help="also create the indices if missing"
            )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    index = args.index or settings.index
    directory = settings.mappings_dir
    if args.action == "show":
        names = template_names(index)
        out = {
            names[stem]: render(stem, index, args.shards, args.replicas, directory)
            for stem in TEMPLATE_FILES
        }
        json.dump(out, sys.stdout, indent=2, ensure_ascii=False)
        print()
        return 0
    store = open_store(
        "engine", settings, url=args.url, index=index, shards=args.shards, replicas=args.replicas
    )
    done = store.install_templates(force=args.force)
    if args.create_indices:
        done.update(store.create_indices())
    for name, what in done.items():
        print(f"{name}\t{what}")
    return 0
