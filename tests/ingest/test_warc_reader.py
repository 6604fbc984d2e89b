"""Reading WARC and WET files (neardup.ingest.crawl): which records become pages and what they
carry, what is skipped and counted, damage reported per record by its offset, the input told by
its content, and memory that does not grow with the file.

Every file here is written by warcio's writer (tests/support/warcs.py) from real pages: the
Python docs as Debian ships them, and People's Daily paragraphs for a GBK page.
"""

from __future__ import annotations

import gzip
import io
import sys
import tempfile
import tracemalloc
from pathlib import Path

import pytest
from support.corpus import paragraphs
from support.warcs import ENCODINGS, Fetch, docs_pages, write_warc

from neardup.ingest.crawl import (
    CrawlPage,
    CrawlStats,
    RecordError,
    input_format,
    read_input,
    read_warc,
    warc_items,
)
from neardup.ingest.errors import ConfigError
from neardup.ingest.extract import document_texts
from neardup.ingest.pipeline import fingerprint_config, prepare_document
from neardup.ingest.records import Limits

BASE = "https://docs.python.org/3.11/"


@pytest.fixture(scope="module")
def pages(python_doc_html: Path) -> list[tuple[str, bytes]]:
    return docs_pages(python_doc_html, 12)


def _crawl(pages: list[tuple[str, bytes]]) -> list[Fetch]:
    """A crawl as a crawler writes it: warcinfo, then a request and a response per page (the
    bodies sent in every encoding), and the records that are not pages."""
    fetches = [Fetch("", kind="warcinfo")]
    for i, (path, html) in enumerate(pages):
        fetches += [Fetch(BASE + path, kind="request"),
                    Fetch(BASE + path, html, encoding=ENCODINGS[i % len(ENCODINGS)])]  # fmt: skip
    return fetches + [
        Fetch(BASE + pages[0][0], kind="revisit"),
        Fetch(BASE + pages[1][0], b"outlink: " + BASE.encode(), kind="metadata"),
        Fetch("dns:docs.python.org", b"docs.python.org. 300 IN A 151.101.0.223", kind="dns"),
        Fetch(BASE + "gone.html", b"<html><p>Not here</p></html>", status="404 Not Found"),
        Fetch(BASE + "moved.html", b"", status="301 Moved Permanently"),
        Fetch(BASE + "_static/py.png", b"\x89PNG\r\n\x1a\n" + bytes(200), content_type="image/png"),
    ]  # fmt: skip


@pytest.mark.parametrize("gzipped", [True, False], ids=["warc.gz", "warc"])
def test_responses_become_pages_and_the_rest_is_counted_by_kind(
    pages: list[tuple[str, bytes]], tmp_path: Path, gzipped: bool
) -> None:
    path = tmp_path / ("crawl.warc.gz" if gzipped else "crawl.warc")
    written = write_warc(path, _crawl(pages), gzip=gzipped)
    stats = CrawlStats()
    got = list(read_warc(path, stats=stats))
    responses = [w for w in written if w.kind == "response" and w.url.endswith(".html")][:12]
    # every page, in file order, with its record id, URL and offset; the body as the server
    # meant it, whatever the encoding it was sent in (chunked, gzip, deflate, br, both)
    assert [(p.id, p.url, p.offset) for p in got] == [
        (w.record_id, w.url, w.offset) for w in responses
    ]
    assert [p.source for p in got] == [html for _, html in pages]
    assert all(p.field == "html" and p.record_id == p.id and p.date for p in got)
    assert stats.summary() == {
        "records": len(written), "pages": 12, "errors": 0,
        "skipped": {"metadata": 1, "not_200": 2, "not_html": 1, "not_http": 1, "request": 12,
                    "revisit": 1, "warcinfo": 1},
    }  # fmt: skip
    assert stats.cut_at is None


def test_ids_from_urls_when_asked(pages: list[tuple[str, bytes]], tmp_path: Path) -> None:
    path = tmp_path / "crawl.warc.gz"
    write_warc(path, _crawl(pages[:3]))
    got = list(read_warc(path, id_from="url"))
    assert [p.id for p in got] == [BASE + p for p, _ in pages[:3]]
    assert all(p.record_id and p.record_id.startswith("<urn:uuid:") for p in got)


def _gbk_page() -> tuple[str, bytes]:
    text = "\n".join(paragraphs()[20:24])
    return text, f"<html><head><title>人民日报</title></head><body><p>{text}</p></body></html>"


