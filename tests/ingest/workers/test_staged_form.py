"""A staged page is the store's page in its staged form (``StoredDocument.to_staged`` /
``from_staged``): what a batch carries in Redis, and reads back once, as pages not decided yet.
The form's keys are a contract with the batches already in Redis (tests/integration/
test_staging.py reads one written by the previous version)."""

from __future__ import annotations

from neardup.ingest.jsoncodec import loads_fast
from neardup.ingest.store.base import StoredDocument
from neardup.ingest.workers.staging import _read_batch, batch_payload

STAGED_KEYS = ["id", "body", "content", "fingerprints", "fp_config", "url", "site", "title",
               "ingested_at"]


def _doc(i: str, seq: int = 0, **fields: object) -> StoredDocument:
    return StoredDocument(id=i, body=f"text {i}", fingerprints=[f"fp-{i}"], fp_config="web:1",
                          seq=seq, **fields)  # type: ignore[arg-type]


def test_a_staged_page_carries_what_ingest_made_and_nothing_of_a_decision() -> None:
    decided = _doc("a", url="u", site="s", title="t", content="main", dup_group="z",
                   dup_of="z", resemble=0.9, contain=0.8, status="grouped", seq=7,
                   grouped_at="later", ingested_at="then")
    staged = decided.to_staged("now")
    assert list(staged) == STAGED_KEYS
    assert staged["ingested_at"] == "then"  # its own time first
    assert _doc("b").to_staged("now")["ingested_at"] == "now"
    back = StoredDocument.from_staged(staged, seq=3)
    assert back == _doc("a", url="u", site="s", title="t", content="main", seq=3,
                        ingested_at="then")
    assert (back.status, back.dup_group, back.version) == ("pending", None, None)


def test_a_batch_reads_back_as_its_pages_with_their_seqs() -> None:
    pages = [_doc("a"), _doc("b", content="main b", ingested_at="then")]
    blob = batch_payload(pages, "update")
    stored = loads_fast(blob)
    assert [list(p) for p in stored["pages"]] == [STAGED_KEYS, STAGED_KEYS]
    assert stored["pages"][0]["ingested_at"] is not None  # stamped when staged
    batch = _read_batch("k", 41, blob)
    assert (batch.key, batch.first_seq, batch.mode) == ("k", 41, "update")
    assert [(p.id, p.seq, p.content) for p in batch.pages] == [("a", 41, None),
                                                              ("b", 42, "main b")]
    assert batch.pages[1].ingested_at == "then"
    assert [p.seq for p in batch.pages] == [batch.seq_of(i) for i in range(2)]


def test_a_batch_staged_by_the_previous_version_reads_as_it_did() -> None:
    """Its ``page_payload`` wrote these keys; its ``stored_page`` read them back so."""
    old = (b'{"pages":[{"id":"o1","body":"whole","content":"main","fingerprints":["f1"],'
           b'"fp_config":"web:1","url":"https://a.example/1","site":"a.example","title":"One",'
           b'"ingested_at":"then"},{"id":"o2","body":"plain","content":null,"fingerprints":[],'
           b'"fp_config":"web:1","url":null,"site":null,"title":null,"ingested_at":"then"}],'
           b'"accepted_at":1714557600.5}')
    batch = _read_batch("k", 5, old)
    assert (batch.accepted_at, batch.mode) == (1714557600.5, "index")
    assert batch.pages == [
        StoredDocument(id="o1", body="whole", content="main", fingerprints=["f1"],
                       fp_config="web:1", seq=5, url="https://a.example/1", site="a.example",
                       title="One", ingested_at="then"),
        StoredDocument(id="o2", body="plain", fingerprints=[], fp_config="web:1", seq=6,
                       ingested_at="then"),
    ]
    assert loads_fast(batch_payload(batch.pages))["pages"] == loads_fast(old)["pages"]
