"""The compact candidate index of ``neardup dedup`` answers exactly as the rule says.

The rule (:class:`neardup.ingest.candidates.CandidateIndex`): the earlier documents of the same
fingerprint config sharing at least one distinct fingerprint, by shared count desc, then
``seq``, then ``id``, top ``k``. The compiled table keeps 16-bit tags of the fingerprints in
memory and counts exactly from the pages' keys on disk; shrunk to one bucket and no tag bits,
every posting of a bucket matches, so the exact count is all that stands between a tag
collision and a wrong answer.
"""

from __future__ import annotations

import base64
import json
import random
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.ci import require_compiled

from neardup.ingest import _candidates_py, candidates, dedup
from neardup.ingest.candidates import CandidateIndex
from neardup.ingest.dedup import CandidateLists
from neardup.ingest.pipeline import fingerprint_config, prepare_lines

needs_table = pytest.mark.compiled("neardup.ingest._candidates")


def _compiled(k: int, **params: int) -> Any:
    table: Any = require_compiled("neardup.ingest._candidates").CandidateTable(k, **params)
    return table


def _rule(docs: list[Any], k: int) -> list[list[str]]:
    """The rule without an index: every earlier document, scored."""
    out = []
    for n, d in enumerate(docs):
        scored = []
        for e in docs[:n]:
            shared = len(set(d.fingerprints) & set(e.fingerprints))
            if e.fp_config == d.fp_config and shared:
                scored.append((-shared, e.seq, e.id))
        out.append([i for _, _, i in sorted(scored)[:k]])
    return out


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


_rng = random.Random(17)
_HEADS = [_rng.randbytes(8) for _ in range(6)]
# Real fingerprints (22 base64url characters), several with the same first 8 bytes (they
# meet in the buffer's 64-bit match), the exact-copy kind ("b:..."), a non-canonical
# 22-character string (non-zero trailing bits: hashed, not decoded) and short strings.
TERMS = (
    [_b64(_rng.randbytes(16)) for _ in range(12)]
    + [_b64(h + _rng.randbytes(8)) for h in _HEADS for _ in range(3)]
    + ["b:" + _b64(_rng.randbytes(16)), "AAAAAAAAAAAAAAAAAAAAAB", "a", "é\ud800"]
)

DOCS = st.lists(
    st.tuples(st.lists(st.sampled_from(TERMS), max_size=10), st.sampled_from(["w", "s"]),
              st.integers(0, 2)),
    max_size=40,
)
TABLES = [{}, {"bucket_bits": 1, "tag_bits": 0, "buffer": 1},
          {"bucket_bits": 2, "tag_bits": 1, "buffer": 5}, {"bucket_bits": 3, "tag_bits": 2, "buffer": 64}]


def _docs(raw: list[tuple[list[str], str, int]]) -> list[SimpleNamespace]:
    # seq steps of 0..2: equal seqs rank by id
    docs, seq = [], 0
    for n, (fps, cfg, step) in enumerate(raw):
        seq += step
        docs.append(SimpleNamespace(id=f"p{n:02d}", seq=seq, fingerprints=fps, fp_config=cfg))
    return docs


@needs_table
@settings(max_examples=200, deadline=None)
@given(DOCS, st.integers(1, 300))
def test_compiled_table_follows_the_rule(raw: list[tuple[list[str], str, int]], k: int) -> None:
    docs = _docs(raw)
    want = _rule(docs, k)
    for params in TABLES:
        table = _compiled(k, **params)
        try:
            assert [table.add(d) for d in docs] == want, params
        finally:
            table.close()


@settings(max_examples=100, deadline=None)
@given(DOCS, st.integers(1, 300))
def test_dict_table_follows_the_rule(raw: list[tuple[list[str], str, int]], k: int) -> None:
    docs = _docs(raw)
    table = _candidates_py.CandidateTable(k)
    assert [table.add(d) for d in docs] == _rule(docs, k)


@needs_table
def test_many_candidates_after_merges() -> None:
    """Hundreds of pages sharing one fingerprint, others sharing more: the ranking holds
    across the buffer and the sorted postings (a buffer of 97 postings merges often)."""
    rng = random.Random(3)
    common = _b64(rng.randbytes(16))
    pool = [_b64(rng.randbytes(16)) for _ in range(40)]
    docs = [SimpleNamespace(id=f"d{n:04d}", seq=n, fp_config="w",
                            fingerprints=[common, *rng.sample(pool, 3), _b64(rng.randbytes(16))])
            for n in range(600)]
    want = _rule(docs, 200)
    table = _compiled(200, bucket_bits=4, buffer=97)
    assert [table.add(d) for d in docs] == want
    assert len(want[-1]) == 200 and table.postings == sum(len(set(d.fingerprints)) for d in docs)


@pytest.mark.parametrize("table", ["compiled", "dict"])
def test_documents_come_in_seq_id_order(table: str) -> None:
    index = _compiled(5) if table == "compiled" else _candidates_py.CandidateTable(5)
    index.add(SimpleNamespace(id="b", seq=2, fingerprints=["x"], fp_config="w"))
    index.add(SimpleNamespace(id="c", seq=2, fingerprints=["x"], fp_config="w"))
    for doc_id, seq in (("a", 2), ("c", 2), ("z", 1)):
        with pytest.raises(ValueError):
            index.add(SimpleNamespace(id=doc_id, seq=seq, fingerprints=["x"], fp_config="w"))


def test_candidate_index_uses_the_twin_neardup_impl_chose() -> None:
    index = CandidateIndex(3)
    chosen = candidates.COMPILED if candidates.IMPLEMENTATION == "cython" else candidates.REFERENCE
    assert type(index._table).__module__ == chosen
    index.close()


def test_candidate_lists_give_back_each_list() -> None:
    ordinal = {"a": 0, "b": 1, "c": 2}
    lists = CandidateLists(ordinal)
    lists["a"] = []
    lists["b"] = ["a"]
    lists["c"] = ["b", "a"]
    assert dict(lists) == {"a": [], "b": ["a"], "c": ["b", "a"]}
    lists["c"].append("x")  # a copy
    assert lists["c"] == ["b", "a"]
    with pytest.raises(KeyError):
        lists["b"] = ["a"]  # set twice
    with pytest.raises(KeyError):
        _ = lists["d"]


def _pages() -> list[tuple[int, bytes]]:
    article = "".join(f"新华社北京一月{i}日电，今天是第{i}个工作日，首都各界群众{i * 7}人欢聚一堂。"
                      for i in range(1, 30))
    other = "".join(f"国务院新闻办公室今天举行第{i}场记者招待会，介绍{i + 1990}年经济发展情况。"
                    for i in range(1, 30))
    pages = [("a", article), ("b", "广告 " + article), ("c", other), ("d", other + " 责任编辑"),
             ("e", article[:60] + other), ("f", article + " 版权所有")]
    return [(n, json.dumps({"id": i, "text": t}, ensure_ascii=False).encode())
            for n, (i, t) in enumerate(pages, 1)]


def test_without_the_extension_the_dict_rule_groups_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pure-Python install (no ``neardup.ingest._candidates``) takes the dict rule: same groups."""
    config = fingerprint_config("web")
    compiled = dedup.dedup_embedded(list(prepare_lines(_pages(), config)), "web")
    monkeypatch.setattr(candidates, "_impl", _candidates_py)
    assert isinstance(CandidateIndex(3)._table, _candidates_py.CandidateTable)
    assert dedup.dedup_embedded(list(prepare_lines(_pages(), config)), "web") == compiled
    assert compiled["f"]["dup_group"] == "a" and compiled["d"]["dup_group"] == "c"
