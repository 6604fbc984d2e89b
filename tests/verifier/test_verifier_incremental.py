"""The iterative TLCS's shortcuts give what the computation from scratch gives.

``verify`` keeps each text's window hashes from one iteration to the next (only the windows
across a cut are hashed again) and skips an iteration whose skeleton is shorter than
``min_iteration_tlcs``; the compiled twin also reuses its work arrays from call to call. Here
both implementations are compared with :func:`full_verify`, the iterative TLCS written
plainly: every skeleton from scratch, every iteration run.
"""

from __future__ import annotations

import math
import random
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.verifier import _lcs_py
from neardup.verifier.config import VerifyConfig

WEB = VerifyConfig()

WORDS = (
    "the of and to in is that for it as was with be by on not he this are or his from at which "
    "but have an they one you were her all she there would their we him been has when who will"
).split()
HANZI = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说"


def full_verify(a: str, b: str, config: VerifyConfig) -> tuple:
    """The reference ``verify`` without shortcuts (same result tuple)."""
    ref = _lcs_py
    a_norm, a_off = ref.normalize(a)
    b_norm, b_off = ref.normalize(b)
    na, nb = len(a_norm), len(b_norm)
    if na == 0 or nb == 0:
        return False, 0.0, 0.0, 0, 0, [], [], "empty"
    if nb > na or (nb == na and b_norm < a_norm):
        a_norm, b_norm, a_off, b_off, na, nb = b_norm, a_norm, b_off, a_off, nb, na
        swapped = True
    else:
        swapped = False
    sa, _, sb, _ = ref.skeleton(a_norm, b_norm, config.window)
    upper = min(len(sa), len(sb))
    bound = (upper / (na + nb - upper), upper / nb)
    if bound[0] < config.resemble and bound[1] < config.contain:
        return False, *bound, 0, 0, [], [], "skeleton"
    if config.iterative:
        max_d = config.max_d
    else:
        need = min(config.resemble * (na + nb) / (1.0 + config.resemble), config.contain * nb)
        max_d = min(config.max_d, math.floor(len(sa) + len(sb) - 2.0 * need))
        if max_d < 0:
            return False, *bound, 0, 0, [], [], "edit_distance"
    cur_a, map_a, cur_b, map_b = a_norm, list(range(na)), b_norm, list(range(nb))
    total = first_tlcs = first_lcs = 0
    first_anchored = False
    spans_a: list = []
    spans_b: list = []
    for it in range(config.max_iterations if config.iterative else 1):
        skel = ref.skeleton(cur_a, cur_b, config.window)
        found = ref._tlcs_once(cur_a, cur_b, skel, config, max_d)
        if isinstance(found, str):
            if it == 0:
                return False, *bound, 0, 0, [], [], found
            break
        tlcs, lcs, (xl, xr), (as_, ae), (bs, be) = found
        if it == 0:
            first_lcs = lcs
        if tlcs == 0 or (it > 0 and tlcs < config.min_iteration_tlcs):
            break
        span = (map_a[as_], map_a[ae - 1] + 1, na, map_b[bs], map_b[be - 1] + 1, nb)
        if it == 0:
            first_tlcs = tlcs
            first_anchored = ref._anchored(*span, config.window)
        header_footer = first_anchored and (lcs - tlcs) < ref.COMMON_REST * (len(cur_a) - (xr - xl))
        if it == 0 or ref._extra_region_counts(tlcs, first_tlcs, *span, config, header_footer):
            total += tlcs
            spans_a.append((a_off[span[0]], a_off[span[1] - 1] + 1))
            spans_b.append((b_off[span[3]], b_off[span[4] - 1] + 1))
        if tlcs < config.min_iteration_tlcs:
            break
        cur_a, map_a = cur_a[:xl] + cur_a[xr:], map_a[:xl] + map_a[xr:]
        cur_b, map_b = cur_b[:bs] + cur_b[be:], map_b[:bs] + map_b[be:]
        if not cur_a or not cur_b:
            break
    resemble = total / (na + nb - total)
    contain = total / nb
    similar = resemble >= config.resemble or contain >= config.contain
    if swapped:
        spans_a, spans_b = spans_b, spans_a
    return similar, resemble, contain, total, first_lcs, spans_a, spans_b, None


def paragraph(rnd: random.Random, size: int) -> str:
    out: list[str] = []
    while sum(map(len, out)) < size:
        if rnd.random() < 0.5:
            out.append("".join(rnd.choice(HANZI) for _ in range(rnd.randint(8, 30))) + "。")
        else:
            out.append(" ".join(rnd.choice(WORDS) for _ in range(rnd.randint(4, 14))) + ". ")
    return "".join(out)


def edit(rnd: random.Random, text: str, rate: float) -> str:
    chars = list(text)
    for _ in range(int(len(chars) * rate)):
        i = rnd.randrange(len(chars) + 1)
        chars[i : i + rnd.randint(0, 3)] = rnd.choice(["的", "x", "", "  ", "\n", "yz"])
    return "".join(chars)


