"""Site chrome masked in the embedded ``neardup dedup`` and :func:`neardup.dedup`: short
articles inside one large header and footer stay apart, their copies group, a site of
chrome-only pages is well-defined, and fingerprints made with and without masking carry
different identities. Each grouping test also runs with masking off and checks that it then
fails: the chrome alone joins the pages."""

from __future__ import annotations

import io
import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from neardup.ingest.chrome import (
    BoundedCounter,
    ChromeCounts,
    ChromeRule,
    line_keys,
    normalize_line,
    site_key,
)
from neardup.ingest.cli import main
from neardup.ingest.fingerprint import PROFILES, FingerprintConfig
from neardup.ingest.pipeline import (
    chrome_counts,
    chrome_counts_of_file,
    fingerprint_config,
    prepare_document,
    prepare_lines,
)
from neardup.ingest.settings import Settings

import neardup

LETTERS = "abcdefghijklmnopqrstuvwxyz"
FUNCTION_WORDS = (
    "the of and to in a is that for it as was with be by on not he this are or his from at "
    "which but have an had they you were their one all we can her has there been if more when "
    "will would who so no she after its into than two over also new some could them these other"
).split()


def _words(rng: random.Random, n: int) -> list[str]:
    """English-like: 45 % function words, the rest pseudo-words of 3-9 letters."""
    return [rng.choice(FUNCTION_WORDS) if rng.random() < 0.45
            else "".join(rng.choice(LETTERS) for _ in range(rng.randint(3, 9)))
            for _ in range(n)]


def _prose(rng: random.Random, n_words: int) -> str:
    """Sentences of 8-16 pseudo-words, about ``n_words`` in all."""
    out: list[str] = []
    while sum(len(s.split()) for s in out) < n_words:
        w = _words(rng, rng.randint(8, 16))
        out.append(" ".join([w[0].capitalize(), *w[1:]]) + ".")
    return " ".join(out)


def _zh_prose(rng: random.Random, n_chars: int) -> str:
    """Chinese-looking sentences (CJK characters, ，and 。), about ``n_chars`` characters."""
    out: list[str] = []
    while sum(len(s) for s in out) < n_chars:
        clause = "".join(chr(rng.randint(0x4E00, 0x9FA5)) for _ in range(rng.randint(8, 14)))
        out.append(clause + rng.choice("，，。"))
    return "".join(out)[:-1] + "。"


def _en_chrome(rng: random.Random) -> tuple[list[str], list[str]]:
    """~600 words of header and footer lines: name, navigation, sign-in, notices, links."""
    header = ["The Riverside Courier", "Home | World | Business | Tech | Sports | Culture",
              "Sign in | Subscribe | Newsletters | Today's paper",
              _prose(rng, 100), _prose(rng, 80), _prose(rng, 70)]
    footer = ["About us | Contact | Careers | Advertise | Privacy | Terms",
              _prose(rng, 110), _prose(rng, 100), _prose(rng, 70),
              "© 2004-2024 The Riverside Courier. All rights reserved."]
    return header, footer


def _zh_chrome(rng: random.Random) -> tuple[list[str], list[str]]:
    """A ~390-character Chinese header and a short footer."""
    header = ["江城日报网", "首页 | 国内 | 国际 | 财经 | 科技 | 体育 | 文化", _zh_prose(rng, 135),
              _zh_prose(rng, 125), _zh_prose(rng, 115)]
    footer = ["关于我们 | 联系我们 | 版权声明", "江城日报网 版权所有 京ICP备12345678号"]
    return header, footer


def _edit(text: str, rng: random.Random, rate: float = 0.03) -> str:
    """A copy with about ``rate`` of its words replaced and one sentence added."""
    words = text.split(" ")
    for i in rng.sample(range(len(words)), max(1, int(rate * len(words)))):
        words[i] = "".join(rng.choice(LETTERS) for _ in range(len(words[i]) or 1))
    return " ".join(words) + " " + _prose(rng, 10)


