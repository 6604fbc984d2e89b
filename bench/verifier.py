"""Throughput of the verifier against rapidfuzz's LCS, on the same generated pairs.

    python bench/verifier.py [--pairs 300] [--python-pairs 10] [--seed 0] [--repeat 5] [--runs 1]

For near-duplicate and non-duplicate pairs (see bench/_pairs.py) this times, on one core:
``neardup.verifier.compare`` with the compiled implementation (skeleton, Myers O(ND), TLCS, verdict),
``rapidfuzz.distance.LCSseq.similarity`` (LCS length only, bit-parallel O(nm/64)) and the
pure-Python reference (fewer pairs). Each timing is the best of ``--repeat`` rounds in which
the functions take turns, measured in CPU time of the process (``time.process_time``: time
the process waits for a core on a busy machine is not counted). ``--runs N`` repeats the whole
measurement and adds, per kind, the median of the N runs with their range.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _pairs import PairGenerator  # noqa: E402
from rapidfuzz.distance import LCSseq  # noqa: E402

from neardup.verifier import _lcs_py  # noqa: E402
from neardup.verifier.compare import DEFAULT_CONFIG, compare  # noqa: E402
from neardup.verifier.lcs import implementation  # noqa: E402


def rates(
    fns: list[Callable[[str, str], object]], pairs: list[tuple[str, str]], repeat: int
) -> list[float]:
    """Pairs per second of each function, best of ``repeat`` rounds.

    The functions take turns within each round, so a busy neighbour on a shared machine slows
    all of them alike instead of skewing the ratio.
    """
    best = [float("inf")] * len(fns)
    for _ in range(repeat):
        for k, fn in enumerate(fns):
            start = time.process_time()
            for a, b in pairs:
                fn(a, b)
            best[k] = min(best[k], time.process_time() - start)
    return [len(pairs) / max(t, 1e-9) for t in best]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=300, help="pairs per kind")
    parser.add_argument("--python-pairs", type=int, default=10, help="pairs per kind for the reference")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--runs", type=int, default=1, help="repeat the measurement, report medians")
    args = parser.parse_args(argv)

    compiled = implementation("cython")  # fails loudly when the extension is not built
    gen = PairGenerator(seed=args.seed)
    print(f"implementation: {compiled.IMPLEMENTATION}; config: {DEFAULT_CONFIG}")
    header = (
        f"{'pairs':<6}{'n':>5}{'avg chars':>10}{'similar':>9}{'early rej':>10}"
        f"{'compare/s':>11}{'rapidfuzz/s':>13}{'ratio':>7}{'python/s':>10}"
    )
    print(header)
    print("-" * len(header))
    results: dict[str, list[tuple[float, float, float]]] = {"near": [], "non": []}
    data = {}
    for kind in ("near", "non"):
        pairs = [(p.a, p.b) for p in gen.pairs(args.pairs, kind)]
        verdicts = [compare(a, b) for a, b in pairs]
        # The reference must agree with the compiled twin on the pairs it is timed on (the
        # TLCS step; the verdict over word features on top of it is shared Python).
        few = pairs[: args.python_pairs]
        for a, b in few:
            ref = _lcs_py.verify(a, b, DEFAULT_CONFIG)
            assert ref == compiled.verify(a, b, DEFAULT_CONFIG), "implementations differ"
        data[kind] = (pairs, few, verdicts)
    for _ in range(args.runs):
        for kind, (pairs, few, verdicts) in data.items():
            ours, theirs = rates([compare, LCSseq.similarity], pairs, args.repeat)
            (python,) = rates([lambda a, b: _lcs_py.verify(a, b, DEFAULT_CONFIG)], few, 1)
            results[kind].append((ours, theirs, python))
            chars = sum(len(a) + len(b) for a, b in pairs) / (2 * len(pairs))
            similar = sum(v.similar for v in verdicts)
            early = sum(v.rejected_early for v in verdicts)
            print(
                f"{kind:<6}{len(pairs):>5}{chars:>10.0f}{similar:>9}{early:>10}"
                f"{ours:>11.0f}{theirs:>13.0f}{ours / theirs:>6.1f}x{python:>10.1f}"
            )
    if args.runs > 1:
        print(f"medians of {args.runs} runs [min-max]:")
        for kind, rows in results.items():
            ratios = [ours / theirs for ours, theirs, _ in rows]
            print(
                f"{kind:<6} compare/s {statistics.median(r[0] for r in rows):.0f}  "
                f"rapidfuzz/s {statistics.median(r[1] for r in rows):.0f}  "
                f"ratio {statistics.median(ratios):.1f}x [{min(ratios):.1f}-{max(ratios):.1f}]  "
                f"python/s {statistics.median(r[2] for r in rows):.1f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
