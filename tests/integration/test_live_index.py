"""The index follows changes (docs/workers.md, "Changes"; docs/chrome.md, chrome converges):
through the real stack — OpenSearch, Redis, ``neardup ingest --wait`` and ``neardup delete
--wait`` against two real Celery workers — once quiet, the partition of the index's
``dup_group`` is the partition ``neardup dedup`` (embedded, the CLI) gives on the pages
present, sent to it in the order they last arrived, with chrome on (``--chrome-min-pages 5``
on both sides).

The corpus (tests/support/live_sites.py): three sites of 30 short articles inside a ~600-word
chrome, near-copies on their own site and on others, a related-stories block on 6 pages of one
site (chrome only once 5 of them are counted: the first half of the pages has 3, the second
half 3), and a bridge page similar to two articles that are not similar to each other.
Scenarios: one file; two overlapping files one after the other, in both orders (the earlier
file's pages are masked again once the later one's counts make the block chrome); two ingests
at once; updates (a representative becomes a copy of another group's page, a member becomes an
unrelated text, two pages drop the related block so that it is chrome no more); deletes (a
representative, the bridge); ``neardup serve`` fed in requests of 5 pages, then an update and a
delete over HTTP.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from opensearchpy import helpers
from support.chrome_sites import partition, prose
from support.live_sites import BRIDGE, MIN_PAGES, edited, live_pages, site_page
from support.server import start_server, stop
from support.workers import cleanup_broker, running_workers, worker_env

import neardup

ROOT = Path(__file__).resolve().parents[2]
CHROME = ("--chrome-min-pages", str(MIN_PAGES))
PAGES, ARTICLES = live_pages()
BY_ID = {p["id"]: p for p in PAGES}
RELATED = {"s0-02", "s0-06", "s0-10", "s0-20", "s0-24", "s0-28"}
HALF = len(PAGES) * 3 // 5
FIRST, SECOND = PAGES[:HALF], PAGES[len(PAGES) - HALF:]  # they share a fifth of the pages


def _env(env: dict[str, str]) -> dict[str, str]:
    return dict(os.environ, **env)


def _write(path: Path, pages: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in pages),
                    encoding="utf-8")
    return path


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "neardup.ingest.cli", *args]


def _ingest_cmd(path: Path) -> list[str]:
    return _cli("ingest", str(path), "--wait", "--no-progress", "--batch", "10",
                "--timeout", "240", *CHROME)


def _summary(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-3000:])
    out: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return out


def _ingest(env: dict[str, str], path: Path) -> dict[str, Any]:
    return _summary(subprocess.run(_ingest_cmd(path), cwd=ROOT, env=_env(env),
                                   capture_output=True, text=True, timeout=300))


def _delete(env: dict[str, str], *ids: str) -> dict[str, Any]:
    return _summary(subprocess.run(_cli("delete", *ids, "--wait", "--timeout", "240"),
                                   cwd=ROOT, env=_env(env), capture_output=True, text=True,
                                   timeout=300))


def _dedup(src: Path, out: Path) -> dict[str, str]:
    proc = subprocess.run(
        _cli("dedup", str(src), "-o", str(out), "--no-progress", *CHROME),
        cwd=ROOT, capture_output=True, text=True, timeout=300, env=_env({}),
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert not [r for r in rows if "error" in r], rows
    return {r["id"]: r["dup_group"] for r in rows}


def _indexed(client: Any, index: str) -> dict[str, str]:
    client.indices.refresh(index=index)
    return {h["_id"]: h["_source"]["dup_group"] for h in helpers.scan(
        client, index=index, query={"query": {"match_all": {}}}, _source=["dup_group"])}


def _groups(parts: set[frozenset[str]]) -> list[list[str]]:
    return sorted(sorted(g) for g in parts if len(g) > 1)


class Live:
    """Two workers on a fresh index, and the pages present in the order of their last
    arrival (an identical page sent again is unchanged: it keeps its place)."""

    def __init__(self, client: Any, index: str, env: dict[str, str], tmp: Path) -> None:
        self.client, self.index, self.env, self.tmp = client, index, env, tmp
        self.present: dict[str, dict[str, Any]] = {}
        self.runs = 0

    def file(self, pages: list[dict[str, Any]]) -> Path:
        self.runs += 1
        return _write(self.tmp / f"send{self.runs}.jsonl", pages)

    def sent(self, pages: list[dict[str, Any]]) -> None:
        for p in pages:
            if self.present.get(p["id"]) != p:
                self.present.pop(p["id"], None)
                self.present[p["id"]] = p

    def ingest(self, pages: list[dict[str, Any]]) -> dict[str, Any]:
        summary = _ingest(self.env, self.file(pages))
        self.sent(pages)
        return summary

    def delete(self, *ids: str) -> dict[str, Any]:
        summary = _delete(self.env, *ids)
        for i in ids:
            del self.present[i]
        return summary

    def check(self) -> set[frozenset[str]]:
        """The index's partition equals ``neardup dedup``'s on the pages present; returns it."""
        self.runs += 1
        src = _write(self.tmp / f"present{self.runs}.jsonl", list(self.present.values()))
        want = partition(_dedup(src, self.tmp / f"dedup{self.runs}.jsonl"))
        got = partition(_indexed(self.client, self.index))
        assert {i for g in got for i in g} == set(self.present)
        assert _groups(got) == _groups(want), f"worker logs: {self.tmp}"
        assert got == want
        return got


@pytest.fixture
def live(tmp_path: Path, opensearch_url: str, redis_url: str, index_name: str,
         os_client: Any) -> Iterator[Live]:
    env = worker_env(redis_url, opensearch_url, index_name)
    try:
        with running_workers(env, tmp_path, 2):
            yield Live(os_client, index_name, env, tmp_path)
    finally:
        cleanup_broker(env)


def _expected_groups(pages: list[dict[str, Any]]) -> list[list[str]]:
    """The groups of the in-process ``neardup.dedup`` (the corpus does what the test needs)."""
    return _groups(partition({g.id: g.dup_group for g in neardup.dedup(
        pages, chrome_min_pages=MIN_PAGES)}))


COPY_GROUPS = [["s0-03", "s0-03-copy", "s0-03-mirror"], ["s1-08", "s1-08-copy"],
               ["s1-21", "s1-21-copy", "s1-21-mirror"], ["s2-13", "s2-13-mirror"]]


def test_the_corpus_does_what_the_scenarios_need() -> None:
    # the bridge joins a and c, which the verifier keeps apart alone
    a, b, c = ({"text": "\n".join(ARTICLES[i])} for i in BRIDGE)
    assert neardup.compare(a, b).similar and neardup.compare(b, c).similar
    assert not neardup.compare(a, c).similar
    assert _expected_groups(PAGES) == sorted([*COPY_GROUPS, sorted(BRIDGE)])
    # without the chrome masked, the pages of a site group on it
    nochrome = partition({g.id: g.dup_group for g in neardup.dedup(PAGES, chrome=False)})
    assert max(len(g) for g in nochrome) >= 25
    # the related block is chrome only when both halves are counted
    assert {"s0-02", "s0-06", "s0-10"} & {p["id"] for p in SECOND} == set()
    assert {"s0-20", "s0-24", "s0-28"} & {p["id"] for p in FIRST} == set()
    assert ["s0-02", "s0-06", "s0-10"] in _expected_groups(FIRST)
    assert ["s0-20", "s0-24", "s0-28"] in _expected_groups(SECOND)


def test_one_file(live: Live) -> None:
    summary = live.ingest(PAGES)
    assert summary["accepted"] == len(PAGES)
    assert _groups(live.check()) == sorted([*COPY_GROUPS, sorted(BRIDGE)])


@pytest.mark.parametrize("order", ["first-second", "second-first"])
def test_two_overlapping_files_one_after_the_other(live: Live, order: str) -> None:
    one, two = (FIRST, SECOND) if order == "first-second" else (SECOND, FIRST)
    live.ingest(one)
    early = live.check()
    # the related block on the pages of one half is not chrome yet: they group on it
    assert any(len(g & RELATED) == 3 for g in early)
    summary = live.ingest(two)
    overlap = {p["id"] for p in one} & {p["id"] for p in two}
    assert summary.get("unchanged", 0) == len(overlap), summary
    assert summary["accepted"] == len(two) - len(overlap), summary
    got = live.check()
    # the earlier half was masked again: the block is chrome now, its pages part
    assert all(len(g & RELATED) <= 1 for g in got)
    assert _groups(got) == sorted([*COPY_GROUPS, sorted(BRIDGE)])


def test_two_ingests_at_once(live: Live) -> None:
    procs = [subprocess.Popen(_ingest_cmd(live.file(part)), cwd=ROOT, env=_env(live.env),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for part in (FIRST, SECOND)]
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        _summary(subprocess.CompletedProcess(proc.args, proc.returncode, out, err))
    live.sent(FIRST)
    live.sent(SECOND)
    assert _groups(live.check()) == sorted([*COPY_GROUPS, sorted(BRIDGE)])


def test_updates(live: Live) -> None:
    live.ingest(PAGES)
    live.check()
    changes = [
        # the representative of s0-03's group becomes a copy of s1-08 (another group's page)
        site_page(0, "s0-03", edited(ARTICLES["s1-08"], random.Random(5)), 500),
        # a member of s1-21's group gets a new text, unrelated to any other
        site_page(2, "s1-21-mirror", [prose(random.Random(6), 90)], 501),
        # two pages of the related block drop it: 4 pages carry it, it is not chrome any more
        site_page(0, "s0-24", ARTICLES["s0-24"], 502),
        site_page(0, "s0-28", ARTICLES["s0-28"], 503),
    ]
    summary = live.ingest([*changes, BY_ID["s2-13"]])  # s2-13 as it is: unchanged
    assert (summary.get("updated"), summary.get("unchanged")) == (len(changes), 1), summary
    got = live.check()
    groups = _groups(got)
    assert ["s0-03-copy", "s0-03-mirror"] in groups
    assert ["s0-03", "s1-08", "s1-08-copy"] in groups
    assert frozenset(["s1-21-mirror"]) in got
    assert ["s0-02", "s0-06", "s0-10", "s0-20"] in groups


def test_deletes(live: Live) -> None:
    live.ingest(PAGES)
    live.check()
    summary = live.delete("s0-03", "bridge")  # a representative; the page joining a and c
    assert summary["staged"] == 2, summary
    got = live.check()
    groups = _groups(got)
    assert ["s0-03-copy", "s0-03-mirror"] in groups
    assert frozenset([BRIDGE[0]]) in got and frozenset([BRIDGE[2]]) in got


def test_serve_in_requests_of_five(live: Live) -> None:
    # neardup serve holds no page between requests: each request of 5 counts its own chrome
    # lines in Redis; once quiet (``POST /{index}/_refresh`` waits for the repairs), the
    # earlier requests' pages are masked as the whole corpus's counts say
    proc, url = start_server(dict(os.environ, **live.env), live.tmp,
                             "serve", None, *CHROME)
    try:
        with httpx.Client(base_url=url, timeout=120) as http:
            order = random.Random(11).sample(PAGES, len(PAGES))
            for lo in range(0, len(order), 5):
                body = "".join(json.dumps(p) + "\n" for p in order[lo:lo + 5])
                r = http.post("/documents", content=body,
                              headers={"Content-Type": "application/x-ndjson"})
                assert r.status_code == 200, r.text
                assert {i["result"] for i in r.json()["items"]} == {"created"}, r.text
            live.sent(order)
            assert http.post(f"/{live.index}/_refresh").status_code == 200
            assert http.get("/documents/s0-03").json()["settled"] is True
            got = live.check()
            assert _groups(got) == sorted([*COPY_GROUPS, sorted(BRIDGE)])
            # a new version of a representative (a copy of another group's page), a delete
            new = site_page(0, "s0-03", edited(ARTICLES["s1-08"], random.Random(5)), 500)
            r = http.post("/documents", json=new, params={"refresh": "true"})
            assert (r.status_code, r.json()["result"]) == (200, "updated"), r.text
            live.sent([new])
            r = http.delete("/documents/bridge", params={"refresh": "true"})
            assert (r.status_code, r.json()["result"]) == (200, "deleted"), r.text
            del live.present["bridge"]
            got = live.check()
            assert ["s0-03", "s1-08", "s1-08-copy"] in _groups(got)
            assert frozenset([BRIDGE[0]]) in got and frozenset([BRIDGE[2]]) in got
    finally:
        stop(proc)


def test_a_new_version_joins_a_group_through_a_member(live: Live) -> None:
    # a ~ b (b holds a's text and more), c's new version is the rest of b: c ~ b, and c shares
    # no fingerprint with a, the representative of the group it joins (the repair orders the
    # group by its representative, which is not among c's candidates)
    rng = random.Random(21)
    p, q = [prose(rng, 100), prose(rng, 100)], [prose(rng, 100), prose(rng, 100)]
    a, b = site_page(1, "fam-a", p, 600), site_page(1, "fam-b", [*p, *q], 601)
    c_old, c_new = (site_page(1, "fam-c", text, 602) for text in ([prose(rng, 90)], q))
    for x, y, similar in ((p, p + q, True), (q, p + q, True), (p, q, False)):
        got = neardup.compare({"text": "\n".join(x)}, {"text": "\n".join(y)}).similar
        assert got is similar
    live.ingest([*PAGES, a, b, c_old])
    assert ["fam-a", "fam-b"] in _groups(live.check())
    summary = live.ingest([c_new])
    assert summary.get("updated") == 1, summary
    assert ["fam-a", "fam-b", "fam-c"] in _groups(live.check())
