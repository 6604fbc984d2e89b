"""Group quality, cost and memory of ``neardup dedup`` on a generated corpus, against the
"text-dedup recipe" (MinHash-LSH + union-find) on the same pages, in the same run.

    python bench/groups.py [--pages 20000] [--seed 1] [--corpus FILE] [--workdir DIR]
                           [--no-chrome] [--chrome-min-pages 20] [--recipe-input raw|masked]
                           [-j 2] [--no-recipe] [--pipeline] [--json OUT]

The corpus is :mod:`bench/corpus.py`'s (generated into ``--workdir`` unless ``--corpus`` names
one; its pages carry their ``truth``). Then:

* **neardup**: ``neardup dedup IN -o OUT --backend embedded -j 2 --no-progress`` as a
  subprocess; its wall time, CPU, peak RSS (``ru_maxrss`` from ``os.wait4``: the largest process
  of the run, parent or forked worker) and the JSON summary it prints on stderr (timings,
  ``comparisons``). It masks site chrome from the pages itself (docs/chrome.md: a counting pass,
  ``chrome_s`` in its timings, then each page without the lines ``--chrome-min-pages`` pages of
  its site carry); ``--no-chrome`` passes its ``--no-chrome`` (the pages as they are).
* **recipe**: datasketch ``MinHash`` (128 permutations) of the set of 5-token shingles (tokens:
  ``\\w`` runs, every CJK character a token of its own; case folded), computed by 2 processes;
  ``MinHashLSH`` at threshold 0.5 queried before each insert; union-find over the candidate
  pairs (every pair LSH returns joins, as in text-dedup's MinHash script).
* **pipeline** (``--pipeline``): ``neardup dedup --backend opensearch --start-workers 2`` when
  OpenSearch (``OPENSEARCH_URL``) and Redis (``CELERY_BROKER_URL``) answer; skipped otherwise.

The recipe reads the pages as they are (``--recipe-input raw``, the default: what it would be
given), or as ``neardup dedup`` compares them (``masked``: the product's counts and masks,
:func:`neardup.ingest.chrome_pass.chrome_counts_of_file` and :func:`~neardup.ingest.pipeline.mask_chrome`;
that masking time is reported apart and added to the recipe's in the ratio line).

Printed for each method: pairwise precision / recall / F1 over the partition (pairs of pages in
one predicted group vs pairs in one true cluster), the false pairs that are within one site,
the 5 largest predicted groups (size, true clusters and sites mixed), the largest true cluster,
time and comparisons per page, peak RSS, and the recall of copy/original pairs (found in one
group) by character edit rate 0-7 % and by body language.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import multiprocessing
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from _partition import (  # bench/ helper
    neardup_command,
    pairs_within,
    pairwise,
    read_jsonl,
    work_dir,
)

HERE = Path(__file__).resolve().parent


def _load_corpus_module() -> Any:
    # by path: ``corpus`` is also the name of a tests/integration helper other benches import
    spec = importlib.util.spec_from_file_location("neardup_bench_corpus", HERE / "corpus.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up while the class is made
    spec.loader.exec_module(mod)
    return mod


# --- truth and metrics -----------------------------------------------------------------------

# The target slice of the copies: at most 1 % of characters and 20 % of the body changed.
LIGHT_CHARS = 0.01
LIGHT_BODY = 0.20


def load_truth(path: Path) -> dict[str, dict[str, Any]]:
    """``{id: {"cluster", "of", "char_pct", "lang", "site"}}`` from the pages' ``truth``."""
    out = {}
    for p in read_jsonl(path):
        t = p["truth"]
        out[p["id"]] = {"cluster": t["cluster"], "of": t["of"], "char_pct": t["char_pct"],
                        "char_frac": t.get("char_frac", t["char_pct"] / 100),
                        "para_frac": t.get("para_frac", 0.0),
                        "lang": t["lang"], "site": p.get("site")}
    return out


