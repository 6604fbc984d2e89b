"""Template siblings and spelling-variant twins through the real pipeline (issue 37, "One
template, different pages"): real OpenSearch, Redis and two Celery workers, ``neardup ingest
--wait``. The pages of tests/support/sibling_families.py — a function family whose names differ
by one letter, statement pages sharing a syntax block, conversion functions, operator pages,
index pages naming another kind of index, pages without content told by their title, index
pages of a generated reference whose own text is one member and its link, one toolbar's page
under two modules each listing its own buttons, a book's section pages whose own text is their
heading (a site of their own), syntax diagrams' pages whose main content opens with the site's
tagline and a method family whose identifiers differ in one digit (each a site of its own),
index pages of the same words named by a symbol ("Index - +", "Index - X") —
each stay a group of one, and the twins (a
25-word page in British spelling, a function page whose translation renames its identifiers,
a page naming one thing in two forms of its word, "Cell Contents" / "Cell Content") are
grouped: as HTML and as text, sent in two orders, and
as HTML without URLs (one site by the template the pages link) and as text in the site's chrome
without URLs (one site by that chrome, counted as the two files arrive).
The index's partition is the one ``neardup.dedup`` gives on the same pages. Index pages of a
text dump named by a family title that is chrome by count stay apart too (T = 3).
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

import pytest
from opensearchpy import helpers
from support.sibling_families import (
    COLOR_US,
    MEMBERS,
    book,
    class_members,
    conversions,
    functions,
    gallery,
    in_chrome,
    indexes,
    member_index,
    operators,
    page,
    statements,
    symbol_indexes,
    syntax_diagrams,
    toolbars,
    twin,
    unlocated,
    vector_methods,
    word_forms_twin,
)
from support.workers import cleanup_broker, running_workers, worker_env

import neardup

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


def _pages(kind: str) -> tuple[list[dict[str, Any]], list[set[str]]]:
    """The pages of one input kind and the groups of 2+ a reader draws; ``html-unlocated``: the
    HTML pages without URL or ``site`` (of one site by their template); ``text-unlocated``: the
    text pages in the site's chrome without URL or ``site`` (of one site by that chrome)."""
    if kind == "html-unlocated":
        pages, groups = _pages("html")
        return unlocated(pages), groups
    if kind == "text-unlocated":
        pages, groups = _pages("text")
        return unlocated(in_chrome(pages)), groups
    twins, forms = twin(kind), word_forms_twin(kind)
    gb = (COLOR_US.replace("COLOR", "COLOUR").replace("colors", "colours")
          .replace("color", "colour"))
    colour = [page("en-US/color", "en-US/calc/color.html", COLOR_US, kind),
              page("en-GB/color", "en-GB/calc/color.html", gb, kind)]
    pages = (functions(kind) + statements(kind) + conversions(kind) + operators(kind)
             + indexes(kind) + [member_index(*m, kind) for m in MEMBERS]
             + [member_index("p", "PARSERS_EXPORT", "LibDefs.hpp", kind),
                member_index("v", "VALIDATORS_EXPORT", "LibDefs.hpp", kind)] + toolbars(kind)
             + twins + forms + colour)
    if kind == "html":
        pages += [gallery(t) for t in ("Calc Screenshots", "Filter Screenshots", "Sample Files")]
    return pages, [{p["id"] for p in twins}, {p["id"] for p in forms}, {p["id"] for p in colour}]


def _groups(assignment: dict[str, str]) -> list[set[str]]:
    members: dict[str, set[str]] = {}
    for doc_id, group in assignment.items():
        members.setdefault(group, set()).add(doc_id)
    return sorted((m for m in members.values() if len(m) > 1), key=sorted)


