"""Whole-process ``neardup compare`` against a plain rapidfuzz script on the same JSONL.

    python bench/compare_process.py [--pairs 1500] [--edit-rate 0.2] [--repeat 3]
                                    [--startup-repeat 15] [--seed 0]

(a) Throughput: 1,500 near-duplicate and 1,500 non-duplicate pairs of ~5,400-character
    articles (English from the Python documentation prose that ships with CPython, Chinese
    from People's Daily, January 1998 in ``../shared/data``, and both mixed; a third of the
    pairs each). A near-duplicate's second page has scattered edits (runs of 1-3 characters
    substituted, inserted or deleted, ``--edit-rate`` of the characters; the median indel
    distance per pair is printed) and one paragraph moved; a non-duplicate is two different
    articles under one site template. Each class is one JSONL file; ``neardup compare FILE -o
    OUT`` runs as its own process, and so does the peer: a script that reads the same JSONL,
    calls ``rapidfuzz.distance.LCSseq.similarity`` on each pair and writes one JSON line per
    pair.
(b) Start-up: the same two processes on a file of one pair.

neardup's packages are byte-compiled first, where they are imported from, as ``pip install``
does: an editable install run with ``PYTHONDONTWRITEBYTECODE`` set never writes its ``.pyc``
files, and every ``neardup`` process then compiles its modules again (about 15 ms of a one-pair
run), which no installed copy pays. Both sides run with this interpreter, one process at a
time (one core each), taking turns;
the time is the child's CPU time (user + system, from ``wait4``: waiting for a core on a busy
machine is not counted), best of ``--repeat`` runs. Printed: seconds, pairs/s and the ratio
(rapidfuzz's time / neardup's: above 1, neardup is faster).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _pairs import load_paragraphs  # noqa: E402

PEER = """
import json, sys
from rapidfuzz.distance import LCSseq
with open(sys.argv[1], encoding="utf-8") as src, open(sys.argv[2], "w", encoding="utf-8") as dst:
    for line in src:
        pair = json.loads(line)
        a, b = pair["a"]["text"], pair["b"]["text"]
        common = LCSseq.similarity(a, b)
        dst.write(json.dumps({"lcs": common, "resemble": common / (len(a) + len(b) - common)}) + "\\n")
"""

EDITS = {"en": "etaoinshrdlucm0123456789", "zh": "的了是在和中国人民年月日一二三四五"}
NAV = ["首页", "新闻中心", "国内", "国际", "财经", "Home", "News", "About us", "Contact", "Login"]


class Articles:
    def __init__(self, seed: int, chars: int = 5400) -> None:
        self.rnd = random.Random(seed)
        self.zh, self.en = load_paragraphs()
        self.chars = chars

    def paragraphs(self, lang: str) -> list[str]:
        out: list[str] = []
        size = 0
        while size < self.chars:
            pick = lang if lang != "mixed" else self.rnd.choice(("zh", "en"))
            out.append(self.rnd.choice(self.zh if pick == "zh" else self.en))
            size += len(out[-1]) + 1
        return out

    def edit(self, text: str, rate: float, lang: str) -> str:
        pool = EDITS["zh"] + EDITS["en"] if lang == "mixed" else EDITS[lang]
        chars = list(text)
        budget = int(len(chars) * rate)
        while budget > 0 and chars:
            run = min(budget, self.rnd.randint(1, 3))
            pos = self.rnd.randrange(len(chars))
            new = [self.rnd.choice(pool) for _ in range(run)]
            kind = self.rnd.randrange(3)
            if kind == 0:
                chars[pos : pos + run] = new
            elif kind == 1:
                del chars[pos : pos + run]
            else:
                chars[pos:pos] = new
            budget -= run
        return "".join(chars)

    def template(self) -> tuple[str, str]:
        site = f"{self.rnd.choice(['人民', 'Daily', 'Global'])}{self.rnd.randrange(10**4)}"
        head = site + " | " + " | ".join(self.rnd.sample(NAV, 6))
        foot = " · ".join(self.rnd.sample(NAV, 4)) + f" Copyright © 1998 {site}"
        return head, foot

    def pair(self, kind: str, lang: str, rate: float) -> tuple[str, str]:
        head, foot = self.template()
        paras = self.paragraphs(lang)
        if kind == "non":
            return (head + "\n" + "\n".join(paras) + "\n" + foot,
                    head + "\n" + "\n".join(self.paragraphs(lang)) + "\n" + foot)
        other = list(paras)
        if len(other) > 2:
            other.insert(self.rnd.randrange(len(other)), other.pop(self.rnd.randrange(len(other))))
        return (head + "\n" + "\n".join(paras) + "\n" + foot,
                head + "\n" + self.edit("\n".join(other), rate, lang) + "\n" + foot)


def write_pairs(path: Path, pairs: list[tuple[str, str]]) -> None:
    with path.open("w", encoding="utf-8") as f:
        for a, b in pairs:
            f.write(json.dumps({"a": {"text": a}, "b": {"text": b}}, ensure_ascii=False) + "\n")


def cpu_seconds(cmd: list[str]) -> float:
    """User + system CPU seconds of one child process run to completion."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        assert proc.stderr is not None
        raise SystemExit(f"{cmd[:3]} failed: {proc.stderr.read().decode()[-2000:]}")
    return usage.ru_utime + usage.ru_stime


