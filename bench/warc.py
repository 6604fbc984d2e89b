"""``neardup dedup`` on a WARC file, against reading the same file with the WARC library alone:
throughput, and peak memory as the file grows.

    python bench/warc.py [--sizes 100,1000] [--plain] [--docs DIR] [--workdir DIR] [-j 2]
                         [--keep] [--json OUT]

**The crawl.** For each size S (MB of the file as written), ``crawl-S.warc.gz`` is written
with warcio's writer (one gzip member per record, as crawlers write them; ``--plain``:
uncompressed, ``crawl-S.warc``) from the HTML pages of the Python docs as Debian ships them
(``python3.11-doc``; ``--docs``, default the test cache, ``scripts/fetch_data.py fetch
python3.11-doc``): the 471 of its 530 pages of at most 200 KB (``--max-page-kb``; the larger
are the indices and a few long references, link lists the size of a book). Generation 0 is
every page from docs.python.org; then, so that a larger file holds more distinct pages rather
than more copies of the same ones, generation g ≥ 1 is every page from ``site<g>.example.org``
with the words of its text replaced by others of the docs' vocabulary (one substitution per
generation: pages of the same shape and length, sentences no other generation has). Within a
generation, one page in three is also fetched from a mirror, after the site: a note added to
its main content and one paragraph dropped — the near-duplicates, groups of two, as many at
every size. Each page comes with its request record; about one page in 50 with a revisit, one
in 100 with a 404; the bodies go over the wire as a server sends them: identity for half, the
rest chunked, gzip, deflate, br or chunked+gzip. Generations are written until the file
reaches S MB (an existing file of that name is reused).

**Runs**, each as its own process (started by a fresh parent), its wall time and peak resident
set size (``ru_maxrss`` of the parent's children: the largest process of the run, a forked
worker included):

* ``fastwarc``: FastWARC alone — every record iterated, every HTML response's body read (as
  sent: no decoding);
* ``warcio``: warcio alone, the same (its ``content_stream()``, which also undoes chunked and
  gzip bodies);
* ``read_warc``: neardup's reader, :func:`neardup.read_warc` — the pages, their bodies decoded,
  damage checks and the skipped records counted;
* ``dedup``: ``neardup dedup crawl-S.warc.gz -o OUT -j J --no-progress``: the whole method,
  the chrome counting pass included.

Printed per size and run: pages, wall seconds, pages/s, MB/s (of the file as stored) and peak
RSS; for ``dedup`` also the groups and their pairwise precision / recall against the truth
(a page and its mirror's copy are one cluster).
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import random
import re
import resource
import subprocess
import sys
import time
import zlib
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from _partition import neardup_command, pairwise, read_jsonl  # noqa: E402

MAIN = b'<div class="body" role="main">'
PARAGRAPH = re.compile(rb"<p>.*?</p>", re.S)
# How bodies go over the wire, in turn: identity for half of them.
ENCODINGS = ("identity", "chunked", "identity", "gzip", "identity", "deflate", "identity", "br",
             "identity", "chunked+gzip")  # fmt: skip


def _docs_root(arg: Path | None) -> Path:
    cache = Path(os.environ.get("NEARDUP_CACHE") or ROOT / ".cache")
    root = arg or cache / "debs/python3.11-doc/usr/share/doc/python3.11/html"
    if not root.is_dir():
        raise SystemExit(f"no Python docs at {root}: scripts/fetch_data.py fetch python3.11-doc")
    return root


def _chunked(data: bytes, size: int = 8192) -> bytes:
    parts = [b"%x\r\n%s\r\n" % (len(data[i : i + size]), data[i : i + size])
             for i in range(0, len(data), size)]  # fmt: skip
    return b"".join(parts) + b"0\r\n\r\n"


def _encode(body: bytes, encoding: str) -> tuple[bytes, list[tuple[str, str]]]:
    import brotli

    headers: list[tuple[str, str]] = []
    if "gzip" in encoding:
        body = gzip.compress(body, compresslevel=6, mtime=0)
        headers.append(("Content-Encoding", "gzip"))
    elif encoding == "deflate":
        body = zlib.compress(body, 6)
        headers.append(("Content-Encoding", "deflate"))
    elif encoding == "br":
        body = brotli.compress(body, quality=5)
        headers.append(("Content-Encoding", "br"))
    if "chunked" in encoding:
        body = _chunked(body)
        headers.append(("Transfer-Encoding", "chunked"))
    else:
        headers.append(("Content-Length", str(len(body))))
    return body, headers


def _variant(html: bytes, seed: int) -> bytes:
    """A mirror's copy: a note in the main content, one paragraph dropped."""
    note = b"<p>This copy is served by a mirror for readers in its region.</p>"
    out = html.replace(MAIN, MAIN + note, 1)
    paragraphs = list(PARAGRAPH.finditer(out))
    if len(paragraphs) > 3:
        drop = paragraphs[2 + seed % (len(paragraphs) - 2)]
        out = out[: drop.start()] + out[drop.end() :]
    return out


