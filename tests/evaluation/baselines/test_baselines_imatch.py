from __future__ import annotations

import pytest

from neardup.evaluation.baselines.errors import NotFittedError
from neardup.evaluation.baselines.imatch import IMatch, MultiLexiconIMatch, idf_lexicon


def test_lexicon_drops_rare_and_common_terms() -> None:
    texts = ["the cat sat", "the dog sat", "the cat ran", "the bird flew"]
    # "the" is in every document (lowest IDF); "dog", "ran", … in one (highest IDF)
    assert idf_lexicon(texts, min_df=2, max_df=0.75) == {"cat", "sat"}


def test_signature_ignores_word_order(english: list[str]) -> None:
    im = IMatch(min_df=1, max_df=0.5)
    im.fit(english)
    text = "the bread dough rises in a hot oven"
    shuffled = "oven hot a in rises dough bread the"
    assert im.signature(text) == im.signature(shuffled) is not None
    assert im.similar(im.signature(text), im.signature(shuffled + " bread"))  # same bag of terms
    assert not im.similar(im.signature(text), im.signature("the river flows under the bridge"))


def test_multi_lexicon_catches_a_pair_single_imatch_misses(english: list[str]) -> None:
    a = english[1]
    b = a.replace("salt", "sugar salt")  # one extra lexicon term ("sugar")
    corpus = [*english, "sugar"]
    single, multi = IMatch(min_df=1, max_df=0.5), MultiLexiconIMatch(min_df=1, max_df=0.5)
    single.fit(corpus)
    multi.fit(corpus)
    assert "sugar" in single.lexicon
    assert not single.similar(single.signature(a), single.signature(b))
    assert multi.similar(multi.signature(a), multi.signature(b))
    assert 0.0 < multi.score(multi.signature(a), multi.signature(b)) < 1.0
    sigs = {"a": multi.signature(a), "b": multi.signature(b), "c": multi.signature(english[2])}
    assert multi.candidates(sigs) == {("a", "b")}


def test_unfitted_imatch_says_so() -> None:
    with pytest.raises(NotFittedError, match="fit"):
        IMatch().signature("text")