def byte_compile() -> None:
    """Byte-compile neardup's packages in place (``__pycache__``), as an installation does."""
    import compileall
    import importlib.util

    for name in ("neardup",):
        spec = importlib.util.find_spec(name)
        for folder in (spec.submodule_search_locations or []) if spec else []:
            compileall.compile_dir(folder, quiet=1)


def race(src: Path, out: Path, repeat: int) -> tuple[float, float]:
    """Best CPU seconds of ``neardup compare`` and of the rapidfuzz script on ``src``."""
    neardup = [sys.executable, "-m", "neardup.ingest.cli", "compare", str(src), "-o", str(out)]
    peer = [sys.executable, "-c", PEER, str(src), str(out)]
    ours, theirs = [], []
    for _ in range(repeat):
        ours.append(cpu_seconds(neardup))
        theirs.append(cpu_seconds(peer))
    return min(ours), min(theirs)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=int, default=1500, help="pairs per class")
    ap.add_argument("--edit-rate", type=float, default=0.2, help="near-duplicates: edited share")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--startup-repeat", type=int, default=15)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    from rapidfuzz.distance import Indel

    byte_compile()
    gen = Articles(args.seed)
    langs = ("en", "zh", "mixed")
    t0 = time.perf_counter()
    data = {
        kind: [gen.pair(kind, langs[i % 3], args.edit_rate) for i in range(args.pairs)]
        for kind in ("near", "non")
    }
    print(f"generated {2 * args.pairs} pairs in {time.perf_counter() - t0:.1f}s")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.jsonl"
        print(f"{'class':<6}{'pairs':>6}{'chars':>7}{'indel':>7}{'neardup s':>11}{'rapidfuzz s':>13}"
              f"{'neardup/s':>11}{'rapidfuzz/s':>13}{'ratio':>8}")
        for kind, pairs in data.items():
            src = Path(tmp) / f"{kind}.jsonl"
            write_pairs(src, pairs)
            chars = statistics.mean(len(a) + len(b) for a, b in pairs) / 2
            indel = statistics.median(Indel.distance(a, b) for a, b in pairs)
            ours, theirs = race(src, out, args.repeat)
            print(f"{kind:<6}{len(pairs):>6}{chars:>7.0f}{indel:>7.0f}{ours:>11.2f}{theirs:>13.2f}"
                  f"{len(pairs) / ours:>11.0f}{len(pairs) / theirs:>13.0f}{theirs / ours:>7.2f}x")
        one = Path(tmp) / "one.jsonl"
        write_pairs(one, data["near"][:1])
        ours, theirs = race(one, out, args.startup_repeat)
        print(f"one pair, whole process: neardup {1000 * ours:.1f} ms, rapidfuzz script "
              f"{1000 * theirs:.1f} ms, neardup / rapidfuzz = {ours / theirs:.2f}x (goal <= 2)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