def test_a_gbk_page_with_its_charset_only_in_the_http_header(tmp_path: Path) -> None:
    text, html = _gbk_page()
    body = html.encode("gbk")
    path = tmp_path / "gbk.warc.gz"
    write_warc(path, [
        Fetch("http://www.people.com.cn/a.html", body, content_type="text/html; charset=GBK"),
        # the header speaks against the page's own (wrong) <meta>: the header wins
        Fetch("http://www.people.com.cn/b.html",
              html.replace("<head>", '<head><meta charset="windows-1252">').encode("gbk"),
              content_type="text/html; charset=GBK", encoding="chunked+gzip"),
    ])  # fmt: skip
    got = list(read_warc(path))
    assert [p.content_type for p in got] == ["text/html; charset=GBK"] * 2
    assert got[0].source == body
    for page in got:
        assert document_texts(page.document()).text.split() == text.split()
    # what the page alone says is wrong: without the header, its <meta> would be believed
    assert text.split()[0] not in document_texts({"html": got[1].source}).text


def test_wet_conversions_are_text_pages_with_their_url_and_site(tmp_path: Path) -> None:
    texts = paragraphs()[40:43]
    path = tmp_path / "crawl.wet.gz"
    write_warc(path, [Fetch("", kind="warcinfo")] + [
        Fetch(f"https://news.example.com.cn/{i}.html", t.encode(), kind="conversion",
              content_type="text/plain")
        for i, t in enumerate(texts)
    ])  # fmt: skip
    got = list(read_warc(path))
    assert [(p.field, p.source.decode()) for p in got] == [("text", t) for t in texts]
    doc = prepare_document(got[0], 1, fingerprint_config())
    assert (doc.url, doc.site) == ("https://news.example.com.cn/0.html", "example.com.cn")
    assert doc.body.strip() == texts[0]


def _truncated(path: Path, keep: int) -> Path:
    out = path.with_name("cut-" + path.name)
    out.write_bytes(path.read_bytes()[:keep])
    return out


@pytest.mark.parametrize("gzipped", [True, False], ids=["warc.gz", "warc"])
@pytest.mark.parametrize("cut", [30, 700])
def test_a_truncated_last_record_is_its_own_error(
    pages: list[tuple[str, bytes]], tmp_path: Path, gzipped: bool, cut: int
) -> None:
    path = tmp_path / ("crawl.warc.gz" if gzipped else "crawl.warc")
    written = write_warc(path, [Fetch(BASE + p, html) for p, html in pages[:5]], gzip=gzipped)
    short = _truncated(path, path.stat().st_size - cut)
    stats = CrawlStats()
    items = [item for _, item in warc_items(short, stats=stats)]
    assert [i.id for i in items[:4] if isinstance(i, CrawlPage)] == [
        w.record_id for w in written[:4]
    ]
    last = items[4]
    assert isinstance(last, RecordError) and last.type == "corrupt_record"
    assert last.offset == written[4].offset and f"offset {written[4].offset}" in str(last)
    assert len(items) == 5 and (stats.pages, stats.errors) == (4, 1)
    # a gzipped file that ends inside a member says so once, for the command's clear line
    assert stats.cut_at == (written[4].offset if gzipped else None)
    if gzipped:
        assert "truncated gzip member at offset" in (stats.cut_message(short) or "")


def test_a_gzip_member_cut_before_its_record_is_reported(
    pages: list[tuple[str, bytes]], tmp_path: Path
) -> None:
    path = tmp_path / "crawl.warc.gz"
    written = write_warc(path, [Fetch(BASE + p, html) for p, html in pages[:3]])
    # only the first bytes of the last member are left: no record can be read from it
    short = _truncated(path, written[2].offset + 12)
    stats = CrawlStats()
    items = [item for _, item in warc_items(short, stats=stats)]
    assert [type(i) for i in items] == [CrawlPage, CrawlPage, RecordError]
    assert items[2].offset == written[2].offset == stats.cut_at


@pytest.mark.parametrize("gzipped", [True, False], ids=["warc.gz", "warc"])
def test_a_corrupt_record_is_reported_and_the_rest_is_read(
    pages: list[tuple[str, bytes]], tmp_path: Path, gzipped: bool
) -> None:
    path = tmp_path / ("crawl.warc.gz" if gzipped else "crawl.warc")
    written = write_warc(path, [Fetch(BASE + p, html) for p, html in pages[:6]], gzip=gzipped)
    data = bytearray(path.read_bytes())
    bad = written[2].offset
    if gzipped:  # bytes of the compressed stream flipped: the member does not inflate
        data[bad + 40 : bad + 60] = bytes(b ^ 0xFF for b in data[bad + 40 : bad + 60])
    else:  # the record's first line is no WARC version line
        data[bad : bad + 4] = b"XXXX"
    path.write_bytes(bytes(data))
    items = [item for _, item in warc_items(path)]
    assert [getattr(i, "id", None) for i in items if isinstance(i, CrawlPage)] == [
        w.record_id for k, w in enumerate(written) if k != 2
    ]
    errors = [i for i in items if isinstance(i, RecordError)]
    assert [(e.offset, e.type) for e in errors] == [(bad, "corrupt_record")]
    assert items.index(errors[0]) == 2  # in its place, in file order