_TEXT = re.compile(rb">([^<]+)<")
_WORD = re.compile(rb"[A-Za-z]{3,}")


def _enciphered(html: bytes, vocabulary: list[bytes], generation: int) -> bytes:
    """The page with every word of its text (3 letters or more, outside the tags) replaced by a
    word of the docs' vocabulary, by a substitution that is the same on every page of one
    generation and another in the next: new text of the same shape, sentences no other
    generation has."""
    if generation == 0:
        return html
    n = len(vocabulary)

    def word(m: re.Match[bytes]) -> bytes:
        w = m.group(0)
        new = vocabulary[(zlib.crc32(w.lower()) * 2654435761 + generation * 40503) % n]
        return new.capitalize() if w[:1].isupper() else new

    return _TEXT.sub(lambda m: b">" + _WORD.sub(word, m.group(1)) + b"<", html)


def write_crawl(
    path: Path, docs: Path, megabytes: int, max_page: int, gzipped: bool = True
) -> dict[str, int]:
    """Write the crawl (module docstring) until the file reaches ``megabytes`` MB."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    pages = [(str(p.relative_to(docs)), p.read_bytes()) for p in sorted(docs.rglob("*.html"))
             if not p.is_symlink() or p.exists()]  # fmt: skip
    pages = [(name, html) for name, html in pages
             if b"<html" in html[:2000].lower() and len(html) <= max_page]  # fmt: skip
    vocabulary = sorted({w.lower() for _, html in pages for t in _TEXT.findall(html)
                         for w in _WORD.findall(t)})  # fmt: skip
    target = megabytes * 1_000_000
    counts = {"pages": 0, "records": 0, "generations": 0}
    rng = random.Random(26)
    with path.open("wb") as f:
        writer = WARCWriter(f, gzip=gzipped)
        writer.write_record(writer.create_warcinfo_record(path.name, {"software": "bench/warc.py"}))

        def fetch(url: str, body: bytes) -> None:
            parts = urlsplit(url)
            request = StatusAndHeaders(f"GET {parts.path} HTTP/1.1", [("Host", parts.netloc)],
                                       is_http_request=True)  # fmt: skip
            writer.write_record(writer.create_warc_record(
                url, "request", payload=io.BytesIO(b""), http_headers=request))  # fmt: skip
            sent, headers = _encode(body, ENCODINGS[counts["pages"] % len(ENCODINGS)])
            http = StatusAndHeaders("200 OK", [("Content-Type", "text/html; charset=utf-8"),
                                               *headers], protocol="HTTP/1.1")  # fmt: skip
            writer.write_record(writer.create_warc_record(
                url, "response", payload=io.BytesIO(sent), http_headers=http))  # fmt: skip
            counts["records"] += 2
            counts["pages"] += 1
            if rng.random() < 0.02:
                writer.write_record(writer.create_revisit_record(
                    url, "sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", url, "2024-01-01T00:00:00Z",
                    http_headers=http))  # fmt: skip
                counts["records"] += 1
            if rng.random() < 0.01:
                gone = StatusAndHeaders("404 Not Found", [("Content-Type", "text/html")],
                                        protocol="HTTP/1.1")  # fmt: skip
                writer.write_record(writer.create_warc_record(
                    url + ".old", "response", payload=io.BytesIO(b"<h1>Not Found</h1>"),
                    http_headers=gone))  # fmt: skip
                counts["records"] += 1

        g = 0
        while f.tell() < target:
            host = "docs.python.org" if g == 0 else f"site{g}.example.org"
            copies = []
            for k, (name, html) in enumerate(pages):
                page = _enciphered(html, vocabulary, g)
                fetch(f"https://{host}/3.11/{name}", page)
                if k % 3 == g % 3:
                    copies.append((name, _variant(page, g + k)))
                if f.tell() >= target:
                    break
            for name, page in copies:  # the mirror is crawled after the site
                if f.tell() >= target:
                    break
                fetch(f"https://mirror.{host}/3.11/{name}", page)
            g += 1
        counts["generations"] = g
    return counts


# --- the runs ----------------------------------------------------------------------------------


def _read(kind: str, path: str) -> None:
    """One reading run (a subprocess of this script): print the pages and bytes read."""
    pages = size = 0
    if kind == "fastwarc":
        from fastwarc.warc import ArchiveIterator, WarcRecordType

        with open(path, "rb") as f:
            for record in ArchiveIterator(f, parse_http=True, fsspec_args=False):
                if record.record_type == WarcRecordType.response and record.is_http:
                    if (record.http_headers.status_code == 200
                            and "html" in (record.http_content_type or "")):  # fmt: skip
                        size += len(record.reader.read())
                        pages += 1
    elif kind == "warcio":
        from warcio.archiveiterator import ArchiveIterator as WarcioIterator

        with open(path, "rb") as f:
            for record in WarcioIterator(f):
                if record.rec_type == "response" and record.http_headers is not None:
                    http = record.http_headers
                    if (http.get_statuscode() == "200"
                            and "html" in (http.get_header("Content-Type") or "")):  # fmt: skip
                        # warcio's own br decoding needs brotlipy: take br bodies as sent
                        br = http.get_header("Content-Encoding") == "br"
                        stream = record.raw_stream if br else record.content_stream()
                        size += len(stream.read())
                        pages += 1
    else:
        import neardup

        for page in neardup.read_warc(path):
            size += len(page.source)
            pages += 1
    print(json.dumps({"pages": pages, "bytes": size}))


def _one_run(kind: str, path: Path, workdir: Path, processes: int) -> dict[str, Any]:
    """One run, measured from a fresh process (its children's peak RSS is this run's alone)."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--run", kind, str(path),
           "--workdir", str(workdir), "-j", str(processes)]  # fmt: skip
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(proc.stderr[-3000:])
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def _run(kind: str, path: Path, workdir: Path, processes: int) -> dict[str, Any]:
    """The body of one measured run (``--run``): the command, its wall time and peak RSS."""
    if kind == "dedup":
        out = workdir / (path.name + ".groups.jsonl")
        cmd = [*neardup_command(), "dedup", str(path), "-o", str(out), "-j", str(processes),
               "--no-progress"]  # fmt: skip
    else:
        out = None
        cmd = [sys.executable, str(Path(__file__).resolve()), "--read", kind, str(path)]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    stdout, stderr = proc.communicate()
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {stderr.decode()[-3000:]}")
    # this process is new for the run and waited for this one child (and it for its own)
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    result: dict[str, Any] = {"run": kind, "wall_s": wall, "rss_mb": rss}
    if out is None:
        result.update(json.loads(stdout.decode().strip().splitlines()[-1]))
        return result
    summary = json.loads(stderr.decode().strip().splitlines()[-1])
    group, cluster = {}, {}
    for row in read_jsonl(out):
        if "dup_group" in row:
            group[row["id"]] = row["dup_group"]
            url = urlsplit(row["url"])  # a page and its mirror's copy: one cluster
            cluster[row["id"]] = (url.hostname or "").removeprefix("mirror.") + url.path
    result.update(pages=summary["documents"], errors=summary["errors"], groups=summary["groups"],
                  skipped=summary["warc"]["skipped"], timings=summary["timings"],
                  partition=pairwise(group, cluster))  # fmt: skip
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    ap.add_argument("--sizes", default="100,1000", help="comma list of file sizes, MB")
    ap.add_argument("--plain", action="store_true", help="uncompressed WARC files")
    ap.add_argument("--docs", type=Path, help="the Python docs' HTML folder")
    ap.add_argument("--workdir", type=Path, default=ROOT / ".cache" / "bench-warc")
    ap.add_argument("-j", "--processes", type=int, default=2)
    ap.add_argument("--max-page-kb", type=int, default=200, help="largest page taken, KB")
    ap.add_argument("--runs", default="fastwarc,warcio,read_warc,dedup")
    ap.add_argument("--keep", action="store_true", help="keep the crawls and outputs")
    ap.add_argument("--json", type=Path, help="write every figure here")
    ap.add_argument("--read", help=argparse.SUPPRESS)
    ap.add_argument("--run", help=argparse.SUPPRESS)
    ap.add_argument("path", nargs="?", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.read:
        _read(args.read, args.path)
        return 0
    if args.run:
        print(json.dumps(_run(args.run, Path(args.path), args.workdir, args.processes)))
        return 0
    docs = _docs_root(args.docs)
    args.workdir.mkdir(parents=True, exist_ok=True)
    figures: list[dict[str, Any]] = []
    print("| file | run | pages | wall s | pages/s | MB/s | peak RSS MB | groups, P / R |")
    print("|---|---|---:|---:|---:|---:|---:|---|")
    for size in (int(s) for s in args.sizes.split(",")):
        path = args.workdir / f"crawl-{size}.warc{'' if args.plain else '.gz'}"
        made = None
        if not path.exists():
            t0 = time.perf_counter()
            made = write_crawl(path, docs, size, args.max_page_kb * 1000, not args.plain)
            made["write_s"] = round(time.perf_counter() - t0, 1)
        mb = path.stat().st_size / 1e6
        for kind in args.runs.split(","):
            r = _one_run(kind, path, args.workdir, args.processes)
            r.update(file=path.name, file_mb=mb, written=made)
            figures.append(r)
            quality = ""
            if kind == "dedup":
                p = r["partition"]
                quality = f"{r['groups']}, {p['precision']:.3f} / {p['recall']:.3f}"
            print(f"| {path.name} ({mb:.0f} MB) | {kind} | {r['pages']} | {r['wall_s']:.1f} | "
                  f"{r['pages'] / r['wall_s']:.0f} | {mb / r['wall_s']:.1f} | {r['rss_mb']:.0f} | "
                  f"{quality} |", flush=True)  # fmt: skip
        if not args.keep:
            path.unlink()
            (args.workdir / (path.name + ".groups.jsonl")).unlink(missing_ok=True)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