@st.composite
def page_pairs(draw: st.DrawFn) -> tuple[str, str]:
    """Pages sharing shuffled, edited paragraphs (several regions), sometimes a template."""
    rnd = random.Random(draw(st.integers(0, 2**32)))
    paragraphs = [paragraph(rnd, rnd.randint(40, 400)) for _ in range(rnd.randint(1, 6))]
    other = [edit(rnd, p, draw(st.sampled_from([0.0, 0.01, 0.05]))) for p in paragraphs]
    rnd.shuffle(other)
    for _ in range(draw(st.integers(0, 2))):
        other.insert(rnd.randrange(len(other) + 1), paragraph(rnd, rnd.randint(20, 300)))
    head = paragraph(rnd, 150) if draw(st.booleans()) else ""
    a = head + "\n".join(paragraphs) + head[::-1]
    b = head + "\n\n".join(other) + head[::-1]
    return (a, b) if draw(st.booleans()) else (b, a)


CONFIGS = [
    WEB,
    WEB.replace(theta=0.10),
    WEB.replace(edge_zone=0.0, min_extra_ratio=0.0, min_iteration_tlcs=16),
    WEB.replace(theta=0.10, edge_zone=0.0, min_extra_ratio=0.0, min_iteration_tlcs=16),
    VerifyConfig.profile("short").replace(min_iteration_tlcs=8, max_iterations=12),
    WEB.replace(window=5, min_iteration_tlcs=100, max_iterations=3),
]


@settings(max_examples=40, deadline=None)
@given(page_pairs(), st.sampled_from(CONFIGS))
def test_verify_equals_computation_from_scratch(impl: ModuleType, pair: tuple[str, str], config: VerifyConfig) -> None:
    a, b = pair
    assert impl.verify(a, b, config) == full_verify(a, b, config)


def test_many_regions_equal_from_scratch(impl: ModuleType) -> None:
    # Eight moved paragraphs and one short one: several regions, and late iterations whose
    # skeleton is too short to count.
    rnd = random.Random(7)
    paragraphs = [paragraph(rnd, 200 + 40 * i) for i in range(8)] + [paragraph(rnd, 30)]
    moved = paragraphs[::2] + paragraphs[1::2]
    a, b = "\n".join(paragraphs), "\n".join(edit(rnd, p, 0.01) for p in moved)
    for config in CONFIGS:
        result = impl.verify(a, b, config)
        assert result == full_verify(a, b, config)
    assert len(impl.verify(a, b, CONFIGS[3])[5]) >= 4


@st.composite
def cuts(draw: st.DrawFn) -> tuple[str, str, int, list[tuple[int, int, int, int]]]:
    alphabet = draw(st.sampled_from(["ab", "ab中 ", "的是了中国人民abc ", "\U0001f600ab中"]))
    a = draw(st.text(alphabet=alphabet, min_size=1, max_size=120))
    b = draw(st.one_of(st.just(a), st.text(alphabet=alphabet, min_size=1, max_size=120)))
    window = draw(st.integers(2, 10))
    out = []
    na, nb = len(a), len(b)
    for _ in range(draw(st.integers(1, 5))):
        if na < 2 or nb < 2:
            break
        xl = draw(st.integers(0, na - 1))
        xr = draw(st.integers(xl + 1, na))
        bs = draw(st.integers(0, nb - 1))
        be = draw(st.integers(bs + 1, nb))
        if xr - xl == na or be - bs == nb:
            break
        out.append((xl, xr, bs, be))
        na -= xr - xl
        nb -= be - bs
    return a, b, window, out


@settings(max_examples=150, deadline=None)
@given(cuts())
def test_skeletons_after_cuts_equal_from_scratch(impl: ModuleType, case: tuple) -> None:
    a, b, window, cut_list = case
    got = impl._skeletons_after(a, b, window, cut_list)
    assert len(got) == len(cut_list)
    for (xl, xr, bs, be), skel in zip(cut_list, got, strict=True):
        a, b = a[:xl] + a[xr:], b[:bs] + b[be:]
        assert skel == _lcs_py.skeleton(a, b, window)


def test_cut_out_of_range(impl: ModuleType) -> None:
    with pytest.raises(ValueError, match="cut"):
        impl._skeletons_after("abcdef", "abcdef", 4, [(2, 9, 0, 1)])


def test_workspace_reuse_across_sizes_and_reentry(impl: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    rnd = random.Random(3)
    big = "\n".join(paragraph(rnd, 400) for _ in range(12))
    pairs = [
        (big, edit(rnd, big, 0.02)),
        ("short text 短文本", "short text 短文本!"),
        (big[:900], big[300:1500]),
        ("", "x"),
        (big, edit(rnd, big, 0.02)),
    ]
    expected = [full_verify(a, b, WEB) for a, b in pairs]
    assert [impl.verify(a, b, WEB) for a, b in pairs] == expected
    assert [impl.verify(a, b, WEB) for a, b in reversed(pairs)][::-1] == expected
    if impl is _lcs_py:
        return
    a_astral, b_astral = big + "\U0001f600", edit(rnd, big, 0.02) + "\U0001f600"
    expected_outer = full_verify(a_astral, b_astral, WEB)
    # A call made while another one holds the shared work arrays (here from inside it: the
    # width of a code point outside the BMP is asked of Python) gets arrays of its own.
    inner: list[tuple] = []
    real_width = impl._char_width

    def width_and_reenter(ch: str) -> int:
        inner.append(impl.verify(pairs[2][0], pairs[2][1], WEB))
        return real_width(ch)

    monkeypatch.setattr(impl, "_char_width", width_and_reenter)
    outer = impl.verify(a_astral, b_astral, WEB)
    monkeypatch.undo()
    assert inner and all(r == expected[2] for r in inner)
    assert outer == expected_outer and outer[0] is True
    assert impl.verify(pairs[0][0], pairs[0][1], WEB) == expected[0]