def test_a_page_over_the_size_limit_is_an_error_with_its_offset(
    pages: list[tuple[str, bytes]], tmp_path: Path
) -> None:
    path = tmp_path / "crawl.warc.gz"
    big = pages[0][1] * 8
    written = write_warc(path, [Fetch(BASE + "big.html", big, encoding="gzip"),
                                Fetch(BASE + pages[1][0], pages[1][1])])  # fmt: skip
    items = [item for _, item in warc_items(path, Limits(max_doc_bytes=len(big) - 1))]
    assert isinstance(items[0], RecordError) and items[0].type == "document_too_large"
    assert items[0].offset == 0 and items[0].url == BASE + "big.html"
    assert isinstance(items[1], CrawlPage) and items[1].offset == written[1].offset


def test_the_format_is_told_by_the_content_not_the_name(
    pages: list[tuple[str, bytes]], tmp_path: Path
) -> None:
    warc = tmp_path / "pages.jsonl"  # a WARC, whatever its name says
    write_warc(warc, [Fetch(BASE + pages[0][0], pages[0][1])])
    jsonl = tmp_path / "pages.warc.gz"
    jsonl.write_text('{"id": "a", "text": "one page"}\n')
    assert (input_format(warc), input_format(jsonl)) == ("warc", "jsonl")
    assert [type(item) for _, item in read_input(warc)] == [CrawlPage]
    assert [item for _, item in read_input(jsonl)] == [b'{"id": "a", "text": "one page"}']
    zipped = tmp_path / "pages.jsonl.gz"
    zipped.write_bytes(gzip.compress(b'{"id": "a", "text": "one page"}\n'))
    with pytest.raises(ConfigError, match="gzip-compressed input that is not WARC"):
        input_format(zipped)


def test_a_warc_on_standard_input_is_read_from_a_copy(
    pages: list[tuple[str, bytes]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "crawl.warc.gz"
    written = write_warc(path, [Fetch(BASE + p, html) for p, html in pages[:2]])

    class Stdin:
        buffer = io.BufferedReader(io.BytesIO(path.read_bytes()))  # type: ignore[arg-type]

    spool = tmp_path / "spool"
    spool.mkdir()
    monkeypatch.setattr(sys, "stdin", Stdin)
    monkeypatch.setattr(tempfile, "tempdir", str(spool))
    seen = []
    for _, item in read_input("-"):
        seen.append((item.id, item.offset))  # type: ignore[union-attr]
        assert [f.name for f in spool.iterdir()] != []  # read from its copy
    assert seen == [(w.record_id, w.offset) for w in written]
    assert list(spool.iterdir()) == []  # the copy is gone


def _peak_reading(path: Path) -> tuple[int, int]:
    """Pages read from ``path`` and the peak of Python's memory while reading them."""
    tracemalloc.start()
    try:
        n = sum(1 for _ in read_warc(path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return n, peak


def test_memory_does_not_grow_with_the_file(pages: list[tuple[str, bytes]], tmp_path: Path) -> None:
    peaks = []
    for copies in (8, 40):
        path = tmp_path / f"crawl-{copies}.warc.gz"
        fetches = [Fetch(f"{BASE}{i}/{p}", html, encoding=ENCODINGS[i % len(ENCODINGS)])
                   for i in range(copies) for p, html in pages]  # fmt: skip
        write_warc(path, fetches)
        n, peak = _peak_reading(path)
        assert n == len(fetches)
        peaks.append(peak)
    total = sum(len(html) for _, html in pages) * 40
    # five times the pages, the same memory: a record at a time, never the file
    assert total > 15_000_000 and peaks[1] < 1.25 * peaks[0] and peaks[1] < total / 8, peaks


def test_damage_after_damage(pages: list[tuple[str, bytes]], tmp_path: Path) -> None:
    """A member that does not inflate, then the file cut inside the next member: two errors,
    each at its record's offset, and the cut reported once."""
    path = tmp_path / "crawl.warc.gz"
    written = write_warc(path, [Fetch(BASE + p, html) for p, html in pages[:3]])
    data = bytearray(path.read_bytes()[: written[2].offset + 40])
    bad = written[1].offset
    data[bad + 40 : bad + 60] = bytes(b ^ 0xFF for b in data[bad + 40 : bad + 60])
    path.write_bytes(bytes(data))
    stats = CrawlStats()
    items = [item for _, item in warc_items(path, stats=stats)]
    assert [(type(i), i.offset) for i in items] == [
        (CrawlPage, 0),
        (RecordError, written[1].offset),
        (RecordError, written[2].offset),
    ]
    assert stats.cut_at == written[2].offset and stats.errors == 2
