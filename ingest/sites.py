"""The site of a page: the registered domain of its URL's host.

A page's ``site`` names the publisher it belongs to: what the stoplist's concentration rule
counts (a fingerprint on many pages of a few sites is template, :mod:`neardup.ingest.stoplist`)
and what the inspector charts duplicates by. A page that comes with a ``url`` and no ``site``
(a WARC record, a JSONL line, an HTTP item) gets :func:`site_of` its URL when it is prepared
(:func:`neardup.ingest.pipeline.prepare_document`).

The registered domain is the public suffix and one label more, by the Public Suffix List that
the ``publicsuffixlist`` package ships (read from the installed package, never fetched): its
private section included, so ``alice.github.io`` and ``bob.github.io`` are two sites, and
``news.bbc.co.uk`` is ``bbc.co.uk``. The list loads with the first URL (about 50 ms).
"""

from __future__ import annotations

import functools
import ipaddress
from typing import Any
from urllib.parse import urlsplit

__all__ = ["site_of"]


def site_of(url: str | None) -> str | None:
    """The site of the page at ``url``: the registered domain of its host, lower case.

    A host that is an IP address, or that has no registered domain (``localhost``, a bare
    public suffix), is its own site; a URL without a host (or none) has no site.

    >>> site_of("https://docs.python.org/3/library/os.html"), site_of("http://NEWS.BBC.co.uk/")
    ('python.org', 'bbc.co.uk')
    >>> site_of("https://alice.github.io/"), site_of("http://127.0.0.1:8080/a"), site_of("a.html")
    ('alice.github.io', '127.0.0.1', None)
    """
    if not url:
        return None
    try:
        host = urlsplit(url.strip()).hostname
    except ValueError:  # an invalid IPv6 literal, a bad port
        return None
    if not host:
        return None
    host = host.rstrip(".")
    if not host:
        return None
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        pass
    return _registered_domain(host) or host


@functools.lru_cache(maxsize=1 << 14)
def _registered_domain(host: str) -> str | None:
    found = _suffix_list().privatesuffix(host)
    return None if found is None else str(found)


@functools.cache
def _suffix_list() -> Any:
    from publicsuffixlist import PublicSuffixList

    return PublicSuffixList()
