"""The content decision (neardup.verifier.verdict, issue 16): where the differences sit, reasons,
honest bounds, operating points. Small hand-written fixtures only."""

from __future__ import annotations

import random

import pytest

from neardup.verifier import _words_py, verdict
from neardup.verifier.compare import compare
from neardup.verifier.config import PROFILES, VerifyConfig
from neardup.verifier.errors import VerifierConfigError

WEB = PROFILES["web"]
TLCS = VerifyConfig(decision="tlcs")
WORDS = (
    "river market council school budget station harbour museum garden bridge library "
    "festival railway hospital theatre"
).split()


def para(seed: int, k: int = 6) -> str:
    rnd = random.Random(seed)
    return " ".join(
        " ".join(rnd.choice(WORDS) for _ in range(12)).capitalize() + "." for _ in range(k)
    )


HEAD = "Home | News | Hotels | Contact us | Sign in. Welcome to City Hotels Online, the guide to every hotel in town."
FOOT = "Copyright 2009 City Hotels Online. All rights reserved. Terms of use | Privacy policy | Site map."
LABELS = [
    "Address", "Rooms", "Check-in from", "Check-out until", "Breakfast", "Parking", "Pets",
    "Nearest station", "Rating", "Price per night",
]


def hotel(name: str, values: list[str]) -> str:
    body = " ".join(f"{label} of {name}: {v}." for label, v in zip(LABELS, values, strict=False))
    return f"{HEAD}\n{name}\n{body}\nBook {name} now. {FOOT}"


def test_tokens_split_cjk_characters() -> None:
    assert _words_py.tokens("Hotel Nord, 2 nights — 北京饭店") == [
        "hotel", "nord", "2", "nights", "北", "京", "饭", "店"
    ]
    assert _words_py.tokens("  ,.;  ") == []


def test_same_template_different_hotel_is_middle_differs() -> None:
    a = hotel("Hotel Alpenrose", ["12 Lake Road", "120", "14:00", "11:00", "buffet", "garage",
                                  "allowed", "Central", "4 stars", "95 EUR"])
    b = hotel("Grand Hotel Viktoria", ["3 Castle Street", "48", "15:00", "10:00", "continental",
                                       "street", "not allowed", "North", "3 stars", "70 EUR"])
    v = compare(a, b)
    # Enough words in common (template labels), but the core differs all through.
    assert v.word_resemble is not None and v.word_resemble >= WEB.min_word_resemble
    assert v.core_resemble is not None and v.core_resemble < WEB.min_core_resemble
    assert not v.similar and v.reason == "middle-differs" and not v.rejected_early


def test_same_article_in_other_chrome_is_similar() -> None:
    article = "\n".join(para(s) for s in range(5))
    a = "Daily Herald | Sports | Weather | Subscribe now.\n" + article + "\nFollow the Daily Herald."
    b = "Evening Post wire service. Top stories today:\n" + article + "\nEvening Post, all rights reserved."
    v = compare(a, b)
    assert v.similar and v.reason == "content-similar"
    assert v.core_resemble == 1.0  # differences only before the first / after the last shared run


def test_rewritten_middle_is_not_similar() -> None:
    a = "\n".join([para(20), para(21), para(22), para(23)])
    b = "\n".join([para(20), para(31), para(32), para(23)])
    v = compare(a, b)
    assert not v.similar and v.reason in ("middle-differs", "below-threshold")


def test_reordered_paragraphs_count_through_the_tlcs() -> None:
    ps = [para(s, 8) + " " + " ".join(f"w{s}x{i}" for i in range(40)) for s in range(10, 14)]
    v = compare("\n\n".join(ps), "\n\n".join(reversed(ps)))
    # The word LCS holds one paragraph; the iterative TLCS finds all four.
    assert v.word_resemble is not None and v.word_resemble < WEB.min_word_resemble
    assert v.resemble >= WEB.min_word_resemble and v.similar and v.reason == "content-similar"


def test_exact_and_empty() -> None:
    page = "新华社北京一月一日电 今天是新年的第一天，首都各界群众欢聚一堂。" * 3
    v = compare(page, page + " ")
    assert v.similar and v.reason == "exact" and v.as_dict()["reason"] == "exact"
    v = compare("...", "some text")
    assert not v.similar and v.reason == "empty" and v.rejected_early


