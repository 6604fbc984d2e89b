"""The template guard's rule (c) on a real pair: two translations of one manual page.

manpages-zh's mknod(1) in Simplified Chinese vs its Traditional Chinese page converted with
OpenCC ``t2s`` differ in vocabulary every few dozen characters (文件/档案, 设备/装置). The first
trustable region starts at the start of both texts, the next one ends at the end of both: the
shape of a shared header and footer, which rule (c) discards — unless most of what lies between
is common too, as here (``COMMON_REST``). The page comes from Debian's ``manpages-zh`` package
(unpacked once into ``.cache/debs`` by scripts/fetch_data.py: the ``manpages_zh`` fixture).
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from neardup.ingest.extract import to_simplified
from neardup.verifier import _lcs_py as ref
from neardup.verifier.config import VerifyConfig
from neardup.verifier.lcs import implementation

CONFIG = VerifyConfig.profile("web")


@pytest.fixture(scope="module")
def mknod(manpages_zh: Path) -> tuple[str, str]:
    root = manpages_zh / "usr/share/man"
    cn, tw = (gzip.decompress((root / lang / "man1/mknod.1.gz").read_bytes()).decode("utf-8")
              for lang in ("zh_CN", "zh_TW"))
    return to_simplified(cn), to_simplified(tw)


def test_two_copies_with_dense_edits_are_similar(mknod: tuple[str, str]) -> None:
    a, b = mknod
    verdict = ref.verify(a, b, CONFIG)
    similar, resemble, contain, tlcs, lcs, spans_a, spans_b, reason = verdict
    assert similar and reason is None
    assert len(spans_a) >= 2 and tlcs > 0.75 * lcs
    # The compiled twin computes the same.
    assert implementation("cython").verify(a, b, CONFIG) == verdict


def test_without_the_common_rest_condition_the_tail_region_is_dropped(
    mknod: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = mknod
    kept = ref.verify(a, b, CONFIG)
    monkeypatch.setattr(ref, "COMMON_REST", float("inf"))  # rule (c) whenever anchored
    dropped = ref.verify(a, b, CONFIG)
    assert not dropped[0] and dropped[3] < kept[3]
