"""``decide_batch`` in-process on a real OpenSearch node and a real redis-server: how the
candidates found in the index are read (ingest/workers/batch.py). The search names the hits only;
their fingerprints come with their sources, read whole at once, or, past ``MAX_WHOLE_READS``
hits, the fingerprints of all first and then the texts of the ranked candidates. Both give the
same groups; and so does finding the same pages live instead of in the index."""

from __future__ import annotations

from typing import Any

import pytest

from neardup.ingest.workers import batch
from neardup.ingest.workers.batch import IndexParts, decide_batch
from neardup.ingest.workers.forest import RedisGroupForest
from neardup.ingest.workers.live import LiveIndex
from neardup.ingest.workers.staging import BatchStaging
from neardup.ingest.workers.tasks import _compare_fn


def _decide_all(
    store: Any, staging: BatchStaging, forest: RedisGroupForest, pages: list[Any],
    mode: str = "refreshed",
) -> dict[str, str]:
    """Accept ``pages`` in batches of 30 and decide them: ``{id: dup_group}`` as indexed.

    ``refreshed``: each accepted, decided and refreshed before the next is accepted (a batch
    finds the earlier ones in the index, none live). The index does not refresh by itself in
    the others, and none is made searchable, so a batch finds the others live only:
    ``unrefreshed``, each accepted and decided before the next is accepted; ``live``, every
    batch accepted before the first is decided, in the order of acceptance; ``reversed``, the
    same, the last accepted decided first."""
    compare = _compare_fn("web")
    chunks = [pages[i:i + 30] for i in range(0, len(pages), 30)]
    all_first = mode in ("live", "reversed")
    keys = [staging.accept(chunk)[0] for chunk in chunks] if all_first else []
    live = LiveIndex()
    order = list(enumerate(chunks))
    for n, (i, chunk) in enumerate(reversed(order) if mode == "reversed" else order):
        key = keys[i] if all_first else staging.accept(chunk)[0]
        out = decide_batch(IndexParts(store, staging, forest, compare), key, live=live,
                           searchable=None if mode == "refreshed" else (lambda at: None))
        still = {"refreshed": 0, "unrefreshed": n + 1}.get(mode, len(chunks))
        assert out["errors"] == 0 and len(staging.live()) == still, out
    store.refresh()
    got = store.mget([p.id for p in pages], with_fingerprints=False)
    assert len(got) == len(pages)
    return {i: str(d.dup_group) for i, d in got.items()}


def _partition(groups: dict[str, str]) -> set[frozenset[str]]:
    members: dict[str, set[str]] = {}
    for doc_id, group in groups.items():
        members.setdefault(group, set()).add(doc_id)
    return {frozenset(m) for m in members.values()}


