"""Write ``sample_crawl.warc.gz``: the pages of ``sample_pages.jsonl`` as a crawler stores them.

    python examples/make_sample_crawl.py [OUT]   (needs warcio: pip install -e '.[dev]')

A WARC/1.0 file, one gzip member per record, written with warcio's writer:

* the 10 Python docs pages (HTML) from docs.python.org, each with its request record, the
  bodies sent plain, chunked, gzip- or br-encoded;
* a mirror's copy of each at docs.mirror.example.org: a note added to the main content, the
  navigation otherwise the same (10 near-duplicate pairs);
* the 8 Chinese man pages as ``text/plain`` from manpages.example.cn, in GBK with the charset
  only in the HTTP header, and their shortened mirror copies in UTF-8 (8 pairs);
* what else a crawl holds: a warcinfo record, a revisit of one page, a 404 and a redirect.

Record ids and dates are derived from the URLs, so the file is the same on every run.
"""

from __future__ import annotations

import gzip
import io
import json
import sys
import uuid
from pathlib import Path
from typing import Any

import brotli
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

HERE = Path(__file__).resolve().parent
DATE = "2024-05-01T12:00:00Z"
MAIN = '<div class="body" role="main">'


def _headers(kind: str, url: str) -> dict[str, str]:
    return {"WARC-Record-ID": f"<urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, kind + ' ' + url)}>",
            "WARC-Date": DATE}  # fmt: skip


def _chunked(data: bytes, size: int = 8192) -> bytes:
    parts = [b"%x\r\n%s\r\n" % (len(data[i : i + size]), data[i : i + size])
             for i in range(0, len(data), size)]  # fmt: skip
    return b"".join(parts) + b"0\r\n\r\n"


def _response(writer: WARCWriter, url: str, body: bytes, content_type: str,
              encoding: str = "identity", status: str = "200 OK") -> None:  # fmt: skip
    headers = [("Content-Type", content_type)]
    if encoding == "gzip":
        body = gzip.compress(body, mtime=0)
        headers.append(("Content-Encoding", "gzip"))
    elif encoding == "br":
        body = brotli.compress(body)
        headers.append(("Content-Encoding", "br"))
    if encoding == "chunked":
        body = _chunked(body)
        headers.append(("Transfer-Encoding", "chunked"))
    else:
        headers.append(("Content-Length", str(len(body))))
    http = StatusAndHeaders(status, headers, protocol="HTTP/1.1")
    writer.write_record(writer.create_warc_record(
        url, "response", payload=io.BytesIO(body), http_headers=http,
        warc_headers_dict=_headers("response", url)))  # fmt: skip


def _request(writer: WARCWriter, url: str) -> None:
    host, _, path = url.split("://", 1)[1].partition("/")
    http = StatusAndHeaders(f"GET /{path} HTTP/1.1", [("Host", host)], is_http_request=True)
    writer.write_record(writer.create_warc_record(
        url, "request", payload=io.BytesIO(b""), http_headers=http,
        warc_headers_dict=_headers("request", url)))  # fmt: skip


def main(out: Path = HERE / "sample_crawl.warc.gz") -> None:
    pages: list[dict[str, Any]] = [
        json.loads(line) for line in (HERE / "sample_pages.jsonl").read_text().splitlines()
    ]
    html_pages = [p for p in pages if "html" in p]
    man_pages = [p for p in pages if p["id"].startswith("man/zh_CN/")]
    mirrors = {p["id"].replace("man/mirror/", "man/zh_CN/"): p for p in pages
               if p["id"].startswith("man/mirror/")}  # fmt: skip
    with out.open("wb") as f:
        writer = WARCWriter(f, gzip=True, warc_version="WARC/1.0")
        info = writer.create_warcinfo_record("sample_crawl.warc.gz", {
            "software": "examples/make_sample_crawl.py (warcio)",
            "description": "neardup's sample pages as a crawl"})  # fmt: skip
        info.rec_headers.replace_header(
            "WARC-Record-ID", _headers("warcinfo", "")["WARC-Record-ID"]
        )
        info.rec_headers.replace_header("WARC-Date", DATE)
        writer.write_record(info)
        for i, page in enumerate(html_pages):
            _request(writer, page["url"])
            _response(writer, page["url"], page["html"].encode(), "text/html; charset=utf-8",
                      ("identity", "chunked", "gzip", "br")[i % 4])  # fmt: skip
        for page in man_pages:
            url = "https://manpages.example.cn/" + page["id"].removeprefix("man/")
            _request(writer, url)
            gbk = page["text"].replace("•", "·").replace("²", "2").encode("gbk")  # not in GBK
            _response(writer, url, gbk, "text/plain; charset=GBK")
        writer.write_record(writer.create_revisit_record(
            html_pages[0]["url"], "sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", html_pages[0]["url"],
            DATE, http_headers=StatusAndHeaders("200 OK", [("Content-Type", "text/html")],
                                                protocol="HTTP/1.1"),
            warc_headers_dict=_headers("revisit", html_pages[0]["url"])))  # fmt: skip
        _response(writer, "https://docs.python.org/3.11/library/missing.html",
                  b"<html><body><h1>Not Found</h1></body></html>", "text/html", status="404 Not Found")  # fmt: skip
        _response(
            writer, "https://docs.python.org/3/", b"", "text/html", status="301 Moved Permanently"
        )
        note = '<p class="admonition">This copy is served by docs.mirror.example.org.</p>'
        for i, page in enumerate(html_pages):
            url = page["url"].replace(
                "https://docs.python.org/", "https://docs.mirror.example.org/"
            )
            html = page["html"].replace(MAIN, MAIN + note, 1)
            _response(writer, url, html.encode(), "text/html; charset=utf-8",
                      ("gzip", "identity", "br", "chunked")[i % 4])  # fmt: skip
        for page in man_pages:
            mirror = mirrors[page["id"]]
            url = "https://man.mirror.example/" + mirror["id"].removeprefix("man/mirror/")
            _response(writer, url, mirror["text"].encode(), "text/plain; charset=utf-8", "gzip")


if __name__ == "__main__":
    main(*(Path(a) for a in sys.argv[1:2]))
