"""Peak memory of ``neardup.dedup`` on plain strings from a generator against ``neardup dedup``
on the same pages, and whether their groups are the same.

    python bench/api_memory.py [--pages 100000,1000000] [--seed 1] [-j 2] [--keep DIR]

The pages are short plain-text pages (two or three paragraphs of 10-30 pseudo-words each, ~250
bytes), a third of them edited copies of an earlier page (a word in 20 changed, some with a
line added), made by :func:`short_pages`, a seeded generator that holds nothing: each page is a
function of ``(seed, position)``. Per size, each side runs as its own process:

* **API**: ``neardup.dedup(short_pages(n, seed), processes=J)`` reads the pages from the
  generator and writes each result as a JSONL line as it iterates;
* **CLI**: ``neardup dedup FILE -o OUT -j J --no-progress`` on the same pages written as JSONL,
  ``{"id": i, "text": page}`` (a plain string's id is its position).

Printed per size: each side's peak resident set size (``ru_maxrss`` from ``wait4``: the largest
process of its run, the parent or a pool process), wall and CPU seconds, the API's peak over the
CLI's, and whether every page has the same ``dup_group`` on both sides (the same partition, the
same group ids), with the number of groups and how many pages have the same ``dup_of``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import string
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _partition import neardup_command, read_jsonl, work_dir  # noqa: E402

VOCABULARY = 20_000
COPY_SHARE = 1 / 3


def _vocabulary(seed: int) -> list[str]:
    rng = random.Random(f"{seed}-words")
    return ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(2, 10)))
            for _ in range(VOCABULARY)]


def _page(words: list[str], cum: list[float], seed: int, i: int) -> str:
    rng = random.Random(f"{seed}-{i}")
    if i > 0 and rng.random() < COPY_SHARE:
        source = rng.randrange(max(0, i - 5000), i)  # mostly a recent page, copies of copies too
        lines = _page(words, cum, seed, source).split("\n")
        edited = []
        for line in lines:
            w = line.split(" ")
            for _ in range(len(w) // 20):
                w[rng.randrange(len(w))] = rng.choice(words)
            edited.append(" ".join(w))
        if rng.random() < 0.3:
            edited.insert(rng.randrange(len(edited) + 1),
                          " ".join(rng.choices(words, cum_weights=cum, k=8)).capitalize() + ".")
        return "\n".join(edited)
    return "\n".join(" ".join(rng.choices(words, cum_weights=cum, k=rng.randint(10, 30))).capitalize()
                     + "." for _ in range(rng.randint(2, 3)))


def short_pages(n: int, seed: int = 1) -> Iterator[str]:
    """``n`` short plain-text pages, the same for a seed, made one at a time."""
    words = _vocabulary(seed)
    cum = list(itertools.accumulate(1 / (r + 10) for r in range(len(words))))  # Zipf-like
    for i in range(n):
        yield _page(words, cum, seed, i)


def _api_child(n: int, seed: int, processes: int, out: Path) -> None:
    import neardup  # noqa: PLC0415 - the child alone loads it: the parent is not measured

    with open(out, "w", encoding="utf-8") as f:
        for g in neardup.dedup(short_pages(n, seed), processes=processes):
            f.write(json.dumps({"id": g.id, "dup_group": g.dup_group, "dup_of": g.dup_of,
                                "error": g.error}) + "\n")


def _measure(cmd: list[str], cwd: Path) -> dict[str, float]:
    """Peak RSS (MB) of the largest process of the run, wall and CPU seconds."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{cmd[:3]} failed: {err.decode()[-3000:]}")
    return {"rss_mb": usage.ru_maxrss / 1024, "wall_s": time.perf_counter() - t0,
            "cpu_s": usage.ru_utime + usage.ru_stime}


def _compare(api_out: Path, cli_out: Path) -> dict[str, Any]:
    cli = {r["id"]: (r.get("dup_group"), r.get("dup_of")) for r in read_jsonl(cli_out)}
    same_group = same_of = n = errors = 0
    for r in read_jsonl(api_out):
        n += 1
        errors += r["error"] is not None
        want = cli.get(r["id"])
        same_group += want is not None and want[0] == r["dup_group"]
        same_of += want is not None and want[1] == r["dup_of"]
    return {"pages": n, "errors": errors, "groups": len({g for g, _ in cli.values()}),
            "same_groups": n == len(cli) == same_group, "same_dup_of": same_of}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", default="100000", help="comma list of corpus sizes")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-j", "--processes", type=int, default=2)
    ap.add_argument("--keep", type=Path, help="keep corpora and outputs in this directory")
    ap.add_argument("--api-child", nargs=2, metavar=("N", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.api_child:
        _api_child(int(args.api_child[0]), args.seed, args.processes, Path(args.api_child[1]))
        return 0

    work, tmp = work_dir(args.keep, "neardup-api-memory-")
    try:
        print("| pages | input MB | API peak RSS MB | CLI peak RSS MB | API / CLI | API wall (CPU) s "
              "| CLI wall (CPU) s | groups | same dup_group | same dup_of |", flush=True)
        print("|---|---|---|---|---|---|---|---|---|---|", flush=True)
        for n in sorted(int(x) for x in args.pages.split(",")):
            src = work / f"pages-{n}.jsonl"
            with open(src, "w", encoding="utf-8") as f:
                for i, text in enumerate(short_pages(n, args.seed)):
                    f.write(json.dumps({"id": i, "text": text}, ensure_ascii=False) + "\n")
            api_out, cli_out = work / f"api-{n}.jsonl", work / f"cli-{n}.jsonl"
            api = _measure([sys.executable, str(Path(__file__).resolve()), "--seed",
                            str(args.seed), "-j", str(args.processes), "--api-child", str(n),
                            str(api_out)], work)
            cli = _measure([*neardup_command(), "dedup", str(src), "-o", str(cli_out),
                            "-j", str(args.processes), "--no-progress"], work)
            c = _compare(api_out, cli_out)
            print(f"| {n:,} | {src.stat().st_size / 1e6:.0f} | {api['rss_mb']:,.0f} | "
                  f"{cli['rss_mb']:,.0f} | {api['rss_mb'] / cli['rss_mb']:.2f}× | "
                  f"{api['wall_s']:.1f} ({api['cpu_s']:.1f}) | {cli['wall_s']:.1f} "
                  f"({cli['cpu_s']:.1f}) | {c['groups']:,} | {c['same_groups']} | "
                  f"{c['same_dup_of']:,} of {c['pages']:,} |", flush=True)
    finally:
        if tmp is not None:
            tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
