"""The front door's :func:`neardup.dedup`: plain strings (their position is their id), any
iterable read once, bad items as their own errors, and results as ``neardup dedup`` gives them
on the same pages — streamed: each page as it is decided, without holding the pages."""

from __future__ import annotations

import json
import random
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.chrome_sites import EN_SITE, ZH_SITE, partition, prose

import neardup
from neardup import Grouped
from neardup.ingest.cli import main
from neardup.ingest.errors import ConfigError
from neardup.ingest.settings import Settings


def _sentences(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    return [prose(rng, 12) for _ in range(n)]


# Twelve sentences each, two apart along one run of sentences: a page is similar to the next
# one but not to the one after it (checked below), so the third page given joins the first two.
RUN = _sentences(5, 20)
FIRST, BRIDGE, LAST = (" ".join(RUN[i:i + 12]) for i in (0, 2, 4))


def _texts() -> list[str]:
    """Plain-text pages without a site: one site's chrome around its articles and their
    copies (the chrome rule masks it), a bridge, pages alike in nothing."""
    en, _ = EN_SITE
    return [p["text"] for p in en] + [FIRST, LAST, BRIDGE] + _sentences(9, 4)


def _cli(tmp_path: Path, pages: list[dict[str, Any]], *extra: str) -> list[dict[str, Any]]:
    """The rows ``neardup dedup`` writes for ``pages``."""
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in pages),
                   encoding="utf-8")
    assert main(["dedup", str(src), "-o", str(out), "--no-progress", *extra],
                settings=Settings()) == 0
    return [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]


def _rows(results: Any) -> list[tuple[Any, ...]]:
    return [(g.id, g.dup_group, g.dup_of) for g in results]


