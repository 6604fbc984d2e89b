"""Site-chrome counts shared in Redis (:mod:`neardup.ingest.workers.chrome_counts`) against
the in-memory counts of ``neardup dedup``, on a real redis-server."""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.chrome_sites import EN_SITE, ZH_SITE

from neardup.ingest.chrome import ChromeCounts, ChromeRule, site_key
from neardup.ingest.records import Page
from neardup.ingest.sketch import SketchCounter
from neardup.ingest.workers._redis import connect
from neardup.ingest.workers.chrome_counts import RedisSketch, SharedChromeCounts, observe_file

WIDTH, DEPTH = 1 << 12, 4  # small: cells are shared, so the sketch's arithmetic is exercised


@pytest.fixture
def client(redis_url: str) -> Any:
    return connect(redis_url)


@pytest.fixture
def index() -> Iterator[str]:
    yield f"neardup-test-chrome-{uuid.uuid4().hex[:10]}"


def _shared(client: Any, index: str, **kw: Any) -> SharedChromeCounts:
    return SharedChromeCounts(client, index, ChromeRule(), width=WIDTH, depth=DEPTH, **kw)


def test_the_redis_sketch_is_the_plain_sketch(client: Any, index: str) -> None:
    rng = random.Random(7)
    keys = [rng.getrandbits(64) for _ in range(300)]
    adds = [rng.choice(keys) for _ in range(3000)]
    local = SketchCounter(WIDTH, DEPTH, conservative=False)
    remote = RedisSketch(client, f"neardup:{index}:cells", WIDTH, DEPTH)
    try:
        pipe = client.pipeline(transaction=False)
        for k in adds:
            local.add(k)
        for i in range(0, len(adds), 100):
            remote.add_ops(adds[i:i + 100], pipe)
        pipe.execute()
        assert remote.get_many(keys) == [local.get(k) for k in keys]
        assert remote.get_many([0, keys[0]]) == [0, local.get(keys[0])]
    finally:
        client.delete(remote.key)


@pytest.mark.parametrize("site", [EN_SITE, ZH_SITE], ids=["en-chrome", "zh-chrome"])
def test_two_processes_in_any_order_mask_as_the_whole_input_does(
    client: Any, index: str, site: tuple[list[dict[str, Any]], set[str]],
) -> None:
    pages, _ = site
    rows = [(p["id"], p.get("site"), p.get("url"), p["text"]) for p in pages]
    local = ChromeCounts(ChromeRule(), SketchCounter(WIDTH, DEPTH, conservative=False),
                         warmup=False)
    for p in pages:
        local.observe_text(site_key(p.get("site"), p.get("url")), p["text"])
    one, two = _shared(client, index), _shared(client, index)
    try:
        shuffled = rows[:]
        random.Random(3).shuffle(shuffled)
        assert one.observe_pages(shuffled[::2]) + two.observe_pages(shuffled[1::2]) == len(rows)
        assert one.observe_pages(rows) == 0  # counted once per id: a re-run adds nothing
        masked = 0
        for p in pages:
            s = site_key(p.get("site"), p.get("url"))
            assert two.pages(s) == local.pages(s) == len(pages)
            assert one.mask(s, p["text"]) == local.mask(s, p["text"])
            masked += one.mask(s, p["text"]) != p["text"]
        assert masked == len(pages)  # every page of the site loses its header and footer
    finally:
        one.reset()


def test_a_young_site_has_no_chrome_until_t_pages(client: Any, index: str) -> None:
    pages, _ = EN_SITE
    counts = _shared(client, index)
    try:
        first = pages[:5]
        counts.observe_pages([(p["id"], None, p["url"], p["text"]) for p in first])
        s = site_key(None, first[0]["url"])
        assert all(counts.mask(s, p["text"]) == p["text"] for p in first)
        online = _shared(client, index, warmup=True)  # the warm-up share judges it already
        assert all(online.mask(s, p["text"]) != p["text"] for p in first)
    finally:
        counts.reset()


class _Counted:
    """Counts the commands a real client sends (the server is shared with other tests)."""

    def __init__(self, client: Any) -> None:
        self.calls, self._send = 0, client.execute_command
        client.execute_command = self

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return self._send(*args, **kwargs)


@pytest.mark.parametrize("site", [EN_SITE, ZH_SITE], ids=["en-chrome", "zh-chrome"])
def test_read_ahead_masks_alike_without_a_round_trip_a_page(
    client: Any, index: str, site: tuple[list[dict[str, Any]], set[str]],
) -> None:
    pages, _ = site
    counts = _shared(client, index)
    sent = _Counted(client)
    try:
        counts.observe_pages([(p["id"], p.get("site"), p.get("url"), p["text"]) for p in pages])
        keys = [site_key(p.get("site"), p.get("url")) for p in pages]
        one_by_one = [counts.mask(s, p["text"]) for s, p in zip(keys, pages, strict=True)]
        before = sent.calls
        counts.prefetch([Page(id=p["id"], field="text", source=p["text"], site=p.get("site"),
                              url=p.get("url")) for p in pages])
        assert sent.calls - before <= 3  # the sites' pages and the lines' counts (+ a script load)
        before = sent.calls
        ahead = [counts.mask(s, p["text"]) for s, p in zip(keys, pages, strict=True)]
        assert sent.calls == before  # read ahead: no round trip a page
        assert ahead == one_by_one and any(m != p["text"] for m, p in zip(ahead, pages, strict=True))
        counts.forget()
        assert [counts.mask(s, p["text"]) for s, p in zip(keys, pages, strict=True)] == ahead
        assert sent.calls - before >= len(pages)  # forgotten: asked again
    finally:
        counts.reset()


@pytest.mark.compiled("neardup.ingest._sketch")
def test_the_compiled_cells_are_the_reference(client: Any, index: str) -> None:
    rng = random.Random(11)
    sketch = RedisSketch(client, f"neardup:{index}:cells", WIDTH, DEPTH)
    keys = [rng.getrandbits(64) for _ in range(500)] + [0, 1, (1 << 64) - 1]
    reference = " ".join(str(c) for k in keys if k for c in sketch.offsets(k))
    assert sketch.cells_text(keys) == reference
    assert sketch.cells_text([]) == sketch.cells_text([0]) == ""


def test_counting_a_file_in_processes_counts_as_one(
    client: Any, redis_url: str, tmp_path: Path,
) -> None:
    pages = [{**p, "id": f"{n}-{p['id']}"} for n, site in enumerate((EN_SITE, ZH_SITE))
             for p in site[0]]
    path = tmp_path / "pages.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in pages) + "{not json\n")
    one, two = (f"neardup-test-chrome-{uuid.uuid4().hex[:10]}" for _ in range(2))
    try:
        assert observe_file(redis_url, one, ChromeRule(), path) == len(pages)
        assert observe_file(redis_url, two, ChromeRule(), path, processes=3) == len(pages)
        assert observe_file(redis_url, two, ChromeRule(), path, processes=2) == 0  # each page once
        a, b = SharedChromeCounts(client, one), SharedChromeCounts(client, two)
        assert a.sites() == b.sites() and sum(a.sites().values()) == len(pages)
        assert client.get(a.sketch.key) == client.get(b.sketch.key)  # the same cells
    finally:
        SharedChromeCounts(client, one).reset()
        SharedChromeCounts(client, two).reset()
