"""Group quality of ``neardup dedup`` on one real documentation site: the GIMP 2.10 user manual
as Debian ships it, in its two English variants.

    python bench/docsite.py [--cache DIR] [--workdir DIR] [-j 2] [--profile P] [--only html|text]
                            [--text-style rendered|source ...] [--compare N] [--json OUT]

**Data.** Debian's ``gimp-help-en`` and ``gimp-help-en-gb`` (GIMP help 2.10.34, GFDL 1.2+ with
no invariant sections) are fetched with ``apt-get download`` and unpacked with ``dpkg -x`` into
``<cache>/docsite/debs/<package>/`` by the helper of ``scripts/fetch_data.py`` (nothing is
fetched twice; ``<cache>`` is ``--cache``, ``$NEARDUP_CACHE`` or ``.cache/``). Each package
holds the same 685 DocBook-generated pages under ``usr/share/gimp/2.0/help/<variant>/`` (``en``,
``en_GB``): the British text is the American one run through the translation catalogue, so a page
and its twin differ by some spellings ("colour") and by the source's line wrapping, and 157 of
the 685 pairs are byte-identical. The manual is rich in sibling pages generated from one template
for different entities (each "... Menu" page, each filter of a family, each tool, the layer
modes), which are *not* duplicates. ``bench/docsites.py`` runs this site, built the same way,
beside four others of other generators.

**Truth.** A page's cluster is its relative path: the two variants of one page are the only
true pairs (a page present in one variant only is a singleton).

**Corpora.** ``<workdir>/docsite-html.jsonl``: one line per page of both variants,
``{"id": "<variant>/<path>", "html", "url": "https://docs.example/<variant>/<path>",
"site": "gimp-help"}`` (one site: the two variants are two folders of one documentation site);
``docsite-text-<style>.jsonl``: the same pages as ``{"text": ...}``, the text a crawler's dump
gives, navigation included (title, navigation header and footer with the previous / next / parent
page titles, "Report a bug" links):

* ``rendered``: laid out as a browser's ``innerText`` would (the title first): a line per block
  element, a blank line around each paragraph, the cells of a table row on one line separated by
  tabs, white space inside a line collapsed — a paragraph is one line in both variants;
* ``source``: lxml's ``text_content()`` of the whole page with the source's own lines (each
  stripped, runs of blank lines made one): ``en`` wraps its paragraphs over several lines,
  ``en_GB`` (regenerated from the catalogue) mostly has each on one line.

Both styles are made and run unless ``--text-style`` names some.

**Runs.** ``neardup dedup CORPUS -o OUT --backend embedded -j 2 --no-progress`` (a subprocess;
its wall time) on each corpus. Printed per corpus: pages, true pairs, pairwise precision /
recall / F1 over the partition (pairs of pages in one predicted group vs pairs in one true
cluster), the twin pairs found in one group vs all twin pairs (and how many of the missed ones
are byte-identical), the largest predicted groups with a few members (id and title), every group
that merges more than one true cluster (its members), and the wall time. Then ``neardup
compare`` is run on every two clusters of each such group (one page of each, from one variant:
the output's ``dup_of`` is the twin as a rule, so the joins that chained two clusters are not
in it); the first ``--compare N`` verdicts are printed (reason, resemble, contain and the
word-level rates), all are in ``--json OUT``, which writes every figure. ``compare`` reads a
page as it is given: a text page keeps the lines ``dedup`` masks as site chrome.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from _partition import neardup_command, pairwise, read_jsonl, work_dir  # bench/ helper

REPO = Path(__file__).resolve().parents[1]
PACKAGES = {"en": "gimp-help-en", "en_GB": "gimp-help-en-gb"}  # variant -> Debian package
HELP_DIR = Path("usr/share/gimp/2.0/help")
SITE = "gimp-help"
URL = "https://docs.example/{variant}/{path}"
LICENSE = "GFDL-1.2+ (no invariant sections, no cover texts)"


# --- data --------------------------------------------------------------------------------------

def _fetch_data_module() -> Any:
    spec = importlib.util.spec_from_file_location("neardup_fetch_data",
                                                  REPO / "scripts" / "fetch_data.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def cache_dir(override: Path | None) -> Path:
    if override is not None:
        return override
    env = os.environ.get("NEARDUP_CACHE")
    return Path(env) if env else REPO / ".cache"


def fetch(cache: Path) -> dict[str, dict[str, Any]]:
    """Unpack each package into ``<cache>/docsite/debs/<package>`` (once); per variant its
    help folder and the .deb it came from."""
    fd = _fetch_data_module()
    out = {}
    for variant, package in PACKAGES.items():
        root = fd.fetch_debian(cache / "docsite", package)
        folder = root / HELP_DIR / variant
        if not folder.is_dir():
            raise SystemExit(f"docsite: {folder} missing in {package}")
        deb = (root / ".complete").read_text().strip()
        out[variant] = {"package": package, "deb": deb, "folder": folder}
    return out


def html_pages(folder: Path) -> dict[str, Path]:
    """Relative path -> file, every ``*.html`` under ``folder``."""
    return {p.relative_to(folder).as_posix(): p for p in sorted(folder.rglob("*.html"))}


# --- text of a page ---------------------------------------------------------------------------

_XML_DECL = re.compile(r"^\s*<\?xml[^>]*\?>")
_WS = re.compile(r"\s+")
_BLOCKS = frozenset(
    """address article aside blockquote body caption center dd div dl dt fieldset figcaption
    figure footer form h1 h2 h3 h4 h5 h6 header hr html li main nav ol pre section table tbody
    thead tfoot title tr ul""".split())
_SKIP = frozenset({"script", "style", "noscript", "template"})


def _parse(html: str) -> Any:
    import lxml.html

    return lxml.html.document_fromstring(_XML_DECL.sub("", html, count=1))


def page_title(root: Any) -> str:
    el = root.find(".//title")
    return _WS.sub(" ", el.text_content()).strip() if el is not None else ""


def rendered_text(root: Any) -> str:
    """The page as a browser's ``innerText`` lays it out (the title first): a line per block
    element, a blank line around each ``p``, table cells of a row on one line separated by a
    tab, ``br`` a line break, white space inside a line collapsed, ``pre`` as it is."""
    parts: list[str | int] = []  # text, or the line breaks a block boundary requires

    def text(s: str, pre: bool) -> None:
        if s:
            parts.append(s if pre else _WS.sub(" ", s))

    def walk(el: Any, outer_pre: bool) -> None:
        tag = el.tag if isinstance(el.tag, str) else ""  # comments have a function as tag
        if tag and tag not in _SKIP:
            breaks = 2 if tag == "p" else 1 if tag in _BLOCKS else 0
            pre = outer_pre or tag == "pre"
            if tag == "br":
                parts.append("\n")
            if breaks:
                parts.append(breaks)
            text(el.text or "", pre)
            for child in el:
                walk(child, pre)
            if breaks:
                parts.append(breaks)
            if tag in ("td", "th") and el.getnext() is not None:
                parts.append("\t")
        text(el.tail or "", outer_pre)

    walk(root, False)
    out: list[str] = []
    pending = 0
    for part in parts:
        if isinstance(part, int):
            pending = max(pending, part)  # adjacent required breaks collapse to the largest
        elif part.strip() or "\n" in part:
            if pending and out:
                out.append("\n" * pending)
            pending = 0
            out.append(part)
        elif out and pending == 0:
            out.append(part)
    lines = [re.sub(r" *\t *", "\t", re.sub(" {2,}", " ", line)).strip()
             for line in "".join(out).split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip("\n")


def source_text(root: Any) -> str:
    """lxml's ``text_content()`` of the whole page with the source's own lines: each line
    stripped, runs of blank lines made one blank line."""
    for el in root.iter("script", "style"):
        el.drop_tree()
    lines = [line.strip() for line in root.text_content().split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip("\n")


def build_corpora(variants: dict[str, dict[str, Any]], work: Path, text_styles: list[str],
                  site: str | None = SITE, url: str | None = URL, stem: str = "docsite"
                  ) -> tuple[dict[str, dict[str, Any]], dict[str, Path]]:
    """Write the HTML corpus and a text corpus per style; ``{id: {cluster, variant, title,
    sha, text_sha, words}}`` (``words``: of the first style's text) and the corpus files by name
    (``html``, ``text-<style>``). ``site`` / ``url`` (a template of ``variant`` and ``path``) are
    the fields each page carries, left out when None; ``stem`` names the files
    (``bench/docsites.py`` builds every site with this)."""
    import hashlib

    info: dict[str, dict[str, Any]] = {}
    paths = {"html": work / f"{stem}-html.jsonl"}
    paths.update({f"text-{st}": work / f"{stem}-text-{st}.jsonl" for st in text_styles})
    files = {name: open(path, "w", encoding="utf-8") for name, path in paths.items()}
    try:
        for variant, v in variants.items():
            for rel, path in html_pages(v["folder"]).items():
                raw = path.read_bytes()
                html = raw.decode("utf-8")
                doc_id = f"{variant}/{rel}"
                base: dict[str, str] = {"id": doc_id}
                if url is not None:
                    base["url"] = url.format(variant=variant, path=rel)
                if site is not None:
                    base["site"] = site
                files["html"].write(json.dumps({**base, "html": html}, ensure_ascii=False) + "\n")
                title = page_title(_parse(html))
                info[doc_id] = {"cluster": rel, "variant": variant, "title": title,
                                "sha": hashlib.sha1(raw).hexdigest(), "text_sha": {}}
                for st in text_styles:
                    root = _parse(html)  # source_text edits the tree
                    text = rendered_text(root) if st == "rendered" else source_text(root)
                    info[doc_id]["text_sha"][st] = hashlib.sha1(text.encode()).hexdigest()
                    info[doc_id].setdefault("words", len(text.split()))
                    files[f"text-{st}"].write(json.dumps({**base, "text": text},
                                                         ensure_ascii=False) + "\n")
    finally:
        for f in files.values():
            f.close()
    return info, paths


# --- neardup ----------------------------------------------------------------------------------

def run_dedup(inp: Path, out: Path, processes: int, profile: str | None) -> dict[str, Any]:
    cmd = [*neardup_command(), "dedup", str(inp), "-o", str(out), "--backend", "embedded",
           "-j", str(processes), "--no-progress", *(["--profile", profile] if profile else [])]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}:\n{proc.stderr[-3000:]}")
    summary: dict[str, Any] = {}
    for line in reversed(proc.stderr.strip().splitlines()):
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict):
            summary = obj
            break
    rows = {str(r["id"]): r for r in read_jsonl(out)}
    return {"wall_s": wall, "summary": summary, "rows": rows}


def checkout_state() -> dict[str, Any]:
    """The commit the figures were taken at and the product files that differ from it."""
    def git(*cmd: str) -> str:
        proc = subprocess.run(["git", *cmd], cwd=REPO, capture_output=True, text=True,
                              check=False)
        return proc.stdout.strip() if proc.returncode == 0 else ""

    changed = [line[3:] for line in git("status", "--porcelain", "--untracked-files=no")
               .splitlines() if line[3:].endswith(".py")]
    return {"commit": git("rev-parse", "HEAD") or None, "modified": changed}


# --- figures ----------------------------------------------------------------------------------

def predicted_groups(rows: dict[str, dict[str, Any]], ids: Iterable[str]) -> dict[str, str]:
    """Each page's ``dup_group``; a page without one (an error) a group of its own."""
    return {i: str(rows[i]["dup_group"]) if rows.get(i, {}).get("dup_group") is not None
            else "\0" + i for i in ids}


def text_key(entry: dict[str, Any]) -> str:
    """What tells a page's text from another's in ``info``: its rendered text's hash, else the
    first text style's, else the HTML's."""
    shas = entry.get("text_sha") or {}
    return str(shas.get("rendered") or next(iter(shas.values()), entry["sha"]))


def evaluate(rows: dict[str, dict[str, Any]], info: dict[str, dict[str, Any]],
             show: int) -> dict[str, Any]:
    ids = list(info)
    group = predicted_groups(rows, ids)
    errors = sorted(i for i in ids if rows.get(i, {}).get("dup_group") is None)
    cluster = {i: info[i]["cluster"] for i in ids}
    scores = pairwise(group, cluster)
    members: dict[str, list[str]] = defaultdict(list)
    for i in ids:
        members[group[i]].append(i)
    by_cluster: dict[str, list[str]] = defaultdict(list)
    for i in ids:
        by_cluster[cluster[i]].append(i)
    twins = [m for m in by_cluster.values() if len(m) == 2]
    found = [m for m in twins if group[m[0]] == group[m[1]]]
    missed = [m for m in twins if group[m[0]] != group[m[1]]]
    missed_identical = [m for m in missed if info[m[0]]["sha"] == info[m[1]]["sha"]]

    def describe(m: list[str]) -> dict[str, Any]:
        clusters = Counter(cluster[i] for i in m)
        return {"size": len(m), "clusters": len(clusters),
                "members": [{"id": i, "title": info[i]["title"],
                             "dup_of": rows.get(i, {}).get("dup_of"),
                             "resemble": rows.get(i, {}).get("resemble"),
                             "contain": rows.get(i, {}).get("contain")}
                            for i in sorted(m, key=lambda x: (cluster[x], x))]}

    groups = sorted(members.values(), key=lambda m: (-len(m), sorted(m)[0]))
    impure = [m for m in groups if len({cluster[i] for i in m}) > 1]
    # ``dup_of`` names the page a document resembles most, its twin as a rule: the joins that
    # chained two clusters are not in the output. The pairs to look at are each two clusters of
    # a wrong group, one page of each, from one variant where both have it.
    wrong_pairs = []
    for m in impure:
        firsts: dict[str, list[str]] = defaultdict(list)
        for i in sorted(m):
            firsts[cluster[i]].append(i)
        names = sorted(firsts)
        for x, c1 in enumerate(names):
            for c2 in names[x + 1:]:
                v1 = {info[i]["variant"]: i for i in firsts[c1]}
                v2 = {info[i]["variant"]: i for i in firsts[c2]}
                both = sorted(set(v1) & set(v2))
                a, b = (v1[both[0]], v2[both[0]]) if both else (firsts[c1][0], firsts[c2][0])
                wrong_pairs.append({"a": a, "b": b})
    return {
        "pages": len(ids), "variants": dict(Counter(info[i]["variant"] for i in ids)), **scores,
        "groups": len(members), "multi_page_groups": sum(1 for m in groups if len(m) > 1),
        "twin_pairs": len(twins), "twins_found": len(found), "twins_missed": len(missed),
        "twins_missed_byte_identical": len(missed_identical),
        "missed_twins": [m[0].split("/", 1)[1] for m in missed],
        "largest_groups": [describe(m) for m in groups[:show]],
        "wrong_groups": [describe(m) for m in impure],
        "wrong_pairs": wrong_pairs, "errors": errors,
    }


def compare_pairs(pairs: list[dict[str, Any]], corpus: Path, field: str, work: Path,
                  tag: str, profile: str | None) -> list[dict[str, Any]]:
    """``neardup compare`` on the given (a, b) pairs, each side as the corpus gives it."""
    if not pairs:
        return []
    wanted = {e["a"] for e in pairs} | {e["b"] for e in pairs}
    body = {str(r["id"]): r[field] for r in read_jsonl(corpus) if str(r["id"]) in wanted}
    path = work / f"compare-{tag}.jsonl"
    with open(path, "w", encoding="utf-8") as f:
        for e in pairs:
            f.write(json.dumps({"pair": [e["a"], e["b"]], "a": {field: body[e["a"]]},
                                "b": {field: body[e["b"]]}}, ensure_ascii=False) + "\n")
    cmd = [*neardup_command(), "compare", str(path), *(["--profile", profile] if profile else [])]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"neardup compare exited {proc.returncode}:\n{proc.stderr[-2000:]}")
    return [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]


