"""ingest.sentences: normalisation, splitting (Chinese, English), width."""

from __future__ import annotations

import random

from ingest.sentences import normalize_text, sentence_texts, split_sentences, width
from verifier.units import char_width, text_width


def _texts(text: str) -> list[str]:
    return [s.text for s in split_sentences(text)]


def test_normalize() -> None:
    assert normalize_text("Ｈｅｌｌｏ，\u3000世界！") == "Hello, 世界!"
    assert normalize_text("a \t b\r\n\n\n  c\u200b d ") == "a b\nc d"
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


def test_line_breaks_split_and_offsets_point_into_normalised_text() -> None:
    raw = "标题\n  第一段第一句。第一段第二句\n\nSecond para. end"
    norm = normalize_text(raw)
    sents = split_sentences(raw)
    assert [s.text for s in sents] == ["标题", "第一段第一句", "第一段第二句", "Second para", "end"]
    assert all(norm[s.start : s.end] == s.text for s in sents)
    assert sentence_texts(norm) == [s.text for s in sents]


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
