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
from support.chrome_sites import EN_SITE, ZH_SITE, en_chrome, expected, partition, prose, zh_chrome
from support.ci import require_compiled

import neardup
from neardup.ingest import _chrome_py
from neardup.ingest.chrome import (
    BoundedCounter,
    ChromeCounts,
    ChromeRule,
    _line_hash,
    line_keys,
    normalize_line,
    page_hashes,
    site_key,
)
from neardup.ingest.chrome_pass import (
    chrome_counts,
    chrome_counts_keeping_hashes,
    chrome_counts_of_file,
)
from neardup.ingest.cli import main
from neardup.ingest.fingerprint import PROFILES, FingerprintConfig
from neardup.ingest.pipeline import fingerprint_config, prepare_document, prepare_lines
from neardup.ingest.settings import Settings


def _run_dedup(tmp_path: Path, pages: list[dict[str, Any]], *extra: str) -> dict[str, str]:
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in pages),
                   encoding="utf-8")
    assert main(["dedup", str(src), "-o", str(out), "--no-progress", *extra],
                settings=Settings()) == 0
    rows = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert all("error" not in r for r in rows), rows
    return {r["id"]: r["dup_group"] for r in rows}


def test_the_sites_are_what_the_tests_say() -> None:
    en, zh = EN_SITE[0], ZH_SITE[0]
    assert len(en) == len(zh) == 29
    header, footer = en_chrome(random.Random(101))
    assert 560 <= len(" ".join(header + footer).split()) <= 680
    zh_header, _ = zh_chrome(random.Random(202))
    assert 370 <= sum(0x4E00 <= ord(c) <= 0x9FA5 for c in "".join(zh_header)) <= 420


@pytest.mark.parametrize("site", [EN_SITE, ZH_SITE], ids=["en-chrome", "zh-chrome"])
@pytest.mark.parametrize("processes", ["1", "2"])
def test_dedup_keeps_articles_in_one_chrome_apart(
    tmp_path: Path, site: tuple[list[dict[str, Any]], set[str]], processes: str
) -> None:
    pages, copies = site
    groups = _run_dedup(tmp_path, pages, "-j", processes)
    assert partition(groups) == expected(pages, copies)


@pytest.mark.parametrize("site", [EN_SITE, ZH_SITE], ids=["en-chrome", "zh-chrome"])
def test_without_masking_the_chrome_joins_the_articles(
    tmp_path: Path, site: tuple[list[dict[str, Any]], set[str]]
) -> None:
    """The proof that the test above tests the masking: with ``--no-chrome`` it fails."""
    pages, copies = site
    groups = _run_dedup(tmp_path, pages, "--no-chrome", "-j", "1")
    assert partition(groups) != expected(pages, copies)
    assert max(len(g) for g in partition(groups)) > len(copies)  # different articles joined


def test_the_api_masks_too_and_can_be_told_not_to() -> None:
    pages, copies = EN_SITE
    on = {g.id: g.dup_group for g in neardup.dedup(pages)}
    off = {g.id: g.dup_group for g in neardup.dedup(pages, chrome=False)}
    assert partition({k: str(v) for k, v in on.items()}) == expected(pages, copies)
    assert partition({k: str(v) for k, v in off.items()}) != expected(pages, copies)
    # below the threshold nothing is chrome: as with masking off
    high = {g.id: g.dup_group for g in neardup.dedup(pages, chrome_min_pages=len(pages) + 1)}
    assert high == off


def test_a_site_of_chrome_only_pages_keeps_its_text(tmp_path: Path) -> None:
    """Every line of these pages is chrome: masking would leave nothing, so each page keeps
    its whole text and the identical pages are one group, without an error."""
    header, footer = en_chrome(random.Random(5))
    pages = [{"id": f"p{i:02d}", "site": "courier.example", "text": "\n".join(header + footer)}
             for i in range(25)]
    others = [{"id": f"o{i}", "site": "other.example", "text": prose(random.Random(i), 60)}
              for i in range(3)]
    groups = _run_dedup(tmp_path, pages + others, "-j", "2")
    assert partition(groups) == {frozenset(p["id"] for p in pages)} | \
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
    assert partition(groups) == expected(pages, copies)


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
    assert identity.startswith(PROFILES["web"].identity + "+chrome4-t20-")
    assert FingerprintConfig.from_identity(identity) == FingerprintConfig(chrome=ChromeRule())
    for m, p in zip(masked, plain, strict=True):
        assert m is not None and p is not None
        assert m.body == p.body  # the stored text stays whole
        assert m.content is not None and len(m.content) < len(p.body) / 2
        assert "The Riverside Courier" not in m.content