# --- report -----------------------------------------------------------------------------------

def _short(x: Any) -> str:
    return f"{x:.3f}" if isinstance(x, float) else str(x)


def report(name: str, m: dict[str, Any], wall: float, members_shown: int,
           say: Any) -> None:
    say(f"\n== {name} ==")
    say(f"pages {m['pages']:,} ({', '.join(f'{k} {v}' for k, v in m['variants'].items())}); "
        f"true pairs {m['true_pairs']:,}; predicted pairs {m['pred_pairs']:,} "
        f"(true {m['true_positive_pairs']:,}, false {m['false_pairs']:,}); "
        f"groups {m['groups']:,} ({m['multi_page_groups']:,} of 2+ pages)")
    say(f"pairwise P {m['precision']:.3f}  R {m['recall']:.3f}  F1 {m['f1']:.3f}")
    say(f"twin pairs found {m['twins_found']:,} / {m['twin_pairs']:,} "
        f"(missed {m['twins_missed']:,}, of which byte-identical "
        f"{m['twins_missed_byte_identical']:,}); errors {len(m['errors'])}; wall {wall:.1f} s")
    if m["missed_twins"]:
        say("  missed twins: " + ", ".join(m["missed_twins"][:12])
            + (" ..." if len(m["missed_twins"]) > 12 else ""))
    say("largest predicted groups:")
    for g in m["largest_groups"]:
        if g["size"] < 2:
            break
        shown = ", ".join(f"{x['id']} \u201c{x['title']}\u201d"
                          for x in g["members"][:members_shown])
        more = f", ... (+{g['size'] - members_shown})" if g["size"] > members_shown else ""
        say(f"  {g['size']} pages, {g['clusters']} true clusters: {shown}{more}")
    say(f"groups merging 2+ true clusters: {len(m['wrong_groups'])}")
    for g in m["wrong_groups"]:
        say(f"  {g['size']} pages, {g['clusters']} clusters:")
        for x in g["members"]:
            extra = (f"  <- {x['dup_of']} (resemble {_short(x['resemble'])}, "
                     f"contain {_short(x['contain'])})" if x["dup_of"] else "")
            say(f"    {x['id']} \u201c{x['title']}\u201d{extra}")


