"""Every registered baseline: the protocol, empty text, and parameter errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from neardup.evaluation.baselines import BASELINES, Baseline, get_baseline
from neardup.evaluation.baselines.wordnet import wordnet_dir
from neardup.ingest.errors import ConfigError

HAVE_WORDNET = (Path(wordnet_dir()) / "data.noun").is_file()


def _make(name: str) -> Baseline:
    if name == "dwdcs" and not HAVE_WORDNET:
        return get_baseline(name, use_wordnet=False)
    return get_baseline(name)


def test_registry_names() -> None:
    assert set(BASELINES) == {
        "simhash", "shingling", "minhash-lsh", "i-match", "i-match-multi", "spotsig", "dwdcs",
        "pinyin",
    }  # fmt: skip


@pytest.mark.parametrize("name", sorted(BASELINES))
def test_protocol_and_empty_text(name: str, corpus: list[str]) -> None:
    method = _make(name)
    assert isinstance(method, Baseline) and method.name == name
    method.fit(corpus)
    empty = method.signature("")
    blank = method.signature("  ,.;  \n")
    text = method.signature(corpus[1])
    for x in (empty, blank):
        assert method.similar(x, x) is False  # nothing to compare: never a duplicate
        assert method.score(x, text) == 0.0
    assert method.similar(text, method.signature(corpus[1])) is True
    assert method.candidates({"e": empty, "b": blank, "t": text}) == set()
    assert method.candidates({}) == set()


def test_unknown_name_and_bad_parameters() -> None:
    with pytest.raises(ConfigError, match="unknown baseline"):
        get_baseline("nope")
    with pytest.raises(ConfigError, match="bad parameters"):
        get_baseline("simhash", bits=32)
    with pytest.raises(ConfigError):
        get_baseline("simhash", k=5, blocks=4)  # pigeonhole needs blocks > k
