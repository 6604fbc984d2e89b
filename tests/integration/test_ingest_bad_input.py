"""``neardup ingest`` on bad input, through the real stack (OpenSearch, Redis, 2 workers).

Empty and missing fields, duplicate ids, ids full of query metacharacters, binary junk and
documents over the size limit are per-document errors (JSONL on ``--errors``); everything
else is indexed, grouped by the workers, found by GET and by the collapsed search; and a
re-ingest changes nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.corpus import paragraphs
from support.ingest import run_ingest, stored_groups
from support.workers import cleanup_broker, running_workers, worker_env

pytestmark = pytest.mark.slow

# Ids a query parser, a URL path or a shell would trip on; each must stay a plain id.
META_IDS = [
    'q*"/ 中文 id',
    "*",
    '"',
    "a/b/../c",
    "with space ",
    "?#&%+=;",
    "back\\slash",
    "💡 ünïcödé 标识",
    "_all",
    "dup_group:*",
]


def _line(**obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False).encode() + b"\n"


def _edit(text: str, n: int) -> str:
    """``text`` with ``n`` characters of its middle paragraph changed (a near-duplicate)."""
    paras = text.split("\n")
    mid = list(paras[len(paras) // 2])
    for i in range(n):
        mid[(7 * i + 3) % len(mid)] = "某"
    paras[len(paras) // 2] = "".join(mid)
    return "\n".join(paras)


@pytest.fixture(scope="module")
def bad_input(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str], int]:
    """The input file, ``{valid id: expected dup_group}`` and the number of bad lines."""
    paras = paragraphs()
    articles = ["\n".join(paras[i * 8 : i * 8 + 8]) for i in range(len(META_IDS) + 2)]
    lines: list[bytes] = []
    expected: dict[str, str] = {}
    # every metacharacter id is the near-duplicate of a plain original
    for n, meta in enumerate(META_IDS):
        lines.append(_line(id=f"orig-{n}", text=articles[n], site="a.example.cn"))
        lines.append(_line(id=meta, text=_edit(articles[n], 3), site="b.example.cn"))
        expected[f"orig-{n}"] = expected[meta] = f"orig-{n}"
    # a large (1 MiB) document is fine; it is its own group
    big = "\n".join(f"第{i}条消息：编号{i * 7919 % 100003}的记录已归档，共计{i % 97}份附件。"
                    for i in range(22000))
    lines.append(_line(id="large-ok", text=big))
    expected["large-ok"] = "large-ok"
    # an HTML page is fine too
    lines.append(_line(id="html-ok", html=f"<html><body><p>{articles[-1]}</p></body></html>"))
    expected["html-ok"] = "html-ok"
    bad = [
        b"{not json\n",
        b"[1, 2, 3]\n",
        _line(text="no id"),
        _line(id="", text=articles[0]),
        _line(id="   ", text=articles[0]),
        _line(id=True, text=articles[0]),  # ids are strings or integers (docs/limits.md)
        _line(id="no-text"),
        _line(id="empty-text", text=""),
        _line(id="blank-text", text=" \n\t "),
        _line(id="text-not-string", text=["a", "b"]),
        _line(id="orig-0", text=articles[-2]),  # duplicate id: the first wins
        _line(id="junk", text="\x00\x01\x02\x03\x04" * 400),
        b"\xff\xfe\x00\x81 binary junk \x9c\n",
        _line(id="huge", text="x" * (9 * 1024 * 1024)),
        _line(id="i" * 600, text=articles[0]),  # id over 512 bytes
    ]
    # interleave the bad lines with the good ones
    mixed: list[bytes] = []
    for i, ln in enumerate(lines):
        mixed.append(ln)
        if i < len(bad):
            mixed.append(bad[i])
    mixed.extend(bad[len(lines):])
    path = tmp_path_factory.mktemp("bad") / "bad.jsonl"
    path.write_bytes(b"".join(mixed) + b"\n\n")
    return path, expected, len(bad)


def test_ingest_bad_input_per_document_errors(
    bad_input: tuple[Path, dict[str, str], int], redis_url: str, opensearch_url: str,
    os_client: Any, index_name: str, tmp_path: Path,
) -> None:
    path, expected, n_bad = bad_input
    env = worker_env(redis_url, opensearch_url, index_name)
    errors = tmp_path / "errors.jsonl"
    try:
        with running_workers(env, tmp_path, 2) as workers:
            summary = run_ingest(path, env, "--index", index_name, "--errors", str(errors),
                                 timeout=300)
            assert summary["indexed"] == len(expected), (summary, workers.logs())
            assert summary["errors"] == n_bad and summary["accepted"] == len(expected)
            assert not summary["timed_out"]
            reported = [json.loads(x) for x in errors.read_text().splitlines()]
            assert len(reported) == n_bad
            assert all(r["line"] > 0 and r["error"] for r in reported)
            by_id = {r["id"]: r["error"] for r in reported if r["id"]}
            assert "duplicate" in by_id["orig-0"]
            assert "exceeds" in by_id["huge"]
            assert "binary junk" in by_id["junk"]
            assert "no text" in by_id["blank-text"] and "no text" in by_id["empty-text"]
            assert "neither" in by_id["no-text"]
            assert "must be a string" in by_id["text-not-string"]
            assert any("not UTF-8" in r["error"] for r in reported)

            # a re-ingest changes nothing and reports the same errors
            again = run_ingest(path, env, "--index", index_name, "--errors", str(errors),
                               timeout=300)
            assert again["unchanged"] == len(expected) and again["accepted"] == 0
            assert again["errors"] == n_bad
    finally:
        cleanup_broker(env)

    stored = stored_groups(os_client, index_name)
    assert set(stored) == set(expected)  # nothing bad got in, nothing good got lost
    assert all(s["status"] == "grouped" for s in stored.values())
    assert {i: s["dup_group"] for i, s in stored.items()} == expected

    # the metacharacter ids are plain ids for GET, for the group write-back and for search
    from neardup.ingest.commands.search import search
    from neardup.ingest.store import open_store

    store = open_store("opensearch", client=os_client, index=index_name)
    for meta in META_IDS:
        doc = store.get(meta)
        assert doc is not None and doc.id == meta and doc.dup_group in expected
    members = store.group_members("orig-1")
    assert [m.id for m in members] == ["orig-1", "*"]
    hits = search(store, "新华社", size=100, members=5)
    groups = [h["dup_group"] for h in hits]
    assert hits and len(groups) == len(set(groups))
    assert set(groups) <= set(expected.values())
