"""The stream's delay (:func:`neardup.ingest.chrome_pass.delayed_input`): a page is handed on
once ``T`` more pages of its site have been counted, or ``max_age`` pages of any site, or at the
end; pages that are not counted pass at once. The counts are a fake that records what was
counted, or counts in memory to mask with (the shared counts on Redis are tested in
tests/integration/test_chrome_shared.py)."""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from neardup.ingest.chrome import ChromeCounts, ChromeRule
from neardup.ingest.chrome_pass import delayed_input
from neardup.ingest.errors import InvalidRecord
from neardup.ingest.records import Page


class _Counts:
    """What ``delayed_input`` asks of the shared counts: the rule, and counting pages (by id,
    each once); it records which pages were counted before each one was handed on."""

    def __init__(self, t: int) -> None:
        self.rule = ChromeRule(min_pages=t)
        self.seen: list[str] = []

    def observe_pages(self, pages: Sequence[tuple[str, str | None, str | None, str]]) -> int:
        new = [p[0] for p in pages if p[0] not in self.seen]
        self.seen += new
        return len(new)


def _line(doc_id: str, site: str) -> tuple[int, bytes]:
    return 0, json.dumps({"id": doc_id, "site": site, "text": f"{doc_id} of {site}"}).encode()


def _ids(items: Iterator[tuple[int, Any]]) -> list[str]:
    return [json.loads(raw)["id"] if isinstance(raw, bytes) else repr(raw) for _, raw in items]


def _released(counts: _Counts, items: list[tuple[int, Any]], **kw: Any) -> list[tuple[str, int]]:
    """Each item's id as it is handed on, with how many pages had been counted then."""
    return [(_ids(iter([item]))[0], len(counts.seen))
            for item in delayed_input(counts, items, **kw)]  # type: ignore[arg-type]


# None: the items read in the caller's thread; 30 s: by a reading thread (what a stream uses)
WAITS = pytest.mark.parametrize("max_wait", [None, 30.0], ids=["no-time-limit", "reader-thread"])


@WAITS
def test_a_page_waits_for_t_more_pages_of_its_site(max_wait: float | None) -> None:
    lines = [_line(f"a{i}", "a.example") for i in range(6)]
    # a0 leaves when a3 is counted (3 more of its site), ...; the last three at the end
    assert _released(_Counts(t=3), lines, max_wait=max_wait) == [
        ("a0", 4), ("a1", 5), ("a2", 6), ("a3", 6), ("a4", 6), ("a5", 6)]


@WAITS
def test_pages_leave_in_input_order_and_max_age_lets_a_small_site_go(
    max_wait: float | None,
) -> None:
    # In input order: pages are accepted in it, so a group's earliest page is the one a file
    # would make its representative. The small site's page holds the others back until
    # max_age more pages are counted.
    lines = [_line("s0", "small.example")] + [_line(f"b{i}", "big.example") for i in range(6)]
    assert _released(_Counts(t=2), lines, max_age=4, max_wait=max_wait) == [
        ("s0", 5), ("b0", 5), ("b1", 5), ("b2", 6), ("b3", 7), ("b4", 7), ("b5", 7)]
    # ... and without max_age, until the end
    assert _released(_Counts(t=2), lines, max_wait=max_wait) == [
        (f"{x}", 7) for x in ("s0", "b0", "b1", "b2", "b3", "b4", "b5")]


def test_delay_zero_is_at_once_and_other_items_keep_their_place() -> None:
    bad = InvalidRecord("invalid JSON")
    html = json.dumps({"id": "h", "html": "<p>a page</p>"}).encode()
    lines = [_line("a0", "a.example"), (1, bad), (2, html), _line("a1", "a.example")]
    assert _released(_Counts(t=5), lines, delay=0) == [
        ("a0", 1), (repr(bad), 1), ("h", 1), ("a1", 2)]
    # neither counted nor waiting for counts, but behind the page held before them
    assert _released(_Counts(t=5), lines) == [
        ("a0", 2), (repr(bad), 2), ("h", 2), ("a1", 2)]
    assert _released(_Counts(t=5), lines[1:3]) == [(repr(bad), 0), ("h", 0)]


