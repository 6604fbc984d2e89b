"""``neardup search QUERY``: full-text search collapsed on ``dup_group``.

One hit per near-duplicate group — what a search user sees — with the group's other members
(``inner_hits``) listed under it. ``--json`` prints the raw hits.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ingest.settings import Settings
from ingest.store import open_store
from ingest.store.base import Store

__all__ = ["add_parser", "format_hits", "search"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "search",
        help="collapsed search: one hit per near-duplicate group",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("query", help="words to search for")
    p.add_argument("--size", type=int, default=10, help="groups to show")
    p.add_argument("--members", type=int, default=5, help="members shown per group")
    p.add_argument("--index", default=None, help="index (default $NEARDUP_INDEX or pages)")
    p.add_argument("--json", action="store_true", help="print the hits as JSON")
    p.set_defaults(func=run)


def search(store: Store, query: str, size: int = 10, members: int = 5) -> list[dict[str, Any]]:
    """Collapsed hits: ``[{"id", "dup_group", "score", "title", "url", "members": [...]}]``."""
    out = []
    for hit in store.collapsed_search(query, size=size, inner_hits_size=members):
        src = hit.get("_source", {})
        inner = hit.get("inner_hits", {}).get("members", {}).get("hits", {})
        total = inner.get("total", {})
        out.append(
            {
                "id": hit["_id"],
                "dup_group": src.get("dup_group"),
                "score": hit.get("_score"),
                "title": src.get("title"),
                "url": src.get("url"),
                "group_size": total.get("value") if isinstance(total, dict) else total,
                "members": [
                    {"id": m["_id"], **{k: m["_source"].get(k) for k in ("dup_of", "resemble",
                                                                         "contain", "url")}}
                    for m in inner.get("hits", [])
                ],
            }
        )
    return out


def format_hits(hits: list[dict[str, Any]]) -> str:
    lines = []
    for n, h in enumerate(hits, 1):
        label = h["title"] or h["url"] or h["id"]
        lines.append(f"{n}. {label}  [{h['id']}]  group {h['dup_group']} ({h['group_size']} pages)")
        for m in h["members"]:
            if m["id"] == h["id"]:
                continue
            rate = (
                f"resemble {m['resemble']:.2f} contain {m['contain']:.2f}"
                if m["resemble"] is not None
                else "representative"
            )
            lines.append(f"     - {m['id']}  ({rate})")
    return "\n".join(lines) if lines else "no hits"


def run(args: argparse.Namespace, settings: Settings) -> int:

    if args.size < 1:
        print("neardup search: --size must be >= 1", file=sys.stderr)
        return 2
    store = open_store("engine", settings, index=args.index)
    try:
        hits = search(store, args.query, args.size, args.members)
    finally:
        store.close()
    print(json.dumps(hits, ensure_ascii=False, indent=1) if args.json else format_hits(hits))
    return 0