def test_html_pages_are_not_counted_nor_masked() -> None:
    header, footer = en_chrome(random.Random(7))
    html = [{"id": f"h{i}", "url": "https://courier.example/x",
             "html": "<p>" + "</p><p>".join(header + [prose(random.Random(i), 40)] + footer)
             + "</p>"} for i in range(25)]
    counts = chrome_counts(_jsonl(html))
    assert counts.pages("courier.example") == 0
    text = [{"id": f"t{i}", "url": "https://courier.example/y",
             "text": "\n".join(header + [prose(random.Random(i), 40)] + footer)}
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


@pytest.mark.parametrize("processes", [1, 3])
def test_the_counting_pass_keeps_each_pages_line_hashes_for_the_masking(
    tmp_path: Path, processes: int,
) -> None:
    """``neardup dedup`` hashes a page's lines once: the counting pass keeps them on disk and
    the masking reads them back. The counts are those of :func:`chrome_counts_of_file`; each
    plain-text page's kept hashes are its :func:`page_hashes`; a text that is not the one
    counted, an HTML page, a line in error or a blank line have none; and a page masked with
    its kept hashes is the page masked without them."""
    pages = EN_SITE[0] + ZH_SITE[0]
    lines = [json.dumps(p, ensure_ascii=False) for p in pages]
    lines[3:3] = ["", "{not json", json.dumps({"id": "h", "html": "<p>Some words here.</p>"})]
    src = tmp_path / "in.jsonl"
    src.write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    one = chrome_counts_of_file(src)
    counts, kept = chrome_counts_keeping_hashes(src, processes=processes)
    with kept:
        assert counts.sites() == one.sites()
        found = 0
        for n, line in enumerate(lines, 1):
            if "text" not in line:
                assert kept.get(n, "Some words here.") is None
                continue
            page = json.loads(line)
            site, text = site_key(page.get("site"), page.get("url")), page["text"]
            hashes = kept.get(n, text)
            assert hashes == page_hashes(site, text)
            assert kept.get(n, text + " more") is None  # another text: hashed again
            assert kept.get(n, text + "\nmore") is None
            # the same length and lines, another text (a reader numbering records otherwise)
            assert kept.get(n, text[:-1] + ("x" if text[-1] != "x" else "y")) is None
            assert counts.mask(site, text, hashes) == one.mask(site, text) \
                == one.mask(site, text, ([1], [1]))  # hashes of another text: not used
            found += one.mask(site, text) != text
        assert found >= len(pages) // 2  # the test masks pages
    assert kept.get(1, json.loads(lines[0])["text"]) is None  # closed: nothing kept


def test_verified_only_keeps_the_text_the_verifier_compares() -> None:
    """``prepare_lines(verified_only=True)`` (the embedded dedup's): a masked page comes
    without its whole text, its verified text and fingerprints as they were; a page with no
    ``content`` keeps its body."""
    alone = {"id": "alone", "site": "other.example",
             "text": "A page of a site of its own.\nNothing on it is chrome."}
    lines = _jsonl(EN_SITE[0] + [alone])
    counts = chrome_counts(lines)
    full = [p.doc for p in prepare_lines(lines, fingerprint_config(), chrome=counts)]
    for processes in (1, 2):
        lean = [p.doc for p in prepare_lines(lines, fingerprint_config(), chrome=counts,
                                             processes=processes, verified_only=True)]
        assert all(d is not None for d in full + lean)
        assert [d.verified_text for d in lean] == [d.verified_text for d in full]  # type: ignore[union-attr]
        assert [d.fingerprints for d in lean] == [d.fingerprints for d in full]  # type: ignore[union-attr]
        for whole, d in zip(full, lean, strict=True):
            assert d.body == ("" if whole.content is not None else whole.body)  # type: ignore[union-attr]
        assert any(d.body == "" for d in lean) and any(d.content is None for d in lean)  # type: ignore[union-attr]


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
    # get_many: get of each key, 0 for the blank line's 0 (never counted)
    assert whole.get_many(probe + [0]) == [whole.get(k) if k else 0 for k in probe] + [0]
    assert whole.kind == ("exact" if len(set(keys)) <= cap else "sketch")
    assert all(whole.get(k) >= keys.count(k) for k in keys)


LINE_TEXT = st.text(st.characters(codec="utf-8"), max_size=60) | st.text(
    st.sampled_from("aA1 \t\r\n\u3000\u00a0\uff21\uff11,.:-/\u0301\u1e9e\u00df\u2028\x85\x1c"
                    "，：（）～\u2460\u00bd\u3002\u5b57\uff5a\uff10\uff0e…℃\u0327\u0663\u0967"),
    max_size=40)


@settings(max_examples=600, deadline=None)
@given(LINE_TEXT, st.booleans())
def test_line_keys_are_the_keys_of_the_lines(text: str, fold: bool) -> None:
    assert line_keys(text, fold) == [normalize_line(x, fold) for x in text.split("\n")]


@settings(max_examples=600, deadline=None)
@given(LINE_TEXT, st.sampled_from(["", "news.example", "新闻.cn", "a\ud800b"]), st.booleans())
def test_page_hashes_are_the_hashes_of_the_line_keys(text: str, site: str, fold: bool) -> None:
    # the compiled hashes (where built) against hashlib's MD5 of each key as the reference makes it
    keys = [normalize_line(x, fold) for x in text.split("\n")]
    assert page_hashes(site, text, fold) == (
        [_line_hash(site, k) if k else 0 for k in keys], [len(k) for k in keys])


@settings(max_examples=600, deadline=None)
@given(LINE_TEXT, st.sampled_from(["", "news.example", "新闻.cn", "a\ud800b"]), st.booleans())
def test_the_compiled_line_keys_and_hashes_are_the_reference(
    text: str, site: str, fold: bool,
) -> None:
    compiled = require_compiled("neardup.ingest._chrome")
    prefix = site.encode("utf-8", "surrogatepass") + b"\x00"
    for t in (text, text.casefold()):
        assert compiled.split_line_keys(t, fold) == _chrome_py.split_line_keys(t, fold)
        assert compiled.line_hashes(t, prefix, fold) == _chrome_py.line_hashes(t, prefix, fold)


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
    story = [prose(random.Random(9), 40), prose(random.Random(10), 40)]
    counts = ChromeCounts(ChromeRule(), BoundedCounter(), warmup=False)
    first = "\n".join([*story, prose(random.Random(11), 12)])
    second = "\n".join([*story, prose(random.Random(12), 12)])
    online = ChromeCounts(ChromeRule(), BoundedCounter())  # the warm-up rule
    for t in (first, second, prose(random.Random(13), 30)):
        counts.observe_text("small.example", t)
        online.observe_text("small.example", t)
    assert counts.mask("small.example", first) == first
    assert online.mask("small.example", first) == first.split("\n")[-1]


class _ReadAhead(ChromeCounts):
    """In-memory counts that record the chunks read ahead (as the Redis-backed ones do)."""

    def __init__(self) -> None:
        super().__init__(ChromeRule(), BoundedCounter(), warmup=False)
        self.chunks: list[int] = []

    def prefetch(self, pages: list[Any], limits: Any) -> None:
        self.chunks.append(len(pages))


def test_prepare_lines_reads_counts_ahead_a_chunk_at_a_time() -> None:
    pages, _ = EN_SITE
    lines = [(i, json.dumps(p)) for i, p in enumerate(pages, 1)]
    lines.insert(3, (0, "{not json"))
    config = fingerprint_config("web")
    ahead = _ReadAhead()
    ahead.merge(chrome_counts(lines))
    plain = ChromeCounts(ChromeRule(), BoundedCounter(), warmup=False)
    plain.merge(chrome_counts(lines))
    want = [(p.line_no, p.error, p.doc and p.doc.fingerprints)
            for p in prepare_lines(lines, config, chrome=plain)]
    got = [(p.line_no, p.error, p.doc and p.doc.fingerprints)
           for p in prepare_lines(lines, config, chrome=ahead, prefetch=4)]
    assert got == want
    assert ahead.chunks == [3] + [4] * ((len(lines) - 4) // 4) + (
        [(len(lines) - 4) % 4] if (len(lines) - 4) % 4 else [])