def test_a_silent_stream_lets_its_pages_go_after_max_wait() -> None:
    more = threading.Event()

    def stream() -> Iterator[tuple[int, bytes]]:
        yield _line("a0", "a.example")
        yield _line("b0", "b.example")
        more.wait(30)  # the stream is silent until the test has its first pages
        yield _line("a1", "a.example")

    out = delayed_input(_Counts(t=5), stream(), max_wait=0.2)  # type: ignore[arg-type]
    t0 = time.monotonic()
    assert _ids(iter([next(out), next(out)])) == ["a0", "b0"]  # not waiting for a1
    assert time.monotonic() - t0 < 10
    more.set()
    assert _ids(out) == ["a1"]


def test_an_error_of_the_stream_is_raised_to_the_reader() -> None:
    def stream() -> Iterator[tuple[int, bytes]]:
        yield _line("a0", "a.example")
        raise OSError("the pipe broke")

    out = delayed_input(_Counts(t=5), stream())  # type: ignore[arg-type]
    with pytest.raises(OSError, match="the pipe broke"):
        list(out)


def test_counted_and_bad_arguments() -> None:
    counted = [0]
    lines = [_line("a0", "x"), _line("a0", "x"), _line("a1", "x")]
    assert len(list(delayed_input(_Counts(t=2), lines, counted=counted))) == 3  # type: ignore[arg-type]
    assert counted == [2]  # a repeated id is counted once
    with pytest.raises(ValueError):
        list(delayed_input(_Counts(t=2), lines, delay=-1))  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        list(delayed_input(_Counts(t=2), lines, max_age=0))  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        list(delayed_input(_Counts(t=2), lines, max_wait=-1))  # type: ignore[arg-type]


HEADER = ["Example Daily", "Home | World | Business | Sports", "Sign in | Subscribe"]
FOOTER = ["About us | Contact | Privacy", "© 2004-2024 Example Daily. All rights reserved."]


def _text_page(doc_id: str, site: str, rng: random.Random, views: int = 5) -> Page:
    """A page of ``site``: its chrome around an article of its own."""
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9)))
             for _ in range(180)]
    body = [" ".join(words[i: i + 60]) + "." for i in range(0, len(words), 60)]
    text = "\n".join([*HEADER, f"Published 2024-01-0{views % 9 + 1} · {views:,} views", *body,
                      *FOOTER])
    return Page(id=doc_id, field="text", source=text, site=site)


def test_a_steady_site_is_masked_as_two_passes_mask_it() -> None:
    """With a delay of T pages, every page of a site whose chrome never changes is masked as
    the two-pass rule masks it (with the counts of every page), its first pages included."""
    rng = random.Random(9)
    pages = [_text_page(f"p{i}", "s", rng, views=i * 13) for i in range(40)]
    whole = ChromeCounts(ChromeRule(min_pages=5), warmup=False)
    for page in pages:
        whole.observe_text("s", page.source)
    online = ChromeCounts(ChromeRule(min_pages=5), warmup=False)
    out = [(page.id, online.pages("s"), online.mask("s", page.source))
           for _, page in delayed_input(online, enumerate(pages, 1), max_wait=None)]
    assert [(i, n) for i, n, _ in out] == [(p.id, min(k + 6, 40)) for k, p in enumerate(pages)]
    assert {i: m for i, _, m in out} == {p.id: whole.mask("s", p.source) for p in pages}
    assert all(HEADER[0] not in m for _, _, m in out)


def test_max_age_lets_a_small_site_go_with_no_chrome() -> None:
    rng = random.Random(10)
    counts = ChromeCounts(ChromeRule(min_pages=5), warmup=False)
    items = [(1, _text_page("t0", "tiny", rng))]
    items += [(n, _text_page(f"b{n}", "big", rng)) for n in range(2, 13)]
    out = [(page.id, counts.pages("big"), counts.mask(page.site, page.source))
           for _, page in delayed_input(counts, items, max_age=10, max_wait=None)]
    # the tiny site's page waited for 10 pages of another site, then left first; a site with
    # one page counted has no chrome: it keeps its whole text
    assert out[0][:2] == ("t0", 10) and out[0][2] == items[0][1].source