def _site_pages(chrome: tuple[list[str], list[str]], article_words: int, n_articles: int,
                seed: int) -> tuple[list[dict[str, Any]], set[str]]:
    """``n_articles`` pages of different articles and 3 edited copies of the first, all in
    one site's chrome (a date line that varies per page, as sites print one); the ids of
    the first article's group."""
    rng = random.Random(seed)
    header, footer = chrome

    def page(doc_id: str, paragraphs: list[str], n: int) -> dict[str, Any]:
        date = f"Published 2024-0{n % 9 + 1}-1{n % 10} 0{n % 10}:30 · {17 * n + 3:,} views"
        return {"id": doc_id, "url": f"https://www.courier.example/news/{doc_id}.html",
                "text": "\n".join([*header, date, *paragraphs, *footer])}

    articles = [[_prose(rng, article_words // 2), _prose(rng, article_words // 2)]
                for _ in range(n_articles)]
    pages = [page(f"a{i:02d}", body, i) for i, body in enumerate(articles)]
    copies = [page(f"copy{j}", [_edit(p, rng) for p in articles[0]], 40 + j) for j in range(3)]
    # the copies come among the other pages, not after them
    return pages[:5] + copies[:1] + pages[5:15] + copies[1:] + pages[15:], \
        {"a00", "copy0", "copy1", "copy2"}


def _partition(groups: dict[str, str]) -> set[frozenset[str]]:
    by: dict[str, set[str]] = {}
    for doc_id, g in groups.items():
        by.setdefault(g, set()).add(doc_id)
    return {frozenset(m) for m in by.values()}


def _expected(pages: list[dict[str, Any]], copies: set[str]) -> set[frozenset[str]]:
    return {frozenset(copies)} | {frozenset([p["id"]]) for p in pages if p["id"] not in copies}


def _run_dedup(tmp_path: Path, pages: list[dict[str, Any]], *extra: str) -> dict[str, str]:
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in pages),
                   encoding="utf-8")
    assert main(["dedup", str(src), "-o", str(out), "--no-progress", *extra],
                settings=Settings()) == 0
    rows = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert all("error" not in r for r in rows), rows
    return {r["id"]: r["dup_group"] for r in rows}


# ~125-word articles: with ~150 words in a ~600-word chrome the verifier's content rule alone
# (word resemble >= 0.525 and core resemble >= 0.70) already tells most of them apart (core
# resemble ~0.67), and the test would not show what masking does.
EN_SITE = _site_pages(_en_chrome(random.Random(101)), 125, 26, seed=1)
ZH_SITE = _site_pages(_zh_chrome(random.Random(202)), 80, 26, seed=2)


def test_the_sites_are_what_the_tests_say() -> None:
    en, zh = EN_SITE[0], ZH_SITE[0]
    assert len(en) == len(zh) == 29
    header, footer = _en_chrome(random.Random(101))
    assert 560 <= len(" ".join(header + footer).split()) <= 680
    zh_header, _ = _zh_chrome(random.Random(202))
    assert 370 <= sum(0x4E00 <= ord(c) <= 0x9FA5 for c in "".join(zh_header)) <= 420


@pytest.mark.parametrize("site", [EN_SITE, ZH_SITE], ids=["en-chrome", "zh-chrome"])
@pytest.mark.parametrize("processes", ["1", "2"])
def test_dedup_keeps_articles_in_one_chrome_apart(
    tmp_path: Path, site: tuple[list[dict[str, Any]], set[str]], processes: str
) -> None:
    pages, copies = site
    groups = _run_dedup(tmp_path, pages, "-j", processes)
    assert _partition(groups) == _expected(pages, copies)


@pytest.mark.parametrize("site", [EN_SITE, ZH_SITE], ids=["en-chrome", "zh-chrome"])
def test_without_masking_the_chrome_joins_the_articles(
    tmp_path: Path, site: tuple[list[dict[str, Any]], set[str]]
) -> None:
    """The proof that the test above tests the masking: with ``--no-chrome`` it fails."""
    pages, copies = site
    groups = _run_dedup(tmp_path, pages, "--no-chrome", "-j", "1")
    assert _partition(groups) != _expected(pages, copies)
    assert max(len(g) for g in _partition(groups)) > len(copies)  # different articles joined


def test_the_api_masks_too_and_can_be_told_not_to() -> None:
    pages, copies = EN_SITE
    on = {g.id: g.dup_group for g in neardup.dedup(pages)}
    off = {g.id: g.dup_group for g in neardup.dedup(pages, chrome=False)}
    assert _partition({k: str(v) for k, v in on.items()}) == _expected(pages, copies)
    assert _partition({k: str(v) for k, v in off.items()}) != _expected(pages, copies)
    # below the threshold nothing is chrome: as with masking off
    high = {g.id: g.dup_group for g in neardup.dedup(pages, chrome_min_pages=len(pages) + 1)}
    assert high == off