def _cli_rows(rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [(r["id"], r.get("dup_group"), r.get("dup_of")) for r in rows]


def test_the_bridge_is_what_the_tests_say() -> None:
    assert neardup.compare(FIRST, BRIDGE).similar and neardup.compare(BRIDGE, LAST).similar
    assert not neardup.compare(FIRST, LAST).similar


@pytest.mark.parametrize("chrome", [True, False], ids=["chrome", "no-chrome"])
def test_plain_strings_group_as_the_command_groups_their_pages(
    tmp_path: Path, chrome: bool
) -> None:
    """A plain string is the page ``{"id": position, "text": string}``: its id is its position
    from 0, and the groups are those ``neardup dedup`` writes for those pages."""
    texts = _texts()
    extra = () if chrome else ("--no-chrome",)
    want = _cli(tmp_path, [{"id": i, "text": t} for i, t in enumerate(texts)], "-j", "1", *extra)
    got = neardup.dedup(texts, chrome=chrome)
    assert [g.id for g in got] == [str(i) for i in range(len(texts))]
    assert _rows(got) == _cli_rows(want)
    groups = partition({g.id: g.dup_group for g in got})
    assert {str(len(EN_SITE[0])), str(len(EN_SITE[0]) + 1), str(len(EN_SITE[0]) + 2)} in groups
    # the chrome rule is what keeps the site's different articles apart
    assert (max(len(g) for g in groups) > 10) is not chrome


@pytest.mark.parametrize("processes", ["1", "2"])
def test_mappings_group_as_the_command_groups_them(tmp_path: Path, processes: str) -> None:
    """Pages with ids and sites, two sites of chrome, ``-j 1`` and ``-j 2`` alike."""
    pages = EN_SITE[0] + [{**p, "id": f"zh-{p['id']}"} for p in ZH_SITE[0]] + \
        [{"id": f"x{i}", "text": t} for i, t in enumerate([FIRST, LAST, BRIDGE])]
    want = _cli(tmp_path, pages, "-j", processes)
    assert not any("error" in r for r in want)
    got = neardup.dedup(pages, processes=int(processes))
    assert [(g.id, g.dup_group) for g in got] == [(r["id"], r["dup_group"]) for r in want]
    if processes == "1":  # the same pairs verified in the same order: the same matches
        assert _rows(got) == _cli_rows(want)


def test_any_iterable_is_read_once() -> None:
    texts = _texts()
    want = _rows(neardup.dedup(texts))
    read: list[int] = []

    def pages() -> Iterator[str]:
        for i, t in enumerate(texts):
            read.append(i)
            yield t

    assert _rows(neardup.dedup(pages())) == want
    assert read == list(range(len(texts)))
    assert _rows(neardup.dedup(tuple(texts))) == want
    assert _rows(neardup.dedup(iter(texts), processes=2)) == want
    assert list(neardup.dedup(iter([]))) == []


def test_a_bad_item_is_its_own_error_and_nothing_else_is_lost() -> None:
    good = [{"id": f"g{i}", "text": t} for i, t in enumerate([FIRST, BRIDGE, LAST, RUN[15]])]
    bad: list[Any] = [None, 42, b"bytes are not text", ["a", "list"], {"text": "no id"},
                      {"id": "o", "text": object()}, {"id": "n", "text": float("nan")},
                      {"id": "g0", "text": "a repeated id"}, "", {"id": "e", "html": "<p> </p>"}]
    mixed: list[Any] = [good[0], *bad[:5], good[1], *bad[5:], good[2], good[3]]
    got = list(neardup.dedup(mixed))
    assert len(got) == len(mixed)
    errors = {i: g for i, g in enumerate(got) if g.error is not None}
    assert sorted(errors) == [i for i, item in enumerate(mixed) if item in bad]
    messages = [(g.id, g.error, g.error_type) for g in errors.values()]
    assert messages == [
        (None, "item 1: a page is a string or a mapping, got NoneType", "parse_exception"),
        (None, "item 2: a page is a string or a mapping, got int", "parse_exception"),
        (None, "item 3: a page is a string or a mapping, got bytes", "parse_exception"),
        (None, "item 4: a page is a string or a mapping, got list", "parse_exception"),
        (None, "item 5: missing 'id'", "illegal_argument_exception"),
        (None, "item 7: page is not a mapping of strings and numbers: Object of type object "
               "is not JSON serializable", "parse_exception"),
        (None, "item 8: page is not a mapping of strings and numbers: Out of range float values "
               "are not JSON compliant", "parse_exception"),
        ("g0", "g0: duplicate id (first seen on line 1 of this input)", "duplicate_id"),
        ("10", "10: document has no text", "empty_document"),
        ("e", "e: document has no text", "empty_document"),
    ]
    grouped = [g for g in got if g.error is None]
    assert _rows(grouped) == _rows(neardup.dedup(good))
    assert {g.dup_group for g in grouped} == {"g0", "g3"}


def test_the_result_is_a_sequence_made_when_first_used() -> None:
    texts = [FIRST, None, BRIDGE]
    read: list[int] = []

    def pages() -> Iterator[Any]:
        for i, t in enumerate(texts):
            read.append(i)
            yield t

    result = neardup.dedup(pages())
    assert read == [] and repr(result) == "<neardup.Dedup: not run to its end>"
    assert len(result) == 3 and read == [0, 1, 2]
    assert result[0] == Grouped("0", "0") and result[-1] == result[2]
    assert result[2].dup_group == "0" and result[2].dup_of == "0"
    assert result[1].error_type == "parse_exception"
    assert result[1:] == [result[1], result[2]]
    assert result == list(result) and result == tuple(result)
    assert list(result) == list(result)  # read again: the results stay, the input is not read
    assert read == [0, 1, 2]
    assert repr(result) == "<neardup.Dedup: 3 pages, 1 in error>"
    with pytest.raises(IndexError):
        result[3]
    with pytest.raises(ConfigError):
        neardup.dedup([], profile="no-such-profile")
    with pytest.raises(ConfigError):
        neardup.dedup([], k=0)


def test_pages_stream_out_as_they_are_decided() -> None:
    """Without the chrome rule a page is decided as soon as it is read: the first result
    comes when one page has been read (with a pool, when a pool's read-ahead has); with it,
    the pages are all counted first. The final results come once the input is read."""
    texts = [FIRST, LAST, BRIDGE] + _sentences(11, 1200)
    read: list[int] = []

    def pages() -> Iterator[str]:
        for i, t in enumerate(texts):
            read.append(i)
            yield t

    def first_result(chrome: bool, processes: int = 1, decided: bool = True) -> int:
        read.clear()
        run = neardup.dedup(pages(), chrome=chrome, processes=processes)
        next(iter(run.decided() if decided else run))
        run.close()
        return len(read)

    assert first_result(chrome=False) == 1
    assert first_result(chrome=False, processes=2) < len(texts)
    assert first_result(chrome=True) == len(texts)
    assert first_result(chrome=False, decided=False) == len(texts)


def test_decided_pages_come_again_when_their_group_changes() -> None:
    """The bridge, read last, joins the first page's group and the second's: the second was
    decided alone and comes again once the input ends; the last result of each page is the
    final one, and the result then holds the final groups."""
    texts = [FIRST, RUN[19], LAST, BRIDGE]
    run = neardup.dedup(texts)
    told = _rows(run.decided())
    assert told == [("0", "0", None), ("1", "1", None), ("2", "2", None), ("3", "0", "0"),
                    ("2", "0", "3")]
    last = {i: row for i, *row in told}
    assert [(i, *last[i]) for i in sorted(last)] == _rows(run) == _rows(neardup.dedup(texts))
    with pytest.raises(RuntimeError, match="call it first"):
        next(iter(run.decided()))


def test_a_closed_run_says_so() -> None:
    run = neardup.dedup(iter([FIRST, LAST]), chrome=False)
    with run:
        next(iter(run.decided()))
    with pytest.raises(RuntimeError, match="closed before the end"):
        len(run)


def _big_pages(n: int) -> Iterator[str]:
    """``n`` different pages of ~160 kB (ten long lines each)."""
    words = prose(random.Random(0), 3000).split()
    for i in range(n):
        rng = random.Random(i)
        yield "\n".join(" ".join(rng.choices(words, k=2700)) + "." for _ in range(10))


@pytest.mark.parametrize("chrome", [True, False], ids=["chrome", "no-chrome"])
def test_the_pages_are_not_held(chrome: bool) -> None:
    """The Python heap at its peak does not grow with the pages read: their texts wait on
    disk (a dedup holding them would hold 8 MB more for the second run's pages)."""
    list(neardup.dedup(_big_pages(2), chrome=chrome))  # what is loaded once

    def peak(n: int) -> int:
        tracemalloc.start()
        try:
            assert sum(g.error is None for g in neardup.dedup(_big_pages(n), chrome=chrome)) == n
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    few, many = peak(10), peak(60)
    assert many - few < 2_000_000, (few, many)