def evaluate(pred: dict[str, str], truth: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Pairwise P/R/F1 of the partition ``pred`` (id -> group; missing ids are singletons)."""
    ids = list(truth)
    group = {i: pred.get(i, "\0" + i) for i in ids}
    cluster = {i: truth[i]["cluster"] for i in ids}
    site = {i: truth[i]["site"] for i in ids}
    scores = pairwise(group, cluster)
    same_site = pairs_within({i: (group[i], site[i]) for i in ids})
    same_site_tp = pairs_within({i: (group[i], site[i], cluster[i]) for i in ids})
    members: dict[str, list[str]] = {}
    for i in ids:
        members.setdefault(group[i], []).append(i)
    largest = sorted(members.values(), key=len, reverse=True)[:5]
    top = [{"size": len(m), "clusters": len({cluster[i] for i in m}),
            "sites": len({site[i] for i in m})} for m in largest]
    by_pct: dict[int, list[int]] = {}
    by_lang: dict[str, list[int]] = {}
    light = [0, 0]  # copies with <= 1 % of characters and <= 20 % of the body changed
    for i in ids:
        t = truth[i]
        if t["of"] is None or t["of"] not in group:
            continue
        hit = int(group[i] == group[t["of"]])
        if t["char_frac"] <= LIGHT_CHARS and t["para_frac"] <= LIGHT_BODY:
            light[0] += hit
            light[1] += 1
        for key, table in ((t["char_pct"], by_pct), (t["lang"], by_lang)):
            cell = table.setdefault(key, [0, 0])
            cell[0] += hit
            cell[1] += 1
    return {
        "pages": len(ids), **scores, "false_pairs_same_site": same_site - same_site_tp,
        "groups": len(members), "largest_groups": top,
        "largest_true_cluster": max(Counter(cluster.values()).values()),
        "copy_recall_by_char_pct": {k: v[0] / v[1] for k, v in sorted(by_pct.items())},
        "copies_by_char_pct": {k: v[1] for k, v in sorted(by_pct.items())},
        "copy_recall_by_lang": {k: v[0] / v[1] for k, v in sorted(by_lang.items())},
        "copy_recall_light": light[0] / light[1] if light[1] else None,
        "copies_light": light[1],
    }


# --- neardup ---------------------------------------------------------------------------------

# Peak RSS is ``ru_maxrss`` from ``wait4``: the largest process of the run, parent or forked
# worker. A child forked from this process starts with this process's pages resident (the corpus
# truth, masked texts), which ``ru_maxrss`` would count; so the runs are started by a small
# launcher process, forked before this one loads anything.
_LAUNCHER = r"""
import json, os, subprocess, sys, time
for line in sys.stdin:
    job = json.loads(line)
    with open(job["stderr"], "wb") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(job["cmd"], stdout=subprocess.DEVNULL, stderr=err)
        _, status, ru = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    print(json.dumps({"rc": proc.returncode, "wall": time.perf_counter() - t0,
                      "cpu": ru.ru_utime + ru.ru_stime, "maxrss_kb": ru.ru_maxrss}), flush=True)
"""


class Launcher:
    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", _LAUNCHER], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)

    def run(self, cmd: list[str], stderr: Path) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({"cmd": cmd, "stderr": str(stderr)}) + "\n")
        self.proc.stdin.flush()
        out: dict[str, Any] = json.loads(self.proc.stdout.readline())
        return out

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(10)


def run_neardup(launcher: Launcher, inp: Path, out: Path, extra: list[str]) -> dict[str, Any]:
    """One ``neardup dedup`` process: wall/CPU seconds, peak RSS, its stderr summary, groups."""
    cmd = [*neardup_command(), "dedup", str(inp), "-o", str(out), "--no-progress", *extra]
    err = out.with_suffix(".stderr")
    res = launcher.run(cmd, err)
    stderr = err.read_text(encoding="utf-8", errors="replace")
    wall = res["wall"]
    if res["rc"] != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {res['rc']}:\n{stderr[-3000:]}")
    summary: dict[str, Any] = {}
    for line in reversed(stderr.strip().splitlines()):
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict) and "timings" in obj:
            summary = obj
            break
    groups: dict[str, str] = {}
    errors = 0
    for rec in read_jsonl(out):
        if rec.get("dup_group") is not None:
            groups[str(rec["id"])] = str(rec["dup_group"])
        else:
            errors += 1
    return {"wall_s": wall, "cpu_s": res["cpu"], "peak_rss_mb": res["maxrss_kb"] / 1024,
            "summary": summary, "groups": groups, "errors": errors}


# --- the recipe ------------------------------------------------------------------------------

_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
TOKEN = re.compile(rf"[{_CJK}]|[^\W{_CJK}]+")
NUM_PERM, SHINGLE, LSH_THRESHOLD = 128, 5, 0.5


def shingles(text: str, n: int = SHINGLE) -> set[bytes]:
    toks = TOKEN.findall(text.casefold())
    if len(toks) <= n:
        return {" ".join(toks).encode("utf-8")}
    return {" ".join(toks[i: i + n]).encode("utf-8") for i in range(len(toks) - n + 1)}


def _minhash(item: tuple[str, str]) -> tuple[str, Any, str]:
    from datasketch import MinHash

    doc_id, text = item
    m = MinHash(num_perm=NUM_PERM, seed=1)
    m.update_batch(list(shingles(text)))
    return doc_id, m.hashvalues, m.scheme


def run_recipe(inp: Path, processes: int = 2) -> dict[str, Any]:
    from datasketch import LeanMinHash, MinHashLSH

    t0 = time.perf_counter()
    lsh = MinHashLSH(threshold=LSH_THRESHOLD, num_perm=NUM_PERM)
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        return root

    candidates = 0
    items = ((str(p["id"]), p["text"]) for p in read_jsonl(inp))
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(processes) as pool:
        for doc_id, hv, scheme in pool.imap(_minhash, items, chunksize=32):
            mh = LeanMinHash(seed=1, hashvalues=hv, scheme=scheme)
            parent[doc_id] = doc_id
            for other in lsh.query(mh):
                candidates += 1
                a, b = find(doc_id), find(other)
                if a != b:
                    parent[max(a, b)] = min(a, b)
            lsh.insert(doc_id, mh)
    groups = {i: find(i) for i in parent}
    return {"wall_s": time.perf_counter() - t0, "groups": groups, "candidate_pairs": candidates}


# --- chrome masking (the product's, for the recipe) ----------------------------------------

def mask_for_recipe(src: Path, dst: Path, min_pages: int, processes: int) -> dict[str, Any]:
    """Write ``src`` to ``dst`` with each page's text as ``neardup dedup`` compares it: the
    product's chrome counts of the file, then each plain-text page masked."""
    from neardup.ingest.chrome import ChromeRule
    from neardup.ingest.chrome_pass import chrome_counts_of_file
    from neardup.ingest.pipeline import mask_chrome
    from neardup.ingest.records import validate_page

    t0 = time.perf_counter()
    counts = chrome_counts_of_file(src, ChromeRule(min_pages=min_pages), processes=processes)
    before = after = masked_pages = 0
    with open(dst, "w", encoding="utf-8") as out:
        for p in read_jsonl(src):
            text = p["text"]
            m = mask_chrome(counts, validate_page(p), text)
            before += len(text)
            after += len(text if m is None else m)
            masked_pages += m is not None
            p["text"] = text if m is None else m
            out.write(json.dumps(p, ensure_ascii=False) + "\n")
    return {"t": min_pages, "seconds": time.perf_counter() - t0,
            "chars_kept": after / max(before, 1), "masked_pages": masked_pages}


# --- pipeline --------------------------------------------------------------------------------

def services_up() -> str | None:
    """None when OpenSearch and Redis answer, else why not."""
    url = os.environ.get("OPENSEARCH_URL", "http://127.0.0.1:9200")
    try:
        with urllib.request.urlopen(url, timeout=3) as r:
            r.read(100)
    except Exception as exc:  # noqa: BLE001 - any failure means "not up"
        return f"OpenSearch at {url}: {exc}"
    broker = urlsplit(os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0"))
    try:
        with socket.create_connection((broker.hostname or "127.0.0.1", broker.port or 6379), 3) as s:
            s.sendall(b"PING\r\n")
            if not s.recv(64).startswith((b"+PONG", b"-NOAUTH")):
                return "Redis did not answer PING"
    except OSError as exc:
        return f"Redis at {broker.netloc}: {exc}"
    return None


# --- report ----------------------------------------------------------------------------------

def _fmt_quality(name: str, m: dict[str, Any]) -> list[str]:
    top = ", ".join(f"{g['size']} ({g['clusters']} cl, {g['sites']} sites)"
                    for g in m["largest_groups"])
    return [
        f"{name}: P {m['precision']:.3f}  R {m['recall']:.3f}  F1 {m['f1']:.3f}  "
        f"(pred pairs {m['pred_pairs']:,}, true {m['true_pairs']:,}, false {m['false_pairs']:,}"
        f" of which same-site {m['false_pairs_same_site']:,}; groups {m['groups']:,})",
        f"  largest groups: {top}; largest true cluster {m['largest_true_cluster']}",
        "  copy recall by char edit %: " + "  ".join(
            f"{k}%: {v:.2f} (n={m['copies_by_char_pct'][k]})"
            for k, v in m["copy_recall_by_char_pct"].items()),
        f"  copy recall, <= 1 % characters and <= 20 % of the body changed: "
        f"{m['copy_recall_light'] or 0:.3f} (n={m['copies_light']})",
        "  copy recall by language: " + "  ".join(
            f"{k}: {v:.2f}" for k, v in m["copy_recall_by_lang"].items()),
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--corpus", type=Path, help="a bench/corpus.py output (else generated)")
    ap.add_argument("--workdir", type=Path, help="keep the files here (default: a temp dir)")
    ap.add_argument("--no-chrome", action="store_true",
                    help="neardup dedup --no-chrome: the pages with their chrome (the 'before')")
    ap.add_argument("--chrome-min-pages", type=int, default=20,
                    help="neardup dedup --chrome-min-pages (chrome threshold T)")
    ap.add_argument("--recipe-input", choices=("raw", "masked"), default="raw",
                    help="the recipe's pages: as they are, or as neardup dedup masks them")
    ap.add_argument("-j", "--processes", type=int, default=2)
    ap.add_argument("--no-recipe", action="store_true")
    ap.add_argument("--no-neardup", action="store_true")
    ap.add_argument("--pipeline", action="store_true", help="also the OpenSearch/Celery path")
    ap.add_argument("--json", type=Path, help="write the results here")
    args = ap.parse_args(argv)
    launcher = Launcher()  # before anything is loaded (see _LAUNCHER)

    work, tmp = work_dir(args.workdir, "neardup-groups-")
    results: dict[str, Any] = {"args": {k: str(v) for k, v in vars(args).items()}}
    lines: list[str] = []

    def say(s: str) -> None:
        lines.append(s)
        print(s, flush=True)

    try:
        corpus_path = args.corpus
        if corpus_path is None:
            corpus_path = work / f"corpus-{args.pages}-s{args.seed}.jsonl"
            if not corpus_path.exists():
                t0 = time.perf_counter()
                with open(corpus_path, "w", encoding="utf-8") as f:
                    _load_corpus_module().generate(args.pages, args.seed, f)
                say(f"corpus: {args.pages:,} pages, seed {args.seed}, generated in "
                    f"{time.perf_counter() - t0:.1f} s -> {corpus_path}")
        truth = load_truth(corpus_path)
        n = len(truth)
        copies = sum(1 for t in truth.values() if t["of"] is not None)
        say(f"corpus: {n:,} pages ({copies:,} copies), {len({t['cluster'] for t in truth.values()}):,}"
            f" true clusters, {len({t['site'] for t in truth.values()})} sites")
        inp = corpus_path
        mask_s = 0.0
        if not args.no_neardup:
            chrome = (["--no-chrome"] if args.no_chrome
                      else ["--chrome-min-pages", str(args.chrome_min_pages)])
            tag = "nochrome" if args.no_chrome else f"chrome-t{args.chrome_min_pages}"
            run = run_neardup(launcher, inp, work / f"neardup.{inp.stem}.{tag}.out.jsonl",
                              ["--backend", "embedded", "-j", str(args.processes), *chrome])
            m = evaluate(run["groups"], truth)
            timings = run["summary"].get("timings", {})
            comps = timings.get("comparisons")
            results["neardup"] = {**{k: v for k, v in run.items() if k != "groups"}, **m}
            label = "neardup dedup (embedded, " + (
                "--no-chrome)" if args.no_chrome else f"chrome T={args.chrome_min_pages})")
            for s in _fmt_quality(label, m):
                say(s)
            say(f"  time {run['wall_s']:.1f} s wall ({1000 * run['wall_s'] / n:.2f} ms/page), "
                f"{run['cpu_s']:.1f} s CPU; phases {timings}; comparisons/page "
                f"{(comps or 0) / n:.2f}; peak RSS {run['peak_rss_mb']:.0f} MB; "
                f"{run['errors']} pages in error")
        if not args.no_recipe:
            rinp = inp
            if args.recipe_input == "masked":
                rinp = work / f"{corpus_path.stem}.masked-t{args.chrome_min_pages}.jsonl"
                stats = mask_for_recipe(corpus_path, rinp, args.chrome_min_pages, args.processes)
                mask_s = stats["seconds"]
                results["recipe_mask"] = stats
                say(f"recipe input masked as neardup dedup masks it (T={stats['t']}): "
                    f"{mask_s:.1f} s ({1000 * mask_s / n:.2f} ms/page), "
                    f"{stats['chars_kept']:.1%} of the characters kept, "
                    f"{stats['masked_pages']:,} pages masked")
            rec = run_recipe(rinp, args.processes)
            m = evaluate(rec["groups"], truth)
            results["recipe"] = {"wall_s": rec["wall_s"], "candidate_pairs": rec["candidate_pairs"],
                                 **m}
            for s in _fmt_quality("recipe (MinHash 128 x 5-shingles, LSH 0.5, union-find; "
                                  f"{args.recipe_input} pages)", m):
                say(s)
            say(f"  time {rec['wall_s']:.1f} s wall ({1000 * rec['wall_s'] / n:.2f} ms/page); "
                f"LSH candidate pairs/page {rec['candidate_pairs'] / n:.2f}")
            if "neardup" in results:
                nd = results["neardup"]["wall_s"]
                ratio = f"time neardup / recipe: {nd / rec['wall_s']:.2f}"
                if mask_s:
                    ratio += (f" ({nd / (rec['wall_s'] + mask_s):.2f} with the recipe's "
                              f"input masking, {mask_s:.1f} s, counted)")
                say(ratio)
        if args.pipeline:
            why = services_up()
            if why is not None:
                say(f"pipeline: skipped ({why})")
            else:
                run = run_neardup(launcher, inp, work / f"pipeline.{inp.stem}.out.jsonl",
                                  ["--backend", "opensearch", "--start-workers", "2"])
                m = evaluate(run["groups"], truth)
                results["pipeline"] = {**{k: v for k, v in run.items() if k != "groups"}, **m}
                for s in _fmt_quality("neardup dedup (opensearch, 2 workers)", m):
                    say(s)
                say(f"  time {run['wall_s']:.1f} s wall ({1000 * run['wall_s'] / n:.2f} ms/page)")
    finally:
        launcher.close()
        if args.json:
            args.json.write_text(json.dumps({**results, "report": lines}, indent=1, default=str))
        if tmp is not None:
            tmp.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
