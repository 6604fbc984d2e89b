"""Skeleton, TLCS and verdicts: templates at head and tail, containment, reordered paragraphs."""

from __future__ import annotations

import random
from types import ModuleType

from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.verifier import _lcs_py
from neardup.verifier.compare import compare
from neardup.verifier.config import VerifyConfig
from neardup.verifier.units import text_width
from neardup.verifier.verdict import Verdict

WEB = VerifyConfig()

# Synthetic prose: random sentences over common Chinese characters and English words, so two
# different "articles" share no long runs (as two real articles would not).
HANZI = (
    "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说"
    "产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点"
    "从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原"
)
WORDS = (
    "the of and to in is that for it as was with be by on not he this are or his from at which but have "
    "an they one you were her all she there would their we him been has when who will more no if out so "
    "said what up its about into than them can only other new some could time these two may then do first"
).split()


def article(seed: int, n: int = 1500) -> str:
    rnd = random.Random(seed)
    parts: list[str] = []
    size = 0
    while size < n:
        if rnd.random() < 0.6:
            sentence = "".join(rnd.choice(HANZI) for _ in range(rnd.randint(12, 40))) + "。"
        else:
            sentence = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(6, 18))).capitalize() + ". "
        parts.append(sentence)
        size += len(sentence)
        if rnd.random() < 0.2:
            parts.append("\n")
    return "".join(parts)


def template(seed: int, n: int = 500) -> str:
    rnd = random.Random(seed)
    words = ["首页", "新闻", "体育", "财经", "版权所有", "联系我们", "Home", "About", "Login",
             "Privacy", "广告服务", "网站地图", "Copyright", "Terms", "RSS", "友情链接"]
    out = []
    while len("".join(out)) < n:
        out.append(rnd.choice(words) + f"{rnd.randrange(10**4)} | ")
    return "".join(out)[:n]


def near_copy(text: str, seed: int, rate: float = 0.01) -> str:
    rnd = random.Random(seed)
    chars = list(text)
    for _ in range(int(len(chars) * rate)):
        i = rnd.randrange(len(chars))
        chars[i : i + 2] = rnd.choice(["的", "了", "xy", ""])
    return "".join(chars)


# --- skeleton ---------------------------------------------------------------------------------


def test_skeleton_keeps_shared_windows(impl: ModuleType) -> None:
    a = "独有前缀甲乙丙 the shared middle part of both texts 独有后缀"
    b = "another head; the shared middle part of both texts; tail"
    sa, ia, sb, ib = impl.skeleton(a, b, 16)
    assert "the shared middle part of both texts" in sa
    assert "独有" not in sa and "another" not in sb
    assert [a[i] for i in ia] == list(sa) and [b[i] for i in ib] == list(sb)
    assert ia == sorted(set(ia)) and ib == sorted(set(ib))


def test_skeleton_window_is_measured_in_width(impl: ModuleType) -> None:
    # 8 Chinese characters are 16 width units: one window; 7 are not enough.
    assert impl.skeleton("中华人民共和国万", "中华人民共和国万", 16)[0] == "中华人民共和国万"
    assert impl.skeleton("中华人民共和国", "中华人民共和国", 16)[0] == ""
    assert impl.skeleton("abcdefghijklmnop", "abcdefghijklmnop", 16)[0] == "abcdefghijklmnop"
    assert text_width("中华人民共和国万") == 16


def test_skeleton_drops_short_gaps_between_edits(impl: ModuleType) -> None:
    # Paper §4.3 property 1: text between two edits closer than S is filtered out.
    a = "aaaaaaaaaaaaaaaaXbbbYcccccccccccccccc"
    b = "aaaaaaaaaaaaaaaaPbbbQcccccccccccccccc"
    sa, _, sb, _ = impl.skeleton(a, b, 8)
    assert "bbb" not in sa and sa == "aaaaaaaaaaaaaaaacccccccccccccccc" == sb


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="ab中 ", max_size=80), st.text(alphabet="ab中 ", max_size=80), st.integers(2, 8))
def test_skeleton_same_in_both(impl: ModuleType, a: str, b: str, window: int) -> None:
    assert impl.skeleton(a, b, window) == _lcs_py.skeleton(a, b, window)
    assert impl.normalize(a) == _lcs_py.normalize(a)


