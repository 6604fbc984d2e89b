"""``neardup dedup`` (embedded) keeps texts on disk and fingerprints out of the documents."""

from __future__ import annotations

import json
import multiprocessing
import os
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.ingest.candidates import CandidateIndex, earlier_candidates
from neardup.ingest.dedup import DiskTexts, dedup_embedded, spool_texts
from neardup.ingest.pipeline import fingerprint_config, prepare_lines


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(), max_size=8))
def test_disk_texts_give_back_every_text(texts: list[str]) -> None:
    with DiskTexts() as store:
        for i, text in enumerate(texts):
            store.put(f"d{i}", text)
        store.flush()
        assert [store.get(f"d{i}") for i in range(len(texts))] == texts
        assert all(f"d{i}" in store for i in range(len(texts)))
        assert "other" not in store


def test_disk_texts_a_new_text_for_a_known_id_replaces_it() -> None:
    with DiskTexts() as store:
        store.put("a", "first")
        store.put("b", "other")
        store.put("a", "second, longer")
        assert (store.get("a"), store.get("b")) == ("second, longer", "other")
        assert store.ordinal == {"a": 0, "b": 1}


def _read(store: DiskTexts, doc_id: str, out: multiprocessing.queues.Queue) -> None:  # type: ignore[type-arg]
    out.put(store.get(doc_id))


@pytest.mark.skipif(os.name != "posix", reason="the verifiers are forked")
def test_a_forked_verifier_reads_the_texts() -> None:
    ctx = multiprocessing.get_context("fork")
    with DiskTexts() as store:
        store.put("a", "新华社北京一月一日电" * 100)
        store.put("b", "lone \ud800 surrogate")
        store.flush()
        out = ctx.Queue()
        procs = [ctx.Process(target=_read, args=(store, d, out)) for d in ("a", "b")]
        for p in procs:
            p.start()
        got = {out.get(timeout=30) for _ in procs}
        for p in procs:
            p.join(30)
        assert got == {"新华社北京一月一日电" * 100, "lone \ud800 surrogate"}


def _brute_force(docs: list[SimpleNamespace], k: int) -> dict[str, list[str]]:
    """Every earlier document of the same config, by shared distinct fingerprints desc, then
    seq, then id: the rule, without an index."""
    out = {}
    for n, d in enumerate(docs):
        scored = []
        for e in docs[:n]:
            shared = len(set(d.fingerprints) & set(e.fingerprints))
            if e.fp_config == d.fp_config and shared:
                scored.append((-shared, e.seq, e.id))
        out[d.id] = [i for _, _, i in sorted(scored)[:k]]
    return out


DOCS = st.lists(
    st.tuples(st.lists(st.sampled_from("abcdefgh"), max_size=6), st.sampled_from(["w", "s"])),
    max_size=25,
)


@settings(max_examples=150, deadline=None)
@given(DOCS, st.integers(1, 4))
def test_candidate_index_follows_the_rule(raw: list[tuple[list[str], str]], k: int) -> None:
    docs = [SimpleNamespace(id=f"p{n:02d}", seq=n, fingerprints=fps, fp_config=cfg)
            for n, (fps, cfg) in enumerate(raw)]
    want = _brute_force(docs, k)
    index = CandidateIndex(k)
    assert {d.id: index.add(d) for d in docs} == want
    assert earlier_candidates(docs, k) == want


def _pages() -> list[tuple[int, bytes]]:
    article = "".join(f"新华社北京一月{i}日电，今天是第{i}个工作日，首都各界群众{i * 7}人欢聚一堂。"
                      for i in range(1, 30))
    other = "".join(f"国务院新闻办公室今天举行第{i}场记者招待会，介绍{i + 1990}年经济发展情况。"
                    for i in range(1, 30))
    pages = [("a", article), ("b", "广告 " + article + " 版权所有"), ("c", other),
             ("d", other + " 责任编辑"), ("e", article[:60] + other)]
    return [(n, json.dumps({"id": i, "text": t}, ensure_ascii=False).encode())
            for n, (i, t) in enumerate(pages, 1)]


def test_read_to_disk_keeps_no_text_and_groups_as_before() -> None:
    config = fingerprint_config("web")
    whole = list(prepare_lines(_pages(), config))
    expected = dedup_embedded(whole, "web")
    with DiskTexts() as texts:
        earlier: dict[str, list[str]] = {}
        read = list(spool_texts(prepare_lines(_pages(), config), texts, CandidateIndex(20), earlier))
        for p in read:
            assert p.doc is not None
            assert (p.doc.body, p.doc.content, p.doc.fingerprints) == ("", None, [])
        assert texts.get("b").startswith("广告 ")
        got = dedup_embedded(read, "web", texts=texts, earlier=earlier)
    assert got == expected
    assert got["b"]["dup_group"] == "a" and got["d"]["dup_group"] == "c"
