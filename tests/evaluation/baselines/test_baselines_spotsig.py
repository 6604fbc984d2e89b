from __future__ import annotations

from itertools import combinations

from neardup.evaluation.baselines.spotsig import SpotSig, jaccard

NAV_A = "Home | World | Business | Sports | Weather | Contact Us | Login | Subscribe"
NAV_B = "Menu Latest News Opinion Video Podcasts Newsletters Careers Advertise Privacy Terms"


def test_navigation_text_has_no_spots(english: list[str]) -> None:
    sp = SpotSig()
    sp.fit(english)
    assert {"the", "a", "and"} <= sp.anchors
    assert sp.signature(NAV_A) is None
    assert sp.signature(NAV_B) is None


def test_same_article_in_different_templates_is_similar(english: list[str]) -> None:
    sp = SpotSig()
    sp.fit(english)
    article = english[2] + " " + english[4]
    a = sp.signature(f"{NAV_A} {article}")
    b = sp.signature(f"{NAV_B} {article}")
    assert a == b == sp.signature(article)  # the navigation bar adds no spot
    # after the article, only chains started in its last sentence reach into the menu
    c = sp.signature(f"{article} {NAV_B}")
    assert sp.similar(a, c) and sp.score(a, c) > 0.8
    assert not sp.similar(a, sp.signature(english[0] + " " + english[1]))


def test_length_partitioning_finds_the_same_pairs_as_all_pairs(english: list[str]) -> None:
    sp = SpotSig(tau=0.3)
    sp.fit(english)
    texts = {f"p{i}": t for i, t in enumerate(english)}
    texts["p1x"] = english[1] + " The bread is eaten with butter and a cup of tea."
    texts["p2x"] = english[2].replace("library", "school")
    texts["p2y"] = english[2] + " " + english[5]
    texts["nav"] = NAV_A
    sigs = {k: sp.signature(t) for k, t in texts.items()}
    truth = {(x, y) for x, y in combinations(sorted(sigs), 2) if sp.similar(sigs[x], sigs[y])}
    assert ("p1", "p1x") in truth and ("p2", "p2x") in truth
    assert sp.candidates(sigs) == truth


def test_jaccard() -> None:
    assert jaccard(frozenset("ab"), frozenset("bc")) == 1 / 3
    assert jaccard(frozenset(), frozenset()) == 0.0


def test_tiny_fit_corpus_does_not_make_every_word_a_stop_word(english: list[str]) -> None:
    sp = SpotSig()
    sp.fit(english[:1])
    assert sp.stopwords is not None and len(sp.stopwords) <= 3
    assert sp.signature(english[0]) is not None