# --- TLCS verdicts ----------------------------------------------------------------------------


def both(impl: ModuleType, a: str, b: str, config: VerifyConfig = WEB) -> tuple:
    result = impl.verify(a, b, config)
    assert result == _lcs_py.verify(a, b, config)
    swapped = impl.verify(b, a, config)
    assert swapped[:5] == result[:5] and swapped[5] == result[6] and swapped[6] == result[5]
    return result


def test_shared_template_different_articles_not_similar(impl: ModuleType) -> None:
    head, foot = template(1), template(2)
    a = head + article(10, 1000) + foot
    b = head + article(11, 1000) + foot
    # The template alone is ~1000 of ~2000 characters: the skeleton cannot reject the pair,
    # the TLCS must (the template sits at the ends, away from the heavy central blocks).
    # Each block is 25 % of the page, more than the guard's edge zone (15 %): in the default
    # (iterative) mode the blocks anchored at the start and at the end of both texts are what
    # keeps them out.
    for config in (WEB, WEB.replace(iterative=False)):
        similar, resemble, contain, tlcs, lcs, *_, reason = both(impl, a, b, config)
        assert reason is None and lcs >= 1000
        assert not similar and tlcs <= 520


def test_same_article_different_templates_similar(impl: ModuleType) -> None:
    body = article(20, 3000)
    a = template(3) + body + template(4)
    b = template(5) + near_copy(body, 1) + template(6)
    similar, resemble, contain, tlcs, _, spans_a, spans_b, reason = both(impl, a, b)
    assert similar and reason is None
    assert tlcs > 0.9 * len(body)
    (sa, ea), (_sb, _eb) = spans_a[0], spans_b[0]
    assert abs(sa - 500) < 20 and abs(ea - (500 + len(body))) < 20  # the article, not the template
    assert a[sa:sa + 20] in b


def test_contained_article_similar_by_contain(impl: ModuleType) -> None:
    body = article(30, 1500)
    page = article(31, 2500) + "\n" + body + "\n" + article(32, 2500)
    similar, resemble, contain, tlcs, *_ = both(impl, body, page)
    assert similar and contain >= 0.95 and resemble < 0.28


def test_reordered_paragraphs_need_iterative(impl: ModuleType) -> None:
    paragraphs = [article(40 + i, 300) for i in range(4)]
    a = "\n".join(paragraphs)
    b = "\n".join(reversed(paragraphs))
    # The paper's theta keeps each moved paragraph a region of its own (a wider one lets a
    # region reach into its neighbour and lose part of it to the next iteration's cut).
    paper = WEB.replace(theta=0.10)
    plain = both(impl, a, b, paper.replace(iterative=False))
    iterative = both(impl, a, b, paper.replace(edge_zone=0.0, min_extra_ratio=0.0))
    assert not plain[0]
    assert iterative[0] and iterative[1] > 0.8 and len(iterative[5]) == 4
    assert iterative[3] > 3 * plain[3]


def test_spans_refer_to_original_text() -> None:
    body = article(50, 1200)
    a = "  \n\t" + body.replace("\n", "\n\n   ")
    b = "header text\n" + body
    v = compare(a, b)
    assert v.similar and v.a_span is not None and v.b_span is not None
    assert a[v.a_span[0]:v.a_span[0] + 30].split() == b[v.b_span[0]:v.b_span[0] + 30].split()[: len(a[v.a_span[0]:v.a_span[0] + 30].split())]