def _ingest_files(files: tuple[list[dict[str, Any]], ...], t: int, batch: int,
                  stack: dict[str, str], tmp_path: Path, os_client: Any, index_name: str
                  ) -> dict[str, str]:
    """Each of ``files`` sent in turn with ``neardup ingest --wait`` (chrome threshold ``t``,
    ``batch`` pages a task); the index's ``{id: dup_group}`` after the last."""
    for n, pages in enumerate(files):
        src = tmp_path / f"pages{n}.jsonl"
        src.write_text("".join(json.dumps(p) + "\n" for p in pages), encoding="utf-8")
        proc = subprocess.run(
            [sys.executable, "-m", "neardup.ingest.cli", "ingest", str(src), "--wait",
             "--no-progress", "--batch", str(batch), "--timeout", "240",
             "--chrome-min-pages", str(t)],
            cwd=ROOT, env=dict(os.environ, **stack, PYTHONPATH=str(ROOT)),
            capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-3000:])
    os_client.indices.refresh(index=index_name)
    return {h["_id"]: h["_source"]["dup_group"] for h in helpers.scan(
        os_client, index=index_name, query={"query": {"match_all": {}}},
        _source=["dup_group"])}


@pytest.fixture
def stack(tmp_path: Path, opensearch_url: str, redis_url: str, index_name: str
          ) -> Iterator[dict[str, str]]:
    env = worker_env(redis_url, opensearch_url, index_name)
    try:
        with running_workers(env, tmp_path, 2):
            yield env
    finally:
        cleanup_broker(env)


@pytest.mark.parametrize("kind", ["html", "text", "html-unlocated", "text-unlocated"])
def test_siblings_stay_apart_and_twins_join_through_the_pipeline(
    kind: str, stack: dict[str, str], tmp_path: Path, os_client: Any, index_name: str
) -> None:
    pages, twins = _pages(kind)
    if kind in ("html", "text"):
        pages += book(kind)[0]  # a site of its own, its sections' pages a heading each
        pages += syntax_diagrams(kind) + vector_methods(kind)  # a site of its own each
        pages += symbol_indexes(kind)  # index pages of the same words, named by a symbol
    expected = sorted(twins, key=sorted)
    t = 5 if kind == "text-unlocated" else 20  # chrome on 5 pages; the others carry none
    assert _groups({g.id: g.dup_group for g in neardup.dedup(pages, chrome_min_pages=t)}
                   ) == expected
    order = pages[:]
    random.Random(37).shuffle(order)
    # text-unlocated: the first file holds fewer pages than T, so none of its pages carries
    # chrome until the second's are counted (the repair masks them and gives them the site)
    cut = t - 2 if kind == "text-unlocated" else len(order) // 2
    indexed = _ingest_files((order[:cut], order[cut:]), t, 7, stack, tmp_path, os_client,
                            index_name)
    assert set(indexed) == {p["id"] for p in pages}
    assert _groups(indexed) == expected, f"worker logs: {tmp_path}"


def test_index_pages_named_by_a_title_that_is_chrome_stay_apart_through_the_pipeline(
    stack: dict[str, str], tmp_path: Path, os_client: Any, index_name: str
) -> None:
    """A generated reference's index pages as a text dump, each opening with its family's title
    ("Lib: Class Members", "... - Functions", "... - Variables"), which counting makes chrome
    (T = 3) as the pages arrive: the title stays the page's name, and each page is a group of
    its own, as ``neardup.dedup`` has it; a copy of one page joins it."""
    pages = class_members("text")
    pages.append(pages[0] | {"id": "again", "url": pages[0]["url"].replace(".html", "-copy.html")})
    expected = [{"functions_b", "again"}]
    assert _groups({g.id: g.dup_group for g in neardup.dedup(pages, chrome_min_pages=3)}
                   ) == expected
    order = pages[:]
    random.Random(3).shuffle(order)
    indexed = _ingest_files((order[:6], order[6:]), 3, 4, stack, tmp_path, os_client,
                            index_name)
    assert set(indexed) == {p["id"] for p in pages}
    assert _groups(indexed) == expected, f"worker logs: {tmp_path}"