def report_compare(verdicts: list[dict[str, Any]], shown: int, say: Any) -> None:
    if not verdicts:
        return
    similar = sum(1 for v in verdicts if v.get("similar"))
    say(f"neardup compare on the {len(verdicts)} cross-cluster pairs of the wrong groups "
        f"(one page per cluster, same variant): {similar} similar")
    for v in verdicts[:shown]:
        rest = " ".join(f"{k} {_short(v[k])}" for k in v if k not in ("pair", "line"))
        say(f"  {v['pair'][0]} ~ {v['pair'][1].split('/', 1)[1]}: {rest}")
    if len(verdicts) > shown:
        say(f"  ... (+{len(verdicts) - shown}, all in --json)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", type=Path, help="cache folder (default: $NEARDUP_CACHE or .cache)")
    ap.add_argument("--workdir", type=Path, help="keep the corpora and outputs here")
    ap.add_argument("-j", "--processes", type=int, default=2)
    ap.add_argument("--profile", choices=("web", "precise", "short"),
                    help="passed to neardup dedup and compare (default: theirs)")
    ap.add_argument("--only", choices=("html", "text"), help="run one kind of corpus only")
    ap.add_argument("--text-style", choices=("rendered", "source"), action="append",
                    help="text corpus made so (repeatable; default: rendered and source)")
    ap.add_argument("--show", type=int, default=5, help="largest groups printed")
    ap.add_argument("--members", type=int, default=6, help="members printed per large group")
    ap.add_argument("--compare", type=int, default=12,
                    help="verdicts of neardup compare printed per corpus (all are in --json)")
    ap.add_argument("--json", type=Path, help="write the figures here")
    args = ap.parse_args(argv)

    cache = cache_dir(args.cache)
    work, tmp = work_dir(args.workdir, "neardup-docsite-")
    lines: list[str] = []

    def say(s: str) -> None:
        lines.append(s)
        print(s, flush=True)

    try:
        variants = fetch(cache)
        t0 = time.perf_counter()
        styles = args.text_style or ["rendered", "source"]
        info, corpora = build_corpora(variants, work, styles)
        rels = {v: {i.split("/", 1)[1] for i in info if info[i]["variant"] == v}
                for v in variants}
        common = set.intersection(*rels.values())
        identical = sum(1 for r in common
                        if len({info[f"{v}/{r}"]["sha"] for v in variants}) == 1)
        same_text = {st: sum(1 for r in common
                             if len({info[f"{v}/{r}"]["text_sha"][st] for v in variants}) == 1)
                     for st in styles}
        say(f"site: {SITE} = " + " + ".join(f"{v['deb']} ({k})" for k, v in variants.items())
            + f"; license {LICENSE}")
        say(f"corpus: {len(info):,} pages, {len(common):,} pages in both variants "
            f"({identical} byte-identical HTML; identical text: "
            + ", ".join(f"{n} {st}" for st, n in same_text.items()) + "); "
            f"built in {time.perf_counter() - t0:.1f} s in {work}")
        results: dict[str, Any] = {
            "site": SITE, "license": LICENSE, "text_styles": styles, "profile": args.profile,
            "packages": {k: v["deb"] for k, v in variants.items()},
            "checkout": checkout_state(),
            "pages": len(info), "pages_in_both": len(common),
            "twins_byte_identical": identical, "twins_text_identical": same_text, "runs": {}}
        for name, corpus in corpora.items():
            field = name.split("-", 1)[0]
            if args.only and args.only != field:
                continue
            out = work / f"out-{name}.jsonl"
            run = run_dedup(corpus, out, args.processes, args.profile)
            m = evaluate(run["rows"], info, args.show)
            m["wall_s"] = run["wall_s"]
            m["summary"] = run["summary"]
            report(name, m, run["wall_s"], args.members, say)
            verdicts = compare_pairs(m["wrong_pairs"], corpus, field, work, name, args.profile)
            report_compare(verdicts, args.compare, say)
            m["compare"] = verdicts
            results["runs"][name] = m
        if args.json:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            results["printed"] = lines
            args.json.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n",
                                 encoding="utf-8")
    finally:
        if tmp is not None:
            tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
