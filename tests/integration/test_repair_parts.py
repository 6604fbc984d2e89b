"""The parts a repair stands on, on a real redis-server: the decisions-or-repair gate, the
staged changes in arrival order with the batches, and chrome counts that take pages back."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from support.chrome_sites import EN_SITE

from neardup.ingest.chrome import ChromeRule
from neardup.ingest.store.base import StoredDocument
from neardup.ingest.workers._redis import connect
from neardup.ingest.workers.changes import ChangeLog
from neardup.ingest.workers.chrome_counts import SharedChromeCounts, counted_rules
from neardup.ingest.workers.gate import Gate, GateBusy
from neardup.ingest.workers.staging import BatchStaging


@pytest.fixture
def client(redis_url: str) -> Any:
    return connect(redis_url)


@pytest.fixture
def index(client: Any) -> Iterator[str]:
    name = f"neardup-test-repair-{uuid.uuid4().hex[:10]}"
    yield name
    for key in client.scan_iter(f"neardup:{name}:*", count=1000):
        client.delete(key)


def test_a_repair_waits_for_the_decisions_and_holds_new_ones_back(client: Any, index: str) -> None:
    gate = Gate(client, index)
    events: list[str] = []
    with gate.deciding():
        def repair() -> None:
            with gate.repairing(budget=10):
                events.append("repair")
                time.sleep(0.3)
                events.append("repair done")

        t = threading.Thread(target=repair)
        t.start()
        time.sleep(0.3)
        events.append("decision done")  # the repair is still waiting for this decision
    time.sleep(0.1)
    with gate.deciding(budget=10):  # a new decision waits for the repair
        events.append("decision")
    t.join()
    assert events == ["decision done", "repair", "repair done", "decision"]
    with gate.repairing(), pytest.raises(GateBusy):  # one repair at a time
        with gate.repairing():
            pass


def test_a_hold_is_a_lease_renewed_while_its_holder_runs(client: Any, index: str) -> None:
    gate = Gate(client, index, hold=0.6)
    with gate.repairing():
        time.sleep(1.5)  # past its first lease: renewed, still held alone
        with pytest.raises(GateBusy):
            with Gate(client, index, hold=0.6).repairing():
                pass
    with gate.deciding():
        time.sleep(1.5)
        assert client.zcard(gate.k_deciders) == 1
        assert gate._deciders() == 1  # not expired: renewed
    # a holder killed while holding (what it leaves behind: its token, with its last lease)
    client.set(gate.k_repair, "a-killed-worker", px=600)
    client.zadd(gate.k_deciders, {"a-killed-decision": time.time() + 0.6})
    t0 = time.monotonic()
    with gate.deciding(budget=10):  # the dead repair's lease runs out
        pass
    with gate.repairing(budget=10):  # so does the dead decision's
        pass
    assert time.monotonic() - t0 < 5


def test_a_site_whose_pages_all_saw_its_counts_needs_no_sweep(client: Any, index: str) -> None:
    pages, _ = EN_SITE
    rows = [(p["id"], p.get("site"), p.get("url"), p["text"]) for p in pages]
    counts = SharedChromeCounts(client, index, ChromeRule(), width=1 << 12)
    counts.observe_pages(rows[:10])
    site = counts.site_of([rows[0][0]])[rows[0][0]]
    assert counts.sweep_state(site) == (10, None, None)  # counted, no page masked yet

    def needs_sweep() -> bool:
        version, base, low = counts.sweep_state(site)
        return not (low is not None and int(low) >= version and base in (None, version))

    assert needs_sweep()
    masker = SharedChromeCounts(client, index, ChromeRule(), width=1 << 12)
    masker.mask(site, rows[0][3])  # a page masked with the counts of version 10
    assert counts.sweep_state(site) == (10, None, "10") and not needs_sweep()
    counts.observe_pages(rows[10:15])  # counted after: the masked page may be stale
    assert counts.sweep_state(site)[0] == 15 and needs_sweep()
    SharedChromeCounts(client, index, ChromeRule(), width=1 << 12).mask(site, rows[1][3])
    assert counts.sweep_state(site)[2] == "10"  # the low mark stays the lowest
    counts.swept(site, 15, "10")  # a repair masked every page with version 15's counts
    assert counts.sweep_state(site) == (15, 15, None) and counts.dirty() == []
    counts.observe_pages(rows[15:16])
    counts.swept(site, 15, None)  # counts moved during that repair: the site stays marked
    assert counts.dirty() == [site]
    SharedChromeCounts(client, index, ChromeRule(), width=1 << 12).mask(site, rows[2][3])
    assert needs_sweep()  # base 15 is not version 16: the pages before may be stale


def test_changes_take_their_order_from_the_batches_sequencer(client: Any, index: str) -> None:
    staging = BatchStaging(client, index)
    log = ChangeLog(client, index)
    doc = StoredDocument("a", "new text", ["f"], "cfg", 0)
    _, first = staging.accept([StoredDocument("x", "t", ["f"], "cfg", 0)] * 3)
    seqs = log.stage([{"op": "put", "id": "a", "doc": doc}, {"op": "delete", "id": "b"}])
    assert seqs == [first + 3, first + 4]
    assert staging.undecided_before(seqs[0]) == 1  # the batch accepted before the change
    got = log.snapshot()
    assert [(c.op, c.id, c.seq) for c in got] == [("put", "a", seqs[0]), ("delete", "b", seqs[1])]
    assert got[0].doc is not None and got[0].doc.body == "new text" and got[0].doc.seq == seqs[0]
    log.done(got[:1])
    assert [c.id for c in log.snapshot()] == ["b"] and log.count() == 1


def test_taking_pages_back_leaves_the_counts_of_the_pages_present(client: Any, index: str) -> None:
    pages, _ = EN_SITE
    rule = ChromeRule()
    counts = SharedChromeCounts(client, index, rule, width=1 << 12)
    rows = [(p["id"], p.get("site"), p.get("url"), p["text"]) for p in pages]
    assert counts.observe_pages(rows[:10]) == 10
    before = {p: counts.mask(counts.site_of([p])[p], t) for p, _, _, t in rows[:10]}
    assert counts.observe_pages(rows[10:]) == len(rows) - 10
    marked = sorted({counts.site_of([r[0]])[r[0]] for r in rows})
    assert counts.dirty() == marked
    assert counts.dirty() == marked  # read, not taken: a repair clears them once written
    for site in marked:  # a repair that masked their pages with the counts as they are
        counts.swept(site, counts.sweep_state(site)[0], None)
    assert counts.dirty_count() == 0
    assert counted_rules(client, index) == [rule]
    assert counts.forget_pages([(r[0], r[3]) for r in rows[10:]]) == len(rows) - 10
    assert counts.forget_pages([(rows[-1][0], rows[-1][3])]) == 0  # each page once
    after = {p: counts.mask(counts.site_of([p])[p], t) for p, _, _, t in rows[:10]}
    assert after == before
    assert counts.dirty_count() == 1
    assert counts.site_pages(counts.site_of([rows[0][0]])[rows[0][0]]) == sorted(
        r[0] for r in rows[:10])