def test_compare_returns_a_verdict() -> None:
    body = article(60, 1200)
    v = compare(body, body)
    assert isinstance(v, Verdict) and v.similar and v.resemble == 1.0 and v.contain == 1.0
    assert v.as_dict() == {
        "similar": True, "resemble": 1.0, "contain": 1.0, "tlcs": v.tlcs, "reason": "exact",
        "word_resemble": 1.0, "core_resemble": 1.0, "word_contain": 1.0,
    }


def test_early_rejection_from_skeleton() -> None:
    a, b = article(70, 3000), article(71, 3000)
    v = compare(a, b, VerifyConfig(decision="tlcs"))
    assert not v.similar and v.reason == "skeleton-bound" and v.rejected_early and v.tlcs == 0
    assert v.bound and v.word_resemble is None
    # The content decision rejects it from a bound as well, and reports that bound.
    v = compare(a, b)
    assert not v.similar and v.rejected_early and v.tlcs == 0 and v.bound
    assert v.reason in ("skeleton-bound", "edit-distance-bound")
    assert v.word_resemble is not None and 0.0 < v.word_resemble < WEB.min_word_resemble


def test_short_profile_microblogs() -> None:
    post = "今天北京下雪了，故宫的红墙白雪真是太美了，推荐大家周末去看看！#北京# #故宫#"
    repost = "转发：今天北京下雪了，故宫的红墙白雪真是太美了，推荐大家周末去看看！"
    short = VerifyConfig.profile("short")
    assert compare(post, repost, short).similar
    assert not compare(post, "上海今天晴，外滩的夜景依旧迷人，适合散步。", short).similar


def test_default_is_iterative_with_template_guard() -> None:
    assert WEB.iterative and WEB.edge_zone > 0 and WEB.min_extra_ratio > 0


def test_reordered_paragraphs_similar_by_default(impl: ModuleType) -> None:
    # Same article on two sites, paragraphs moved: one region cannot hold it, several do.
    paragraphs = [article(60 + i, 400) for i in range(5)]
    a = template(61) + "\n" + "\n".join(paragraphs) + "\n" + template(62)
    moved = [paragraphs[2], paragraphs[0], paragraphs[4], paragraphs[1], paragraphs[3]]
    b = template(63) + "\n" + "\n".join(moved) + "\n" + template(64)
    assert not both(impl, a, b, WEB.replace(iterative=False))[0]
    similar, resemble, contain, tlcs, _, spans_a, _, reason = both(impl, a, b)
    assert similar and reason is None and len(spans_a) >= 3
    assert tlcs > 0.8 * sum(map(len, paragraphs))


def test_shared_head_tail_and_middle_template_not_similar(impl: ModuleType) -> None:
    # Two product pages of one shop: the same head, tail and a middle block (delivery terms),
    # different descriptions. Unguarded, the template blocks add up as extra regions.
    head, foot, middle = template(70, 200), template(71, 200), template(72, 350)
    a = head + article(73, 450) + middle + article(74, 450) + foot
    b = head + article(75, 450) + middle + article(76, 450) + foot
    unguarded = both(impl, a, b, WEB.replace(edge_zone=0.0, min_extra_ratio=0.0))
    assert unguarded[0] and len(unguarded[5]) >= 3  # what the guard is for
    similar, resemble, contain, tlcs, *_ = both(impl, a, b)
    assert not similar and resemble < 0.2 and tlcs <= 370


def test_guard_keeps_middle_paragraphs_at_page_ends(impl: ModuleType) -> None:
    # A region reaching out of the edge zone is content, not template, even if it starts at 0.
    paragraphs = [article(80 + i, 500) for i in range(3)]
    a = "\n".join(paragraphs)
    b = "\n".join([paragraphs[0], paragraphs[2], paragraphs[1]])
    similar, resemble, *_ , spans_a, _, _ = both(impl, a, b)
    assert similar and resemble > 0.8 and len(spans_a) >= 2
