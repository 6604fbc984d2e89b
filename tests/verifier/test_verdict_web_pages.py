"""What people call the same page (issue 16), on pages built here: long pages are verified,
an article swapped inside one site's chrome is never similar, rates are honest."""

from __future__ import annotations

import random

import pytest

from neardup.verifier.compare import compare
from neardup.verifier.config import PROFILES
from neardup.verifier.verdict import EARLY_REASONS

WORDS = (
    "river harbour council budget school winter market railway museum festival library "
    "hospital election bridge garden factory village coast mountain forest orchestra "
    "science theatre province airport university vaccine harvest drought report court"
).split()


def prose(seed: int, n_words: int) -> str:
    rng = random.Random(seed)
    sentences = []
    while n_words > 0:
        k = rng.randint(8, 18)
        sentences.append(" ".join(rng.choice(WORDS) for _ in range(k)).capitalize() + ".")
        n_words -= k
    paragraphs = [" ".join(sentences[i : i + 5]) for i in range(0, len(sentences), 5)]
    return "\n\n".join(paragraphs)


def edit(text: str, rate: float, seed: int) -> str:
    """Scattered word substitutions at ``rate`` of the words."""
    rng = random.Random(seed)
    words = text.split(" ")
    for i in rng.sample(range(len(words)), int(len(words) * rate)):
        words[i] = rng.choice(WORDS) + "s"
    return " ".join(words)


# A site's chrome larger than its articles: navigation, link lists, footer (~2,400 chars).
NAV = " | ".join(f"Section {w.title()}" for w in WORDS) + "\n\n"
LINKS = "\n".join(f"Read more: the {a} and the {b} of our city" for a, b in zip(WORDS, WORDS[3:], strict=False))
FOOTER = "\n\nContact us. Privacy policy. Terms of use. Copyright the Daily Harbour Gazette."


def page(article: str) -> str:
    return NAV + article + "\n\n" + LINKS + FOOTER


def test_chrome_is_larger_than_the_articles() -> None:
    assert len(NAV + LINKS + FOOTER) > 2000 > len(prose(1, 200))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("profile", ["web", "precise"])
def test_an_article_swapped_inside_the_same_chrome_is_never_similar(seed: int, profile: str) -> None:
    a, b = page(prose(2 * seed, 200)), page(prose(2 * seed + 1, 200))
    v = compare(a, b, PROFILES[profile])
    assert not v.similar, v
    assert v.reason in ("middle-differs", "below-threshold", "edit-distance-bound",
                        "skeleton-bound")


@pytest.mark.parametrize("seed", range(3))
def test_the_same_article_in_the_same_chrome_is_similar(seed: int) -> None:
    article = prose(seed, 300)
    v = compare(page(article), page(edit(article, 0.02, seed)))
    assert v.similar and v.reason in ("content-similar", "exact"), v


@pytest.mark.parametrize("rate", [0.0, 0.01, 0.05])
def test_pages_of_100k_characters_are_verified_not_dropped(rate: float) -> None:
    a = prose(7, 17_000)
    assert len(a) >= 100_000
    b = edit(a, rate, 3)
    v = compare(a, b)
    assert v.similar, v
    assert v.reason not in EARLY_REASONS
    assert v.resemble > 0.5 and v.word_resemble is not None and v.word_resemble > 0.9


def test_long_pages_that_differ_report_an_honest_figure() -> None:
    a, b = prose(8, 16_000), prose(9, 16_000)  # one vocabulary, different text
    v = compare(a, b)
    assert not v.similar
    if v.reason in EARLY_REASONS:  # rejected by a bound: the bound is reported, not 0.0
        assert v.bound or v.word_resemble is not None


def test_a_rejected_pair_sharing_most_text_never_reports_zero() -> None:
    article = prose(11, 3_000)
    shuffled = "\n\n".join(reversed(article.split("\n\n")))  # every paragraph moved
    v = compare(article, shuffled)
    assert v.resemble > 0.0 or (v.word_resemble or 0.0) > 0.0
    assert v.reason


@pytest.mark.parametrize("text", ["OK", "你好", "Hello there.\nSee you soon, friend."])
def test_identical_short_texts_are_exact_with_their_real_rates(text: str) -> None:
    v = compare(text, text)
    assert v.similar and v.reason == "exact"
    assert v.resemble == v.contain == 1.0 and not v.bound


@pytest.mark.parametrize("seed", range(3))
def test_a_page_holding_the_others_key_paragraphs_is_contained(seed: int) -> None:
    article = prose(20 + seed, 900)
    paragraphs = article.split("\n\n")
    key = "\n\n".join(paragraphs[1 : len(paragraphs) // 2])  # the key half, in the middle
    v = compare(article, key)
    assert v.similar and v.reason == "contained", v
    assert v.word_contain is not None and v.word_contain >= 0.9
    # the same paragraphs in another order are held as well
    moved = "\n\n".join(reversed(paragraphs))
    assert compare(article, moved).similar


def test_a_short_page_is_not_contained_for_its_words_alone() -> None:
    page_ = prose(30, 60)  # under min_contain_words: too little to hold key paragraphs
    v = compare(prose(31, 900) + "\n\n" + page_, page_ + " extra words here")
    assert v.word_contain == 0.0
