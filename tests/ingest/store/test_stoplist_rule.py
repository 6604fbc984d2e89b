"""The stoplist rule (§4.2: > 10000 occurrences, or > 400 concentrated in a few sites)."""

from __future__ import annotations

import pytest

from neardup.ingest.errors import ConfigError
from neardup.ingest.stoplist import (
    CONCENTRATED,
    FREQUENT,
    StoplistConfig,
    compute_stoplist,
    refresh_stoplist,
    stoplist_entries,
)
from neardup.ingest.store.base import StoplistEntry, StoredDocument
from neardup.ingest.store.embedded import EmbeddedStore


def test_paper_thresholds_are_the_defaults() -> None:
    config = StoplistConfig()
    assert (config.max_count, config.concentrated_count) == (10000, 400)
    assert config.min_count == 401


@pytest.mark.parametrize(
    ("count", "sites", "reason"),
    [
        (10001, 5000, FREQUENT),
        (10000, 5000, None),  # "more than" 10000
        (10001, 1, FREQUENT),  # the stronger reason wins
        (401, 1, CONCENTRATED),
        (401, 3, CONCENTRATED),
        (401, 4, None),  # spread over more than max_sites sites
        (400, 1, None),
        (5000, 0, None),  # no site known: the count rule alone applies
    ],
)
def test_rule(count: int, sites: int, reason: str | None) -> None:
    got = compute_stoplist({"fp": (count, sites)}, StoplistConfig(max_sites=3))
    assert got == ({} if reason is None else {"fp": reason})


def test_entries_are_sorted_by_count() -> None:
    freqs = {"b": (20000, 9), "a": (20000, 9), "c": (500, 1), "d": (10, 1)}
    assert stoplist_entries(freqs) == [
        StoplistEntry("a", 20000, 9, FREQUENT),
        StoplistEntry("b", 20000, 9, FREQUENT),
        StoplistEntry("c", 500, 1, CONCENTRATED),
    ]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"max_count": 0},
        {"concentrated_count": -1},
        {"max_sites": 0},
        {"max_count": 10, "concentrated_count": 11},
        {"max_sites": True},
    ],
)
def test_config_is_validated(kwargs: dict) -> None:
    with pytest.raises(ConfigError):
        StoplistConfig(**kwargs)


def test_config_is_frozen_and_named() -> None:
    config = StoplistConfig()
    with pytest.raises(AttributeError):
        config.max_count = 1  # type: ignore[misc]
    assert "10000" in str(config) and "400" in str(config)


def test_refresh_stoplist_on_a_store() -> None:
    store = EmbeddedStore()
    docs = [
        StoredDocument(
            f"d{i}",
            "",
            [f"own{i}", "all", *(["tpl"] if i < 6 else [])],
            "c",
            i,
            site=f"s{i % 2 if i < 6 else i}",
        )
        for i in range(12)
    ]
    list(store.put(docs))
    config = StoplistConfig(max_count=10, concentrated_count=5, max_sites=2)
    preview = refresh_stoplist(store, config, dry_run=True)
    assert store.stoplist() == frozenset()
    assert (
        refresh_stoplist(store, config)
        == preview
        == [
            StoplistEntry("all", 12, 8, FREQUENT),
            StoplistEntry("tpl", 6, 2, CONCENTRATED),
        ]
    )
    assert store.stoplist() == {"all", "tpl"}
    assert store.stoplist_entries() == preview


def test_refresh_stoplist_relative_rule_counts_the_stored_documents() -> None:
    store = EmbeddedStore()
    docs = [
        StoredDocument(f"d{i}", "", [f"own{i}", *(["nav"] if i < 3 else [])], "c", i, site=f"s{i}")
        for i in range(100)
    ]
    list(store.put(docs))
    assert store.document_count() == 100
    # "nav" is in 3 of 100 documents on 3 sites: under the absolute rules nothing is stopped,
    # above 2 % of the collection it is.
    assert refresh_stoplist(store, StoplistConfig(), dry_run=True) == []
    assert refresh_stoplist(store, StoplistConfig(max_share=0.02), dry_run=True) == [
        StoplistEntry("nav", 3, 3, FREQUENT)
    ]
    assert refresh_stoplist(store, StoplistConfig(max_share=0.05), dry_run=True) == []


def test_stoplist_command_max_share(tmp_path, capsys) -> None:
    from neardup.ingest.cli import main

    path = tmp_path / "store.sqlite"
    store = EmbeddedStore(path=str(path))
    list(store.put(
        StoredDocument(f"d{i}", "", [f"own{i}", *(["nav"] if i < 3 else [])], "c", i)
        for i in range(100)
    ))
    store.close()
    common = ["stoplist", "compute", "--backend", "embedded", "--path", str(path)]
    assert main([*common, "--max-share", "0.02"]) == 0
    assert "1 fingerprints" in capsys.readouterr().err
    assert main([*common, "--max-share", "2"]) == 2
    assert "max_share" in capsys.readouterr().err
