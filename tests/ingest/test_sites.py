"""A page's site from its URL (neardup.ingest.sites): the registered domain by the Public Suffix
List the package ships — read from disk, never fetched — and given to every page that has a URL
and no site, whatever the input (a JSONL line here; WARC records in test_warc_reader.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from neardup.ingest.pipeline import fingerprint_config, prepare_document
from neardup.ingest.sites import site_of

ARTICLE = ("The river flooded the old town on Monday night. Residents were moved to the school "
           "on the hill, where volunteers served soup until morning.")  # fmt: skip


@pytest.mark.parametrize(
    ("url", "site"),
    [
        ("https://docs.python.org/3/library/os.html", "python.org"),
        ("http://WWW.Example.COM.:8080/a?b#c", "example.com"),
        ("https://news.bbc.co.uk/sport", "bbc.co.uk"),  # a two-label public suffix
        ("https://alice.github.io/blog/", "alice.github.io"),  # the list's private section
        ("http://news.xinhuanet.com/politics/1.htm", "xinhuanet.com"),
        ("http://新华网.中国/a", "新华网.中国"),
        ("http://192.168.1.20/index.html", "192.168.1.20"),
        ("http://[2001:db8::1]/", "2001:db8::1"),
        ("http://localhost:9200/", "localhost"),
        ("/relative/page.html", None),
        ("mailto:someone@example.com", None),
        ("http://[::1/", None),  # not a URL
        (None, None),
    ],
)
def test_the_site_is_the_registered_domain(url: str | None, site: str | None) -> None:
    assert site_of(url) == site


def test_the_suffix_list_is_read_from_the_package_never_fetched() -> None:
    code = (
        "import socket\n"
        "def refuse(*a, **k): raise OSError('no network in this test')\n"
        "socket.socket.connect = refuse\nsocket.getaddrinfo = refuse\n"
        "from neardup.ingest.sites import site_of\n"
        "print(site_of('https://docs.python.org/3/'), site_of('http://a.b.example.co.uk/'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, check=True)  # fmt: skip
    assert out.stdout.split() == ["python.org", "example.co.uk"]


def test_a_jsonl_page_with_a_url_and_no_site_gets_its_site() -> None:
    config = fingerprint_config()
    url = "https://docs.python.org/3/tutorial/index.html"
    assert (
        prepare_document({"id": "a", "text": ARTICLE, "url": url}, 1, config).site == "python.org"
    )
    given = {"id": "b", "text": ARTICLE, "url": url, "site": "Python docs"}
    assert prepare_document(given, 2, config).site == "Python docs"  # a site given is kept
    assert prepare_document({"id": "c", "text": ARTICLE}, 3, config).site is None
