"""The compiled candidate index of ``neardup dedup`` against the dict rule, same run, one core.

    python bench/candidate_index.py [--pages 20000] [-k 20,200]

Two inputs, each given to both twins of the table (the compiled
``neardup.ingest._candidates.CandidateTable`` and the dict rule, its reference
``neardup.ingest._candidates_py.CandidateTable``) in ``(seq, id)`` order, answers compared:

* ``pipeline``: the fingerprints of the pipeline bench's corpus (``bench/pipeline.py``:
  near-duplicate groups of People's Daily articles; ~90 fingerprints a page, groups of 1-5);
* ``shared``: every page shares one fingerprint with all the others (a template sentence left
  in the main content), plus 3 of a pool of 200 and 5 of its own: thousands of candidates
  per page, of which the top ``k`` are returned.

Printed per input and ``k``: microseconds per ``add`` for each table, their ratio (dict / compiled),
and the Python heap the dict table holds against the compiled table's postings (6 bytes each).
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import sys
import time
import tracemalloc
from pathlib import Path
from types import SimpleNamespace
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _pipeline_corpus import bench_corpus  # noqa: E402

from neardup.ingest._candidates import CandidateTable  # noqa: E402
from neardup.ingest._candidates_py import CandidateTable as DictTable  # noqa: E402
from neardup.ingest.pipeline import fingerprint_config, prepare_lines  # noqa: E402


def pipeline_docs(n: int) -> list[Any]:
    lines = ((i, json.dumps(d, ensure_ascii=False).encode())
             for i, d in enumerate(bench_corpus(n), 1))
    docs = []
    for p in prepare_lines(lines, fingerprint_config("web")):
        if p.doc is not None:
            docs.append(SimpleNamespace(id=p.doc.id, seq=p.doc.seq, fp_config=p.doc.fp_config,
                                        fingerprints=p.doc.fingerprints))
    return docs


def shared_docs(n: int) -> list[Any]:
    rng = random.Random(7)

    def fp() -> str:
        return base64.urlsafe_b64encode(rng.randbytes(16)).rstrip(b"=").decode()

    common, pool = fp(), [fp() for _ in range(200)]
    return [SimpleNamespace(id=f"s{i:07d}", seq=i, fp_config="c",
                            fingerprints=[common, *rng.sample(pool, 3), *(fp() for _ in range(5))])
            for i in range(n)]


def timed(table: Any, docs: list[Any]) -> tuple[float, list[list[str]]]:
    t0 = time.perf_counter()
    out = [table.add(d) for d in docs]
    return time.perf_counter() - t0, out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", type=int, default=20000)
    ap.add_argument("-k", default="20,200", help="comma list of k")
    args = ap.parse_args(argv)
    inputs = {"pipeline": pipeline_docs(args.pages), "shared": shared_docs(args.pages)}
    print(f"{'input':>9}{'k':>5}{'dict us/add':>13}{'compiled':>10}{'ratio':>8}"
          f"{'dict heap MB':>14}{'postings MB':>13}", flush=True)
    for name, docs in inputs.items():
        for k in (int(x) for x in args.k.split(",")):
            dict_s, want = timed(DictTable(k), docs)
            tracemalloc.start()  # a second pass: tracing slows the allocations it counts
            dict_table = DictTable(k)
            for d in docs:
                dict_table.add(d)  # the answers are not kept: only the table is counted
            heap = tracemalloc.get_traced_memory()[0]
            tracemalloc.stop()
            del dict_table
            table = CandidateTable(k)
            comp_s, got = timed(table, docs)
            if got != want:
                print(f"{name} k={k}: the answers differ", file=sys.stderr)
                return 1
            n = len(docs)
            print(f"{name:>9}{k:>5}{1e6 * dict_s / n:>13.1f}{1e6 * comp_s / n:>10.1f}"
                  f"{dict_s / comp_s:>7.1f}x{heap / 1e6:>14.1f}{6 * table.postings / 1e6:>13.1f}",
                  flush=True)
            table.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
