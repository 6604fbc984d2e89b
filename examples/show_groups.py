"""Print the groups of a `neardup dedup` run readably: ``show_groups.py INPUT.jsonl OUT.jsonl``."""

from __future__ import annotations

import json
import sys
from collections import defaultdict


def main(input_path: str, output_path: str) -> int:
    titles: dict[str, str] = {}
    with open(input_path, encoding="utf-8") as f:
        for line in f:
            try:
                doc = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(doc, dict) and isinstance(doc.get("id"), str):
                titles[doc["id"]] = doc.get("title") or doc.get("url") or ""
    groups: dict[str, list[dict]] = defaultdict(list)
    errors = []
    with open(output_path, encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if "error" in row:
                errors.append(row)
            else:
                groups[row["dup_group"]].append(row)
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
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
