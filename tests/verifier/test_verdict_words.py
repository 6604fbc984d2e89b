"""The compiled word layer (``verifier._words``) against its reference in ``verdict.py``."""

from __future__ import annotations

from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier import verdict

try:
    from verifier import _words
except ImportError:  # pragma: no cover - the build is part of set-up
    _words = None

compiled = pytest.mark.skipif(_words is None, reason="verifier._words is not built")

# Latin, digits, underscore, punctuation, CJK, kana, hangul, accents, ß, a supplementary ideograph.
ALPHABET = st.sampled_from(
    list("abcXYZ019_ .,-—!?") + list("新华社北京电ひらカナ한국") + ["é", "ß", "Σ", "ς", "\U00020001", "\n"]
)
TEXT = st.text(ALPHABET, max_size=120)


@compiled
@settings(max_examples=300, deadline=None)
@given(TEXT, TEXT)
def test_encode_and_bounds_match_the_reference(a: str, b: str) -> None:
    assert isinstance(_words, ModuleType)
    assert _words.encode(a, b) == verdict.encode(a, b)
    sa, sb = verdict.encode(a, b)
    assert _words.shared_upper(sa, sb) == verdict.shared_upper(sa, sb)
    for ngram, floor in ((1, 1), (2, 3), (4, 1), (16, 150)):
        assert _words.word_contain(sa, sb, ngram, floor) == pytest.approx(
            verdict.word_contain(sa, sb, ngram, floor)
        )


@compiled
def test_words_on_a_page() -> None:
    assert _words is not None
    page = "Hotel Nord, 2 nights — 北京饭店. Straße " * 50
    sa, sb = _words.encode(page, page + " extra")
    assert [ord(c) - 0x10000 for c in sa[:9]] == [0, 1, 2, 3, 4, 5, 6, 7, 8]
    assert _words.shared_upper(sa, sb) == len(sa)
    assert _words.word_contain(sa, sb, 16, 150) == 1.0
