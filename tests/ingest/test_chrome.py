"""Chrome known from the corpus (neardup.ingest.chrome): line keys, sites, the two-pass rule,
the page-level base, the counters, and the warm-up rule (the stream's delay:
test_chrome_delay.py)."""

from __future__ import annotations

import random

import pytest

from neardup.ingest.chrome import (
    ChromeCounts,
    ChromeRule,
    ExactCounter,
    normalize_line,
    site_key,
)
from neardup.ingest.sketch import SketchCounter

HEADER = ["Example Daily", "Home | World | Business | Sports", "Sign in | Subscribe"]
FOOTER = ["About us | Contact | Privacy", "© 2004-2024 Example Daily. All rights reserved."]


def _word(rng: random.Random) -> str:
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9)))


def _article(rng: random.Random, paragraphs: int = 3) -> list[str]:
    words = [_word(rng) for _ in range(60 * paragraphs)]
    return [" ".join(words[i: i + 60]) + "." for i in range(0, len(words), 60)]


def _page(body: list[str], views: int = 5) -> str:
    return "\n".join([*HEADER, f"Published 2024-01-0{views % 9 + 1} · {views:,} views", *body,
                      *FOOTER])


def test_normalize_line() -> None:
    assert normalize_line("  Home\t|  NEWS \u3000 ") == "home | news"
    assert normalize_line("Ｈｏｍｅ") == "home"  # NFKC: full width
    assert normalize_line("Published 2021-03-04 · 1,234 views") == \
        normalize_line("Published 1999-12-31 · 7 views")
    assert normalize_line("page 12", fold_digits=False) == "page 12"
    assert normalize_line(" \t ") == ""


def test_site_key() -> None:
    assert site_key("News.example.com ") == "news.example.com"
    assert site_key(None, "https://www.Example.com:8080/a?b=1") == "example.com"
    assert site_key("", "http://blog.example.org/") == "blog.example.org"
    assert site_key(None, "not a url") == ""
    assert site_key(None, "http://[::1") == ""  # unparsable
    assert site_key() == ""


def test_two_passes_mask_chrome_keep_bodies() -> None:
    rng = random.Random(1)
    counts = ChromeCounts(ChromeRule(min_pages=5))
    pages = [_page(_article(rng), views=i * 37) for i in range(8)]
    for text in pages:
        counts.observe_text("example.com", text)
    assert counts.pages("example.com") == 8
    for text in pages:
        masked = counts.mask("example.com", text).split("\n")
        body = text.split("\n")[len(HEADER) + 1: -len(FOOTER)]
        assert masked == body  # header, date line (digits folded) and footer gone
    assert counts.is_chrome("example.com", "HOME |  World | Business | Sports")
    assert not counts.is_chrome("example.com", "a line never seen")
    assert not counts.is_chrome("other.com", HEADER[0])  # counted per site
    assert counts.count("example.com", "") == 0


def test_a_pages_first_line_is_its_name() -> None:
    """A text dump's first line names the page. Chrome by count but on fewer than half of the
    site's pages (a family's title), it stays; where the lines after it are masked, it stays a
    block of its own (a blank line after it). A first line on most pages is the site's: masked.
    A page that is all chrome but its name is all chrome."""
    rng = random.Random(5)
    counts = ChromeCounts(ChromeRule(min_pages=3), warmup=False)
    family = [["Class Members", "Lib 3.2", *_article(rng, 1)] for _ in range(4)]
    site = [["Lib 3.2", *_article(rng, 1)] for _ in range(3)]
    guides = [[f"Guide to {_word(rng)}", "Lib 3.2", *_article(rng, 1)] for _ in range(3)]
    empty = ["", "Class Members", "Lib 3.2"]
    for lines in [*family, *site, *guides, empty]:
        counts.observe("s", lines)
    assert counts.is_chrome("s", "Class Members") and counts.is_chrome("s", "Lib 3.2")
    for lines in family + guides:
        assert counts.mask("s", "\n".join(lines)) == "\n".join([lines[0], "", *lines[2:]])
    for lines in site:
        assert counts.mask("s", "\n".join(lines)) == "\n".join(lines[1:])
    assert counts.mask("s", "\n".join(empty)) == ""
    # a name followed by a blank line keeps it; lines before the name are blank
    text = "\n".join(["", "Class Members", "", "Lib 3.2", *family[0][2:]])
    assert counts.mask("s", text) == "\n".join(["", "Class Members", "", *family[0][2:]])