def test_rejected_pair_reports_a_bound_not_zero() -> None:
    shared = para(40, 3)
    a = shared + " " + para(41, 12)
    b = shared + " " + " ".join(f"other{i}" for i in range(400))
    v = compare(a, b, TLCS)
    # They share a paragraph: the rejected pair's rates are upper bounds, above zero.
    assert not v.similar and v.rejected_early and v.bound and v.tlcs == 0
    assert v.reason == "skeleton-bound" and 0.0 < v.resemble < TLCS.resemble
    v = compare(a, b)
    assert not v.similar and v.rejected_early and v.bound
    assert v.word_resemble is not None and 0.0 < v.word_resemble < WEB.min_word_resemble
    assert v.as_dict()["bound"] is True


def test_word_bound_is_an_upper_bound() -> None:
    a = " ".join(para(s, 2) for s in range(50, 56))
    b = " ".join(para(s, 2) for s in range(53, 60))
    f = verdict.content_features(a, b, WEB)
    ta, tb = _words_py.tokens(a), _words_py.tokens(b)
    exact = verdict.content_features(a, b, WEB.replace(min_word_resemble=0.0))
    assert exact.reason is None and not exact.bound
    if f.bound:
        assert f.word_resemble >= exact.word_resemble
    assert f.n_words == len(ta) and f.m_words == len(tb)


def test_a_small_page_held_by_a_whole_library_is_contained_without_an_alignment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A page that re-exports a whole library holds each module's page, and is many times
    # longer: rule 1 cannot pass whatever the alignment, so the verdict is containment
    # without aligning the pair (Haddock's Control.Lens.Combinators: 73 alignments, 48 s).
    module = " ".join(para(s, 3) for s in range(70, 76))
    library = " ".join(para(s, 3) for s in range(40, 70)) + " " + module + " " + para(99, 6)
    exact = verdict.content_features(library, module, WEB.replace(min_word_resemble=0.0))
    assert exact.word_resemble < WEB.min_word_resemble and not exact.bound

    def no_alignment(*args: object) -> None:
        raise AssertionError("aligned")

    monkeypatch.setattr(verdict, "align", no_alignment)
    f = verdict.content_features(library, module, WEB)
    assert f.bound and f.reason is None and f.word_contain >= WEB.min_word_contain
    assert f.word_resemble >= exact.word_resemble  # an upper bound, below rule 1's threshold
    assert f.word_resemble < WEB.min_word_resemble
    assert verdict.decide(f, WEB) == (True, verdict.CONTAINED)
    assert verdict.decide(exact, WEB) == (True, verdict.CONTAINED)
    v = compare(module, library)
    assert v.similar and v.reason == "contained" and v.word_contain is not None


def test_long_pages_are_verified() -> None:
    # ~94k characters: a table whose values change on every third row.
    rnd = random.Random(1)
    rows = [f"Nutrient {i:05d} {rnd.choice(WORDS)} {rnd.randint(0, 999)}.{rnd.randint(0, 99)} g"
            for i in range(3000)]
    other = [r if i % 3 else r.rsplit(" ", 2)[0] + f" {rnd.randint(0, 999)}.{rnd.randint(0, 99)} g"
             for i, r in enumerate(rows)]
    a, b = "\n".join(rows), "\n".join(other)
    assert len(a) >= 80_000
    v = compare(a, b)
    assert v.similar and v.reason == "content-similar" and not v.bound
    assert v.word_resemble is not None and v.word_resemble > 0.7


def test_profiles_and_operating_points() -> None:
    assert WEB == VerifyConfig() and WEB.decision == "content"
    precise = VerifyConfig.profile("precise")
    assert precise.min_core_resemble > WEB.min_core_resemble
    assert precise.min_word_resemble == WEB.min_word_resemble
    assert VerifyConfig.profile("short").decision == "tlcs"
    f = verdict.ContentFeatures(0.8, 0.75, 100, 100)
    assert verdict.decide(f, WEB) == (True, "content-similar")
    assert verdict.decide(f, precise) == (False, "middle-differs")
    assert verdict.decide(verdict.ContentFeatures(0.5, 1.0, 100, 100), WEB) == (False, "below-threshold")
    assert verdict.decide(verdict.ContentFeatures(0.5, 1.0, 100, 100), WEB, shared=0.6)[0]
    assert "decision=tlcs" in str(VerifyConfig.profile("short"))


@pytest.mark.parametrize(
    "changes",
    [{"decision": "magic"}, {"min_word_resemble": 1.5}, {"min_core_resemble": -0.1},
     {"anchor_words": 0}, {"anchor_words": True}],
)
def test_bad_content_config(changes: dict[str, object]) -> None:
    with pytest.raises(VerifierConfigError):
        VerifyConfig(**changes)


def test_tlcs_reasons() -> None:
    body = "\n".join(para(s) for s in range(60, 64))
    v = compare(body, body + "\n" + para(65), TLCS)
    assert v.similar and v.reason in ("tlcs-resemble", "contain") and v.word_resemble is None
