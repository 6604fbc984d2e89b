"""neardup.ingest.fingerprint: config, determinism, bounds, near-duplicates meet, implementations agree."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.ci import require_compiled

from neardup.ingest import _fingerprint_py
from neardup.ingest import fingerprint as fp
from neardup.ingest.errors import ConfigError
from neardup.ingest.fingerprint import (
    PROFILES,
    FingerprintConfig,
    body_hash,
    fingerprints,
    index_terms,
)

_B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
_WORDS = (
    "经济 发展 改革 开放 人民 政府 会议 代表 中国 国家 工作 建设 社会 企业 市场 技术 "
    "文化 教育 农村 城市 生产 管理 服务 群众 干部 科学 环境 资源 投资 贸易"
).split()


def _article(seed: int, n: int = 60) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(_WORDS) for _ in range(rng.randint(6, 14))) for _ in range(n)]


def _join(sentences: list[str]) -> str:
    return "。".join(sentences) + "。"


def test_config_identity_and_validation() -> None:
    assert FingerprintConfig().identity == "s6-x10-y2-z50-m7-r16"
    assert fp.PAPER.identity == "s6-x10-y4-z100-m7-r16"
    assert str(PROFILES["short"]) == PROFILES["short"].identity
    assert PROFILES["short"].buckets == 5 and PROFILES["short"].max_fingerprints == 80
    for cfg in PROFILES.values():
        assert FingerprintConfig.from_identity(cfg.identity) == cfg
    for bad in ({"per_bucket": 0}, {"buckets": 0}, {"rotations": 17}, {"min_cover": -1},
                {"min_sentence": 1.5}, {"buckets": True}):  # fmt: skip
        with pytest.raises(ConfigError):
            FingerprintConfig(**bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError):  # ConfigError is a ValueError
        FingerprintConfig.from_identity("s2-x10-y4-z100-m7-r16")
    with pytest.raises(ConfigError):  # scheme 4 hashed the keys as they are
        FingerprintConfig.from_identity("s4-x10-y2-z50-m7-r16")
    with pytest.raises(dataclasses.FrozenInstanceError):
        FingerprintConfig().buckets = 3  # type: ignore[misc]


def test_deterministic_bounded_and_compact() -> None:
    text = _join(_article(1))
    a, b = fingerprints(text), fingerprints(text)
    assert a == b and len(a) == len(set(a))
    assert 0 < len(a) <= 16 * 7
    assert all(len(f) == 22 and set(f) <= set(_B64URL) for f in a)
    short = PROFILES["short"]
    assert len(fingerprints(text, short)) <= 16 * 5
    many = FingerprintConfig(per_bucket=1, min_cover=0, buckets=7)
    assert len(fingerprints(text, many)) == 112  # every bucket of every rotation filled


def test_thresholds_x_and_z_are_strict() -> None:
    cfg = FingerprintConfig(min_sentence=10, per_bucket=1, min_cover=10, buckets=1, rotations=1)
    assert fingerprints("abcdefghij.", cfg) == []  # width 10 is not > 10
    assert len(fingerprints("abcdefghijk.", cfg)) == 1  # width 11 > X and > Z
    assert fingerprints("中文中文中", cfg) == []  # width 10
    assert len(fingerprints("中文中文中文", cfg)) == 1  # width 12


def test_near_duplicates_share_unrelated_do_not() -> None:
    base = _article(2)
    rng = random.Random(3)
    edited = list(base)
    for i in rng.sample(range(len(edited)), 8):  # ~13 % of sentences edited
        edited[i] = edited[i] + "修改"
    edited = edited[5:] + _article(4, 6)  # head cut, new tail
    original, variant = set(fingerprints(_join(base))), set(fingerprints(_join(edited)))
    assert len(original & variant) >= 5
    for seed in range(10, 20):
        assert not original & set(fingerprints(_join(_article(seed))))


_NAV = (
    "Home News Weather Radar Loop Short Range Long Range Composite Reflectivity Base Rainfall "
    "Storm Total National Alaska Hawaii Guam Puerto Rico Radars by State Additional Links "
    "Credits Disclaimer Search by city or zip code Local forecast Adjacent radars"
).split()


def _run(seed: int, n: int) -> str:
    """A long run of words with no sentence punctuation (navigation-like page text)."""
    rng = random.Random(seed)
    return " ".join(rng.choice(_NAV) for _ in range(n))


def test_long_runs_are_cut_at_content_defined_points() -> None:
    key = "".join(_run(1, 400).split()).lower()
    pieces = fp.chunk_key(key)
    assert len(pieces) > 10 and "".join(p for p, _ in pieces) == key
    assert all(fp.CHUNK_MIN <= w <= fp.CHUNK_MAX + fp.CHUNK_MIN for _, w in pieces)
    assert fp.chunk_key(key[: fp.CHUNK_ABOVE]) == [(key[: fp.CHUNK_ABOVE], fp.CHUNK_ABOVE)]
    edited = key[:1000] + "changed" + key[1000:]  # one insertion in the middle
    before, after = {p for p, _ in pieces}, {p for p, _ in fp.chunk_key(edited)}
    assert len(before - after) <= 2  # the cuts resynchronise right after the edit
    assert sum(w for _, w in fp.chunk_key("中文" * 400)) == 1600


def test_pages_without_punctuation_share_fingerprints_despite_scattered_edits() -> None:
    # Two versions of a page whose text has (almost) no sentence punctuation: one run of 300
    # words with an edit near the start, one in the middle and one near the end. As whole
    # sentences nothing is shared; cut at content-defined points most of the text is.
    words = _run(7, 300).split()
    a, b = list(words), list(words)
    for i in (5, 150, 290):
        b[i] = "Edited" + b[i]
    fa, fb = set(fingerprints(" ".join(a))), set(fingerprints(" ".join(b)))
    assert len(fa) > 20 and len(fa & fb) >= 5
    assert not fa & set(fingerprints(_run(8, 300)))


def test_spelling_variants_and_vowel_typos_share_fingerprints() -> None:
    # The en and en_GB pages of one manual differ in nearly every sentence by a spelling
    # variant; their keys' spelling forms are equal, so are their terms.
    us = (
        "Fill the selection with the background color. The color is a solid color. "
        "The program centers the organized catalog of gray shades. "
        "She traveled to the theater to analyze the program. "
    ) * 3 + "Those labeled layers are modeled on the defense of the center."
    gb = (
        "Fill the selection with the background colour. The colour is a solid colour. "
        "The programme centres the organised catalogue of grey shades. "
        "She travelled to the theatre to analyse the programme. "
    ) * 3 + "Those labelled layers are modelled on the defense of the centre."
    cfg = FingerprintConfig(per_bucket=1, min_cover=10)
    assert fingerprints(us, cfg) == fingerprints(gb, cfg) != []
    assert body_hash("A gray color.") == body_hash("A grey colour.")
    # a vowel typo does not change a term, a consonant does, and so do digits
    assert fingerprints(us.replace("solid", "soled"), cfg) == fingerprints(us, cfg)
    assert fingerprints(us.replace("solid", "sored"), cfg) != fingerprints(us, cfg)
    assert body_hash("Version 1.10 of the tool.") != body_hash("Version 1.1 of the tool.")


def test_whitespace_and_width_forms_do_not_matter() -> None:
    text = _join(_article(5))
    assert fingerprints(text) == fingerprints("  " + text.replace("。", "！\n\u3000 "))


def test_zero_fingerprint_rule() -> None:
    short = "这是一条很短的消息。"
    assert fingerprints(short) == []
    assert index_terms(short) == [body_hash(short)]
    assert body_hash(short).startswith("b:") and body_hash(short) == body_hash(
        " 这是一条很短的消息。 "
    )
    long_text = _join(_article(6))
    assert index_terms(long_text) == fingerprints(long_text)


def test_body_hash_is_on_sentence_keys() -> None:
    one = "The functions in this chapter perform various utility tasks."
    # markup, punctuation and a short label next to the sentence do not matter ...
    assert body_hash(one) == body_hash(
        "Note\n\nThe *functions* in this chapter perform various utility tasks"
    )
    # ... a different word does, and so does a label when there is no longer sentence
    assert body_hash(one) != body_hash(one.replace("various", "several"))
    assert body_hash("Note") != body_hash("Notes") and body_hash("Note") == body_hash("note!")
    assert body_hash("!!! ...") != body_hash("???")  # no letters: the normalised text


def test_index_terms_fingerprint_the_content() -> None:
    page = _join(_article(7))
    template = _join(_article(8, 20))
    with_template = template + "\n\n" + page
    assert index_terms(with_template, content=page) == fingerprints(page)
    assert index_terms(with_template) == fingerprints(with_template) != fingerprints(page)
    # a Chinese article is no short page (each character a word): no name term
    assert fp.name_term(with_template) is None
    short = "Customize\n\nOpens the Customize dialog, where you change the menus and keys."
    assert fp.name_term(short) is not None and index_terms(short)[-1] == fp.name_term(short)
    # no fingerprint: the exact-copy term is the content's, too
    assert index_terms(with_template, content="短文。") == [body_hash("短文。")]


def test_raw_and_normalised_text_give_the_same_terms() -> None:
    # index_terms does not normalise the whole text: breaks and keys are per character.
    from neardup.ingest.sentences import normalize_text

    text = "  Ｆｕｌｌ ｗｉｄｔｈ！\r\n\n" + _join(_article(9)) + " wrapped\nline. Café 1998年。\t"
    for cfg in (PROFILES["web"], fp.PAPER, FingerprintConfig(per_bucket=1, min_cover=0)):
        assert fingerprints(text, cfg) == fingerprints(normalize_text(text), cfg)


try:  # the compiled twin itself, whatever NEARDUP_IMPL chose for the module
    from neardup.ingest import _fingerprint as _compiled
except ImportError:  # pragma: no cover - the build is part of set-up
    _compiled = None
needs_cython = pytest.mark.compiled("neardup.ingest._fingerprint")
_CONFIGS = [
    PROFILES["web"], PROFILES["short"], FingerprintConfig(per_bucket=1, min_cover=0), fp.PAPER,
    FingerprintConfig(per_bucket=2, min_cover=50), FingerprintConfig(buckets=3, rotations=5),
    FingerprintConfig(buckets=1000, per_bucket=2), FingerprintConfig(min_sentence=0, buckets=1),
]  # fmt: skip


def _both(text: str, cfg: FingerprintConfig, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.setattr(fp, "_impl", _fingerprint_py)
    ref = fingerprints(text, cfg)
    monkeypatch.setattr(fp, "_impl", _compiled)
    assert fingerprints(text, cfg) == ref, repr(text[:200])
    return ref


@needs_cython
@pytest.mark.parametrize("cfg", _CONFIGS)
def test_cython_and_reference_agree(
    cfg: FingerprintConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    for seed in range(20):
        rng = random.Random(seed)
        _both(_join(_article(seed, rng.randint(1, 120))), cfg, monkeypatch)
    rst = "Use ``os.path.join()`` to\njoin *paths*.  Dr. Smith paid 3.14 in the U.S. e.g. this.\n\n"
    _both(
        rst * 30 + "Ｆｕｌｌ ｗｉｄｔｈ！ ＳＴＲＡẞＥ ﬁne 𠀀𠀁𠀂 한국어 문장입니다。" * 20,
        cfg,
        monkeypatch,
    )


@needs_cython
@settings(max_examples=300, deadline=None)
@given(
    st.text(
        st.sampled_from(list("ab Cd.。！？;…,\n \t中文字Ｅ．１２3ßİǅ\u0301\u200b”)𠀀😀한zsSyY")),
        max_size=400,
    ),
    st.sampled_from(_CONFIGS[2:]),
)
def test_cython_and_reference_agree_on_generated_text(text: str, cfg: FingerprintConfig) -> None:
    with pytest.MonkeyPatch.context() as mp:
        _both(text, cfg, mp)


@needs_cython
@settings(max_examples=200, deadline=None)
@given(
    st.text(st.sampled_from(list("ab Cd中文字ßİǅ\u0301\u200b𠀀😀한\n")), min_size=300, max_size=2000),
    st.sampled_from(_CONFIGS),
)
def test_cython_and_reference_agree_on_long_runs(text: str, cfg: FingerprintConfig) -> None:
    # no sentence punctuation: keys wider than CHUNK_ABOVE, cut into chunks
    with pytest.MonkeyPatch.context() as mp:
        _both(text, cfg, mp)


@needs_cython
@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300), st.sampled_from(_CONFIGS[2:]))
def test_cython_and_reference_agree_on_any_text(text: str, cfg: FingerprintConfig) -> None:
    with pytest.MonkeyPatch.context() as mp:
        _both(text, cfg, mp)


@needs_cython
@pytest.mark.parametrize("m", [1, 2, 3, 5, 7, 17, 51, 255, 256, 1024])
def test_cython_and_reference_agree_on_buckets_and_long_keys(
    m: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every bucket count (the compiled path carries each digest's residue from one rotation to
    # the next), one-byte and several-byte keys, and sentences longer than the key buffer's
    # first allocation, in texts of each string kind (Latin-1, BMP, astral).
    rng = random.Random(m)
    words = ["alpha", "Beta", "ﬁne", "straße", "中文字", "한국어", "é\u0301", "𠀀x", "3.14", "U.S."]
    words += ["Zzz", "mississippi"]  # spelling forms: z, runs of one consonant
    for tail in ("", "ÿ", "€", "😀"):
        sentences = [
            " ".join(
                rng.choice(words[: 4 if tail in "ÿ" else 12]) for _ in range(rng.randint(1, 900))
            )
            for _ in range(40)
        ]
        text = ". ".join(sentences) + tail
        for cfg in (
            FingerprintConfig(buckets=m, per_bucket=2, min_cover=50),
            FingerprintConfig(buckets=m),
        ):
            _both(text, cfg, monkeypatch)


@needs_cython
def test_c_md5_is_md5() -> None:
    rng = random.Random(1)
    for n in [*range(130), 1000, 4097]:
        data = rng.randbytes(n)
        assert _compiled is not None
        assert _compiled.md5(data) == _fingerprint_py.md5(data) == hashlib.md5(data).digest(), n


@pytest.mark.parametrize("impl", ["python", "cython"])
def test_neardup_impl_chooses_the_fingerprinter(impl: str) -> None:
    """One setting for every twin (neardup.verifier.implementation): ``NEARDUP_IMPL``."""
    if impl == "cython":
        require_compiled("neardup.ingest._fingerprint")
    code = "import neardup.ingest.fingerprint as f; print(f.fingerprint_impl())"
    env = {**os.environ, "NEARDUP_IMPL": impl}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == impl, out.stderr


def test_the_compiled_tables_come_from_a_cache_equal_to_a_fresh_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The per-code-point tables are read from a per-user cache file when one exists; what is
    read equals a build from the reference functions, and a damaged file is built again."""
    compiled = require_compiled("neardup.ingest._fingerprint")
    monkeypatch.setenv("NEARDUP_CACHE_DIR", str(tmp_path))
    built = compiled._cached_tables()  # nothing cached: built and saved
    (saved,) = list(tmp_path.iterdir())
    assert compiled._cached_tables() == built == compiled._build_all()
    assert built == compiled._tables()  # the tables in use (loaded at first use, not import)
    saved.write_bytes(saved.read_bytes()[:1000])  # a truncated file
    assert compiled._cached_tables() == built
    damaged = bytearray(saved.read_bytes())
    damaged[-1] ^= 1  # one bit of the key blob
    saved.write_bytes(bytes(damaged))
    assert compiled._cached_tables() == built
