"""The verifier against rapidfuzz over a grid of pairs: edit density × length × script.

    python bench/verify_sweep.py [--lengths 1000,5000,20000,100000] [--densities 0,1,3,10,20]
                                 [--scripts latin,cjk] [--budget 0.2] [--repeat 2] [--seed 0]

Every point of the grid is a set of generated pairs of one script (Latin: the Python
documentation prose that ships with CPython; CJK: People's Daily, January 1998, from
``../shared/data``) and one length in characters:

- ``near`` at density d: B is A with d % of its characters edited at scattered positions
  (single-character substitutions, insertions and deletions in equal parts) and two
  paragraphs moved elsewhere (from d = 1 %; d = 0 % is the same text);
- ``non``: two different articles of that length and script (no shared template: what
  candidates that share a few sentences look like after the fingerprints let them through).

On each point ``neardup.verifier.compare`` (skeleton, Myers O(ND) with the matching blocks, TLCS, the
content decision) and ``rapidfuzz.distance.LCSseq.similarity`` (the LCS length only,
bit-parallel) run on the same pairs, on one core, taking turns, in CPU time of the process
(best of ``--repeat`` rounds; each round runs each function over the pairs at least
``--budget`` seconds). The grid printed is compare's speed over rapidfuzz's (higher is
better; ≥ 5 is the goal); ``--detail`` adds the pairs/s of both sides and the verdicts.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _pairs import load_paragraphs  # noqa: E402
from rapidfuzz.distance import LCSseq  # noqa: E402

from neardup.verifier.compare import DEFAULT_CONFIG, compare  # noqa: E402
from neardup.verifier.lcs import implementation  # noqa: E402

LATIN_EDITS = "etaoinshrdlucmfwypvbgkqjxz0123456789"
CJK_EDITS = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处理府研"


def _articles(script: str, rng: random.Random, paras: list[str], n_chars: int) -> list[str]:
    out: list[str] = []
    size = 0
    while size < n_chars:
        p = rng.choice(paras)
        out.append(p[: n_chars - size] if size + len(p) > n_chars else p)
        size += len(out[-1]) + 1
    return out


def _edit(text: str, rate: float, rng: random.Random, pool: str) -> str:
    """``rate`` of the characters edited at scattered positions, one character per edit."""
    chars = list(text)
    for _ in range(int(len(text) * rate)):
        pos = rng.randrange(len(chars) or 1)
        kind = rng.randrange(3)
        if kind == 0 and chars:
            chars[pos] = rng.choice(pool)
        elif kind == 1 and chars:
            del chars[pos]
        else:
            chars.insert(pos, rng.choice(pool))
    return "".join(chars)


def _move_paragraphs(paras: list[str], moves: int, rng: random.Random) -> list[str]:
    out = list(paras)
    for _ in range(moves if len(out) > 2 else 0):
        p = out.pop(rng.randrange(len(out)))
        out.insert(rng.randrange(len(out) + 1), p)
    return out


def make_pairs(
    kind: str, script: str, n_chars: int, density: float, count: int, seed: int,
    corpus: dict[str, list[str]],
) -> list[tuple[str, str]]:
    rng = random.Random(f"{seed}-{kind}-{script}-{n_chars}-{density}")
    paras, pool = corpus[script], (LATIN_EDITS if script == "latin" else CJK_EDITS)
    pairs = []
    for _ in range(count):
        base = _articles(script, rng, paras, n_chars)
        if kind == "non":
            other = _articles(script, rng, paras, n_chars)
            pairs.append(("\n".join(base), "\n".join(other)))
            continue
        moved = _move_paragraphs(base, 2 if density > 0 else 0, rng)
        pairs.append(("\n".join(base), _edit("\n".join(moved), density / 100, rng, pool)))
    return pairs


def rates(fns: list[Callable[[str, str], object]], pairs: list[tuple[str, str]],
          repeat: int, budget: float) -> list[float]:
    """Pairs per second of each function (best of ``repeat`` rounds, taking turns; a round
    runs the pairs at least ``budget`` CPU seconds)."""
    best = [0.0] * len(fns)
    for _ in range(repeat):
        for k, fn in enumerate(fns):
            done = 0
            start = time.process_time()
            while True:
                for a, b in pairs:
                    fn(a, b)
                done += len(pairs)
                elapsed = time.process_time() - start
                if elapsed >= budget:
                    break
            best[k] = max(best[k], done / elapsed)
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lengths", default="1000,5000,20000,100000")
    ap.add_argument("--densities", default="0,1,3,10,20", help="percent of characters edited")
    ap.add_argument("--scripts", default="latin,cjk")
    ap.add_argument("--pairs", type=int, default=6, help="distinct pairs per point")
    ap.add_argument("--budget", type=float, default=0.2, help="CPU seconds per function per round")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--detail", action="store_true", help="print every point as it is measured")
    args = ap.parse_args(argv)

    implementation("cython")  # fails loudly when the extension is not built
    lengths = [int(x) for x in args.lengths.split(",")]
    densities = [float(x) for x in args.densities.split(",")]
    scripts = args.scripts.split(",")
    zh, en = load_paragraphs()
    corpus = {"cjk": zh, "latin": en}
    print(f"config: {DEFAULT_CONFIG}")
    columns = [f"near {d:g}%" for d in densities] + ["non"]
    grid: dict[tuple[str, int], list[float]] = {}
    for script in scripts:
        for n in lengths:
            row = []
            for col, (kind, d) in enumerate([("near", d) for d in densities] + [("non", 0.0)]):
                pairs = make_pairs(kind, script, n, d, args.pairs, args.seed, corpus)
                verdicts = [compare(a, b) for a, b in pairs]
                ours, theirs = rates([compare, LCSseq.similarity], pairs, args.repeat, args.budget)
                row.append(ours / theirs)
                if args.detail:
                    similar = sum(v.similar for v in verdicts)
                    reasons = sorted({v.reason for v in verdicts})
                    print(f"  {script:<6}{n:>7} {columns[col]:<9} compare/s {ours:10.1f}  "
                          f"rapidfuzz/s {theirs:10.1f}  ratio {ours / theirs:6.2f}x  "
                          f"similar {similar}/{len(pairs)} {','.join(reasons)}", flush=True)
            grid[(script, n)] = row
    print("compare / rapidfuzz LCSseq.similarity (pairs/s ratio, one core):")
    print(f"{'script':<7}{'chars':>8}" + "".join(f"{c:>10}" for c in columns))
    for (script, n), row in grid.items():
        print(f"{script:<7}{n:>8}" + "".join(f"{r:>9.1f}x" for r in row))
    worst = min(min(row) for row in grid.values())
    print(f"lowest ratio: {worst:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
