"""neardup.ingest.sentences: normalisation, splitting (Chinese, English), width."""

from __future__ import annotations

import random

from neardup.ingest.sentences import (
    normalize_text,
    sentence_key,
    sentence_keys,
    sentence_texts,
    split_sentences,
    width,
)
from neardup.verifier.units import char_width, text_width


def _texts(text: str) -> list[str]:
    return [s.text for s in split_sentences(text)]


def test_normalize() -> None:
    assert normalize_text("Ｈｅｌｌｏ，\u3000世界！") == "Hello, 世界!"
    assert normalize_text("a \t b\r\n\n\n  c\u200b d ") == "a b\n\nc d"
    assert normalize_text("soft\nwrap, 中文\n换行\n\nnext") == "soft wrap, 中文换行\n\nnext"
    assert normalize_text("") == ""


def test_chinese_sentences() -> None:
    text = "今天天气很好。我们去公园吧！你去吗？他说：“不去。”然后；走了……再见"
    assert _texts(text) == [
        "今天天气很好",
        "我们去公园吧",
        "你去吗",
        "他说:“不去",
        "然后",
        "走了",
        "再见",
    ]


def test_english_sentences_keep_decimals_and_abbreviations() -> None:
    text = "Dr. Smith paid $3.14 for it. Then he left! Did he? See e.g. os.path.join; U.S. law."
    assert _texts(text) == [
        "Dr. Smith paid $3.14 for it",
        "Then he left",
        "Did he",
        "See e.g. os.path.join",
        "U.S. law",
    ]


def test_paragraph_breaks_split_soft_wraps_do_not() -> None:
    raw = "标题\n\n  第一段第一句。第一段\n第二句\n\nSecond para. end\nof it"
    norm = normalize_text(raw)
    sents = split_sentences(raw)
    assert [s.text for s in sents] == [
        "标题",
        "第一段第一句",
        "第一段第二句",
        "Second para",
        "end of it",
    ]
    assert all(norm[s.start : s.end] == s.text for s in sents)
    assert sentence_texts(norm) == [s.text for s in sents]


def test_keys_ignore_markup_case_width_and_wrapping() -> None:
    html_like = "Use os.path.join() to join paths; it returns a str."
    rest = "Use ``os.path.join()`` to\njoin *paths*; it returns a `str`."
    assert sentence_keys(html_like) == sentence_keys(rest) == [
        "useospathjointojoinpaths", "itreturnsastr"
    ]  # fmt: skip
    assert sentence_key("ＡＢＣ１２３，中文") == "abc123中文"
    assert sentence_key("Café") == sentence_key("cafe\u0301") == "cafe"


def test_keys_equal_keys_of_split_sentences() -> None:
    rng = random.Random(3)
    pool = list("ab Cd.。！？;…,\n \n\n中文字Ｅ．１２3") + ["Mr.", "e.g.", "U.S.", "3.14", "”"]
    for _ in range(500):
        text = "".join(rng.choice(pool) for _ in range(rng.randint(0, 60)))
        expected = [k for k in (sentence_key(s.text) for s in split_sentences(text)) if k]
        assert sentence_keys(text) == expected, repr(text)


def test_width_agrees_with_char_width_everywhere() -> None:
    # every code point (in chunks, so one run is fast)
    for start in range(0, 0x110000, 0x8000):
        chunk = "".join(chr(c) for c in range(start, start + 0x8000) if not 0xD800 <= c < 0xE000)
        assert width(chunk) == sum(map(char_width, chunk)), hex(start)


def test_width_agrees_with_text_width_on_mixed_text() -> None:
    rng = random.Random(7)
    pool = "abc 123,.中文汉字。，！é€—“”ｘ한국어ｶﾀ😀𠀀"
    for _ in range(200):
        s = "".join(rng.choice(pool) for _ in range(rng.randint(0, 40)))
        assert width(s) == text_width(s)