def test_candidates_read_whole_or_fingerprints_first_give_the_same_groups(
    os_client: Any, index_name: str, staging: BatchStaging, stored_corpus: list[Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from neardup.ingest.store.opensearch import OpenSearchStore

    pages = stored_corpus
    runs = {}
    for name, limit in (("whole", batch.MAX_WHOLE_READS), ("fingerprints-first", 0),
                        ("unrefreshed", batch.MAX_WHOLE_READS), ("live", batch.MAX_WHOLE_READS),
                        ("reversed", batch.MAX_WHOLE_READS)):
        store = OpenSearchStore(os_client, f"{index_name}-{name}", stoplist_ttl=0.0)
        store.install()
        if name in ("unrefreshed", "live", "reversed"):
            os_client.indices.put_settings(index=store.index,
                                           body={"index": {"refresh_interval": "-1"}})
        calls: list[int] = []
        fields = store.fields

        def spy(ids: Any, wanted: Any, fields: Any = fields, calls: list[int] = calls) -> Any:
            calls.append(len(ids))
            return fields(ids, wanted)

        monkeypatch.setattr(store, "fields", spy)
        monkeypatch.setattr(batch, "MAX_WHOLE_READS", limit)
        run_staging = BatchStaging(staging.redis, f"{staging.index}-{name}")
        run_forest = RedisGroupForest(staging.redis, run_staging.index)
        try:
            mode = name if name in ("unrefreshed", "live", "reversed") else "refreshed"
            runs[name] = _decide_all(store, run_staging, run_forest, pages, mode)
        finally:
            run_staging.clear()
            run_forest.clear()
        # the path taken: whole reads never ask for fields; the other asks once a batch that
        # has index hits
        assert (len(calls) >= 3 and all(calls)) if name == "fingerprints-first" else not calls
    whole = _partition(runs["whole"])
    assert _partition(runs["fingerprints-first"]) == whole
    assert _partition(runs["live"]) == whole  # found live, not in the index: the same groups
    # each pair is seen by the later accepted of its two pages, its batch decided before or
    # after the other's (a decision looks only at the live batches accepted before its own)
    assert _partition(runs["unrefreshed"]) == whole
    assert _partition(runs["reversed"]) == whole
    assert sum(1 for m in whole if len(m) > 1) >= 10  # near-duplicates were grouped


@pytest.mark.parametrize("fails", ["put", "set_groups"])
def test_a_batch_retried_after_its_write_failed_still_rewrites_the_groups_it_merged(
    fails: str, os_client: Any, index_name: str, staging: BatchStaging, corpus: list[Any],
    fingerprinted: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A page that holds two indexed pages joins their groups: the later group is merged away
    and its page rewritten. The node goes away after that decision joined the groups in the
    forest and before it wrote them (``put``: the batch's own pages; ``set_groups``: the pages of
    the group merged away); the batch is decided again (the task's retry), and that decision
    finds the groups already joined. The page merged away is still rewritten: the index ends
    with the groups of a run without the failure."""
    from neardup.ingest.store.errors import StoreUnavailable
    from neardup.ingest.store.opensearch import OpenSearchStore

    originals = [d for d in corpus if d["twin_of"] is None and len(d["text"]) > 400][:8]
    docs = [{**d, "id": f"part-{n}"} for n, d in enumerate(originals)]
    docs += [{**docs[n], "id": f"both-{n // 2}",
              "text": docs[n]["text"] + "\n" + docs[n + 1]["text"]} for n in range(0, 8, 2)]
    pages = fingerprinted([{**d, "seq": n} for n, d in enumerate(docs)])
    runs = {}
    for name in ("clean", "failing"):
        store = OpenSearchStore(os_client, f"{index_name}-{name}", stoplist_ttl=0.0)
        store.install()
        run_staging = BatchStaging(staging.redis, f"{staging.index}-{name}")
        forest = RedisGroupForest(staging.redis, run_staging.index)
        parts = IndexParts(store, run_staging, forest, _compare_fn("web"))
        failures: list[str] = []
        armed: list[bool] = []
        if name == "failing":
            write = getattr(store, fails)

            def flaky(*args: Any, write: Any = write, failures: list[str] = failures,
                      armed: list[bool] = armed, **kwargs: Any) -> Any:
                if armed and not failures:
                    failures.append(fails)
                    raise StoreUnavailable("injected: the node went away")
                return write(*args, **kwargs)

            monkeypatch.setattr(store, fails, flaky)
        try:
            # the parts indexed, then the pages of two (whose batch's first write fails)
            for n, chunk in enumerate((pages[:8], pages[8:])):
                if n:
                    armed.append(True)
                key = run_staging.accept(chunk)[0]
                try:
                    decide_batch(parts, key, searchable=None)
                except StoreUnavailable:
                    decide_batch(parts, key, searchable=None)  # the retry
            store.refresh()
            got = store.mget([p.id for p in pages], with_fingerprints=False)
            runs[name] = {i: str(d.dup_group) for i, d in got.items()}
        finally:
            run_staging.clear()
            forest.clear()
        assert failures == ([] if name == "clean" else [fails])
    assert len(runs["clean"]) == len(pages)
    # each page of two holds both parts: one group of three
    assert sorted(len(m) for m in _partition(runs["clean"])) == [3, 3, 3, 3]
    assert _partition(runs["failing"]) == _partition(runs["clean"])