def test_a_site_of_chrome_only_pages_keeps_its_text(tmp_path: Path) -> None:
    """Every line of these pages is chrome: masking would leave nothing, so each page keeps
    its whole text and the identical pages are one group, without an error."""
    header, footer = _en_chrome(random.Random(5))
    pages = [{"id": f"p{i:02d}", "site": "courier.example", "text": "\n".join(header + footer)}
             for i in range(25)]
    others = [{"id": f"o{i}", "site": "other.example", "text": _prose(random.Random(i), 60)}
              for i in range(3)]
    groups = _run_dedup(tmp_path, pages + others, "-j", "2")
    assert _partition(groups) == {frozenset(p["id"] for p in pages)} | \
        {frozenset([o["id"]]) for o in others}
    api = neardup.dedup(pages)
    assert all(g.error is None and g.dup_group == "p00" for g in api)
    counts = chrome_counts([(1, json.dumps(pages[0]))] * 25)
    doc = prepare_document(pages[0], 1, fingerprint_config(), chrome=counts)
    assert doc.content is None and doc.verified_text == doc.body  # unmasked, not empty


def test_stdin_is_spooled_and_bad_lines_do_not_stop_the_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pages, copies = EN_SITE
    body = "".join(json.dumps(p) + "\n" for p in pages[:10]) + "not json\n" + \
        '{"id": 7}\n' + "".join(json.dumps(p) + "\n" for p in pages[10:])
    out = tmp_path / "out.jsonl"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(body.encode())))
    assert main(["dedup", "-", "-o", str(out), "--no-progress", "-j", "2"],
                settings=Settings()) == 0
    rows = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert [r["type"] for r in rows if "error" in r] == ["parse_exception", "empty_document"]
    groups = {r["id"]: r["dup_group"] for r in rows if "error" not in r}
    assert _partition(groups) == _expected(pages, copies)


def test_usage_errors(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text('{"id": "a", "text": "x"}\n', encoding="utf-8")
    assert main(["dedup", str(src), "--chrome-min-pages", "1"], settings=Settings()) == 2


# --- the pieces ------------------------------------------------------------------------------


def _jsonl(pages: list[dict[str, Any]]) -> list[tuple[int, str]]:
    return [(n, json.dumps(p, ensure_ascii=False)) for n, p in enumerate(pages, 1)]


def test_masked_pages_carry_the_rule_in_their_identity() -> None:
    pages, _ = EN_SITE
    lines = _jsonl(pages)
    counts = chrome_counts(lines)
    masked = [p.doc for p in prepare_lines(lines, fingerprint_config(), chrome=counts)]
    plain = [p.doc for p in prepare_lines(lines, fingerprint_config())]
    assert all(d is not None for d in masked + plain)
    identity = FingerprintConfig(chrome=ChromeRule()).identity
    assert {d.fp_config for d in masked if d} == {identity}
    assert {d.fp_config for d in plain if d} == {PROFILES["web"].identity}
    assert identity.startswith(PROFILES["web"].identity + "+chrome1-t20-")
    assert FingerprintConfig.from_identity(identity) == FingerprintConfig(chrome=ChromeRule())
    for m, p in zip(masked, plain, strict=True):
        assert m is not None and p is not None
        assert m.body == p.body  # the stored text stays whole
        assert m.content is not None and len(m.content) < len(p.body) / 2
        assert "The Riverside Courier" not in m.content


def test_html_pages_are_not_counted_nor_masked() -> None:
    header, footer = _en_chrome(random.Random(7))
    html = [{"id": f"h{i}", "url": "https://courier.example/x",
             "html": "<p>" + "</p><p>".join(header + [_prose(random.Random(i), 40)] + footer)
             + "</p>"} for i in range(25)]
    counts = chrome_counts(_jsonl(html))
    assert counts.pages("courier.example") == 0
    text = [{"id": f"t{i}", "url": "https://courier.example/y",
             "text": "\n".join(header + [_prose(random.Random(i), 40)] + footer)}
            for i in range(25)]
    counts = chrome_counts(_jsonl(text))
    doc = prepare_document(html[0], 1, fingerprint_config(), chrome=counts)
    plain = prepare_document(html[0], 1, fingerprint_config())
    assert (doc.body, doc.content, doc.fingerprints) == (plain.body, plain.content,
                                                         plain.fingerprints)
    assert doc.fp_config != plain.fp_config  # the run's rule, masked or not


def test_counts_do_not_depend_on_order_or_processes(tmp_path: Path) -> None:
    pages = EN_SITE[0] + ZH_SITE[0]
    rng = random.Random(3)
    shuffled = pages[:]
    rng.shuffle(shuffled)
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(p) + "\n" for p in shuffled), encoding="utf-8")
    one = chrome_counts(_jsonl(pages))
    for counts in (chrome_counts(_jsonl(shuffled)), chrome_counts_of_file(src, processes=3)):
        for p in pages:
            site = site_key(p.get("site"), p.get("url"))
            assert counts.mask(site, p["text"]) == one.mask(site, p["text"])
        assert counts.sites() == one.sites()


