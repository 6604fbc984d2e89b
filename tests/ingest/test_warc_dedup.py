"""``neardup dedup`` on a WARC or WET file gives the groups it gives on the same pages as JSONL,
and its output keeps each record's id and URL, so a crawl team can list the duplicates to drop.

The crawl is written by warcio's writer (tests/support/warcs.py) from the Python docs pages:
requests and responses in every transfer and content encoding, a revisit, metadata, an error
page, a GBK page whose charset is only in the HTTP header, mirror copies of some pages
(near-duplicates), and a last record cut short. The JSONL holds the same pages — the same ids,
URLs and HTML as text — in the same order.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.corpus import corpus, paragraphs
from support.warcs import ENCODINGS, Fetch, Written, docs_pages, variant, write_warc

import neardup
from neardup.ingest.crawl import CrawlStats

ROOT = Path(__file__).resolve().parents[2]
BASE = "https://docs.python.org/3.11/"
MIRROR = "https://docs.mirror.example.org/3.11/"
DROP_DUPLICATES = "select(.dup_of != null) | .id"  # the jq filter of docs/crawl.md


def _dedup(src: Path, out: Path, *args: str, stdin: Path | None = None) -> dict[str, Any]:
    with open(stdin, "rb") if stdin else open("/dev/null", "rb") as feed:
        proc = subprocess.run(
            [sys.executable, "-m", "neardup.ingest.cli", "dedup", str(src) if not stdin else "-",
             "-o", str(out), "-j", "2", "--no-progress", *args],
            cwd=ROOT, stdin=feed, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.strip().splitlines()
    return {"summary": json.loads(lines[-1]), "stderr": lines[:-1],
            "rows": [json.loads(x) for x in out.read_text().splitlines()]}  # fmt: skip


@pytest.fixture(scope="module")
def crawl(python_doc_html: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    pages = docs_pages(python_doc_html, 24)
    text = "\n".join(paragraphs()[60:66])
    gbk = f"<html><head><title>人民日报</title></head><body><p>{text}</p></body></html>"
    fetches = [Fetch("", kind="warcinfo")]
    for i, (path, html) in enumerate(pages):
        fetches += [Fetch(BASE + path, kind="request"),
                    Fetch(BASE + path, html, encoding=ENCODINGS[i % len(ENCODINGS)])]  # fmt: skip
    fetches += [
        Fetch("http://www.people.com.cn/1998/a.html", gbk.encode("gbk"),
              content_type="text/html; charset=GBK", encoding="gzip"),
        Fetch(BASE + pages[0][0], kind="revisit"),
        Fetch(BASE + pages[1][0], b"outlink: " + BASE.encode(), kind="metadata"),
        Fetch(BASE + "gone.html", b"<html><p>Not here</p></html>", status="404 Not Found"),
    ]  # fmt: skip
    for i, (path, html) in enumerate(pages[:8]):  # mirror copies: the near-duplicates
        fetches += [Fetch(MIRROR + path, kind="request"),
                    Fetch(MIRROR + path, variant(html, "docs.mirror.example.org"),
                          encoding=ENCODINGS[(i + 3) % len(ENCODINGS)])]  # fmt: skip
    fetches.append(Fetch(BASE + pages[9][0] + "?print=1", pages[9][1]))  # cut short below
    root = tmp_path_factory.mktemp("crawl")
    warc = root / "crawl.warc.gz"
    written = write_warc(warc, fetches)
    last = written[-1]
    warc.write_bytes(warc.read_bytes()[: last.offset + 300])
    # the same pages as JSONL: ids, URLs, the HTML as text, in the same order
    responses = [(w, f) for w, f in zip(written, fetches, strict=True)
                 if f.kind == "response" and f.status == "200 OK" and w is not last]  # fmt: skip
    jsonl = root / "pages.jsonl"
    with jsonl.open("w", encoding="utf-8") as out:
        for w, f in responses:
            html = f.body.decode("gbk" if "GBK" in (f.content_type or "") else "utf-8")
            out.write(json.dumps({"id": w.record_id, "url": w.url, "html": html},
                                 ensure_ascii=False) + "\n")  # fmt: skip
    return {"warc": warc, "jsonl": jsonl, "written": written, "last": last, "pages": responses}


def test_dedup_on_a_warc_groups_as_on_the_same_pages_as_jsonl(
    crawl: dict[str, Any], tmp_path: Path
) -> None:
    warc = _dedup(crawl["warc"], tmp_path / "warc.out")
    jsonl = _dedup(crawl["jsonl"], tmp_path / "jsonl.out")
    pages: list[tuple[Written, Fetch]] = crawl["pages"]
    rows, last = warc["rows"], crawl["last"]
    # one line per page record, in file order, the record's id and URL kept
    assert [(r["id"], r["url"]) for r in rows[:-1]] == [(w.record_id, w.url) for w, _ in pages]
    # the same groups, the same scores as the JSONL of the same pages
    assert [{k: v for k, v in r.items() if k != "url"} for r in rows[:-1]] == jsonl["rows"]
    # and they are the groups: each mirror copy joins its page, nothing else is grouped
    by_url = {r["url"]: r for r in rows[:-1]}
    mirrored = [w for w, _ in pages if w.url.startswith(MIRROR)]
    assert len(mirrored) == 8
    for w in mirrored:
        original = by_url[w.url.replace(MIRROR, BASE)]
        assert by_url[w.url]["dup_group"] == original["id"] == original["dup_group"]
    assert sum(r["dup_of"] is not None for r in rows[:-1]) == 8
    # the record cut short: its own error, named by its offset; the file's clear line
    assert rows[-1]["offset"] == last.offset and rows[-1]["type"] == "corrupt_record"
    assert rows[-1]["url"] == last.url and "error" in rows[-1]
    assert warc["stderr"] == [f"neardup dedup: {crawl['warc']}: truncated gzip member at offset "
                              f"{last.offset}: the file ends inside a record; every record "
                              "before it was read"]  # fmt: skip
    assert warc["summary"]["warc"] == {
        "records": len(crawl["written"]), "pages": len(pages), "errors": 1,
        "skipped": {"metadata": 1, "not_200": 1, "request": 32, "revisit": 1, "warcinfo": 1},
    }  # fmt: skip
    assert warc["summary"]["groups"] == jsonl["summary"]["groups"] == len(pages) - 8


def test_the_duplicates_to_drop_in_one_jq_line(crawl: dict[str, Any], tmp_path: Path) -> None:
    out = tmp_path / "groups.jsonl"
    _dedup(crawl["warc"], out)
    mirrored = {w.record_id for w, _ in crawl["pages"] if w.url.startswith(MIRROR)}
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert {r["id"] for r in rows if r.get("dup_of") is not None} == mirrored
    if shutil.which("jq") is not None:  # the documented line, as a user runs it
        jq = subprocess.run(["jq", "-r", DROP_DUPLICATES, str(out)], capture_output=True,
                            text=True, check=True)  # fmt: skip
        assert set(jq.stdout.split()) == mirrored


def test_a_warc_on_standard_input(crawl: dict[str, Any], tmp_path: Path) -> None:
    from_file = _dedup(crawl["warc"], tmp_path / "file.out")
    from_stdin = _dedup(crawl["warc"], tmp_path / "stdin.out", stdin=crawl["warc"])
    assert from_stdin["rows"] == from_file["rows"]


def test_a_wet_file_groups_as_its_text_pages_as_jsonl(tmp_path: Path) -> None:
    """Plain text from a WET file: the site chrome of each site (from the URL's host) is
    counted and masked as for JSONL pages with the same URLs."""
    docs = corpus(160, seed=26)
    hosts = {
        site: f"www.site{i}.example.cn" for i, site in enumerate(sorted({d["site"] for d in docs}))
    }
    wet = tmp_path / "crawl.wet.gz"
    written = write_warc(wet, [Fetch("", kind="warcinfo")] + [
        Fetch(f"http://{hosts[d['site']]}/{d['id']}.html", d["text"].encode(), kind="conversion",
              content_type="text/plain")
        for d in docs
    ])  # fmt: skip
    jsonl = tmp_path / "pages.jsonl"
    jsonl.write_text("".join(json.dumps({"id": w.record_id, "url": w.url, "text": d["text"]},
                                        ensure_ascii=False) + "\n"
                             for w, d in zip(written[1:], docs, strict=True)), encoding="utf-8")  # fmt: skip
    got = _dedup(wet, tmp_path / "wet.out", "--chrome-min-pages", "5")
    want = _dedup(jsonl, tmp_path / "jsonl.out", "--chrome-min-pages", "5")
    assert [{k: v for k, v in r.items() if k != "url"} for r in got["rows"]] == want["rows"]
    assert [r["url"] for r in got["rows"]] == [w.url for w in written[1:]]
    assert sum(r["dup_of"] is not None for r in got["rows"]) > 20
    assert got["summary"]["warc"]["skipped"] == {"warcinfo": 1}


def test_the_sample_crawl_is_18_pairs(tmp_path: Path) -> None:
    """examples/sample_crawl.warc.gz (the quickstart's crawl) is what its script writes, and
    ``neardup dedup`` finds its 18 pairs: each Python docs page with its mirror's copy, each
    man page (GBK, its charset only in the HTTP header) with its shortened mirror."""
    sample = ROOT / "examples" / "sample_crawl.warc.gz"
    again = tmp_path / "again.warc.gz"
    subprocess.run([sys.executable, str(ROOT / "examples" / "make_sample_crawl.py"), str(again)],
                   check=True, timeout=120)  # fmt: skip
    assert again.read_bytes() == sample.read_bytes()
    got = _dedup(sample, tmp_path / "groups.jsonl")
    groups: dict[str, list[str]] = {}
    for row in got["rows"]:
        groups.setdefault(row["dup_group"], []).append(row["url"])
    pairs = sorted(sorted(urls) for urls in groups.values())
    assert len(pairs) == 18 and all(len(p) == 2 for p in pairs)
    for a, b in pairs:
        assert (
            a.replace("docs.mirror.example.org", "docs.python.org") == b
            or a.replace("man.mirror.example/", "manpages.example.cn/zh_CN/") == b
        ), (a, b)
    assert got["summary"]["warc"]["skipped"] == {"not_200": 2, "request": 18, "revisit": 1,
                                                 "warcinfo": 1}  # fmt: skip


def test_the_library_reads_a_warc_as_the_command_does(tmp_path: Path) -> None:
    sample = ROOT / "examples" / "sample_crawl.warc.gz"
    stats = CrawlStats()
    pages = list(neardup.read_warc(sample, stats=stats))
    grouped = neardup.dedup(pages)
    rows = _dedup(sample, tmp_path / "groups.jsonl")["rows"]
    assert [(g.id, g.dup_group, g.dup_of) for g in grouped] == [
        (r["id"], r["dup_group"], r["dup_of"]) for r in rows
    ]
    assert [p.url for p in pages] == [r["url"] for r in rows]
    assert stats.summary()["skipped"] == {"not_200": 2, "request": 18, "revisit": 1, "warcinfo": 1}