def test_below_threshold_is_content() -> None:
    counts = ChromeCounts(ChromeRule(min_pages=5))
    rng = random.Random(2)
    for _ in range(20):
        counts.observe("s", [*_article(rng), "a line on four pages only"] if rng.random() < 0.2
                       else _article(rng))
    assert counts.count("s", "a line on four pages only") < 5
    assert not counts.is_chrome("s", "a line on four pages only")


def test_a_page_counts_a_line_once() -> None:
    counts = ChromeCounts(ChromeRule(min_pages=2))
    counts.observe("s", ["Share", "Share", " share "])
    assert counts.count("s", "SHARE") == 1


def test_pages_without_site_share_the_corpus_threshold() -> None:
    rule = ChromeRule(min_pages=3, corpus_min_pages=5)
    counts = ChromeCounts(rule)
    for _ in range(4):
        counts.observe("", ["Cookie notice: we use cookies."])
    assert rule.threshold("") == 5 and rule.threshold("x") == 3
    assert not counts.ready("")
    counts.observe("", ["Cookie notice: we use cookies."])
    assert counts.ready("") and counts.is_chrome("", "cookie notice: we use cookies.")


def test_repeated_story_keeps_its_body() -> None:
    """A story a site carries on more than T pages keeps the lines its copies share (its
    base is high); the chrome, on every page of the site, still goes."""
    rng = random.Random(3)
    counts = ChromeCounts(ChromeRule(min_pages=5, ratio=4.0))
    story = _article(rng, paragraphs=4)
    others = [_page(_article(rng)) for _ in range(40)]
    copies = [_page(story) for _ in range(8)]
    for text in others + copies:
        counts.observe_text("s", text)
    assert counts.mask("s", copies[0]).split("\n") == story
    # with no safeguard (ratio 1) the story's lines count as chrome too
    bare = ChromeCounts(ChromeRule(min_pages=5, ratio=1.0))
    for text in others + copies:
        bare.observe_text("s", text)
    assert bare.mask("s", copies[0]) == ""


def test_a_line_on_half_the_sites_pages_is_chrome_whatever_the_pages_base() -> None:
    """A book's pages each carry its table of contents, lines of 40 characters and more; a
    section's page has nothing else but its heading, so its base is the contents' count.
    Lines on half the site's pages or more (and on T) are the site's all the same: the page
    keeps its name and heading. A story on fewer than half of the site's pages keeps its body."""
    rng = random.Random(8)
    counts = ChromeCounts(ChromeRule(min_pages=5), warmup=False)
    contents = [f"{i}. The chapter on {_word(rng)} and {_word(rng)} in this reference" for i in
                range(1, 13)]
    chapters = [[f"Chapter {_word(rng)} - The Reference", *contents, *_article(rng, 1)]
                for _ in range(20)]
    sections = [[f"{name} - The Reference", *contents, name] for name in ("Appendices", "Names")]
    for lines in chapters + sections:
        counts.observe("book", lines)
    assert all(len(line) >= 40 for line in contents)
    for lines in sections:
        assert counts.mask("book", "\n".join(lines)) == "\n".join([lines[0], "", lines[-1]])
    for lines in chapters:
        assert counts.mask("book", "\n".join(lines)) == "\n".join([lines[0], "", lines[-1]])


def test_an_edited_copy_of_a_repeated_story_loses_the_shared_lines_below_the_ratio() -> None:
    """A copy with a line of its own has base 1: the lines on >= T pages are masked."""
    rng = random.Random(4)
    counts = ChromeCounts(ChromeRule(min_pages=5))
    story = _article(rng, paragraphs=3)
    own = _article(rng, paragraphs=1)
    for _ in range(30):
        counts.observe_text("s", _page(_article(rng)))
    for _ in range(6):
        counts.observe_text("s", _page(story))
    counts.observe_text("s", _page(story + own))
    assert counts.mask("s", _page(story + own)).split("\n") == own