KEYS = st.lists(st.integers(0, 2**64 - 1), max_size=60)


@settings(max_examples=60, deadline=None)
@given(KEYS, st.integers(0, 40), st.randoms(use_true_random=False))
def test_bounded_counter_is_order_free_and_merges(keys: list[int], cap: int,
                                                  rng: random.Random) -> None:
    """Exact up to ``cap`` distinct keys, a sketch beyond: the same counter for any order of
    the additions and any split of them."""

    def counter(ks: list[int]) -> BoundedCounter:
        c = BoundedCounter(max_exact=cap, width=64, depth=3)
        for k in ks:
            c.add(k)
        return c

    whole = counter(keys)
    shuffled = keys[:]
    rng.shuffle(shuffled)
    cut = rng.randint(0, len(keys))
    merged = counter(shuffled[:cut])
    merged.merge(counter(shuffled[cut:]))
    probe = keys + [rng.getrandbits(64) for _ in range(10)]
    for c in (counter(shuffled), merged):
        assert c.kind == whole.kind
        assert [c.get(k) for k in probe] == [whole.get(k) for k in probe]
    assert whole.kind == ("exact" if len(set(keys)) <= cap else "sketch")
    assert all(whole.get(k) >= keys.count(k) for k in keys)


LINE_TEXT = st.text(st.characters(codec="utf-8"), max_size=60) | st.text(
    st.sampled_from("aA1 \t\r\n\u3000\u00a0\uff21\uff11,.:-/\u0301\u1e9e\u00df\u2028\x85\x1c"
                    "，：（）～\u2460\u00bd\u3002\u5b57"),
    max_size=40)


@settings(max_examples=300, deadline=None)
@given(LINE_TEXT, st.booleans())
def test_line_keys_are_the_keys_of_the_lines(text: str, fold: bool) -> None:
    assert line_keys(text, fold) == [normalize_line(x, fold) for x in text.split("\n")]


def test_counts_pickle_and_merge_by_site() -> None:
    a = ChromeCounts(ChromeRule(min_pages=2), BoundedCounter(), warmup=False)
    b = ChromeCounts(ChromeRule(min_pages=2), BoundedCounter(), warmup=False)
    a.observe_text("s", "Menu\nfirst story")
    b.observe_text("s", "Menu\nsecond story")
    b.observe_text("t", "Menu")
    a.merge(b)
    assert (a.pages("s"), a.pages("t"), a.count("s", "menu"), a.count("t", "MENU")) == (2, 1, 2, 1)
    assert a.mask("s", "Menu\nfirst story") == "first story"
    with pytest.raises(ValueError):
        a.merge(ChromeCounts(ChromeRule(min_pages=3), BoundedCounter()))


def test_without_warm_up_a_small_site_has_no_chrome() -> None:
    """The two-pass rule judges with final counts: a site with fewer than T pages has no line
    on T of them, so two near-copies on a small site keep the lines they share."""
    story = [_prose(random.Random(9), 40), _prose(random.Random(10), 40)]
    counts = ChromeCounts(ChromeRule(), BoundedCounter(), warmup=False)
    first = "\n".join([*story, _prose(random.Random(11), 12)])
    second = "\n".join([*story, _prose(random.Random(12), 12)])
    online = ChromeCounts(ChromeRule(), BoundedCounter())  # the warm-up rule
    for t in (first, second, _prose(random.Random(13), 30)):
        counts.observe_text("small.example", t)
        online.observe_text("small.example", t)
    assert counts.mask("small.example", first) == first
    assert online.mask("small.example", first) == first.split("\n")[-1]
