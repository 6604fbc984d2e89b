"""``neardup search QUERY``: full-text search, one hit per near-duplicate group.

One hit per near-duplicate group — what a search user sees — with the group's size (all its
pages, not only those matching the query) and its other members that match listed under it.
``--json`` prints the hits as JSON.

Two requests: the groups (the best hits of the query, the first of each group kept; the
engine's collapse when they hold too few groups), then one search of the shown groups' pages
for their sizes, matching counts, first matching members and the shown pages' fields
(docs/opensearch.md, "Collapsed search").

Only grouped pages are searched (a page is collapsed on its group, which a pending page does
not have yet). When nothing is found, the command says why: the index does not exist, is
empty, or holds pages still waiting for a worker.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from typing import Any

from neardup.ingest.cli import command_parser
from neardup.ingest.settings import Settings
from neardup.ingest.store import open_store
from neardup.ingest.store.roles import EngineReads
from neardup.ingest.workers.staging import BatchStaging

__all__ = ["add_parser", "explain_empty", "format_hits", "search"]


def add_parser(sub: Any) -> None:
    p = command_parser(sub, "search", __doc__)
    p.add_argument("query", help="words to search for")
    p.add_argument("--size", type=int, default=10, help="groups to show (default: %(default)s)")
    p.add_argument(
        "--members", type=int, default=5,
        help="matching members shown per group (default: %(default)s)",
    )
    p.add_argument("--index", default=None, help="index (default $NEARDUP_INDEX or pages)")
    p.add_argument("--json", action="store_true", help="print the hits as JSON")
    p.set_defaults(func=run)


def search(store: EngineReads, query: str, size: int = 10, members: int = 5) -> list[dict[str, Any]]:
    """Collapsed hits: ``[{"id", "dup_group", "score", "title", "url", "group_size",
    "matching", "members": [...]}]``. ``group_size`` counts every page of the group,
    ``matching`` those that match the query."""
    out = []
    top = store.top_groups(query, size=size)
    details = store.group_details(
        query, [t["dup_group"] for t in top], members, shown=[t["id"] for t in top]
    ) if top else {}
    for hit in top:
        group = hit["dup_group"]
        found = details.get(group, {})
        src = (found.get("hit") or {}).get("_source", {})
        matching = found.get("matching")
        out.append(
            {
                "id": hit["id"],
                "dup_group": group,
                "score": hit["score"],
                "title": src.get("title"),
                "url": src.get("url"),
                "group_size": found.get("size", matching),
                "matching": matching,
                "members": [
                    {"id": m["_id"], **{k: m["_source"].get(k) for k in ("dup_of", "resemble",
                                                                         "contain", "url")}}
                    for m in found.get("members", ())
                ],
            }
        )
    return out


def _pages(n: int) -> str:
    return f"{n} page" if n == 1 else f"{n} pages"


def format_hits(hits: list[dict[str, Any]]) -> str:
    lines = []
    for n, h in enumerate(hits, 1):
        label = h["title"] or h["url"] or h["id"]
        size, matching = h["group_size"], h.get("matching")
        count = _pages(size) if size is not None else "? pages"
        if matching is not None and size is not None and matching < size:
            count += f", {matching} matching"
        lines.append(f"{n}. {label}  [{h['id']}]  group {h['dup_group']} ({count})")
        for m in h["members"]:
            if m["id"] == h["id"]:
                continue
            rate = (
                f"resemble {m['resemble']:.2f} contain {m['contain']:.2f}"
                if m["resemble"] is not None
                else "representative"
            )
            lines.append(f"     - {m['id']}  ({rate})")
    return "\n".join(lines)


def explain_empty(
    query: str, index: str, url: str, overview: Mapping[str, Any] | None, undecided: int = 0
) -> str:
    """Why a search found nothing, from the index's :meth:`~neardup.ingest.store.roles.EngineReads.overview` (None: no index)
    and the number of pages accepted for it and not yet decided (``undecided``: they are
    indexed, with their groups, once a worker decides them).

    >>> explain_empty("q", "pages", "http://h:9200", None).splitlines()[0]
    "no hits: index 'pages' does not exist on http://h:9200"
    >>> explain_empty("q", "pages", "u", {"documents": 0, "status": {}}, undecided=3)
    "no hits: 3 pages accepted for 'pages' are not decided yet (a page is searchable once a worker has indexed it with its group): is a worker running? (neardup worker; neardup ingest --wait waits for them)"
    """
    waiting = (
        f"{_pages(undecided)} accepted for {index!r} {'is' if undecided == 1 else 'are'} not "
        "decided yet (a page is searchable once a worker has indexed it with its group): is a "
        "worker running? (neardup worker; neardup ingest --wait waits for them)"
    )
    if overview is None:
        return (
            f"no hits: index {index!r} does not exist on {url}\n"
            "  (ingest pages first: neardup ingest FILE.jsonl --wait; "
            "is OPENSEARCH_URL / NEARDUP_INDEX the one you ingested into?)"
        )
    total = int(overview.get("documents") or 0)
    if total == 0:
        if undecided:
            return f"no hits: {waiting}"
        return f"no hits: index {index!r} on {url} holds no pages yet"
    pending = int((overview.get("status") or {}).get("pending", 0))
    if pending:
        return (
            f"no hits: {pending} of the {_pages(total)} in {index!r} are still pending (not "
            "grouped yet, so not searchable): is a worker running? (neardup worker; "
            "neardup ingest --wait waits for them)"
        )
    if undecided:
        return (f"no hits: no page of the {_pages(total)} in {index!r} matches {query!r}; "
                f"{waiting}")
    return f"no hits: no grouped page of the {_pages(total)} in {index!r} matches {query!r}"


def _undecided(settings: Settings, index: str) -> int:
    """Pages accepted for ``index`` and not yet decided (0 when the broker cannot be asked)."""
    try:
        return BatchStaging.from_url(settings.broker_url, index).pending_count()
    except Exception:  # no broker: say what the index says
        return 0


def run(args: argparse.Namespace, settings: Settings) -> int:

    if args.size < 1:
        print("neardup search: --size must be >= 1", file=sys.stderr)
        return 2
    store = open_store("engine", settings, index=args.index)
    try:
        hits = search(store, args.query, args.size, args.members)
        if args.json:
            print(json.dumps(hits, ensure_ascii=False, indent=1))
        elif hits:
            print(format_hits(hits))
        else:
            index = args.index or settings.index
            print(explain_empty(args.query, index, settings.opensearch_url, store.overview(),
                                _undecided(settings, index)))
    finally:
        store.close()
    return 0
