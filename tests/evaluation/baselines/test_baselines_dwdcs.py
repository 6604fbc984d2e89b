from __future__ import annotations

from pathlib import Path

import pytest

from neardup.evaluation.baselines.errors import BaselineUnavailable, NotFittedError
from neardup.evaluation.baselines.wordnet import WordNet, wordnet_dir

if not (Path(wordnet_dir()) / "data.noun").is_file():
    pytest.skip("WordNet data absent: run scripts/wordnet.sh", allow_module_level=True)

from neardup.evaluation.baselines.dwdcs import DWDCS, key_concepts  # noqa: E402
from neardup.evaluation.baselines.wordnet import load_wordnet  # noqa: E402


@pytest.fixture(scope="module")
def wn() -> WordNet:
    return load_wordnet()


def test_morphy_and_synonyms(wn: WordNet) -> None:
    assert wn.morphy("headaches") == "headache"
    assert wn.morphy("mice") == "mouse"
    assert wn.morphy("ran") == "run"
    assert wn.morphy("xyzzyq") is None
    assert {"car", "automobile", "auto"} <= wn.synonyms("car")


def test_synonyms_are_merged_into_one_concept(corpus: list[str]) -> None:
    d = DWDCS()
    d.fit(corpus)
    labels = d._concept_labels(["car", "automobile", "lack", "deficiency", "river"])
    assert labels["car"] == labels["automobile"]
    assert labels["lack"] == labels["deficiency"]
    assert labels["car"] != labels["river"]
    # labels do not depend on the document: a lone "automobile" is the car concept too
    assert d._concept_labels(["automobile"])["automobile"] == labels["car"]


def test_key_concepts_prefer_the_bridge_between_topics() -> None:
    # two clusters joined only through "bridge": removing it disconnects the network
    seq = ["a", "b", "c", "a", "b", "c", "bridge", "x", "y", "z", "x", "y", "z", "bridge"]
    assert key_concepts(seq, n_keys=1, hubs=7, max_nodes=50)[0] == "bridge"


def test_identical_texts_similar_unrelated_not(long_text: str, english: list[str]) -> None:
    d = DWDCS(stopwords=20)  # a tiny corpus: only its 20 most frequent words are stop words
    d.fit(english)
    a = d.signature(long_text)
    assert a is not None and 10 <= len(a.concepts) <= 20
    assert d.similar(a, d.signature(long_text))
    assert d.score(a, d.signature(long_text)) == pytest.approx(1.0)
    other = d.signature(english[0] + " " + english[3])
    assert not d.similar(a, other)
    near = d.signature(long_text.replace("Monday", "Tuesday"))
    sigs = {"a": a, "near": near, "other": other, "empty": d.signature("")}
    assert sigs["empty"] is None
    assert d.candidates(sigs) == {("a", "near")}


def test_chinese_text_uses_bigram_concepts(corpus: list[str]) -> None:
    d = DWDCS()
    d.fit(corpus)
    text = "".join(corpus[-4:])
    sig = d.signature(text)
    assert sig is not None and all(c.startswith("zh:") for c in sig.concepts)
    assert d.similar(sig, d.signature(text))


def test_missing_wordnet_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(BaselineUnavailable, match="scripts/wordnet.sh"):
        DWDCS(wordnet_dir=str(tmp_path))
    DWDCS(use_wordnet=False, wordnet_dir=str(tmp_path))  # explicit opt-out works without it


def test_unfitted_dwdcs_says_so() -> None:
    with pytest.raises(NotFittedError):
        DWDCS(use_wordnet=False).signature("text")
