from __future__ import annotations

from neardup.evaluation.baselines.pinyin_dna import PinyinDNA, initials

NEWS = (
    "新华社北京一月一日电 国家主席在新年贺词中说，我们要继续推进改革开放，发展社会主义市场经济。"
    "今年的粮食生产获得了丰收，农民的收入有了明显的提高，农村的面貌发生了很大的变化。"
    "这个城市的交通建设正在加快，新的地铁线路将在年底开通，方便了市民的出行。"
)


def test_initials_of_chinese_and_latin_text() -> None:
    assert initials("人民日报") == "rmrb"
    assert initials("中華人民共和國") == initials("中华人民共和国")  # Traditional = Simplified
    assert initials("Hello big World 42") == "hbw"


def test_identical_chinese_texts_are_similar(corpus: list[str]) -> None:
    p = PinyinDNA()
    p.fit(corpus)
    a = p.signature(NEWS)
    assert a is not None and len(a) >= 2  # ~140 letters: granules of 100 overlapping by 50
    assert p.similar(a, p.signature(NEWS)) and p.score(a, p.signature(NEWS)) == 1.0
    other = p.signature("学校的老师和学生一起参加了植树活动，他们在山坡上种下了一千多棵树苗。" * 3)
    assert not p.similar(a, other)
    assert p.candidates({"a": a, "b": p.signature(NEWS), "o": other}) == {("a", "b")}


def test_non_chinese_text_falls_back_to_letters(long_text: str) -> None:
    p = PinyinDNA()
    a = p.signature(long_text)
    assert a is not None and all(len(dna) == 26 for dna in a)
    assert p.similar(a, p.signature(long_text))