def test_warm_up_rule() -> None:
    counts = ChromeCounts(ChromeRule(min_pages=20, warmup_share=0.5))
    rng = random.Random(5)
    counts.observe_text("s", _page(_article(rng)))
    assert not counts.ready("s")
    assert not counts.is_chrome("s", HEADER[0])  # one page: nothing is known yet
    counts.observe_text("s", _page(_article(rng)))
    assert counts.is_chrome("s", HEADER[0])  # on 2 of 2 pages of a young site
    for _ in range(3):
        counts.observe_text("s", _page(_article(rng)))
    counts.observe("s", ["only here", "and here"])
    counts.observe("s", ["only here"])
    assert counts.count("s", "only here") == 2
    assert not counts.is_chrome("s", "only here")  # 2 of 7 pages < half


def test_young_site_copies_are_not_masked_against_each_other() -> None:
    """Two copies of one story are a young site's first pages: their base (2) spares the body."""
    rng = random.Random(6)
    counts = ChromeCounts(ChromeRule(min_pages=20, ratio=4.0))
    story = _article(rng)
    for _ in range(2):
        counts.observe_text("s", _page(story))
    kept = counts.mask("s", _page(story)).split("\n")
    assert story[0] in kept and HEADER[0] in kept


@pytest.mark.parametrize("counter", [ExactCounter(), SketchCounter(width=1 << 12, depth=4)])
def test_counters_agree_on_small_data(counter: ExactCounter | SketchCounter) -> None:
    rng = random.Random(7)
    exact = ExactCounter()
    keys = [rng.getrandbits(64) for _ in range(300)]
    for k in keys:
        for _ in range(k % 7):
            counter.add(k)
            exact.add(k)
    for k in keys:
        assert counter.get(k) >= exact.get(k)  # a sketch never under-counts
    wrong = sum(counter.get(k) != exact.get(k) for k in keys)
    assert wrong <= 3


def test_sketch_memory_is_fixed_and_args_checked() -> None:
    sketch = SketchCounter(width=64, depth=2)
    for k in range(10_000):
        sketch.add(k)
    assert sum(sketch.get(k) for k in range(10_000)) >= 10_000
    with pytest.raises(ValueError):
        SketchCounter(width=0)
    with pytest.raises(ValueError):
        SketchCounter(depth=99)


def test_counts_with_a_sketch_give_the_same_masks() -> None:
    rng = random.Random(8)
    pages = [_page(_article(rng), views=i) for i in range(30)]
    a = ChromeCounts(ChromeRule(min_pages=5))
    b = ChromeCounts(ChromeRule(min_pages=5), SketchCounter(width=1 << 16))
    for text in pages:
        a.observe_text("s", text)
        b.observe_text("s", text)
    assert [a.mask("s", t) for t in pages] == [b.mask("s", t) for t in pages]


def test_rule_arguments_are_checked() -> None:
    with pytest.raises(ValueError):
        ChromeRule(min_pages=1)
    with pytest.raises(ValueError):
        ChromeRule(corpus_min_pages=0)
    with pytest.raises(ValueError):
        ChromeRule(ratio=0.5)
    with pytest.raises(ValueError):
        ChromeRule(warmup_share=0)


def test_new_chrome_on_an_established_site_is_masked_once_common() -> None:
    """A block a site adds later is content below T and chrome once T pages carry it."""
    rng = random.Random(11)
    counts = ChromeCounts(ChromeRule(min_pages=5))
    for _ in range(30):
        counts.observe_text("s", _page(_article(rng)))
    trending = "Trending now: the bridge, the budget, the match"
    page = _page([*_article(rng), trending])
    counts.observe_text("s", page)
    assert trending in counts.mask("s", page)
    for _ in range(4):
        counts.observe_text("s", _page([*_article(rng), trending]))
    assert trending not in counts.mask("s", page)
