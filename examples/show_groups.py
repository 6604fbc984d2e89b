"""Print the groups of a `neardup dedup` run readably: ``show_groups.py INPUT.jsonl OUT.jsonl``.

For the sample pages (``sample_pages.jsonl``) it also says what the run should find — every
Python documentation page (HTML) grouped with its reST source, every man page with its
shortened mirror — and whether it did: exit status 1 when an expected pair is not grouped.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict


def expected_pairs(ids: list[str]) -> list[tuple[str, str]]:
    """The pairs the sample pages are made of: ``py/X.html`` with ``py/_sources/X.rst.txt``,
    ``man/zh_CN/X`` with ``man/mirror/X``."""
    known = set(ids)
    pairs = []
    for i in ids:
        if i.startswith("py/") and i.endswith(".html") and not i.startswith("py/_sources/"):
            twin = "py/_sources/" + i[len("py/"):-len(".html")] + ".rst.txt"
        elif i.startswith("man/zh_CN/"):
            twin = "man/mirror/" + i[len("man/zh_CN/"):]
        else:
            continue
        if twin in known:
            pairs.append((i, twin))
    return pairs


def main(input_path: str, output_path: str) -> int:
    titles: dict[str, str] = {}
    ids: list[str] = []
    with open(input_path, encoding="utf-8") as f:
        for line in f:
            try:
                doc = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(doc, dict) and isinstance(doc.get("id"), str):
                titles[doc["id"]] = doc.get("title") or doc.get("url") or ""
                ids.append(doc["id"])
    pairs = expected_pairs(ids)
    if pairs:
        html = sum(a.startswith("py/") for a, _ in pairs)
        print(f"Expected: {len(pairs)} groups of two — {html} Python doc pages (HTML) each with its "
              f"reST source, {len(pairs) - html} man pages each with its shortened mirror.\n")
    groups: dict[str, list[dict]] = defaultdict(list)
    group_of: dict[str, str] = {}
    errors = []
    with open(output_path, encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if "error" in row:
                errors.append(row)
            else:
                groups[row["dup_group"]].append(row)
                group_of[row["id"]] = row["dup_group"]
    multi = [g for g in groups.values() if len(g) > 1]
    print(f"{sum(map(len, groups.values()))} documents, {len(groups)} groups, "
          f"{len(multi)} with near-duplicates, {len(errors)} errors\n")
    for members in sorted(multi, key=len, reverse=True):
        rep = members[0]["dup_group"]
        print(f"group {rep}  {titles.get(rep, '')}")
        for m in members:
            if m["id"] == rep:
                continue
            rates = (f"resemble {m['resemble']:.2f} contain {m['contain']:.2f}"
                     if m["resemble"] is not None else "merged group")
            print(f"   ~ {m['id']}  {titles.get(m['id'], '')}  ({rates})")
        print()
    for e in errors:
        print(f"error: {e['id']}: {e['error']}")
    if not pairs:
        return 0
    missed = [(a, b) for a, b in pairs if a not in group_of or group_of.get(a) != group_of.get(b)]
    print(f"Found {len(pairs) - len(missed)} of the {len(pairs)} expected pairs.")
    for a, b in missed:
        print(f"   not grouped: {a}  and  {b}")
    return 1 if missed else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
