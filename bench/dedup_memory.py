"""Peak memory and time per page of ``neardup dedup`` (embedded) as the input grows.

    python bench/dedup_memory.py [--pages 10000,100000,1000000] [--reference SRC]
                                 [-j 2] [--keep DIR]

For each size the corpus is generated as for the pipeline bench (``bench/pipeline.py``:
near-duplicate groups of People's Daily articles under site templates) and written to a JSONL
file, then ``neardup dedup FILE -o OUT`` runs as its own process. Printed per size: the input
size, the peak resident set size (``ru_maxrss`` from ``wait4``: the largest process of the
run, the parent or a forked worker), wall and CPU seconds, time per page and its ratio to the
smallest size's (goal ≤ 1.3, linear cost), and the RSS per page.

``--reference SRC`` also runs another checkout of the code (``PYTHONPATH=SRC/src``, its
compiled twins built in place, e.g. a worktree of ``main`` installed with ``pip install -e``)
on the smallest size and checks that both outputs are identical (same
groups, same scores), and reports its peak RSS for comparison.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from _pipeline_corpus import bench_corpus, write_jsonl  # noqa: E402


def run_dedup(src: Path, out: Path, processes: int, source: Path = ROOT) -> dict[str, float]:
    """Peak RSS (MB), wall and CPU seconds of one ``neardup dedup`` process: of the installed
    neardup, or of the checkout ``source``."""
    env = dict(os.environ) if source == ROOT else dict(os.environ, PYTHONPATH=str(source / "src"))
    cmd = [sys.executable, "-m", "neardup.ingest.cli", "dedup", str(src), "-o", str(out),
           "--no-progress", "-j", str(processes)]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=source, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"dedup failed: {err.decode()[-3000:]}")
    summary = json.loads(err.decode().strip().splitlines()[-1])
    return {"rss_mb": usage.ru_maxrss / 1024, "wall_s": wall,
            "cpu_s": usage.ru_utime + usage.ru_stime, "groups": summary["groups"]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", default="10000,100000", help="comma list of corpus sizes")
    ap.add_argument("--reference", type=Path, help="source tree of today's code to compare with")
    ap.add_argument("-j", "--processes", type=int, default=2)
    ap.add_argument("--keep", type=Path, help="keep corpora and outputs in this directory")
    args = ap.parse_args(argv)

    sizes = sorted(int(x) for x in args.pages.split(","))
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        print(f"{'pages':>9}{'input MB':>10}{'peak RSS MB':>13}{'wall s':>9}{'cpu s':>9}"
              f"{'ms/page':>9}{'vs first':>9}{'KB/page':>9}{'groups':>9}", flush=True)
        first = None
        for n in sizes:
            src = work / f"corpus-{n}.jsonl"
            if not src.exists():
                write_jsonl(src, bench_corpus(n))
            out = work / f"groups-{n}.jsonl"
            r = run_dedup(src, out, args.processes)
            per_page = 1000 * r["wall_s"] / n
            first = first or per_page
            print(f"{n:>9}{src.stat().st_size / 1e6:>10.0f}{r['rss_mb']:>13.0f}{r['wall_s']:>9.1f}"
                  f"{r['cpu_s']:>9.1f}{per_page:>9.3f}{per_page / first:>8.2f}x"
                  f"{1024 * r['rss_mb'] / n:>9.1f}{r['groups']:>9}", flush=True)
            if args.reference is not None and n == sizes[0]:
                ref_out = work / f"groups-{n}-reference.jsonl"
                ref = run_dedup(src, ref_out, args.processes, args.reference.resolve())
                same = ref_out.read_bytes() == out.read_bytes()
                print(f"{'':>9}reference ({args.reference}): peak RSS {ref['rss_mb']:.0f} MB, "
                      f"wall {ref['wall_s']:.1f}s; output identical: {same}", flush=True)
                if not same:
                    return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
